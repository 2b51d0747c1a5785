"""The timekeeper: nobody sends a command when a clock runs out, so every server
process watches the deadlines of the live timed games (and of open games, which
expire) and records what time causes when one passes (RULES.md part 3).

The deadlines live in Redis beside the lobby, derived from the streams like it:

- ``{clock}:deadlines``: sorted set, game id -> its next deadline (ms since the epoch),
  ``events.leaving.deadline`` of its state: the mover's flag, the first-turn window,
  an open game's expiry;
- ``{clock}:versions``: hash, game id -> the version that deadline is of, so that two
  processes writing out of order never put back an older deadline.

The service writes a game's deadline after each append that changes it
(``ServiceHooks.scheduler``; a move's with the others of the next ``FLUSH_S``, in one
script, so a move pays no round trip for it) and for every open or live game at start-up (the lobby's
refresh, server/games/lobby_keeper.py), so the set survives a restart of every process. Each process's
``Timekeeper`` asks Redis, in one script, for the games now due and the next
deadline, and sleeps until that one or ``POLL_S`` (a deadline written by another
process is seen within it). A due game goes to ``GameService.expire``, which appends
``TimeRanOut`` (or the first-turn ``GameAborted``, or the open game's expiry) with the
command id ``clock:<seat>:<version>``: processes racing on one deadline append it
once, as bot moves are (``bot:<seat>:<version>``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

from redis.exceptions import RedisError

from server.common.background import Sleeper, running
from server.common.errors import ServiceError
from server.games.service import GameService
from server.store.clients import RedisClient
from server.store.fast_paths import command_path
from server.store.keys import DEADLINE_VERSIONS_KEY, DEADLINES_KEY
from server.store.public_path import Script

__all__ = ["Deadlines", "Timekeeper", "running_timekeeper"]

log = logging.getLogger(__name__)

POLL_S: Final = 0.25  # the longest sleep: a deadline another process wrote is seen within it
# A move's new deadline is written with the others of the next FLUSH_S, in one script
# (not one round trip a move: +35% of Redis CPU a command at 100 moves/s, bench/README.md);
# see ``Deadlines.note``. Well within the 1 s a deadline is met in.
FLUSH_S: Final = 0.25
BATCH: Final = 64  # due games handled at once
FAILED_MS: Final = 1_000  # a game whose expiry failed is tried again after this, doubling
FAILED_MAX_MS: Final = 60_000  # up to this

# KEYS: deadlines, versions. ARGV: (game id, version, deadline ms or '' for none)
# repeated, one triple a game. A game's word is written unless a later version's
# deadline is there already.
_SCHEDULE_LUA: Final = Script("""
for i = 1, #ARGV, 3 do
  local id, version = ARGV[i], tonumber(ARGV[i + 1])
  local old = tonumber(redis.call('HGET', KEYS[2], id) or '-1')
  if old <= version then
    if ARGV[i + 2] == '' then
      redis.call('ZREM', KEYS[1], id)
      redis.call('HDEL', KEYS[2], id)
    else
      redis.call('HSET', KEYS[2], id, ARGV[i + 1])
      redis.call('ZADD', KEYS[1], ARGV[i + 2], id)
    end
  end
end
return 1
""")
_KEYS: Final = (DEADLINES_KEY.encode(), DEADLINE_VERSIONS_KEY.encode())

# KEYS: deadlines. ARGV: now ms, batch. Returns {the ids due (at most batch), the
# next deadline or false}.
_DUE_LUA: Final = Script("""
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {due, first[2] or false}
""")


def _triple(game_id: str, version: int, deadline_ms: int | None) -> tuple[bytes, bytes, bytes]:
    due = b"" if deadline_ms is None else b"%d" % deadline_ms
    return game_id.encode(), b"%d" % version, due


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class Deadlines:
    """The deadlines of games in Redis (``ServiceHooks.scheduler``)."""

    def __init__(self, client: RedisClient, *, flush_s: float = FLUSH_S) -> None:
        self._r = client
        self._direct = command_path(client)
        self._flush_s = flush_s
        self._noted: dict[str, tuple[int, int | None]] = {}
        self._flushing: asyncio.Task[None] | None = None

    async def schedule(self, game_id: str, version: int, deadline_ms: int | None) -> None:
        """Write the game's deadline now."""
        await self._direct.run(_SCHEDULE_LUA, _KEYS, _triple(game_id, version, deadline_ms))

    def note(self, game_id: str, version: int, deadline_ms: int | None) -> None:
        """Write the game's deadline within ``flush_s``, with the others noted meanwhile.

        A move's command does not wait for it (nor pay a round trip of its own). If the
        process dies before the write, the deadline in Redis is the game's previous
        one: the keeper that finds it due reads the game and writes the right one, and
        a move made after its seat's time is refused and the loss recorded anyway."""
        known = self._noted.get(game_id)
        if known is None or known[0] <= version:
            self._noted[game_id] = (version, deadline_ms)
        if self._flushing is None:
            self._flushing = asyncio.get_running_loop().create_task(self._flush_later())

    async def _flush_later(self) -> None:
        try:
            await asyncio.sleep(self._flush_s)
        finally:
            self._flushing = None
            await self.flush()

    async def aclose(self) -> None:
        """Write what is noted now (a process stopping)."""
        task = self._flushing
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.flush()

    async def flush(self) -> None:
        """Write every deadline noted and not yet written (a failure is logged: the
        keepers' start-up rebuild or the game's next change heals it)."""
        if not self._noted:
            return
        noted, self._noted = self._noted, {}
        args = [part for game_id, (v, due) in noted.items() for part in _triple(game_id, v, due)]
        try:
            await self._direct.run(_SCHEDULE_LUA, _KEYS, args)
        except RedisError:
            log.exception("%d deadlines not written; noted again", len(noted))
            # Noted again for the next flush, unless a newer one was noted meanwhile:
            # a game's next append may be far off, and its deadline must not wait for it.
            for game_id, (version, due) in noted.items():
                known = self._noted.get(game_id)
                if known is None or known[0] < version:
                    self._noted[game_id] = (version, due)

    async def due(self, now_ms: int, limit: int = BATCH) -> tuple[list[str], int | None]:
        """The games whose deadline is ``now_ms`` or before (at most ``limit``), and the
        earliest deadline of all (None when there is none)."""
        due, first = await self._direct.run(_DUE_LUA, (_KEYS[0],), (b"%d" % now_ms, b"%d" % limit))
        ids = [g.decode() if isinstance(g, bytes) else str(g) for g in due]
        return ids, None if first is None else int(float(first))

    async def all(self) -> dict[str, int]:
        """Every game's deadline (tests and tools)."""
        pairs: list[Any] = await self._r.zrange(DEADLINES_KEY, 0, -1, withscores=True)
        return {(g.decode() if isinstance(g, bytes) else g): int(s) for g, s in pairs}


