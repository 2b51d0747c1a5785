"""What is kept of tournaments beside their logs, all derived from them and written
again by the director when it finds one missing (so a process dying between an
append and its index loses nothing for long):

- ``{tournaments}:open`` (id -> start) and ``{tournaments}:finished`` (id -> end): the
  list's upcoming and running ones, and the finished ones;
- ``{tournaments}:due`` (id -> ms): when a director looks at a tournament next;
- ``tournaments:creator:{<account>}:made`` and ``...:open``: what an account created,
  for the limits (``claim_creation``, one script in the account's slot);
- ``player:{<player>}:tournaments``: a player's history (id -> start).
"""

from __future__ import annotations

from typing import Any, Final

from server.store.clients import RedisClient
from server.store.keys import (
    TOURNAMENTS_DUE_KEY,
    TOURNAMENTS_FINISHED_KEY,
    TOURNAMENTS_OPEN_KEY,
    player_tournaments_key,
    tournaments_created_key,
    tournaments_open_of_key,
)

__all__ = ["CreationRefused", "TournamentIndexes"]

# KEYS[1] an account's created tournaments (id -> ms), KEYS[2] those not ended.
# ARGV[1] the id, ARGV[2] now ms, ARGV[3] the start of the UTC day (ms), ARGV[4] the
# most open, ARGV[5] the most a day. Returns 0 (claimed), 1 (too many open), 2 (too
# many today). Those created before the day are dropped: only the day's are counted.
_CLAIM_LUA: Final = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 1 end
if redis.call('ZCOUNT', KEYS[1], ARGV[3], '+inf') >= tonumber(ARGV[5]) then return 2 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[1])
return 0
"""

# KEYS: open, finished. ARGV: id, end ms.
_FINISH_LUA: Final = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
"""


class CreationRefused(Exception):
    """An account's limits refuse another tournament: ``today`` names which."""

    def __init__(self, today: bool) -> None:
        super().__init__("too many tournaments today" if today else "too many open tournaments")
        self.today = today


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class TournamentIndexes:
    """The indexes of tournaments over one Redis client."""

    def __init__(self, client: RedisClient) -> None:
        self._r = client
        self._claim = client.register_script(_CLAIM_LUA)
        self._finish = client.register_script(_FINISH_LUA)

    async def claim_creation(
        self,
        account: str,
        tournament_id: str,
        now_ms: int,
        day_ms: int,
        most_open: int,
        most_a_day: int,
    ) -> None:
        """Count a tournament the account creates, within its limits (else
        ``CreationRefused``, nothing counted)."""
        keys = [tournaments_created_key(account), tournaments_open_of_key(account)]
        outcome = int(
            await self._claim(
                keys=keys, args=[tournament_id, now_ms, day_ms, most_open, most_a_day]
            )
        )
        if outcome:
            raise CreationRefused(today=outcome == 2)

    async def release_creation(self, account: str, tournament_id: str) -> None:
        """Count no more a tournament claimed whose creation failed (its log was never
        written), so that the claim does not hold one of the account's slots."""
        await self._r.zrem(tournaments_created_key(account), tournament_id)
        await self._r.srem(tournaments_open_of_key(account), tournament_id)

    async def open_claims(self, account: str) -> list[tuple[str, int | None]]:
        """The tournaments counted as the account's open ones, each with when it was
        claimed (None for a claim before the UTC day, whose time is no longer kept)."""
        ids = sorted(_text(t) for t in await self._r.smembers(tournaments_open_of_key(account)))
        created = tournaments_created_key(account)
        claims: list[tuple[str, int | None]] = []
        for tournament_id in ids:  # at most a few
            claimed = await self._r.zscore(created, tournament_id)
            claims.append((tournament_id, None if claimed is None else int(claimed)))
        return claims

    async def listed(self, tournament_id: str, starts_ms: int) -> None:
        """An upcoming or running tournament."""
        await self._r.zadd(TOURNAMENTS_OPEN_KEY, {tournament_id: starts_ms})

    async def finished(self, tournament_id: str, ended_ms: int, creator: str | None) -> None:
        """A tournament ended: listed as finished, no longer counted as its creator's open one."""
        await self._finish(
            keys=[TOURNAMENTS_OPEN_KEY, TOURNAMENTS_FINISHED_KEY], args=[tournament_id, ended_ms]
        )
        if creator is not None:
            await self._r.srem(tournaments_open_of_key(creator), tournament_id)

    async def open_ids(self) -> list[str]:
        return [_text(t) for t in await self._r.zrange(TOURNAMENTS_OPEN_KEY, 0, -1)]

    async def upcoming_ids(self, now_ms: int, limit: int) -> list[str]:
        """The ``limit`` open tournaments starting soonest after ``now_ms``."""
        ids = await self._r.zrangebyscore(
            TOURNAMENTS_OPEN_KEY, f"({now_ms}", "+inf", start=0, num=limit
        )
        return [_text(t) for t in ids]

    async def started_ids(self, now_ms: int, limit: int) -> list[str]:
        """The ``limit`` open tournaments that started last, by ``now_ms``."""
        ids = await self._r.zrevrangebyscore(
            TOURNAMENTS_OPEN_KEY, now_ms, "-inf", start=0, num=limit
        )
        return [_text(t) for t in ids]

    async def open_count(self) -> int:
        """How many tournaments are upcoming or running."""
        count: int = await self._r.zcard(TOURNAMENTS_OPEN_KEY)
        return count

    async def finished_ids(self, limit: int) -> list[str]:
        """The last ``limit`` to end, newest first."""
        ids = await self._r.zrevrange(TOURNAMENTS_FINISHED_KEY, 0, limit - 1)
        return [_text(t) for t in ids]

    async def is_finished(self, tournament_id: str) -> bool:
        return await self._r.zscore(TOURNAMENTS_FINISHED_KEY, tournament_id) is not None

    # ------------------------------------------------------------------ due

    async def due_at(self, tournament_id: str, at_ms: int) -> None:
        """A director looks at the tournament at ``at_ms`` (or at the next look)."""
        await self._r.zadd(TOURNAMENTS_DUE_KEY, {tournament_id: at_ms})

    async def keep_due(self, tournament_ids: list[str], at_ms: int) -> None:
        """Make each tournament due at ``at_ms`` unless it has a due time already."""
        if tournament_ids:
            await self._r.zadd(TOURNAMENTS_DUE_KEY, dict.fromkeys(tournament_ids, at_ms), nx=True)

    async def due(self, now_ms: int, limit: int) -> list[str]:
        ids = await self._r.zrangebyscore(TOURNAMENTS_DUE_KEY, "-inf", now_ms, start=0, num=limit)
        return [_text(t) for t in ids]

    async def not_due(self, tournament_id: str) -> None:
        await self._r.zrem(TOURNAMENTS_DUE_KEY, tournament_id)

    # ------------------------------------------------------------------ players

    async def joined(self, player: str, tournament_id: str, starts_ms: int) -> None:
        """List a tournament in a player's history (a player id: lowercase)."""
        await self._r.zadd(player_tournaments_key(player.lower()), {tournament_id: starts_ms})

    async def history(self, player: str, limit: int) -> list[str]:
        """A player's tournaments, newest first."""
        ids = await self._r.zrevrange(player_tournaments_key(player.lower()), 0, limit - 1)
        return [_text(t) for t in ids]
