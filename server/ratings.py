"""Ratings, a read model of the log kept in Redis: one rating per player and variant,
updated once when a rated game ends, with each player's history for the graph.

Per variant, every key shares the hash tag ``{ratings:<variant>}`` so that one Lua
script can touch them all on a Redis Cluster:

- ``…:counted``: hash game id -> its end (ms), the games already counted;
- ``…:skills``: hash player -> ``"<games> <mu> <sigma>"`` (floats as ``repr``, exact);
- ``…:board``: sorted set player -> displayed rating before rounding (the leaderboard);
- ``…:names``: hash player -> the name it is shown with;
- ``…:history:<player>``: list of ``server.skill.Change`` as JSON, oldest first.

The update (``count``) reads the players' skills, computes the new ones with
``server.skill.rate`` and writes them in one script that first checks the game is not
counted yet and that every player's skill is still the one read (else it reads again):
so two processes finishing games at once, or counting the same game twice, update each
rating exactly once. Who counts: the process that appends a game's last event
(``GameService.on_finished``); ``splendor ratings rebuild`` folds every finished game
again in end order (``rebuild``).
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
from server.projection import Game
from server.redis_cluster import RedisClient
from server.skill import (
    VARIANTS,
    Change,
    RatedGame,
    RatingBook,
    Skill,
    changes,
    competition_ranks,
    end_order,
    rate,
)

log = logging.getLogger(__name__)

ATTEMPTS: Final = 40
"""Reads and writes of one game's update before giving up (each lost race means
another game of one of its players was counted meanwhile)."""
BACKOFF_S: Final = 0.002
"""The first wait after a lost race; doubled each time up to ``BACKOFF_MAX_S``, and
drawn at random below that, so racing updates spread out."""
BACKOFF_MAX_S: Final = 0.1


def _prefix(variant: str) -> str:
    return "{ratings:" + variant + "}"


def counted_key(variant: str) -> str:
    return f"{_prefix(variant)}:counted"


def skills_key(variant: str) -> str:
    return f"{_prefix(variant)}:skills"


def board_key(variant: str) -> str:
    return f"{_prefix(variant)}:board"


def names_key(variant: str) -> str:
    return f"{_prefix(variant)}:names"


def history_key(variant: str, player: str) -> str:
    return f"{_prefix(variant)}:history:{player}"


# KEYS: counted, skills, board, names, then one history list per player.
# ARGV: game id, its end (ms), then per player: id, skill read before ("" if none),
# new skill, board score, name, history point (JSON).
# Returns 1 (written), 0 (the game was counted already), -1 (a skill changed since it
# was read: read again).
_COUNT_LUA: Final = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local n = #KEYS - 4
for i = 1, n do
  local at = 2 + (i - 1) * 6
  if (redis.call('HGET', KEYS[2], ARGV[at + 1]) or '') ~= ARGV[at + 2] then return -1 end
end
for i = 1, n do
  local at = 2 + (i - 1) * 6
  local player = ARGV[at + 1]
  redis.call('HSET', KEYS[2], player, ARGV[at + 3])
  redis.call('ZADD', KEYS[3], ARGV[at + 4], player)
  redis.call('HSET', KEYS[4], player, ARGV[at + 5])
  redis.call('RPUSH', KEYS[4 + i], ARGV[at + 6])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""

_CHANGE = msgspec.json.Encoder()
_CHANGES = msgspec.json.Decoder(Change)


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
    themself. Seats out are ranked last already (``events.leaving.ranks``)."""
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
    )


# ---------------------------------------------------------------------- the read model


