"""Every Redis key and channel of the server, named here and nowhere else.

On a Redis Cluster a script, a transaction or a multi-key command may touch the keys
of one slot only, and a key's slot is that of its *hash tag*: the text between its
first ``{`` and the next ``}``, or the whole name when it has none. So the keys that
one script touches together share a tag, and each section below names its tag.
tests/store/test_keys.py pins every name (a renamed key is data left behind on a
running deployment) and shows that each group's keys share one slot.

**One game**, tag ``{<game id>}``: one game's keys live in one slot, so the append,
the load, the archive's swap and the claims of a rematch are each one script.

- ``game:{<id>}:events``: stream, the game's log (``server.store.event_store``);
- ``game:{<id>}:commands``: hash, command id -> the version it ended at and its reply;
- ``game:{<id>}:meta``: hash, the game's metadata (its seed, its rematch, each seat's
  answer to the rematch: ``rematch_answer_field``...);
- ``game:{<id>}:archive``: string, a finished game's whole log once archived
  (``server.store.archive_format``); the stream and the commands are gone then;
- ``game:{<id>}:seats``: hash, seat number -> SHA-256 of its token;
- ``game:{<id>}:presence``: hash, which server has a socket of which seat
  (``server.live.presence``);
- ``game:{<id>}:analysis``: hash, the finished game's analysis (``server.workers.analyser``);
- ``game:{<id>}:probe``: the durability probe's key, written where the game is
  (``server.store.durability``);
- ``game:{<id>}:chat:players`` and ``game:{<id>}:chat:spectators``: lists, the table
  chat's two rooms (``server.games.chat``), apart from the log, deleted 7 days after
  the game's end.

**Indexes shared by every game**, one tag each, so that each index's script runs in
one slot: the lobby ``{lobby}`` (``server.games.lobby``), the deadlines ``{clock}``
(``server.games.timekeeper``), the archiver's due games ``{archive}``
(``server.games.archiver``), the analysis queue's ``{analysis}`` (``server.workers.analyser``:
the games due, when each was asked for, the analysers' beats, the counts and the
recent analyses' durations).
Two single keys have no tag, since no script touches them with another:
``bots:games``, the set of games with a bot seat, and ``presence:servers``, the
server processes' last beats.

**E-mail**, tag ``{mail}`` (``server.mail``): the outbox, its messages' states, the
turns' notices, each account's hour and the unsubscribe links' key.

**Accounts**, tag ``{accounts}`` (``server.players.accounts``): an account, its
e-mail address (``server.mail.addresses``), its sessions' list, its log-in record and budgets, and its seats' list
(``server.games.seat_tokens``) share one slot; the budget of a client address has a
tag of its own, so that addresses spread over the slots; a session is a single key.

**Quick pairing**, tag ``{<pool>}`` per pool, and ``{<account id>}`` for the wait an
account has open (``server.players.pairing_pools``).

**Players' profiles**, tag ``{<player id>}`` (``server.players.profiles``), and
**ratings**, tag ``{ratings:<variant>}`` (``server.players.ratings``).

**Tournaments**, tag ``{<tournament id>}`` for one tournament's keys (its log
``tournament:{<id>}:events``, its meta and the director's lease: one slot, so the
append is one script), ``{tournaments}`` for the shared indexes (open and finished
tournaments, the director's due times), ``{<account id>}`` for what an account
created (``tournaments:creator:{<id>}:...``: the limits' script), and the player's
tag for their history (``player:{<id>}:tournaments``) (``server.tournaments``).

**Channels.** ``game:{<id>}:signals`` carries what a process tells the others about a
game beside its events (``server.live.game_signals``): ``PRESENCE_SIGNAL``,
``ARCHIVED_SIGNAL``, ``rematch_signal``, ``seat_signal`` and ``chat_signal``. The keyspace notifications of a game's
stream come on ``__keyspace@<db>__:game:{<id>}:events`` (``server.live.tailer``).
"""

from __future__ import annotations

import hashlib
from typing import Final

