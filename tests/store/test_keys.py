"""Every Redis key and channel, named in server/store/keys.py: the names pinned (a
renamed key is a running deployment's data left behind), each group's keys in one
cluster slot (redis-py's ``key_slot``), and no other module of server/ spelling a key."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from redis.crc import key_slot

from server.store import keys

SERVER = Path(__file__).resolve().parents[2] / "server"

GAME = "g1"
USER = "Ana_7"  # a username as typed: an account's keys hold it in lowercase
ADDRESS = "203.0.113.9"
SESSION = "s3cret"
POOL = "classic-5+3-rated"
PLAYER = "ana_7"
VARIANT = "classic"

# Each name of keys.__all__ (but ``game_of``, which reads names) and what it gives.
PINNED: dict[str, tuple[tuple[Any, ...], object]] = {
    # One game.
    "events_key": ((GAME,), "game:{g1}:events"),
    "commands_key": ((GAME,), "game:{g1}:commands"),
    "meta_key": ((GAME,), "game:{g1}:meta"),
    "archive_key": ((GAME,), "game:{g1}:archive"),
    "seats_key": ((GAME,), "game:{g1}:seats"),
    "presence_key": ((GAME,), "game:{g1}:presence"),
    "analysis_key": ((GAME,), "game:{g1}:analysis"),
    "probe_key": ((GAME,), "game:{g1}:probe"),
    "chat_key": ((GAME, "spectators"), "game:{g1}:chat:spectators"),
    # Indexes shared by every game.
    "LOBBY_OPEN_KEY": ((), "{lobby}:open"),
    "LOBBY_LIVE_KEY": ((), "{lobby}:live"),
    "LOBBY_FINISHED_KEY": ((), "{lobby}:finished"),
    "LOBBY_ABORTED_KEY": ((), "{lobby}:aborted"),
    "LOBBY_GAMES_KEY": ((), "{lobby}:games"),
    "LOBBY_VERSIONS_KEY": ((), "{lobby}:versions"),
    "LOBBY_BUILT_KEY": ((), "{lobby}:built"),
    "LOBBY_REBUILDING_KEY": ((), "{lobby}:rebuilding"),
    "LOBBY_QUIET_KEY": ((), "{lobby}:quiet"),
    "LOBBY_SWEEP_KEY": ((), "{lobby}:sweep"),
    "DEADLINES_KEY": ((), "{clock}:deadlines"),
    "DEADLINE_VERSIONS_KEY": ((), "{clock}:versions"),
    "ARCHIVE_DUE_KEY": ((), "{archive}:due"),
    "ANALYSIS_DUE_KEY": ((), "{analysis}:due"),
    "ANALYSIS_ASKED_KEY": ((), "{analysis}:asked"),
    "ANALYSIS_WORKERS_KEY": ((), "{analysis}:workers"),
    "ANALYSIS_STATS_KEY": ((), "{analysis}:stats"),
    "ANALYSIS_RECENT_KEY": ((), "{analysis}:recent"),
    "MAIL_OUTBOX_KEY": ((), "{mail}:outbox"),
    "MAIL_MESSAGES_KEY": ((), "{mail}:messages"),
    "MAIL_STATES_KEY": ((), "{mail}:states"),
    "MAIL_CLAIMED_KEY": ((), "{mail}:claimed"),
    "MAIL_DONE_KEY": ((), "{mail}:done"),
    "MAIL_NOTICES_KEY": ((), "{mail}:notices"),
    "MAIL_SECRET_KEY": ((), "{mail}:secret"),
    "mail_once_key": (("move:g1:0:5",), "{mail}:once:move:g1:0:5"),
    "mail_hour_key": ((USER,), "{mail}:hour:ana_7"),
    "account_email_key": ((USER,), "{accounts}:ana_7:email"),
    "BOT_GAMES_KEY": ((), "bots:games"),
    "PRESENCE_SERVERS_KEY": ((), "presence:servers"),
    "PRESENCE_PLAYING_KEY": ((), "presence:playing"),
    # Accounts.
    "account_key": ((USER,), "{accounts}:ana_7"),
    "sessions_key": ((USER,), "{accounts}:ana_7:sessions"),
    "login_keys": (
        (USER, ADDRESS),
        ["{accounts}:ana_7:logins", "{accounts}:ana_7:logins:203.0.113.9"],
    ),
    "account_seats_key": ((USER,), "{accounts}:ana_7:seats"),
    "address_logins_key": ((ADDRESS,), "logins:{203.0.113.9}"),
    "session_key": (
        (SESSION,),
        "session:1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f99fcba0",
    ),
    # Quick pairing.
    "pool_keys": (
        (POOL,),
        (
            "pair:{classic-5+3-rated}:queue",
            "pair:{classic-5+3-rated}:entries",
            "pair:{classic-5+3-rated}:seen",
        ),
    ),
    "paired_key": ((POOL, "e1"), "pair:{classic-5+3-rated}:paired:e1"),
    "pool_lock_key": ((POOL,), "pair:{classic-5+3-rated}:lock"),
    "account_wait_key": ((USER,), "pair:account:{ana_7}"),
    # Players' profiles.
    "player_games_key": ((PLAYER,), "player:{ana_7}:games"),
    "player_seats_key": ((PLAYER,), "player:{ana_7}:seats"),
    "player_summaries_key": ((PLAYER,), "player:{ana_7}:summaries"),
    "player_record_key": ((PLAYER,), "player:{ana_7}:record"),
    "player_tournaments_key": ((PLAYER,), "player:{ana_7}:tournaments"),
    # Tournaments.
    "tournament_events_key": (("t1",), "tournament:{t1}:events"),
    "tournament_meta_key": (("t1",), "tournament:{t1}:meta"),
    "tournament_lease_key": (("t1",), "tournament:{t1}:lease"),
    "TOURNAMENTS_OPEN_KEY": ((), "{tournaments}:open"),
    "TOURNAMENTS_FINISHED_KEY": ((), "{tournaments}:finished"),
    "TOURNAMENTS_DUE_KEY": ((), "{tournaments}:due"),
    "tournaments_created_key": ((USER,), "tournaments:creator:{ana_7}:made"),
    "tournaments_open_of_key": ((USER,), "tournaments:creator:{ana_7}:open"),
    # Ratings.
    "ratings_counted_key": ((VARIANT,), "{ratings:classic}:counted"),
    "ratings_uncounted_key": ((VARIANT,), "{ratings:classic}:uncounted"),
    "ratings_changes_key": ((VARIANT,), "{ratings:classic}:changes"),
    "ratings_skills_key": ((VARIANT,), "{ratings:classic}:skills"),
    "ratings_board_key": ((VARIANT,), "{ratings:classic}:board"),
    "ratings_names_key": ((VARIANT,), "{ratings:classic}:names"),
    "ratings_pairs_key": ((VARIANT,), "{ratings:classic}:pairs"),
    "ratings_history_key": ((VARIANT, PLAYER), "{ratings:classic}:history:ana_7"),
    "ratings_opponents_key": ((VARIANT, PLAYER), "{ratings:classic}:opponents:ana_7"),
    # Channels, and what is said on a game's.
    "signals_channel": ((GAME,), "game:{g1}:signals"),
    "keyspace_channel": ((0, GAME), "__keyspace@0__:game:{g1}:events"),
    "PRESENCE_SIGNAL": ((), b"p"),
    "ARCHIVED_SIGNAL": ((), b"a"),
    "REMATCH_SIGNAL_PREFIX": ((), b"r"),
    "REMATCH_ANSWERS": ((), ("accepted", "declined")),
    "MOST_SEATS": ((), 4),
    "rematch_answer_field": ((2,), "answer:2"),
    "SEAT_SIGNAL_PREFIX": ((), b"k"),
    "rematch_signal": (("r2",), b"rr2"),
    "seat_signal": ((3,), b"k3"),
    "CHAT_SIGNAL_PREFIX": ((), b"c"),
    "chat_signal": (("players", "m1", b'{"type":"chat"}'), b'cpm1 {"type":"chat"}'),
}

# What each key's name starts with up to its hash tag, or its whole name when it has
# none: no string of another server module may hold one.
# A hash tag counts with its colon: a sentence may well name a "{clock}" placeholder.
STEMS = (
    "game:{",
    "{lobby}:",
    "{clock}:",
    "{archive}:",
    "{analysis}:",
    "{mail}:",
    "bots:games",
    "presence:servers",
    "presence:playing",
    "{accounts}:",
    "logins:{",
    "session:",
    "pair:{",
    "pair:account:{",
    "player:{",
    "{ratings:",
    "tournament:{",
    "{tournaments}:",
    "tournaments:creator:{",
    "__keyspace@",
)


def named(name: str) -> object:
    """What ``keys.<name>`` gives for its pinned arguments."""
    value = getattr(keys, name)
    args, _ = PINNED[name]
    return value(*args) if callable(value) else value


def game_key_makers() -> dict[str, Callable[[str], str]]:
    """Every function of keys.py that names something of one game from its id alone."""
    return {
        name: value
        for name in keys.__all__
        if callable(value := getattr(keys, name))
        and list(inspect.signature(value).parameters) == ["game_id"]
    }


def test_every_key_and_channel_keeps_its_name() -> None:
    """Each name keys.py exports gives exactly its pinned key, channel or message, and none is left unpinned."""
    assert sorted(PINNED) == sorted(set(keys.__all__) - {"game_of"})
    for name, (_, expected) in PINNED.items():
        assert named(name) == expected, name


def test_every_key_of_one_game_is_in_the_games_slot() -> None:
    """Each key and channel of a game hashes to the slot of its id's tag, whatever the id."""
    makers = game_key_makers()
    assert sorted(makers) == [
        "analysis_key",
        "archive_key",
        "commands_key",
        "events_key",
        "meta_key",
        "presence_key",
        "probe_key",
        "seats_key",
        "signals_channel",
    ]
    for game_id in ("g1", "q7xkm2pa9c", "A-b_9", "x" * 64):
        slots = {key_slot(make(game_id).encode()) for make in makers.values()}
        assert slots == {key_slot(f"{{{game_id}}}".encode())}, game_id