class Ratings:
    """The ratings of every variant over one Redis client."""

    def __init__(self, client: RedisClient) -> None:
        self._r = client
        self._count = client.register_script(_COUNT_LUA)
        self.lost_races = 0  # updates read again because a player's skill had changed

    async def count(self, game: RatedGame) -> bool:
        """Count a finished rated game once: True if this call counted it, False if it
        had been counted already."""
        variant = game.variant
        keys = [counted_key(variant), skills_key(variant), board_key(variant), names_key(variant)]
        keys += [history_key(variant, p) for p in game.players]
        for attempt in range(ATTEMPTS):
            raw = await self._r.hmget(skills_key(variant), list(game.players))
            before = {p: decode_skill(r) for p, r in zip(game.players, raw, strict=True) if r}
            after = rate(game, before)
            points = changes(game, before, after)
            args: list[Any] = [game.id, game.ended_ms]
            for player, old, name, point in zip(game.players, raw, game.names, points, strict=True):
                new = after[player]
                args += [player, old or b"", encode_skill(new), repr(new.ordinal), name]
                args.append(_CHANGE.encode(point))
            written = int(await self._count(keys=keys, args=args))
            if written >= 0:
                return written == 1
            self.lost_races += 1
            await asyncio.sleep(random.uniform(0, min(BACKOFF_MAX_S, BACKOFF_S * 2**attempt)))
        raise RedisError(f"ratings of game {game.id}: gave up after {ATTEMPTS} lost races")

    async def skill(self, variant: str, player: str) -> Skill | None:
        raw = await self._r.hget(skills_key(variant), player)
        return None if raw is None else decode_skill(raw)

    async def skills(self, variant: str, players: Sequence[str]) -> dict[str, Skill]:
        """The skills of those of ``players`` who have one in ``variant``."""
        if not players:
            return {}
        raw = await self._r.hmget(skills_key(variant), list(players))
        return {p: decode_skill(r) for p, r in zip(players, raw, strict=True) if r}

    async def history(self, variant: str, player: str, last: int | None = None) -> list[Change]:
        """The player's rating after each of its rated games, oldest first (only the
        ``last`` ones if given)."""
        start = 0 if last is None else -last
        raw = await self._r.lrange(history_key(variant, player), start, -1)
        return [_CHANGES.decode(item) for item in raw]

    async def leaderboard(self, variant: str, limit: int) -> list[tuple[str, str, Skill]]:
        """The best ``limit`` players of ``variant``: id, name, skill; best first."""
        members = cast(list[bytes], await self._r.zrevrange(board_key(variant), 0, limit - 1))
        players = [_text(p) for p in members]
        if not players:
            return []
        skills = await self.skills(variant, players)
        names = await self._r.hmget(names_key(variant), players)
        return [
            (p, _text(n) if n else p, skills[p])
            for p, n in zip(players, names, strict=True)
            if p in skills
        ]

    async def uncounted(self, variant: str, game_ids: Sequence[str]) -> list[str]:
        """Those of ``game_ids`` not counted in ``variant``."""
        if not game_ids:
            return []
        seen = await self._r.hmget(counted_key(variant), list(game_ids))
        return [g for g, s in zip(game_ids, seen, strict=True) if s is None]

    async def counted(self, variant: str) -> dict[str, int]:
        """The games counted in ``variant``: id -> end (ms)."""
        raw = await self._r.hgetall(counted_key(variant))
        return {_text(k): int(v) for k, v in raw.items()}

    async def forget(self, variant: str) -> None:
        """Drop a variant's ratings (its history lists found through its names)."""
        players = [_text(p) for p in await self._r.hkeys(names_key(variant))]
        keys = [counted_key(variant), skills_key(variant), board_key(variant), names_key(variant)]
        keys += [history_key(variant, p) for p in players]
        for start in range(0, len(keys), 500):
            await self._r.delete(*keys[start : start + 500])

    async def replace(self, book: RatingBook) -> None:
        """Write a variant's ratings folded in memory in place of what Redis holds."""
        variant = book.variant
        await self.forget(variant)
        pipe = self._r.pipeline(transaction=False)
        for player, skill in book.skills.items():
            pipe.hset(skills_key(variant), player, encode_skill(skill))
            pipe.zadd(board_key(variant), {player: skill.ordinal})
            pipe.hset(names_key(variant), player, book.names[player])
            history = book.history[player]
            pipe.rpush(history_key(variant, player), *(_CHANGE.encode(c) for c in history))
        if book.counted:
            pipe.hset(counted_key(variant), mapping={g: e for g, e in book.counted.items()})
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


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