__all__ = [
    "ANALYSIS_ASKED_KEY",
    "ANALYSIS_DUE_KEY",
    "ANALYSIS_RECENT_KEY",
    "ANALYSIS_STATS_KEY",
    "ANALYSIS_WORKERS_KEY",
    "ARCHIVED_SIGNAL",
    "ARCHIVE_DUE_KEY",
    "BOT_GAMES_KEY",
    "CHAT_SIGNAL_PREFIX",
    "DEADLINES_KEY",
    "DEADLINE_VERSIONS_KEY",
    "LOBBY_ABORTED_KEY",
    "LOBBY_BUILT_KEY",
    "LOBBY_FINISHED_KEY",
    "LOBBY_GAMES_KEY",
    "LOBBY_LIVE_KEY",
    "LOBBY_OPEN_KEY",
    "LOBBY_QUIET_KEY",
    "LOBBY_REBUILDING_KEY",
    "LOBBY_SWEEP_KEY",
    "LOBBY_VERSIONS_KEY",
    "MAIL_CLAIMED_KEY",
    "MAIL_DONE_KEY",
    "MAIL_MESSAGES_KEY",
    "MAIL_NOTICES_KEY",
    "MAIL_OUTBOX_KEY",
    "MAIL_SECRET_KEY",
    "MAIL_STATES_KEY",
    "MOST_SEATS",
    "PRESENCE_PLAYING_KEY",
    "PRESENCE_SERVERS_KEY",
    "PRESENCE_SIGNAL",
    "REMATCH_ANSWERS",
    "REMATCH_SIGNAL_PREFIX",
    "SEAT_SIGNAL_PREFIX",
    "TOURNAMENTS_DUE_KEY",
    "TOURNAMENTS_FINISHED_KEY",
    "TOURNAMENTS_OPEN_KEY",
    "account_email_key",
    "account_key",
    "account_seats_key",
    "account_wait_key",
    "address_logins_key",
    "analysis_key",
    "archive_key",
    "chat_key",
    "chat_signal",
    "commands_key",
    "events_key",
    "game_of",
    "keyspace_channel",
    "login_keys",
    "mail_hour_key",
    "mail_once_key",
    "meta_key",
    "paired_key",
    "player_games_key",
    "player_record_key",
    "player_seats_key",
    "player_summaries_key",
    "player_tournaments_key",
    "pool_keys",
    "pool_lock_key",
    "presence_key",
    "probe_key",
    "ratings_board_key",
    "ratings_changes_key",
    "ratings_counted_key",
    "ratings_history_key",
    "ratings_names_key",
    "ratings_opponents_key",
    "ratings_pairs_key",
    "ratings_skills_key",
    "ratings_uncounted_key",
    "rematch_answer_field",
    "rematch_signal",
    "seat_signal",
    "seats_key",
    "session_key",
    "sessions_key",
    "signals_channel",
    "tournament_events_key",
    "tournament_lease_key",
    "tournament_meta_key",
    "tournaments_created_key",
    "tournaments_open_of_key",
]

# ---------------------------------------------------------------------- one game


def _game(game_id: str, kind: str) -> str:
    """The key ``kind`` of a game. An id with a brace would end the hash tag early and
    put the key in another slot than the game's others, so it is refused."""
    if not game_id or "{" in game_id or "}" in game_id:
        raise ValueError(f"invalid game id {game_id!r}: must be non-empty, without braces")
    return f"game:{{{game_id}}}:{kind}"


def events_key(game_id: str) -> str:
    """The stream of a game's events."""
    return _game(game_id, "events")


def commands_key(game_id: str) -> str:
    """The hash of a game's command ids."""
    return _game(game_id, "commands")


def meta_key(game_id: str) -> str:
    """The hash of a game's metadata."""
    return _game(game_id, "meta")


def archive_key(game_id: str) -> str:
    """A finished game's archive, once it is archived."""
    return _game(game_id, "archive")


def seats_key(game_id: str) -> str:
    """The hash of a game's seats: seat number -> SHA-256 of its token."""
    return _game(game_id, "seats")


def presence_key(game_id: str) -> str:
    """The hash of which server holds a socket of which seat of a game."""
    return _game(game_id, "presence")