def test_a_games_chat_rooms_are_in_the_games_slot() -> None:
    """Both chat rooms of a game hash to the slot of the game's tag, beside its log."""
    for game_id in ("g1", "q7xkm2pa9c", "x" * 64):
        slots = {
            key_slot(keys.chat_key(game_id, room).encode()) for room in ("players", "spectators")
        }
        assert slots == {key_slot(keys.events_key(game_id).encode())}, game_id
        assert keys.game_of(keys.chat_key(game_id, "players")) == game_id


def test_each_scripts_keys_share_one_slot() -> None:
    """The keys one script touches together share a slot: the lobby's, the clocks', an account's, the e-mail's, a pool's, a player's, a variant's ratings, a tournament's, the tournaments' indexes, a creator's."""
    groups = [
        [named(n) for n in PINNED if n.startswith("LOBBY_")],
        [keys.DEADLINES_KEY, keys.DEADLINE_VERSIONS_KEY],
        [
            keys.account_key(USER),
            keys.sessions_key(USER),
            *keys.login_keys(USER, ADDRESS),
            keys.account_seats_key(USER),
            keys.account_email_key(USER),
        ],
        [
            *(named(n) for n in PINNED if n.startswith("MAIL_")),
            keys.mail_once_key("move:g1:0:5"),
            keys.mail_hour_key(USER),
        ],
        [*keys.pool_keys(POOL), keys.paired_key(POOL, "e1"), keys.pool_lock_key(POOL)],
        [named(n) for n in PINNED if n.startswith("player_")],
        [named(n) for n in PINNED if n.startswith("ratings_")],
        [named(n) for n in PINNED if n.startswith("tournament_")],
        [named(n) for n in PINNED if n.startswith("TOURNAMENTS_")],
        [keys.tournaments_created_key(USER), keys.tournaments_open_of_key(USER)],
    ]
    for group in groups:
        assert len(group) > 1
        assert len({key_slot(str(k).encode()) for k in group}) == 1, group


