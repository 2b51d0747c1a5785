"""Finished games analysed in the background (bots/analysis.py is what an analysis is).

A game that finishes is noted in one sorted set of its own hash tag,
``{analysis}:due`` (game id -> when it may be taken, ms since the epoch: 0 when
noted), by the service as it appends the end, and by ``GET /api/games/{id}/analysis``
for a finished game with no analysis yet (older and imported games). ``ZADD NX``: a
note keeps its time.

The bots' runners (``splendor serve`` with bots on, ``splendor bots``) each run an
``Analyser``: it takes **one** game at a time, in one script that puts its time
``LEASE_MS`` later (renewed at every position), so another runner takes it over if
this one dies. Each turn start's estimate is written as soon as it is known, in the
game's hash ``game:{<id>}:analysis`` (field ``v<version>``): a runner taking the game
over computes only the positions left. The whole analysis (its JSON body, deflated:
about 2 KB for a 2-player game) then takes the positions' place in field ``done``,
and the game is dropped from the set; a game taken whose ``done`` is there is
just dropped (analysed once). The hash has the game's hash tag, beside its archive,
and the archive swap never deletes it.

The searches run in a process of their own at the lowest CPU priority (``nice``
19), one position at a time, and none starts while a bot of this runner thinks:
bots' moves first.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import time
import zlib
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, Final

from redis.exceptions import RedisError

from bots.analysis import Estimate, assemble, estimate, turn_starts
from server.common.background import Sleeper
from server.common.errors import ServiceError
from server.games.service import GameService
from server.store.clients import RedisClient
from server.store.fast_paths import command_path
from server.store.keys import ANALYSIS_DUE_KEY, analysis_key
from server.store.public_path import Script

__all__ = ["LEASE_MS", "Analyser", "AnalysisQueue", "done_value"]

log = logging.getLogger(__name__)

LEASE_MS: Final = 120_000  # a taken game is taken again this long after its last position
POLL_S: Final = 1.0
BUSY_WAIT_S: Final = 0.05  # while a bot thinks, the next position waits this long

# KEYS[1] the due set. ARGV: now ms, the lease's end ms. One id due, its time moved on.
_TAKE_LUA: Final = Script("""
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #due == 0 then return false end
redis.call('ZADD', KEYS[1], 'XX', ARGV[2], due[1])
return due[1]
""")
_KEYS: Final = (ANALYSIS_DUE_KEY.encode(),)
# KEYS[1] a game's analysis hash. ARGV[1] the whole analysis: the positions give way to it.
_DONE_LUA: Final = Script("""
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'done', ARGV[1])
return 1
""")


def done_value(body: dict[str, Any]) -> bytes:
    """A done analysis as field ``done`` of its hash keeps it: its JSON body, deflated."""
    return zlib.compress(json.dumps(body, separators=(",", ":")).encode(), 9)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class AnalysisQueue:
    """The games to analyse, and their analyses as far as they go."""

    def __init__(self, client: RedisClient) -> None:
        self._r = client
        self._direct = command_path(client)

    async def add(self, game_id: str) -> None:
        """Have a finished game analysed (a noted game keeps its time)."""
        await self._r.zadd(ANALYSIS_DUE_KEY, {game_id: 0}, nx=True)

    async def take(self, now_ms: int, lease_ms: int = LEASE_MS) -> str | None:
        """A game due at ``now_ms``, leased for ``lease_ms``; None if none is."""
        args = (b"%d" % now_ms, b"%d" % (now_ms + lease_ms))
        game = await self._direct.run(_TAKE_LUA, _KEYS, args)
        return None if game is None else _text(game)

    async def renew(self, game_id: str, until_ms: int) -> None:
        await self._r.zadd(ANALYSIS_DUE_KEY, {game_id: until_ms}, xx=True)

    async def length(self) -> int:
        """How many games are noted (metrics)."""
        return int(await self._r.zcard(ANALYSIS_DUE_KEY))

    async def due(self) -> dict[str, int]:
        """Every game noted and its time (tests and tools)."""
        pairs: list[Any] = await self._r.zrange(ANALYSIS_DUE_KEY, 0, -1, withscores=True)
        return {_text(g): int(s) for g, s in pairs}

    async def positions(self, game_id: str) -> dict[int, Estimate]:
        """The turn starts' estimates written so far."""
        fields: Mapping[Any, Any] = await self._r.hgetall(analysis_key(game_id))
        found: dict[int, Estimate] = {}
        for name, value in fields.items():
            name = _text(name)
            if name.startswith("v"):
                data = json.loads(value)
                found[int(name[1:])] = Estimate(data["chances"], data["mover"], data["best"])
        return found

    async def save_position(self, game_id: str, version: int, estimated: Estimate) -> None:
        value = {"chances": estimated.chances, "mover": estimated.mover, "best": estimated.best}
        await self._r.hset(analysis_key(game_id), f"v{version}", json.dumps(value))

    async def save_done(self, game_id: str, body: dict[str, Any]) -> None:
        """The whole analysis deflated, in place of the positions; then the game out
        of the set."""
        value = done_value(body)
        await self._direct.run(_DONE_LUA, (analysis_key(game_id).encode(),), (value,))
        await self._r.zrem(ANALYSIS_DUE_KEY, game_id)

    async def drop(self, game_id: str) -> None:
        await self._r.zrem(ANALYSIS_DUE_KEY, game_id)

    async def result(self, game_id: str) -> bytes | None:
        """The done analysis's JSON body, None while there is none."""
        value = await self._r.hget(analysis_key(game_id), "done")
        if value is None:
            return None
        return zlib.decompress(value if isinstance(value, bytes) else value.encode("latin-1"))


