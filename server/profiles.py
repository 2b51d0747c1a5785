"""Players' profiles, read models of the log: each player's finished games (rated or
not) and won/played counts, beside the ratings (``server.ratings``); and
``Profiles.game_finished``, what the service calls once when it appends a game's last
event.

A player is an account (its lowercase username) or a bot level (``bot:<level>``);
guests have no profile. Per player, under its own hash tag (one player's keys share a
cluster slot, written by one script):

- ``player:{<id>}:games``: sorted set game id -> its end (ms), newest last;
- ``player:{<id>}:seats``: hash game id -> the player's seat in it;
- ``player:{<id>}:record``: hash ``games``, ``wins`` (finished games, won ones).

Adding a game is idempotent (``ZADD NX`` decides), so a game indexed twice counts once.
"""

from __future__ import annotations

import logging
from typing import Any, Final, cast

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.projection import Game
from server.ratings import Ratings, player_id, rated_game, seated
from server.skill import NEW, VARIANTS

log = logging.getLogger(__name__)

# KEYS: games, seats, record. ARGV: game id, end (ms), seat, won (1/0).
_ADD_LUA: Final = """
if redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HINCRBY', KEYS[3], 'games', 1)
if ARGV[4] == '1' then redis.call('HINCRBY', KEYS[3], 'wins', 1) end
return 1
"""


def games_key(player: str) -> str:
    return "player:{" + player + "}:games"


def seats_key(player: str) -> str:
    return "player:{" + player + "}:seats"


def record_key(player: str) -> str:
    return "player:{" + player + "}:record"


class Profiles:
    """Players' finished games and records, and their ratings, over one Redis client."""

    def __init__(self, client: aioredis.Redis, ratings: Ratings | None = None) -> None:
        self._r = client
        self.ratings = Ratings(client) if ratings is None else ratings
        self._add = client.register_script(_ADD_LUA)

    async def game_finished(self, game: Game) -> None:
        """Index a finished game for its players and count it in the ratings if it is
        rated. A failure is logged, not raised: the game's end is appended already and
        stays the truth (``splendor ratings rebuild`` heals the ratings)."""
        try:
            await self.add_game(game)
            rated = rated_game(game)
            if rated is not None:
                await self.ratings.count(rated)
        except RedisError:
            log.exception("ratings and profiles of finished game %s not updated", game.id)

    async def add_game(self, game: Game) -> None:
        """List a finished game on each of its players' profiles (guests have none)."""
        result = game.state.result
        winners = set(result.winners) if result is not None else set()
        ended_ms = game.log[-1].at_ms
        for seat, player, _ in seated(game):
            if player is None:
                continue
            await self._add(
                keys=[games_key(player), seats_key(player), record_key(player)],
                args=[game.id, ended_ms, seat, int(seat in winners)],
            )

    async def games(self, player: str, limit: int) -> list[tuple[str, int]]:
        """The player's newest ``limit`` finished games: (game id, its seat in it)."""
        members = cast(list[bytes], await self._r.zrevrange(games_key(player), 0, limit - 1))
        ids = [_text(g) for g in members]
        if not ids:
            return []
        seats = await self._r.hmget(seats_key(player), ids)
        return [(g, int(s or 0)) for g, s in zip(ids, seats, strict=True)]

    async def ratings_of(self, player: str) -> dict[str, dict[str, int]]:
        """``{variant: {"rating", "games"}}`` of a player id (an account's username in
        any case), every variant; one without games shows the start (1500, 0). What
        ``GET /api/players/{name}`` and ``GET /api/me`` give."""
        ratings = {}
        for variant in VARIANTS:
            skill = await self.ratings.skill(variant, player.lower())
            skill = NEW if skill is None else skill
            ratings[variant] = {"rating": skill.rating, "games": skill.games}
        return ratings

    async def with_ratings(self, summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Game summaries with each account's and bot's rating in the game's variant
        (``seat["rating"]``), read now: the lobby shows them beside the names. One
        read per variant."""
        wanted: dict[str, set[str]] = {}
        for summary in summaries:
            for seat in summary.get("seats") or ():
                player = player_id(seat.get("name", ""), seat.get("account"), seat.get("bot"))
                if player is not None:
                    wanted.setdefault(summary["variant"], set()).add(player)
        for variant, players in wanted.items():
            skills = await self.ratings.skills(variant, sorted(players))
            for summary in summaries:
                if summary["variant"] != variant:
                    continue
                for seat in summary.get("seats") or ():
                    player = player_id(seat.get("name", ""), seat.get("account"), seat.get("bot"))
                    if player is not None:
                        seat["rating"] = skills.get(player, NEW).rating
        return summaries

    async def record(self, player: str) -> tuple[int, int]:
        """How many finished games the player played, and won."""
        raw = await self._r.hmget(record_key(player), ["games", "wins"])
        return int(raw[0] or 0), int(raw[1] or 0)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
