"""Ratings, a read model of the log kept in Redis: one rating per player and variant,
updated once when a rated game ends, with each player's history for the graph.

Per variant, every key shares the hash tag ``{ratings:<variant>}`` so that one Lua
script can touch them all on a Redis Cluster:

- ``…:counted``: hash game id -> its end (ms), the games that moved ratings;
- ``…:uncounted``: hash game id -> why it moved none (``server.players.rating_model.Uncounted``);
- ``…:changes``: hash counted game id -> ``{player: [rating after, change]}`` as JSON
  (``GameChanges``: what summaries show beside a counted game's names);
- ``…:skills``: hash player -> ``"<games> <mu> <sigma>"`` (floats as ``repr``, exact);
- ``…:board``: sorted set player -> displayed rating before rounding, the players
  listed (``server.players.rating_model.listed``): the leaderboard;
- ``…:names``: hash player -> the name it is shown with;
- ``…:pairs``: hash ``"<day> <account> <account>"`` -> counted games that UTC day;
- ``…:history:<player>``: list of ``server.players.rating_model.Change`` as JSON, oldest first;
- ``…:opponents:<player>``: set of the players an account met in counted games.

The update (``count``) reads the players' skills, computes the new ones with
``server.players.rating_model.rate`` and writes them in one script that first checks the game is not
decided yet, that none of its pairs of accounts has had its day's counted games
already (else it records the game as uncounted, ``daily_limit``), and that every
player's skill is still the one read (else it reads again): so two processes finishing
games at once, or counting the same game twice, update each rating and each daily
counter exactly once. Who counts: the process that appends a game's last event
(``ServiceHooks.on_finished``); ``splendor ratings rebuild`` folds every finished game
again in end order (``rebuild``) with the same rules (``server.players.rating_model.RatingBook``).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Iterable, Sequence
from typing import Any, Final, cast

import msgspec
from redis.exceptions import RedisError

from events.base import GameCreated, PlayerJoined
from events.rated import ended_early
from server.games.projection import Game
from server.players.rating_model import (
    DAILY_PAIR_GAMES,
    LISTED_GAMES,
    LISTED_OPPONENTS,
    VARIANTS,
    Change,
    RatedGame,
    RatingBook,
    Skill,
    changes,
    competition_ranks,
    end_order,
    is_bot,
    pair_fields,
    rate,
)
from server.store.clients import RedisClient
from server.store.keys import (
    ratings_board_key,
    ratings_changes_key,
    ratings_counted_key,
    ratings_history_key,
    ratings_names_key,
    ratings_opponents_key,
    ratings_pairs_key,
    ratings_skills_key,
    ratings_uncounted_key,
)

log = logging.getLogger(__name__)

ATTEMPTS: Final = 40
"""Reads and writes of one game's update before giving up (each lost race means
another game of one of its players was counted meanwhile)."""
BACKOFF_S: Final = 0.002
"""The first wait after a lost race; doubled each time up to ``BACKOFF_MAX_S``, and
drawn at random below that, so racing updates spread out."""
BACKOFF_MAX_S: Final = 0.1


# KEYS: counted, uncounted, skills, board, names, pairs, changes, then per player its
# history list and its opponents set.
# ARGV: game id, its end (ms), the daily limit, k, the game's k pair fields, then per
# player: id, skill read before ("" if none), new skill, board score, name, history
# point (JSON), and the opponents it needs to be listed ("" for a bot, which is listed
# with no set; -1 for an account short of games, which is not listed yet); last, the
# game's changes (JSON).
# Returns 1 when written, 0 when the game was decided already, 2 when a pair had its
# day's games (the game is then recorded as uncounted), and -1 when a skill changed
# since it was read (the caller reads again).
_COUNT_LUA: Final = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
local limit = tonumber(ARGV[3])
local k = tonumber(ARGV[4])
for j = 1, k do
  if tonumber(redis.call('HGET', KEYS[6], ARGV[4 + j]) or '0') >= limit then
    redis.call('HSET', KEYS[2], ARGV[1], 'daily_limit')
    return 2
  end
end
local base = 4 + k
local n = (#KEYS - 7) / 2
for i = 1, n do
  local at = base + (i - 1) * 7
  if (redis.call('HGET', KEYS[3], ARGV[at + 1]) or '') ~= ARGV[at + 2] then return -1 end
end
for j = 1, k do redis.call('HINCRBY', KEYS[6], ARGV[4 + j], 1) end
for i = 1, n do
  local at = base + (i - 1) * 7
  local player = ARGV[at + 1]
  redis.call('HSET', KEYS[3], player, ARGV[at + 3])
  redis.call('HSET', KEYS[5], player, ARGV[at + 5])
  redis.call('RPUSH', KEYS[6 + 2 * i], ARGV[at + 6])
  local need = ARGV[at + 7]
  local shown = need == ''
  if not shown then
    for o = 1, n do
      if o ~= i then redis.call('SADD', KEYS[7 + 2 * i], ARGV[base + (o - 1) * 7 + 1]) end
    end
    local wanted = tonumber(need)
    shown = wanted >= 0 and redis.call('SCARD', KEYS[7 + 2 * i]) >= wanted
  end
  if shown then redis.call('ZADD', KEYS[4], ARGV[at + 4], player) end
end
redis.call('HSET', KEYS[7], ARGV[1], ARGV[#ARGV])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""

_CHANGE = msgspec.json.Encoder()
_CHANGES = msgspec.json.Decoder(Change)

GameChanges = dict[str, tuple[int, int]]
"""A counted game's effect on its players: player id -> (rating after it, change)."""
_GAME_CHANGES = msgspec.json.Decoder(GameChanges)


