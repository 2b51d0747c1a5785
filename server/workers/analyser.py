"""Finished games analysed in the background (bots/analysis.py is what an analysis is).

**The queue** (docs/analysis.md), keys of one hash tag ``{analysis}``: the sorted set
``{analysis}:due`` holds each game to analyse with the time it may be taken (ms since
the epoch): the time it was asked for while it waits, so the analysers take the
games first come first served, and a lease's end once taken. Which games are queued
is the server's mode (``SPLENDOR_ANALYSIS``): in ``request`` mode those someone asks
for (``POST /api/games/{id}/analysis``), in ``rated`` mode those and the rated games
as they finish, in ``every`` mode every game as it finishes (and any finished game whose analysis is
read), in ``off`` mode none. ``ZADD NX``: a game queued keeps its place.

An ``Analyser`` (in ``splendor serve`` and ``splendor bots`` beside the bots, or in
``splendor analyse`` alone, on any machine reaching the Redis) takes **one** game at a
time, in one script that puts its time ``LEASE_MS`` later (renewed at every
position), so another analyser takes it over if this one dies. Each turn start's
estimate is written as soon as it is known, in the game's hash
``game:{<id>}:analysis`` (field ``v<version>``, beside ``of``: how many there are):
an analyser taking the game over computes only the positions left. The whole
analysis (its JSON body, deflated: about 2 KB for a 2-player game) then takes the
positions' place in field ``done``, and the game leaves the queue; a game taken whose
``done`` is there is just dropped (analysed once). The hash has the game's hash tag,
beside its archive, and the archive swap never deletes it.

What a player is told while waiting (``AnalysisQueue.state``): the games ahead, the
analysers alive (each beats in ``{analysis}:workers``) and the wait, estimated from
the durations of the last analyses (``{analysis}:recent``). What the metrics read
(``AnalysisQueue.stats``): analyses done and the waits between a request and its
analysis's start (``{analysis}:stats``), counted for every process in Redis.

The searches run in a process of their own at the lowest CPU priority (``nice``
19), one position at a time, and none starts while a bot of this runner thinks:
bots' moves first.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import multiprocessing
import os
import socket
import time
import zlib
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Final

from redis.exceptions import RedisError

from bots.analysis import Estimate, assemble, estimate, turn_starts
from server.common.background import Sleeper
from server.common.errors import ServiceError
from server.common.settings import AnalysisMode
from server.games.service import GameService
from server.store.clients import RedisClient
from server.store.fast_paths import command_path
from server.store.keys import (
    ANALYSIS_ASKED_KEY,
    ANALYSIS_DUE_KEY,
    ANALYSIS_RECENT_KEY,
    ANALYSIS_STATS_KEY,
    ANALYSIS_WORKERS_KEY,
    analysis_key,
)
from server.store.public_path import Script

__all__ = [
    "LEASE_MS",
    "WAIT_BUCKETS",
    "Analyser",
    "AnalysisQueue",
    "AnalysisStats",
    "done_value",
]

log = logging.getLogger(__name__)

LEASE_MS: Final = 120_000  # a taken game is taken again this long after its last position
HAND_BACK_S: Final = 2.0  # a stopping analyser gives its game back within this, or leaves it leased
POLL_S: Final = 1.0
BUSY_WAIT_S: Final = 0.05  # while a bot thinks, the next position waits this long
# An analyser beats at every turn of its loop and every position; one silent this long
# is not counted among those alive (a position takes well under a second of CPU).
ALIVE_MS: Final = 30_000
RECENT: Final = 20  # the analyses whose durations the wait is estimated from
# The wait between a request and its analysis's start, in seconds (the histogram's
# buckets): a free analyser takes a game within its poll, a busy queue takes minutes.
WAIT_BUCKETS: Final = (1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)

# KEYS[1] the due set, KEYS[2] the request times. ARGV[1] the game, ARGV[2] now ms.
# Queued at its request time unless it is queued already (then it keeps its place).
_ADD_LUA: Final = Script("""
if redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  return 1
end
return 0
""")
# KEYS[1] the due set, KEYS[2] the request times. ARGV: now ms, the lease's end ms.
# The game asked for first among those due, its time moved to the lease's end; with
# its request time the first time it is taken (the wait), '' when taken again.
_TAKE_LUA: Final = Script("""
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #due == 0 then return false end
redis.call('ZADD', KEYS[1], 'XX', ARGV[2], due[1])
local asked = redis.call('HGET', KEYS[2], due[1])
if asked then redis.call('HDEL', KEYS[2], due[1]) else asked = '' end
return {due[1], asked}
""")
_QUEUE_KEYS: Final = (ANALYSIS_DUE_KEY.encode(), ANALYSIS_ASKED_KEY.encode())
# KEYS[1] a game's analysis hash. ARGV[1] the whole analysis: the positions give way to it.
_DONE_LUA: Final = Script("""
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'done', ARGV[1])
return 1
""")


def done_value(body: dict[str, Any]) -> bytes:
    """A done analysis as field ``done`` of its hash keeps it: its JSON body, deflated."""
    return zlib.compress(json.dumps(body, separators=(",", ":")).encode(), 9)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _bucket(seconds: float) -> str:
    """The histogram's field counting a wait of ``seconds`` (its smallest bucket)."""
    for bound in WAIT_BUCKETS:
        if seconds <= bound:
            return f"wait_le_{bound:g}"
    return "wait_le_inf"


