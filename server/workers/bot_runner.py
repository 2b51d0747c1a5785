"""Bot seats played by the server: a runner that watches every game with a bot seat
and, when a bot may act, asks the bot for a move and sends it as an ordinary command.

A bot sees only its own seat's view (``Variant.view(state, seat)``), exactly what a
player's websocket would get; its move goes through ``GameService.submit`` with the
same validation and events as anyone's. The command id is ``bot:<seat>:<version>``,
so several runners (server processes, or ``splendor bots`` workers) racing on one
game apply a move once: the others get the recorded answer or a conflict.

Games with bot seats are listed in the Redis set ``bots:games`` (added when a bot
takes a seat, removed when the game ends), so a runner in any process finds them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import random
import time
from collections.abc import AsyncIterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from bots import BOTS, choose
from events.game import Variant
from server.common.background import running
from server.common.errors import ServiceError
from server.common.settings import Settings
from server.games.lobby import Lobby
from server.games.projection import decode_event
from server.games.service import GameService
from server.store.availability import REDIS_CONNECT_S, StoreUnavailable
from server.store.clients import (
    RedisClient,
    close_client,
    is_cluster,
    open_client,
    tail_client,
)
from server.store.durability import Durability
from server.store.event_store import EventStore
from server.store.keys import BOT_GAMES_KEY
from server.workers.analyser import Analyser, AnalysisQueue

log = logging.getLogger(__name__)

REFRESH_SECONDS: Final = 0.25
TAIL_BLOCK_MS: Final = 200
WORKER_CONNECTIONS: Final = 512  # a splendor bots worker's Redis pool (per node)
WORKERS_GRACE_S: Final = 2.0  # for a thinking MCTS worker to finish, when stopping


def think(level: str, view: dict[str, Any], seed: str, seconds: float) -> dict[str, Any]:
    """One bot move; a plain function so that it can run in another process."""
    return choose(level, view, random.Random(seed), seconds=seconds, clock=time.perf_counter)


@dataclass
class _Table:
    variant: Variant
    state: Any
    thinking: set[tuple[int, int]] = field(default_factory=set)


class BotRunner:
    """Plays every bot seat of every game in ``bots:games`` until closed."""

    def __init__(
        self,
        service: GameService,
        tail_redis: RedisClient,
        *,
        delay: float,
        seconds: float,
    ) -> None:
        self.service = service
        self._redis = service.store.client
        self._tail = EventStore(tail_redis)
        self._delay = delay  # before answering, so a person can follow
        self._seconds = seconds  # MCTS's thinking time a move
        self._tables: dict[str, _Table] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._pool: Executor | None = None
        self._closed = False
        self._again: set[str] = set()  # games whose bot move failed for Redis
        self.moves = 0

    async def run(self) -> None:
        """Watch and play until ``close``."""
        next_refresh = 0.0
        while not self._closed:
            try:
                if time.monotonic() >= next_refresh:
                    await self._refresh()
                    next_refresh = time.monotonic() + REFRESH_SECONDS
                    self._play_again()
                if not self._tables:
                    await asyncio.sleep(REFRESH_SECONDS)
                    continue
                positions = {g: t.state.version for g, t in self._tables.items()}
                batch = await self._tail.tail(positions, TAIL_BLOCK_MS)
                for game_id, entries in batch.items():
                    table = self._tables.get(game_id)
                    if table is None:
                        continue
                    for entry in entries:
                        if entry.version == table.state.version + 1:
                            event = decode_event(table.variant, entry.data)
                            table.variant.evolve(table.state, event)
                    self._play(game_id, table)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                if isinstance(e, StoreUnavailable):
                    log.warning("bot runner: Redis can't be reached (%r); retrying", e)
                else:
                    log.exception("bot runner loop failed; retrying")
                await asyncio.sleep(1.0)

    def busy(self) -> bool:
        """Whether a bot of this runner thinks: the analyser waits (bots' moves first)."""
        return any(table.thinking for table in self._tables.values())

    async def close(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.shutdown(wait=False, cancel_futures=True)
        # Whether or not this runner made its own pool: the analyser's process (closed
        # just before the runner, its pool shut down without waiting) would outlive us.
        await asyncio.to_thread(end_workers, WORKERS_GRACE_S)

    async def _refresh(self) -> None:
        """Pick up games that got a bot seat; let go of those that ended."""
        raw = await self._redis.smembers(BOT_GAMES_KEY)
        members = {m.decode() if isinstance(m, bytes) else m for m in raw}
        for game_id in list(self._tables):
            if game_id not in members:
                del self._tables[game_id]
        for game_id in members - set(self._tables):
            try:
                variant = await self.service.reader.variant_of(game_id)
                logged = await self.service.reader.log(game_id)
            except ServiceError as refusal:
                # A game that no longer exists is let go; one of a variant this process
                # does not know (a rolling restart adding it) is left to the others.
                if refusal.reason.key == "game.not_found":
                    await self._redis.srem(BOT_GAMES_KEY, game_id)
                continue
            except Exception:
                # One game that can't be read must not keep the others' bots idle.
                log.exception("bot game %s not picked up; tried again later", game_id)
                continue
            state = variant.fold(entry.event for entry in logged)
            table = _Table(variant, state)
            self._tables[game_id] = table
            self._play(game_id, table)

    def _play(self, game_id: str, table: _Table) -> None:
        state = table.state
        if state.status in ("finished", "aborted"):
            # Out of the set for good: every runner's refresh (and start) folds each
            # game the set holds, so a game over must not stay in it.
            self._tables.pop(game_id, None)
            self._spawn(self._redis.srem(BOT_GAMES_KEY, game_id))
            return
        if state.status != "live":
            return
        for seat, level in ((p.seat, p.bot) for p in state.players if p.bot):
            key = (seat, state.version)
            if key in table.thinking or not table.variant.legal_actions(state, seat):
                continue
            table.thinking.add(key)
            view = table.variant.view(state, seat)
            self._spawn(self._move(game_id, table, seat, level, view, state.version))

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _move(
        self, game_id: str, table: _Table, seat: int, level: str, view: dict[str, Any], version: int
    ) -> None:
        try:
            started = time.monotonic()
            seed = f"{game_id}:{seat}:{version}"
            loop = asyncio.get_running_loop()
            if level == "mcts":
                wire = await loop.run_in_executor(
                    self._process_pool(), think, level, view, seed, self._seconds
                )
            else:
                wire = think(level, view, seed, self._seconds)
            wait = self._delay - (time.monotonic() - started)
            if wait > 0:
                await asyncio.sleep(wait)
            action = msgspec.convert(wire, table.variant.action_type)
            await self.service.submit(
                game_id, seat, f"bot:{seat}:{version}", action, expected_version=version
            )
            self.moves += 1
        except ServiceError as refusal:
            # Another runner moved first, or the game moved on: the tail brings the news.
            log.debug("bot move in %s at %d refused: %s", game_id, version, refusal)
        except Exception as e:
            if not isinstance(e, StoreUnavailable):
                log.exception("bot %s at seat %d of %s failed", level, seat, game_id)
                return
            # Nothing new will come from the tail to wake this seat: it plays again
            # once Redis answers (``_play_again``).
            log.warning(
                "bot move in %s at %d not sent, Redis can't be reached: %r", game_id, version, e
            )
            self._again.add(game_id)
        finally:
            table.thinking.discard((seat, version))

    def _play_again(self) -> None:
        """The games whose bot move met Redis down: their bots think again."""
        again, self._again = self._again, set()
        for game_id in again:
            table = self._tables.get(game_id)
            if table is not None:
                self._play(game_id, table)

    def _process_pool(self) -> Executor:
        # MCTS thinks for a second of CPU: in its own process it never holds the GIL
        # that the server's sockets need.
        if self._pool is None:
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        return self._pool


def end_workers(grace: float) -> None:
    """Wait up to ``grace`` seconds for this process's ``multiprocessing`` children
    (the MCTS workers, the analyser's search process) to finish what they compute,
    then end them: a stopped server leaves no process behind (left to themselves they
    outlive it)."""
    deadline = time.monotonic() + grace
    for worker in multiprocessing.active_children():
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            worker.terminate()
            worker.join(5)
        if worker.is_alive():  # pragma: no cover - ignored SIGTERM
            worker.kill()
            worker.join()


@asynccontextmanager
async def running_bots(
    service: GameService, client: RedisClient, settings: Settings
) -> AsyncIterator[tuple[BotRunner | None, list[Analyser]]]:
    """The server's own bot runner and its analysers of finished games, for as long
    as the context lasts; neither when the settings say ``bots="off"``
    (``SPLENDOR_BOTS=off``), and no analyser without an analysis budget or with
    ``SPLENDOR_ANALYSERS=0``."""
    if settings.bots == "off":
        yield None, []
        return
    tail = tail_client(client)
    runner = BotRunner(service, tail, delay=settings.bot_delay, seconds=settings.mcts_seconds)
    analysers = _analysers(service, runner, settings)
    task = asyncio.create_task(runner.run())
    try:
        async with analysing(analysers):
            yield runner, analysers
    finally:
        await runner.close()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await close_client(tail)


def _analysers(service: GameService, runner: BotRunner, settings: Settings) -> list[Analyser]:
    """The runner's analysers of finished games (server/workers/analyser.py), which
    wait while a bot of the runner thinks."""
    if settings.analysis_budget <= 0:
        return []
    queue = AnalysisQueue(service.store.client, settings.analysis)
    return [
        Analyser(service, queue, iterations=settings.analysis_budget, busy=runner.busy)
        for _ in range(settings.analysers)
    ]


@asynccontextmanager
async def analysing(analysers: list[Analyser]) -> AsyncIterator[None]:
    """Each analyser's loop in a task for the body."""
    async with contextlib.AsyncExitStack() as stack:
        for analyser in analysers:
            await stack.enter_async_context(running(analyser))
        yield


async def run_worker(settings: Settings) -> None:
    """``splendor bots``: play every bot seat of the servers sharing
    ``settings.redis_url``, for deployments whose servers run with
    ``SPLENDOR_BOTS=off``."""
    redis_url = settings.redis_url
    if not redis_url:
        raise ValueError("a bots worker needs the servers' Redis URL")
    client = await open_client(
        redis_url, max_connections=WORKER_CONNECTIONS, socket_connect_timeout=REDIS_CONNECT_S
    )
    tail = tail_client(client)  # as the server's runner has it: no socket timeout
    store = EventStore(client, Durability.of(settings, is_cluster(client)))
    service = GameService(store, Lobby(client, settings.finished_games))
    runner = BotRunner(service, tail, delay=settings.bot_delay, seconds=settings.mcts_seconds)
    log.info("bot worker on %s", redis_url)
    try:
        async with analysing(_analysers(service, runner, settings)):
            await runner.run()
    finally:
        await runner.close()
        await close_client(tail)
        await client.aclose()


__all__ = ["BOTS", "BotRunner", "analysing", "end_workers", "run_worker", "running_bots"]