def test_an_id_that_would_break_the_games_tag_is_refused() -> None:
    """A game id that is empty or holds a brace names no key of a game."""
    for make in [*game_key_makers().values(), lambda g: keys.keyspace_channel(0, g)]:
        for bad in ("", "a{b", "a}b"):
            with pytest.raises(ValueError):
                make(bad)


def test_a_games_id_is_read_back_from_its_keys_and_channels() -> None:
    """``game_of`` finds the game in any of its keys and channels, and finds nothing in another name."""
    for make in game_key_makers().values():
        assert keys.game_of(make("q7xkm2pa9c")) == "q7xkm2pa9c"
    assert keys.game_of(keys.keyspace_channel(3, "q7xkm2pa9c")) == "q7xkm2pa9c"
    assert keys.game_of(keys.BOT_GAMES_KEY) == ""


# Pinned names that are no key: a hash's fields and a bound on them.
NOT_KEYS = {"REMATCH_ANSWERS", "rematch_answer_field", "MOST_SEATS"}


def test_every_key_name_has_a_stem_no_other_module_spells() -> None:
    """Each pinned key or channel starts with one of the stems, and no string in the code of another server module holds a stem (docstrings may name keys)."""
    for name in set(PINNED) - NOT_KEYS:
        value = named(name)
        for key in value if isinstance(value, tuple | list) else [value]:
            if isinstance(key, str):
                assert any(stem in key for stem in STEMS), key
    spelled = [
        f"{path.relative_to(SERVER.parent)}:{line}: {text!r}"
        for path in sorted(SERVER.rglob("*.py"))
        if path != SERVER / "store" / "keys.py"
        for line, text in code_strings(path)
        if any(stem in text for stem in STEMS)
    ]
    assert spelled == []


def code_strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module's code, f-strings' literal parts included;
    docstrings (a string standing alone as a statement) left out."""
    tree = ast.parse(path.read_text())
    alone = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        (node.lineno, node.value if isinstance(node.value, str) else node.value.decode("latin-1"))
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str | bytes)
        and id(node) not in alone
    ]