@dataclass(frozen=True)
class AnalysisStats:
    """The queue as the metrics read it (every process's work, from Redis)."""

    queued: int  # games waiting or being analysed
    running: int  # games an analyser holds the lease of
    analysers: int  # analysers that beat within ALIVE_MS
    done: int  # analyses finished
    wait_buckets: tuple[tuple[str, int], ...]  # cumulative, as Prometheus has them
    wait_sum: float
    wait_count: int
    mean_seconds: float | None  # of the recent analyses


class AnalysisQueue:
    """The games to analyse, and their analyses as far as they go. ``mode`` is which
    games finishing are queued (``SPLENDOR_ANALYSIS``; every game unless told)."""

    def __init__(self, client: RedisClient, mode: AnalysisMode = "every") -> None:
        self._r = client
        self._direct = command_path(client)
        self.mode: AnalysisMode = mode

    async def finished(self, game_id: str, rated: bool, ended_ms: int) -> None:
        """``ServiceHooks.finished``: queue a game just finished if the mode says so,
        at its end's time."""
        if self.mode == "every" or (self.mode == "rated" and rated):
            await self.add(game_id, ended_ms)

    async def add(self, game_id: str, at_ms: int = 0) -> bool:
        """Have a finished game analysed, asked for at ``at_ms``; False if it was queued
        already (it keeps its place)."""
        args = (game_id.encode(), b"%d" % at_ms)
        return bool(await self._direct.run(_ADD_LUA, _QUEUE_KEYS, args))

    async def take(self, now_ms: int, lease_ms: int = LEASE_MS) -> str | None:
        """A game due at ``now_ms``, leased for ``lease_ms``; None if none is."""
        args = (b"%d" % now_ms, b"%d" % (now_ms + lease_ms))
        taken = await self._direct.run(_TAKE_LUA, _QUEUE_KEYS, args)
        if not taken:
            return None
        game_id, asked = _text(taken[0]), _text(taken[1])
        if asked:
            await self._waited(max(0.0, (now_ms - int(asked)) / 1000))
        return game_id

    async def _waited(self, seconds: float) -> None:
        async with self._r.pipeline(transaction=False) as pipe:
            pipe.hincrby(ANALYSIS_STATS_KEY, _bucket(seconds), 1)
            pipe.hincrby(ANALYSIS_STATS_KEY, "wait_count", 1)
            pipe.hincrbyfloat(ANALYSIS_STATS_KEY, "wait_sum", seconds)
            await pipe.execute()

    async def renew(self, game_id: str, until_ms: int) -> None:
        await self._r.zadd(ANALYSIS_DUE_KEY, {game_id: until_ms}, xx=True)

    async def beat(self, analyser: str, now_ms: int) -> None:
        """An analyser is alive (the wait's estimate counts it)."""
        async with self._r.pipeline(transaction=False) as pipe:
            pipe.zadd(ANALYSIS_WORKERS_KEY, {analyser: now_ms})
            pipe.zremrangebyscore(ANALYSIS_WORKERS_KEY, "-inf", now_ms - 10 * ALIVE_MS)
            await pipe.execute()

    async def gone(self, analyser: str) -> None:
        """An analyser stopped."""
        await self._r.zrem(ANALYSIS_WORKERS_KEY, analyser)

    async def length(self) -> int:
        """How many games are queued, being analysed included (metrics)."""
        return int(await self._r.zcard(ANALYSIS_DUE_KEY))

    async def due(self) -> dict[str, int]:
        """Every game queued and its time (tests and tools)."""
        pairs: list[Any] = await self._r.zrange(ANALYSIS_DUE_KEY, 0, -1, withscores=True)
        return {_text(g): int(s) for g, s in pairs}

    async def _analysers(self, now_ms: int) -> int:
        return int(await self._r.zcount(ANALYSIS_WORKERS_KEY, now_ms - ALIVE_MS, "+inf"))

    async def _mean_seconds(self) -> float | None:
        recent: list[Any] = await self._r.lrange(ANALYSIS_RECENT_KEY, 0, RECENT - 1)
        if not recent:
            return None
        return sum(float(_text(r)) for r in recent) / len(recent)

    async def state(self, game_id: str, now_ms: int) -> dict[str, Any] | None:
        """Where a queued game is, as the route answers it: waiting (``queued``, the
        games asked for before it, the analysers alive and the seconds until its
        analysis is done: None before any analysis was measured or while no analyser
        is alive) or being analysed (``running``, the positions done out of how many
        and the seconds left); None if it is not queued."""
        score = await self._r.zscore(ANALYSIS_DUE_KEY, game_id)
        if score is None:
            return None
        analysers = await self._analysers(now_ms)
        mean = await self._mean_seconds()
        if score > now_ms:
            fields: Mapping[Any, Any] = await self._r.hgetall(analysis_key(game_id))
            names = [_text(name) for name in fields]
            positions = sum(1 for name in names if name.startswith("v"))
            of_raw = fields.get(b"of", fields.get("of"))
            of = int(_text(of_raw)) if of_raw is not None else None
            left = None
            if mean is not None and of:
                left = math.ceil(mean * max(0.0, 1 - positions / of))
            return {
                "status": "pending",
                "stage": "running",
                "positions": positions,
                "of": of,
                "analysers": analysers,
                "wait_s": left,
            }
        ahead = int(await self._r.zcount(ANALYSIS_DUE_KEY, "-inf", f"({score}"))
        running = int(await self._r.zcount(ANALYSIS_DUE_KEY, f"({now_ms}", "+inf"))
        wait = None
        if mean is not None and analysers > 0:
            # Those ahead and half of those running share the analysers, then its own.
            wait = math.ceil(mean * ((ahead + running / 2) / analysers + 1))
        return {
            "status": "pending",
            "stage": "queued",
            "ahead": ahead,
            "analysers": analysers,
            "wait_s": wait,
        }

    async def stats(self, now_ms: int) -> AnalysisStats:
        """The queue's figures for the metrics."""
        raw: Mapping[Any, Any] = await self._r.hgetall(ANALYSIS_STATS_KEY)
        fields = {_text(k): _text(v) for k, v in raw.items()}
        total = 0
        buckets: list[tuple[str, int]] = []
        for bound in WAIT_BUCKETS:
            total += int(fields.get(f"wait_le_{bound:g}", 0))
            buckets.append((f"{bound:g}", total))
        total += int(fields.get("wait_le_inf", 0))
        buckets.append(("+Inf", total))
        return AnalysisStats(
            queued=await self.length(),
            running=int(await self._r.zcount(ANALYSIS_DUE_KEY, f"({now_ms}", "+inf")),
            analysers=await self._analysers(now_ms),
            done=int(fields.get("done", 0)),
            wait_buckets=tuple(buckets),
            wait_sum=float(fields.get("wait_sum", 0.0)),
            wait_count=int(fields.get("wait_count", 0)),
            mean_seconds=await self._mean_seconds(),
        )

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

    async def save_count(self, game_id: str, positions: int) -> None:
        """How many positions the game's analysis searches (its progress's ``of``)."""
        await self._r.hset(analysis_key(game_id), "of", positions)

    async def save_position(self, game_id: str, version: int, estimated: Estimate) -> None:
        value = {"chances": estimated.chances, "mover": estimated.mover, "best": estimated.best}
        await self._r.hset(analysis_key(game_id), f"v{version}", json.dumps(value))

    async def save_done(
        self, game_id: str, body: dict[str, Any], seconds: float | None = None
    ) -> None:
        """The whole analysis deflated, in place of the positions; then the game out
        of the queue, counted, and ``seconds`` (the analysis's duration, when one
        analyser did it all) kept among the recent ones."""
        value = done_value(body)
        await self._direct.run(_DONE_LUA, (analysis_key(game_id).encode(),), (value,))
        async with self._r.pipeline(transaction=False) as pipe:
            pipe.zrem(ANALYSIS_DUE_KEY, game_id)
            pipe.hdel(ANALYSIS_ASKED_KEY, game_id)
            pipe.hincrby(ANALYSIS_STATS_KEY, "done", 1)
            if seconds is not None:
                pipe.lpush(ANALYSIS_RECENT_KEY, f"{seconds:.3f}")
                pipe.ltrim(ANALYSIS_RECENT_KEY, 0, RECENT - 1)
            await pipe.execute()

    async def drop(self, game_id: str) -> None:
        async with self._r.pipeline(transaction=False) as pipe:
            pipe.zrem(ANALYSIS_DUE_KEY, game_id)
            pipe.hdel(ANALYSIS_ASKED_KEY, game_id)
            await pipe.execute()

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
        clock_ms: Callable[[], int] = now_ms,
        lease_ms: int = LEASE_MS,
        name: str | None = None,
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
        # How the analyser beats among those alive: its host, process and object.
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self.positions = 0  # turn starts this analyser searched (tests, logs)
        self.analysed = 0  # games it finished

    def close(self) -> None:
        self._closed = True
        self._sleeper.wake()
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.shutdown(wait=False, cancel_futures=True)

    async def run(self) -> None:
        try:
            while not self._closed:
                try:
                    if not await self.tick():
                        await self._sleeper.sleep(self._poll_s)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("analyser tick failed; retrying")
                    await self._sleeper.sleep(max(self._poll_s, 1.0))
        finally:
            with contextlib.suppress(RedisError, OSError):
                await asyncio.shield(self.queue.gone(self.name))

    async def tick(self, stop_after: int | None = None) -> bool:
        """Analyse one game due now (at most ``stop_after`` positions of it: tests of a
        runner dying); False if none was due."""
        await self.queue.beat(self.name, self._clock_ms())
        game_id = await self.queue.take(self._clock_ms(), self._lease_ms)
        if game_id is None:
            return False
        try:
            await self._analyse(game_id, stop_after)
        except asyncio.CancelledError:
            await self._hand_back(game_id)
            raise
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
        started = time.monotonic()
        variant = await self.service.reader.variant_of(game_id)
        events = [entry.event for entry in await self.service.reader.log(game_id)]
        state = variant.fold(events)
        if state.status != "finished":
            await self.queue.drop(game_id)  # an aborted game has nothing to analyse
            return
        done = await self.queue.positions(game_id)
        whole = not done  # its duration says how long an analysis takes
        starts = turn_starts(variant.name, events)
        await self.queue.save_count(game_id, len(starts))
        searched = 0
        for version, view in starts:
            if version in done:
                continue
            if self._closed:
                await self._hand_back(game_id)
                return
            if stop_after is not None and searched >= stop_after:
                return  # left leased, as by a runner that died: taken again when it ends
            while self._busy() and not self._closed:
                await asyncio.sleep(BUSY_WAIT_S)
            loop = asyncio.get_running_loop()
            found = await loop.run_in_executor(
                self._pool_now(), estimate, view, game_id, self._iterations
            )
            await self.queue.save_position(game_id, version, found)
            await self.queue.renew(game_id, self._clock_ms() + self._lease_ms)
            await self.queue.beat(self.name, self._clock_ms())
            done[version] = found
            searched += 1
            self.positions += 1
        winners = list(state.result.winners) if state.result is not None else []
        analysis = assemble(state.players_count, len(events), sorted(done.items()), winners)
        seconds = time.monotonic() - started if whole else None
        await self.queue.save_done(game_id, analysis.wire(), seconds)
        self.analysed += 1

    async def _hand_back(self, game_id: str) -> None:
        """A stop (SIGTERM, close) in the middle of a game's analysis: the game is due
        again at once, not when its lease ends, for any analyser to go on from the
        positions written. Shielded, so that the stop's cancellation does not undo it,
        and bounded, so that a slow Redis cannot hold the stop: left undone, the game
        is taken again when its lease ends."""
        with contextlib.suppress(RedisError, OSError, TimeoutError):
            await asyncio.wait_for(
                asyncio.shield(self.queue.renew(game_id, self._clock_ms())), HAND_BACK_S
            )

    def _pool_now(self) -> Executor:
        if self._pool is None:
            self._pool = self._make_pool()
        return self._pool