def analysis_key(game_id: str) -> str:
    """The hash of a finished game's analysis."""
    return _game(game_id, "analysis")


def probe_key(game_id: str) -> str:
    """The durability probe's key, in the game's slot so that it is written where the
    game is."""
    return _game(game_id, "probe")


def chat_key(game_id: str, room: str) -> str:
    """The list of a chat room of a game (``players`` or ``spectators``)."""
    return _game(game_id, f"chat:{room}")


def game_of(name: str) -> str:
    """The game id in the name of a game's key or channel: the text between its first
    ``{`` and its last ``}`` ("" if there is none)."""
    start = name.find("{")
    end = name.rfind("}")
    return name[start + 1 : end] if 0 <= start < end else ""


# ---------------------------------------------------------------------- indexes

LOBBY_OPEN_KEY: Final = "{lobby}:open"
LOBBY_LIVE_KEY: Final = "{lobby}:live"
LOBBY_FINISHED_KEY: Final = "{lobby}:finished"
LOBBY_ABORTED_KEY: Final = "{lobby}:aborted"
LOBBY_GAMES_KEY: Final = "{lobby}:games"
LOBBY_VERSIONS_KEY: Final = "{lobby}:versions"
LOBBY_BUILT_KEY: Final = "{lobby}:built"
LOBBY_REBUILDING_KEY: Final = "{lobby}:rebuilding"
# The open and live games nobody attends, left out of the lists (server/live/attendance.py).
LOBBY_QUIET_KEY: Final = "{lobby}:quiet"
LOBBY_SWEEP_KEY: Final = "{lobby}:sweep"  # held by the process looking at attendance now

DEADLINES_KEY: Final = "{clock}:deadlines"
DEADLINE_VERSIONS_KEY: Final = "{clock}:versions"

ARCHIVE_DUE_KEY: Final = "{archive}:due"
ANALYSIS_DUE_KEY: Final = "{analysis}:due"
ANALYSIS_ASKED_KEY: Final = "{analysis}:asked"
ANALYSIS_WORKERS_KEY: Final = "{analysis}:workers"
ANALYSIS_STATS_KEY: Final = "{analysis}:stats"
ANALYSIS_RECENT_KEY: Final = "{analysis}:recent"

BOT_GAMES_KEY: Final = "bots:games"
PRESENCE_SERVERS_KEY: Final = "presence:servers"
# Hash: each process's id -> how many seats it has sockets of in live games (written
# at its beats): the people playing now, counted over the processes alive.
PRESENCE_PLAYING_KEY: Final = "presence:playing"

# E-mail (server.mail, docs/email.md), tag ``{mail}``: the outbox's scripts claim,
# mark and reap messages and the notices' script counts an account's hour, one slot.
MAIL_OUTBOX_KEY: Final = "{mail}:outbox"  # sorted set, queued message id -> when due (ms)
MAIL_MESSAGES_KEY: Final = "{mail}:messages"  # hash, message id -> the message (JSON)
MAIL_STATES_KEY: Final = "{mail}:states"  # hash, message id -> its state (JSON)
MAIL_CLAIMED_KEY: Final = "{mail}:claimed"  # sorted set, claimed message id -> lease end
MAIL_DONE_KEY: Final = "{mail}:done"  # sorted set, message id -> when it was settled
MAIL_NOTICES_KEY: Final = "{mail}:notices"  # sorted set, a turn's notice -> when due
MAIL_SECRET_KEY: Final = "{mail}:secret"  # string, the key of the unsubscribe links


def mail_once_key(what: str) -> str:
    """Set once a message for ``what`` (a turn's notice, a tournament's announcement
    to an account) is queued, so that it is queued once."""
    return f"{{mail}}:once:{what}"


def mail_hour_key(account: str) -> str:
    """When the account was last sent a game's e-mail (ms), kept for the hour."""
    return f"{{mail}}:hour:{account.lower()}"


# ---------------------------------------------------------------------- accounts


def account_key(username: str) -> str:
    """An account's record. Its id is the username in lowercase, as uniqueness sees it
    (``server.players.accounts.account_id``)."""
    return f"{{accounts}}:{username.lower()}"