class Timekeeper:
    """Records every deadline as it passes, for the games of ``Deadlines``, until
    closed. Several processes may run one each: each deadline is recorded once."""

    def __init__(
        self,
        service: GameService,
        deadlines: Deadlines,
        *,
        poll_s: float = POLL_S,
        clock_ms: Any = _now_ms,
    ) -> None:
        self.service = service
        self.deadlines = deadlines
        self._poll_s = poll_s
        self._clock_ms = clock_ms
        self._closed = False
        self._sleeper = Sleeper()
        self.recorded = 0  # appends made (tests, benches)
        # Games whose expiry failed (a fault, or a shard down): failures, and when to
        # try again. They are left out until then, so that a game that fails each time
        # never keeps the keeper from sleeping.
        self._failing: dict[str, tuple[int, int]] = {}

    def close(self) -> None:
        self._closed = True
        self._sleeper.wake()

    async def run(self) -> None:
        while not self._closed:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("timekeeper tick failed; retrying")
                await self._sleeper.sleep(1.0)

    async def tick(self) -> None:
        """Record what is due now, then sleep until the next deadline (at most
        ``poll_s``)."""
        now = self._clock_ms()
        due, first = await self.deadlines.due(now)
        ready = self._ready(due, now)
        if ready:
            await asyncio.gather(*(self._expire(game_id) for game_id in ready))
            if len(ready) == BATCH:
                return  # more may be due: no sleep
            now = self._clock_ms()
            due, first = await self.deadlines.due(now)
            if self._ready(due, now):
                return
        wait = self._poll_s
        if first is not None and first > now:
            wait = min(wait, (first - now) / 1000)
        if self._failing:
            soonest = min(at for _, at in self._failing.values())
            wait = min(wait, max(0.0, (soonest - now) / 1000))
        await self._sleeper.sleep(wait)

    def _ready(self, due: list[str], now: int) -> list[str]:
        """The games of ``due`` not waiting to be tried again after a failure; those
        failing that are no longer due are forgotten (when ``due`` is all of them)."""
        if len(due) < BATCH:
            for game_id in set(self._failing) - set(due):
                del self._failing[game_id]
        return [g for g in due if self._failing.get(g, (0, 0))[1] <= now]

    def _failed(self, game_id: str) -> None:
        failures = self._failing.get(game_id, (0, 0))[0] + 1
        wait_ms = min(FAILED_MAX_MS, FAILED_MS << min(failures - 1, 16))
        self._failing[game_id] = (failures, self._clock_ms() + wait_ms)

    async def _expire(self, game_id: str) -> None:
        try:
            result = await self.service.expire(game_id)
        except ServiceError as refusal:
            if refusal.reason.key == "game.not_found":  # a game that no longer exists
                await self.deadlines.schedule(game_id, 1 << 62, None)
            else:
                log.warning("deadline of %s not recorded: %s", game_id, refusal)
                self._failed(game_id)
            return
        except Exception:
            log.exception("deadline of %s failed; tried again later", game_id)
            self._failed(game_id)
            return
        self._failing.pop(game_id, None)
        if result is not None and not result.duplicate:
            self.recorded += 1


@asynccontextmanager
async def running_timekeeper(
    service: GameService, deadlines: Deadlines
) -> AsyncIterator[Timekeeper]:
    """This process's timekeeper, expiring the games of ``deadlines`` (the service's
    scheduler) for as long as the context lasts."""
    keeper = Timekeeper(service, deadlines)
    async with running(keeper):
        yield keeper