def encode_changes(points: Iterable[tuple[str, Change]]) -> bytes:
    """A counted game's ``…:changes`` value from its players' history points, players
    in order (so the live count and the rebuild write the same bytes)."""
    return _CHANGE.encode({p: (c.rating, c.delta) for p, c in sorted(points, key=lambda pc: pc[0])})


def encode_skill(skill: Skill) -> bytes:
    return f"{skill.games} {skill.mu!r} {skill.sigma!r}".encode()


def decode_skill(raw: bytes | str) -> Skill:
    text = raw.decode() if isinstance(raw, bytes) else raw
    games, mu, sigma = text.split(" ")
    return Skill(float(mu), float(sigma), int(games))


# ---------------------------------------------------------------------- from a game


def player_id(account: str | None, bot: str | None) -> str | None:
    """Whom a seat's results belong to: its account (lowercase username), its bot
    level as ``bot:<level>``, or nobody (a guest)."""
    if account is not None:
        return account.lower()
    if bot is not None:
        return f"bot:{bot}"
    return None


def seated(game: Game) -> list[tuple[int, str | None, str]]:
    """Each seat of a game: its seat, its player id (None: a guest), its name."""
    seats: dict[int, tuple[int, str | None, str]] = {}
    for logged in game.log:
        event = logged.event
        if isinstance(event, PlayerJoined):
            seats[event.seat] = (event.seat, player_id(event.account, event.bot), event.name)
    return [seats[s] for s in sorted(seats)]


def is_rated(game: Game) -> bool:
    """Whether a game counts when it ends: created rated, and not seeded."""
    created = game.log[0].event if game.log else None
    if not isinstance(created, GameCreated) or created.seeded:
        return False
    return created.rated


def rated_game(game: Game) -> RatedGame | None:
    """What a finished rated game gives the ratings, or None if it gives nothing (not
    rated, seeded, aborted, not over, fewer than two rated players). A player id
    seated twice (two bots of one level) is left out: nobody is rated against
    themself. Seats out are ranked last already (``events.leaving.ranks``). A game
    that ended before every human seat completed two turns is ``early``: recorded as
    uncounted, it moves no rating (``events.rated``)."""
    if game.status != "finished" or not is_rated(game):
        return None
    result = game.state.result
    if result is None or not result.ranks:
        return None
    seats = seated(game)
    ids = [pid for _, pid, _ in seats]
    kept = [
        (pid, name, result.ranks[seat])
        for seat, pid, name in seats
        if pid is not None and ids.count(pid) == 1
    ]
    if len(kept) < 2:
        return None
    return RatedGame(
        id=game.id,
        variant=game.variant.name,
        ended_ms=game.log[-1].at_ms,
        players=tuple(pid for pid, _, _ in kept),
        names=tuple(name for _, name, _ in kept),
        ranks=competition_ranks([rank for _, _, rank in kept]),
        early=ended_early(logged.event for logged in game.log),
    )


# ---------------------------------------------------------------------- the read model