def _lowest_priority() -> None:
    """A worker process's start: the lowest CPU priority (bots and sockets first)."""
    with contextlib.suppress(OSError):
        os.nice(19)


def analysis_pool() -> Executor:
    """One process at nice 19 for the searches."""
    return ProcessPoolExecutor(
        1, mp_context=multiprocessing.get_context("spawn"), initializer=_lowest_priority
    )


class Analyser:
    """Analyses the games of an ``AnalysisQueue``, one at a time, until closed."""

    def __init__(
        self,
        service: GameService,
        queue: AnalysisQueue,
        *,
        iterations: int,
        busy: Callable[[], bool] = lambda: False,
        pool: Callable[[], Executor] = analysis_pool,
        poll_s: float = POLL_S,
        clock_ms: Callable[[], int] = _now_ms,
        lease_ms: int = LEASE_MS,
    ) -> None:
        self.service = service
        self.queue = queue
        self._iterations = iterations
        self._busy = busy
        self._make_pool = pool
        self._pool: Executor | None = None
        self._poll_s = poll_s
        self._clock_ms = clock_ms
        self._lease_ms = lease_ms
        self._closed = False
        self._sleeper = Sleeper()
        self.positions = 0  # turn starts this analyser searched (tests, logs)
        self.analysed = 0  # games it finished

    def close(self) -> None:
        self._closed = True
        self._sleeper.wake()
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.shutdown(wait=False, cancel_futures=True)

    async def run(self) -> None:
        while not self._closed:
            try:
                if not await self.tick():
                    await self._sleeper.sleep(self._poll_s)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("analyser tick failed; retrying")
                await self._sleeper.sleep(max(self._poll_s, 1.0))

    async def tick(self, stop_after: int | None = None) -> bool:
        """Analyse one game due now (at most ``stop_after`` positions of it: tests of a
        runner dying); False if none was due."""
        game_id = await self.queue.take(self._clock_ms(), self._lease_ms)
        if game_id is None:
            return False
        try:
            await self._analyse(game_id, stop_after)
        except ServiceError as refusal:  # no such game (any more)
            log.warning("analysis of %s dropped: %s", game_id, refusal)
            await self.queue.drop(game_id)
        except (RedisError, OSError):
            log.exception("analysis of %s failed; taken again when its lease ends", game_id)
        return True

    async def _analyse(self, game_id: str, stop_after: int | None) -> None:
        if await self.queue.result(game_id) is not None:
            await self.queue.drop(game_id)  # analysed once
            return
        variant = await self.service.reader.variant_of(game_id)
        events = [entry.event for entry in await self.service.reader.log(game_id)]
        state = variant.fold(events)
        if state.status != "finished":
            await self.queue.drop(game_id)  # an aborted game has nothing to analyse
            return
        done = await self.queue.positions(game_id)
        searched = 0
        for version, view in turn_starts(variant.name, events):
            if version in done:
                continue
            if self._closed or (stop_after is not None and searched >= stop_after):
                return  # left leased: taken again when the lease ends
            while self._busy() and not self._closed:
                await asyncio.sleep(BUSY_WAIT_S)
            loop = asyncio.get_running_loop()
            found = await loop.run_in_executor(
                self._pool_now(), estimate, view, game_id, self._iterations
            )
            await self.queue.save_position(game_id, version, found)
            await self.queue.renew(game_id, self._clock_ms() + self._lease_ms)
            done[version] = found
            searched += 1
            self.positions += 1
        winners = list(state.result.winners) if state.result is not None else []
        analysis = assemble(state.players_count, len(events), sorted(done.items()), winners)
        await self.queue.save_done(game_id, analysis.wire())
        self.analysed += 1

    def _pool_now(self) -> Executor:
        if self._pool is None:
            self._pool = self._make_pool()
        return self._pool