def sessions_key(username: str) -> str:
    """The sorted set of an account's sessions, scored by expiry."""
    return f"{account_key(username)}:sessions"


def login_keys(username: str, address: str) -> list[str]:
    """An account's log-in record and its budget for one client address, in the
    account's slot so that one script reads and takes both."""
    record = f"{account_key(username)}:logins"
    return [record, f"{record}:{address}"]


def address_logins_key(address: str) -> str:
    """A client address's budget of attempts: a tag of its own, so that addresses
    spread over a cluster's slots."""
    return f"logins:{{{address}}}"


def account_email_key(username: str) -> str:
    """Hash, the account's e-mail address, whether it is verified, its pending
    verification (token digest and expiry) and whether move e-mails are on."""
    return f"{account_key(username)}:email"


def account_seats_key(username: str) -> str:
    """Hash, the seats an account holds: game id -> seat number."""
    return f"{account_key(username)}:seats"


def session_key(session: str) -> str:
    """A session, kept as its SHA-256 only, so that a dump of Redis holds no usable
    session."""
    return f"session:{hashlib.sha256(session.encode()).hexdigest()}"


# ---------------------------------------------------------------------- pairing


def pool_keys(pool: str) -> tuple[str, str, str]:
    """The keys of the pairing pool named ``pool``: its queue (sorted set, entry id ->
    rating), its entries (hash, entry id -> the waiting player) and when each entry
    was last seen (hash, entry id -> ms)."""
    tag = f"pair:{{{pool}}}"
    return f"{tag}:queue", f"{tag}:entries", f"{tag}:seen"


def paired_key(pool: str, entry: str) -> str:
    """What an entry of a pool was paired to."""
    return f"pair:{{{pool}}}:paired:{entry}"


def pool_lock_key(pool: str) -> str:
    """Held by whichever process matches the pool this round."""
    return f"pair:{{{pool}}}:lock"


def account_wait_key(account: str) -> str:
    """The latest wait of an account, in whichever pool."""
    return f"pair:account:{{{account.lower()}}}"


# ---------------------------------------------------------------------- profiles


def player_games_key(player: str) -> str:
    """Sorted set, a player's finished games -> their end (ms)."""
    return "player:{" + player + "}:games"


def player_seats_key(player: str) -> str:
    """Hash, game id -> the player's seat in it."""
    return "player:{" + player + "}:seats"


def player_summaries_key(player: str) -> str:
    """Hash, game id -> the game's summary when it ended."""
    return "player:{" + player + "}:summaries"


def player_record_key(player: str) -> str:
    """Hash, the player's finished and won games."""
    return "player:{" + player + "}:record"


def player_tournaments_key(player: str) -> str:
    """Sorted set, the tournaments a player joined -> their start (ms)."""
    return "player:{" + player + "}:tournaments"


# ---------------------------------------------------------------------- tournaments


def _tournament(tournament_id: str, kind: str) -> str:
    """The key ``kind`` of a tournament, in its own slot (an id with a brace is
    refused, as a game's)."""
    if not tournament_id or "{" in tournament_id or "}" in tournament_id:
        raise ValueError(f"invalid tournament id {tournament_id!r}")
    return f"tournament:{{{tournament_id}}}:{kind}"


def tournament_events_key(tournament_id: str) -> str:
    """The stream of a tournament's events."""
    return _tournament(tournament_id, "events")


def tournament_meta_key(tournament_id: str) -> str:
    """Hash, a tournament's name, creator and creation time (written with its first event)."""
    return _tournament(tournament_id, "meta")


def tournament_lease_key(tournament_id: str) -> str:
    """Held by the process whose director looks at the tournament now."""
    return _tournament(tournament_id, "lease")


TOURNAMENTS_OPEN_KEY: Final = "{tournaments}:open"  # id -> start (ms): upcoming and running
TOURNAMENTS_FINISHED_KEY: Final = "{tournaments}:finished"  # id -> end (ms)
TOURNAMENTS_DUE_KEY: Final = "{tournaments}:due"  # id -> when a director looks at it next (ms)


def tournaments_created_key(account: str) -> str:
    """Sorted set, the tournaments an account created -> when (ms)."""
    return f"tournaments:creator:{{{account.lower()}}}:made"


