"""Analysis workers killed in the middle of a game's analysis (``splendor bots`` and
``splendor analyse``): another worker takes the game over when the lease ends and
finishes the same analysis."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import redis.asyncio as aioredis

from bots.analysis import analyse
from server.games.lobby import Lobby
from server.games.service import GameService
from server.store.event_store import EventStore
from server.store.keys import ANALYSIS_DUE_KEY, ANALYSIS_WORKERS_KEY, analysis_key
from server.workers.analyser import AnalysisQueue
from tests.server.archive_helpers import Clock, play

BUDGET = 40  # iterations a position: enough for the analysis to last a few seconds


def bots_worker(redis_url: str) -> subprocess.Popen[bytes]:
    """``splendor bots`` in a session of its own (its analysis process with it)."""
    env = {**os.environ, "REDIS_URL": redis_url, "SPLENDOR_ANALYSIS_BUDGET": str(BUDGET)}
    return subprocess.Popen(
        [sys.executable, "-m", "server.cli", "bots"],
        env=env,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )


def analyse_worker(redis_url: str) -> subprocess.Popen[bytes]:
    """``splendor analyse`` alone (no server, no bots) in a session of its own."""
    env = {**os.environ, "REDIS_URL": redis_url, "SPLENDOR_ANALYSIS_BUDGET": str(BUDGET)}
    return subprocess.Popen(
        [sys.executable, "-m", "server.cli", "analyse", "--workers", "1"],
        env=env,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )


def kill(worker: subprocess.Popen[bytes], sig: int) -> None:
    """``sig`` to the worker and its analysis process (its session's group)."""
    os.killpg(worker.pid, sig)
    worker.wait(15)


async def test_a_killed_workers_analysis_is_resumed_by_another_worker(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """SIGKILL to a bots worker (and its analysis process) part-way through a game's
    analysis leaves the positions it wrote and the game leased; once the lease is over
    (its time set to now, as the clock would) a new worker searches the rest and writes
    the analysis the pure function gives."""
    clock = Clock()
    service = GameService(EventStore(redis_client), Lobby(redis_client), clock_ms=clock)
    queue = AnalysisQueue(redis_client)
    service.hooks.analyses = queue
    game = await play(service, clock, "duel", 2, seed=11, timed=False)
    first = bots_worker(redis_server)
    try:
        for _ in range(1200):
            if len(await queue.positions(game.id)) >= 3:
                break
            await asyncio.sleep(0.05)
        kill(first, signal.SIGKILL)
    finally:
        if first.poll() is None:
            kill(first, signal.SIGKILL)
    written = len(await queue.positions(game.id))
    assert written >= 3 and await queue.result(game.id) is None
    assert (await queue.due())[game.id] > 0  # leased by the dead worker
    await redis_client.zadd(ANALYSIS_DUE_KEY, {game.id: 0})  # the lease is over
    second = bots_worker(redis_server)
    try:
        for _ in range(2400):
            if await queue.result(game.id) is not None:
                break
            await asyncio.sleep(0.05)
    finally:
        kill(second, signal.SIGTERM)
    body = await queue.result(game.id)
    assert body is not None
    assert await redis_client.hkeys(analysis_key(game.id)) == [b"done"]
    events = [entry.event for entry in await service.reader.log(game.id)]
    pure = json.loads(json.dumps(analyse("duel", events, game.id, BUDGET).wire()))
    assert json.loads(body) == pure
    assert await queue.due() == {}


async def test_splendor_analyse_alone_analyses_a_requested_game_and_takes_over_a_lease(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """In request mode a finished game waits until asked for; a lone ``splendor
    analyse`` worker (nothing else analyses on that Redis) then analyses it. SIGKILL
    to it part-way leaves the positions written and the game leased; when the lease is
    over a second one finishes the pure analysis, and a SIGTERM stops that one
    cleanly (exit 0, its beat withdrawn)."""
    clock = Clock()
    service = GameService(EventStore(redis_client), Lobby(redis_client), clock_ms=clock)
    queue = AnalysisQueue(redis_client, "request")
    service.hooks.analyses = queue
    game = await play(service, clock, "duel", 2, seed=13, timed=False)
    assert await queue.due() == {}  # a casual game: not queued until asked for
    first = analyse_worker(redis_server)
    try:
        await asyncio.sleep(0.5)
        assert await queue.positions(game.id) == {}
        assert await queue.add(game.id, clock.now_ms)  # as POST /api/games/{id}/analysis does
        for _ in range(1200):
            if len(await queue.positions(game.id)) >= 3:
                break
            await asyncio.sleep(0.05)
        kill(first, signal.SIGKILL)
    finally:
        if first.poll() is None:
            kill(first, signal.SIGKILL)
    assert len(await queue.positions(game.id)) >= 3 and await queue.result(game.id) is None
    assert (await queue.due())[game.id] > clock.now_ms  # leased by the dead worker
    await redis_client.zadd(ANALYSIS_DUE_KEY, {game.id: 0})  # the lease is over
    second = analyse_worker(redis_server)
    try:
        for _ in range(2400):
            if await queue.result(game.id) is not None:
                break
            await asyncio.sleep(0.05)
        os.kill(second.pid, signal.SIGTERM)
        assert second.wait(30) == 0
    finally:
        if second.poll() is None:
            kill(second, signal.SIGKILL)
    body = await queue.result(game.id)
    assert body is not None
    events = [entry.event for entry in await service.reader.log(game.id)]
    pure = json.loads(json.dumps(analyse("duel", events, game.id, BUDGET).wire()))
    assert json.loads(body) == pure
    assert await queue.due() == {}
    alive = await redis_client.zrange(ANALYSIS_WORKERS_KEY, 0, -1)
    assert len(alive) == 1  # the killed one's beat stays until it is stale; not the stopped one's


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper counts as ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def test_a_worker_stopped_mid_analysis_leaves_no_process_behind(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """SIGTERM to a bots worker while its analysis process searches: the worker ends
    that process (and multiprocessing's helpers) before it exits; none outlives it."""
    clock = Clock()
    service = GameService(EventStore(redis_client), Lobby(redis_client), clock_ms=clock)
    queue = AnalysisQueue(redis_client)
    service.hooks.analyses = queue
    game = await play(service, clock, "duel", 2, seed=12, timed=False)
    worker = bots_worker(redis_server)
    try:
        for _ in range(1200):
            if len(await queue.positions(game.id)) >= 1:
                break
            await asyncio.sleep(0.05)
        children = children_of(worker.pid)
        assert children, "the analysis process never started"
        worker.send_signal(signal.SIGTERM)  # the worker alone, not its group
        worker.wait(30)
        for _ in range(100):
            if not any(alive(pid) for pid in children):
                break
            await asyncio.sleep(0.05)
        assert [pid for pid in children if alive(pid)] == []
    finally:
        if worker.poll() is None:
            kill(worker, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGKILL)


async def test_a_worker_sent_sigterm_hands_its_game_back_at_once(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """SIGTERM to a ``splendor analyse`` worker part-way through a game's analysis:
    it exits 0, the positions it wrote stay, and the game is due again at once (its
    time no later than the stop), not leased for two minutes."""
    clock = Clock()
    service = GameService(EventStore(redis_client), Lobby(redis_client), clock_ms=clock)
    queue = AnalysisQueue(redis_client, "request")
    service.hooks.analyses = queue
    game = await play(service, clock, "duel", 2, seed=17, timed=False)
    assert await queue.add(game.id, clock.now_ms)
    worker = analyse_worker(redis_server)
    try:
        for _ in range(1200):
            if len(await queue.positions(game.id)) >= 2:
                break
            await asyncio.sleep(0.05)
        os.kill(worker.pid, signal.SIGTERM)
        assert worker.wait(30) == 0
    finally:
        if worker.poll() is None:
            kill(worker, signal.SIGKILL)
    assert len(await queue.positions(game.id)) >= 2 and await queue.result(game.id) is None
    seconds, micros = await redis_client.time()
    assert (await queue.due())[game.id] <= seconds * 1000 + micros // 1000  # due now