class Ratings:
    """The ratings of every variant over one Redis client."""

    def __init__(self, client: RedisClient) -> None:
        self._r = client
        self._count = client.register_script(_COUNT_LUA)
        self.lost_races = 0  # Updates read again because a player's skill had changed.

    async def count(self, game: RatedGame) -> bool:
        """Decide a finished rated game once: True if this call counted it (its ratings
        moved), False if it was decided already or moves no rating (then recorded as
        uncounted, with why)."""
        variant = game.variant
        if game.early:  # Its own events decide it, the same in every process.
            await self._r.hsetnx(ratings_uncounted_key(variant), game.id, "early_end")
            return False
        keys = [
            ratings_counted_key(variant),
            ratings_uncounted_key(variant),
            ratings_skills_key(variant),
            ratings_board_key(variant),
            ratings_names_key(variant),
            ratings_pairs_key(variant),
            ratings_changes_key(variant),
        ]
        for p in game.players:
            keys += [ratings_history_key(variant, p), ratings_opponents_key(variant, p)]
        fields = pair_fields(game)
        for attempt in range(ATTEMPTS):
            raw = await self._r.hmget(ratings_skills_key(variant), list(game.players))
            before = {p: decode_skill(r) for p, r in zip(game.players, raw, strict=True) if r}
            after = rate(game, before)
            points = changes(game, before, after)
            args: list[Any] = [game.id, game.ended_ms, DAILY_PAIR_GAMES, len(fields), *fields]
            for player, old, name, point in zip(game.players, raw, game.names, points, strict=True):
                new = after[player]
                args += [player, old or b"", encode_skill(new), repr(new.ordinal), name]
                args.append(_CHANGE.encode(point))
                args.append(_needed(player, new))
            args.append(encode_changes(zip(game.players, points, strict=True)))
            written = int(await self._count(keys=keys, args=args))
            if written >= 0:
                return written == 1
            self.lost_races += 1
            await asyncio.sleep(random.uniform(0, min(BACKOFF_MAX_S, BACKOFF_S * 2**attempt)))
        raise RedisError(f"ratings of game {game.id}: gave up after {ATTEMPTS} lost races")

    async def skill(self, variant: str, player: str) -> Skill | None:
        raw = await self._r.hget(ratings_skills_key(variant), player)
        return None if raw is None else decode_skill(raw)

    async def skills(self, variant: str, players: Sequence[str]) -> dict[str, Skill]:
        """The skills of those of ``players`` who have one in ``variant``."""
        if not players:
            return {}
        raw = await self._r.hmget(ratings_skills_key(variant), list(players))
        return {p: decode_skill(r) for p, r in zip(players, raw, strict=True) if r}

    async def history(self, variant: str, player: str, last: int | None = None) -> list[Change]:
        """The player's rating after each of its rated games, oldest first (only the
        ``last`` ones if given)."""
        start = 0 if last is None else -last
        raw = await self._r.lrange(ratings_history_key(variant, player), start, -1)
        return [_CHANGES.decode(item) for item in raw]

    async def leaderboard(self, variant: str, limit: int) -> list[tuple[str, str, Skill]]:
        """The best ``limit`` players of ``variant``: id, name, skill; best first."""
        members = cast(
            list[bytes], await self._r.zrevrange(ratings_board_key(variant), 0, limit - 1)
        )
        players = [_text(p) for p in members]
        if not players:
            return []
        skills = await self.skills(variant, players)
        names = await self._r.hmget(ratings_names_key(variant), players)
        return [
            (p, _text(n) if n else p, skills[p])
            for p, n in zip(players, names, strict=True)
            if p in skills
        ]

    async def standing(self, variant: str, player: str) -> Standing:
        """A player's skill in ``variant`` (None before its first counted game), how
        many different opponents it met in counted games, and whether it is listed on
        the leaderboard (else provisional; a bot is never provisional)."""
        skill = await self.skill(variant, player)
        met = (
            0
            if is_bot(player)
            else int(await self._r.scard(ratings_opponents_key(variant, player)))
        )
        shown = (
            is_bot(player) or await self._r.zscore(ratings_board_key(variant), player) is not None
        )
        return Standing(skill, met, shown)

    async def undecided(self, variant: str, game_ids: Sequence[str]) -> list[str]:
        """Those of ``game_ids`` neither counted nor recorded as uncounted in
        ``variant``."""
        if not game_ids:
            return []
        ids = list(game_ids)
        counted = await self._r.hmget(ratings_counted_key(variant), ids)
        refused = await self._r.hmget(ratings_uncounted_key(variant), ids)
        return [g for g, c, r in zip(ids, counted, refused, strict=True) if c is None and r is None]

    async def decisions(self, variant: str, game_ids: Sequence[str]) -> dict[str, str]:
        """Per game id: ``"counted"``, why it moved no rating (``early_end``,
        ``daily_limit``), or ``"pending"`` (not decided yet: a process stopped before
        counting it, see ``mend_recent``)."""
        if not game_ids:
            return {}
        ids = list(game_ids)
        counted = await self._r.hmget(ratings_counted_key(variant), ids)
        refused = await self._r.hmget(ratings_uncounted_key(variant), ids)
        return {
            g: "counted" if c is not None else _text(r) if r is not None else "pending"
            for g, c, r in zip(ids, counted, refused, strict=True)
        }

    async def changes(self, variant: str, game_ids: Sequence[str]) -> dict[str, GameChanges]:
        """Per counted game among ``game_ids``: each rated player's rating after it and
        its change (a game without a record is left out)."""
        if not game_ids:
            return {}
        raw = await self._r.hmget(ratings_changes_key(variant), list(game_ids))
        return {g: _GAME_CHANGES.decode(r) for g, r in zip(game_ids, raw, strict=True) if r}

    async def listed(self, variant: str, players: Sequence[str]) -> set[str]:
        """Those of ``players`` on ``variant``'s leaderboard (bots always are)."""
        accounts = [p for p in players if not is_bot(p)]
        scores = await self._r.zmscore(ratings_board_key(variant), accounts) if accounts else []
        shown = {p for p, score in zip(accounts, scores, strict=True) if score is not None}
        return shown | {p for p in players if is_bot(p)}

    async def counted(self, variant: str) -> dict[str, int]:
        """The games counted in ``variant``: id -> end (ms)."""
        raw = await self._r.hgetall(ratings_counted_key(variant))
        return {_text(k): int(v) for k, v in raw.items()}

    async def uncounted(self, variant: str) -> dict[str, str]:
        """The finished rated games of ``variant`` that moved no rating: id -> why."""
        raw = await self._r.hgetall(ratings_uncounted_key(variant))
        return {_text(k): _text(v) for k, v in raw.items()}

    async def forget(self, variant: str) -> None:
        """Drop a variant's ratings (its per-player keys found through its names)."""
        players = [_text(p) for p in await self._r.hkeys(ratings_names_key(variant))]
        keys = [
            ratings_counted_key(variant),
            ratings_uncounted_key(variant),
            ratings_skills_key(variant),
            ratings_board_key(variant),
            ratings_names_key(variant),
            ratings_pairs_key(variant),
            ratings_changes_key(variant),
        ]
        for p in players:
            keys += [ratings_history_key(variant, p), ratings_opponents_key(variant, p)]
        for start in range(0, len(keys), 500):
            await self._r.delete(*keys[start : start + 500])

    async def replace(self, book: RatingBook) -> None:
        """Write a variant's ratings folded in memory in place of what Redis holds."""
        variant = book.variant
        await self.forget(variant)
        pipe = self._r.pipeline(transaction=False)
        for player, skill in book.skills.items():
            pipe.hset(ratings_skills_key(variant), player, encode_skill(skill))
            if book.is_listed(player):
                pipe.zadd(ratings_board_key(variant), {player: skill.ordinal})
            pipe.hset(ratings_names_key(variant), player, book.names[player])
            history = book.history[player]
            pipe.rpush(ratings_history_key(variant, player), *(_CHANGE.encode(c) for c in history))
        for player, met in book.opponents.items():
            pipe.sadd(ratings_opponents_key(variant, player), *sorted(met))
        if book.counted:
            pipe.hset(ratings_counted_key(variant), mapping={g: e for g, e in book.counted.items()})
        if book.uncounted:
            pipe.hset(
                ratings_uncounted_key(variant), mapping={g: r for g, r in book.uncounted.items()}
            )
        if book.pairs:
            pipe.hset(ratings_pairs_key(variant), mapping={f: n for f, n in book.pairs.items()})
        games: dict[str, list[tuple[str, Change]]] = {}
        for player, history in book.history.items():
            for change in history:
                games.setdefault(change.game, []).append((player, change))
        if games:
            pipe.hset(
                ratings_changes_key(variant),
                mapping={g: encode_changes(points) for g, points in games.items()},
            )
        await pipe.execute()

    async def rebuild(self, games: Iterable[RatedGame]) -> dict[str, int]:
        """Every variant's ratings folded again from ``games`` in end order; returns
        how many games each variant counted."""
        books = {variant: RatingBook(variant) for variant in VARIANTS}
        for game in end_order(list(games)):
            book = books.get(game.variant)
            if book is not None:
                book.count(game)
        for book in books.values():
            await self.replace(book)
        return {variant: len(book.counted) for variant, book in books.items()}


class Standing(msgspec.Struct, frozen=True):
    """Where a player stands in one variant (``Ratings.standing``)."""

    skill: Skill | None
    opponents: int
    listed: bool


def _needed(player: str, after: Skill) -> str:
    """The script's per-player listing argument: "" for a bot (always listed), the
    opponents an account needs once it has its games, else -1 (not listed yet)."""
    if is_bot(player):
        return ""
    return str(LISTED_OPPONENTS) if after.games >= LISTED_GAMES else "-1"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