def tournaments_open_of_key(account: str) -> str:
    """Set, the tournaments an account created that have not ended."""
    return f"tournaments:creator:{{{account.lower()}}}:open"


# ---------------------------------------------------------------------- ratings


def _ratings(variant: str) -> str:
    return "{ratings:" + variant + "}"


def ratings_counted_key(variant: str) -> str:
    """Hash, game id -> its end (ms): the games that moved ratings."""
    return f"{_ratings(variant)}:counted"


def ratings_uncounted_key(variant: str) -> str:
    """Hash, game id -> why it moved none."""
    return f"{_ratings(variant)}:uncounted"


def ratings_changes_key(variant: str) -> str:
    """Hash, counted game id -> each of its players' rating after it and change."""
    return f"{_ratings(variant)}:changes"


def ratings_skills_key(variant: str) -> str:
    """Hash, player -> its skill."""
    return f"{_ratings(variant)}:skills"


def ratings_board_key(variant: str) -> str:
    """Sorted set, the leaderboard: player -> displayed rating before rounding."""
    return f"{_ratings(variant)}:board"


def ratings_names_key(variant: str) -> str:
    """Hash, player -> the name it is shown with."""
    return f"{_ratings(variant)}:names"


def ratings_pairs_key(variant: str) -> str:
    """Hash, a UTC day and a pair of accounts -> their counted games that day."""
    return f"{_ratings(variant)}:pairs"


def ratings_history_key(variant: str, player: str) -> str:
    """List, a player's rating changes, oldest first."""
    return f"{_ratings(variant)}:history:{player}"


def ratings_opponents_key(variant: str, player: str) -> str:
    """Set, the players an account met in counted games."""
    return f"{_ratings(variant)}:opponents:{player}"


# ---------------------------------------------------------------------- channels


def signals_channel(game_id: str) -> str:
    """The channel of a game's signals, in its slot beside its keys."""
    return _game(game_id, "signals")


def keyspace_channel(db: int, game_id: str) -> str:
    """The channel of the keyspace notifications of a game's stream, on database ``db``."""
    return f"__keyspace@{db}__:{events_key(game_id)}"


PRESENCE_SIGNAL: Final = b"p"
"""The presence of the game's seats may have changed: read it again."""
ARCHIVED_SIGNAL: Final = b"a"
"""The game was archived: its stream is gone, and what was not read yet is read from
the archive."""
REMATCH_SIGNAL_PREFIX: Final = b"r"
"""Followed by the id of the game's rematch (``rematch_signal``)."""
SEAT_SIGNAL_PREFIX: Final = b"k"
"""Followed by a seat whose token was replaced (``seat_signal``)."""


REMATCH_ANSWERS: Final = ("accepted", "declined")
"""What a seat of a finished game answered its rematch, in the game's meta."""
MOST_SEATS: Final = 4
"""The most seats a game has (Splendor's four): the answers a read looks for."""


def rematch_answer_field(seat: int) -> str:
    """The field of a finished game's meta that holds ``seat``'s answer to its rematch
    (one of ``REMATCH_ANSWERS``, written once: an answer is final)."""
    return f"answer:{seat}"


def rematch_signal(rematch_id: str) -> bytes:
    """The signal that a game's rematch is ``rematch_id``."""
    return REMATCH_SIGNAL_PREFIX + rematch_id.encode()


def seat_signal(seat: int) -> bytes:
    """The signal that the token of ``seat`` was replaced: sockets opened with another
    token than the seat's now are closed."""
    return SEAT_SIGNAL_PREFIX + b"%d" % seat


CHAT_SIGNAL_PREFIX: Final = b"c"
"""Followed by the room's initial, the message's id, a space and the chat message as
the websocket sends it (``chat_signal``)."""


def chat_signal(room: str, message_id: str, message: bytes) -> bytes:
    """The signal that carries a chat message of a game to every process's sockets:
    it holds the message itself, since a chat message is not read back from Redis."""
    return CHAT_SIGNAL_PREFIX + room[:1].encode() + message_id.encode() + b" " + message
