"""Benchmark of the command path of the server, fan-out apart; prints its figures.

    .venv/bin/python bench/command_bench.py [--games 60] [--commands 4000]
        [--concurrent 20] [--tailer] [--unix] [--no-uvloop] [--profile FILE.prof]

What a websocket command costs the server process between the decoded action and the
ack, the hubs' fan-out excepted: ``GameService.submit`` (lock, cached projection,
``decide``, encode, ``EventStore.append``'s Lua script on the command path's own
connection (server/store/direct_path.py), fold, lobby index, subscribers), with
``service.hooks.observer`` None as in a process with no sockets.

Method: a private embedded redis-server (append-only, fsync every second, as
``splendor serve`` runs it) and the service built as ``server.web.app`` builds it (a plain
``ConnectionPool`` of 512, hiredis parser). ``--games`` four-player classic games are
created, seated and started (untimed); then commands are sent game after game,
round robin, each a random legal action of the player to move with its
``expected_version`` (as the websocket bench's players do). A finished game is
replaced by a new one (untimed). Choosing the action is outside the timed part.

- **sequential**: one ``submit`` at a time, awaited: CPU of this process per submit
  (``time.process_time`` over the run, less the bench's own untimed work measured
  the same way; the garbage collector's share apart), wall p50/p99 per submit, and
  the redis-server's CPU (utime + stime from ``/proc/<pid>/stat``, 10 ms ticks) over
  the run divided by the commands;
- **concurrent**: ``--concurrent`` games driven at once on the event loop, each by
  its own task, one command at a time per game (the load of many sockets):
  process CPU per command (as above), wall p50/p99 per submit;
- ``--tailer``: the same runs with a ``server.live.tailer.Tailer`` watching every game
  (keyspace notifications, as a server with sockets on every game has), told of
  each append as the hubs tell it (``expect`` / ``expected_failed`` / ``advance``):
  the cost of an append's notifications in the server process, apart;
- **refused**: ``--refusals`` commands refused by the rules (a seat not to move),
  one at a time: CPU per refusal (the service reads the command id's record and the
  events it may have missed before it answers).

The event loop is uvloop's, as ``splendor serve`` runs, unless ``--no-uvloop``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import os
import random
import resource
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis

from events.game import VARIANTS
from server.common.errors import ServiceError
from server.games.lobby import Lobby
from server.games.projection import LoggedEvent
from server.games.service import GameService
from server.live.hubs import Hub
from server.live.pipeline import LivePipeline
from server.live.tailer import Tailer
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore
from server.web.app import REDIS_CONNECTIONS

PLAYERS = 4
NAMES = ("Ana", "Bo", "Cy", "Di")
CLASSIC = VARIANTS["classic"]
TICK = os.sysconf("SC_CLK_TCK")


def sys_s() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_stime


def proc_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process, from /proc (10 ms ticks)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


@dataclass
class Figures:
    """What one run measured."""

    commands: int = 0
    refused: int = 0
    events: int = 0
    cpu_s: float = 0.0  # this process: the run's, less the bench's own work (untimed)
    untimed_cpu_s: float = 0.0  # choosing actions
    sys_s: float = 0.0  # of cpu_s, in the kernel (getrusage; the bench's part is user time)
    gc_s: float = 0.0  # of cpu_s, in the garbage collector
    redis_cpu_s: float = 0.0
    wall_s: float = 0.0
    latencies: list[float] = field(default_factory=list)

    def report(self, label: str) -> None:
        lat = sorted(self.latencies)
        p50 = statistics.median(lat) * 1e6 if lat else 0.0
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1e6 if lat else 0.0
        n = max(1, self.commands)
        print(
            f"{label:<28} {self.commands:>6} cmds ({self.events / n:.2f} events each)"
            f"  server CPU {self.cpu_s / n * 1e6:6.1f} µs/cmd (sys {self.sys_s / n * 1e6:5.1f})"
            f"  redis CPU {self.redis_cpu_s / n * 1e6:6.1f} µs/cmd"
            f"  wall p50 {p50:7.1f} µs  p99 {p99:8.1f} µs  gc {self.gc_s / n * 1e6:5.1f} µs/cmd"
            f"  ({self.commands / self.wall_s:,.0f} cmds/s)"
        )
        if self.refused:
            print(f"{'':<28} {self.refused} commands refused (a bug in the bench?)")


def no_hub(hub: Hub) -> None:
    """The hub-dropping callback of a pipeline over a tailer alone, which has none."""
    raise AssertionError(f"no hub to drop: {hub.game_id}")


class TailerObserver:
    """Tells a tailer of the service's appends as the live pipeline does for hubs
    (``server.live.pipeline.LivePipeline``), with no hub to fold into."""

    def __init__(self, pipeline: LivePipeline) -> None:
        self.pipeline = pipeline
        self.tailer = pipeline.tailer
        self._appending: dict[str, int] = {}

    def appending(self, game_id: str, logged: Sequence[LoggedEvent]) -> None:
        if self.pipeline.expect(game_id, len(logged)):
            self._appending[game_id] = len(logged)

    def appended(self, game_id: str, logged: Sequence[LoggedEvent]) -> None:
        self._appending.pop(game_id, None)
        self.tailer.advance(game_id, logged[-1].version)

    def append_failed(self, game_id: str) -> None:
        self.pipeline.expected_failed(game_id, self._appending.pop(game_id, 0))


class Bench:
    def __init__(
        self,
        service: GameService,
        rng: random.Random,
        pipeline: LivePipeline | None,
    ) -> None:
        self.service = service
        self.rng = rng
        self.pipeline = pipeline
        self.serial = 0
        self.spares: list[str] = []  # started games, made untimed, for finished ones
        self.late_games = 0  # games that had to be made during a timed run

    async def make_spares(self, count: int) -> None:
        while len(self.spares) < count:
            self.spares.append(await self.new_game())

    async def new_game(self) -> str:
        game_id: str = (
            await self.service.create_game("classic", PLAYERS, self.rng.randrange(1 << 62))
        )["id"]
        for name in NAMES:
            await self.service.join(game_id, name)
        if self.pipeline is not None:
            self.pipeline.watch(game_id, self.service.repository.cached(game_id).version)
        return game_id

    def next_command(self, game_id: str) -> tuple[int, Any, int] | None:
        """The player to move, a random legal action, the version; None when over."""
        game = self.service.repository.cached(game_id)  # the bench peeks at the projection
        if game.state.status != "live":
            return None
        seat = game.state.seat
        return seat, self.rng.choice(CLASSIC.legal_actions(game.state, seat)), game.version

    async def one(self, game_id: str, figures: Figures) -> str:
        """One command on the game (a new game first if it is over)."""
        cpu0 = time.process_time()
        command = self.next_command(game_id)
        if command is None:
            if self.pipeline is not None:
                self.pipeline.unwatch(game_id)
            if self.spares:
                game_id = self.spares.pop()
            else:
                self.late_games += 1
                game_id = await self.new_game()
            command = self.next_command(game_id)
            assert command is not None
        seat, action, version = command
        self.serial += 1
        figures.untimed_cpu_s += time.process_time() - cpu0
        t0 = time.perf_counter()
        try:
            result = await self.service.submit(
                game_id, seat, f"b{self.serial}", action, expected_version=version
            )
        except Exception:
            figures.refused += 1
            raise
        t1 = time.perf_counter()
        figures.latencies.append(t1 - t0)
        figures.commands += 1
        figures.events += result.version - version
        return game_id


class GcClock:
    """CPU time spent in the garbage collector (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.total = 0.0
        self._start = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.process_time()
        else:
            self.total += time.process_time() - self._start


GC = GcClock()


async def sequential(bench: Bench, games: list[str], commands: int, redis_pid: int) -> Figures:
    figures = Figures()
    redis0, gc0, sys0 = proc_cpu_s(redis_pid), GC.total, sys_s()
    cpu0, start = time.process_time(), time.perf_counter()
    for i in range(commands):
        k = i % len(games)
        games[k] = await bench.one(games[k], figures)
    figures.wall_s = time.perf_counter() - start
    figures.cpu_s = time.process_time() - cpu0 - figures.untimed_cpu_s
    figures.sys_s = sys_s() - sys0
    figures.redis_cpu_s = proc_cpu_s(redis_pid) - redis0
    figures.gc_s = GC.total - gc0
    return figures


async def concurrent(
    bench: Bench, games: list[str], commands: int, tasks: int, redis_pid: int
) -> Figures:
    figures = Figures()
    per_task = commands // tasks
    lanes = [games[i::tasks] for i in range(tasks)]

    async def lane(mine: list[str]) -> None:
        for i in range(per_task):
            k = i % len(mine)
            mine[k] = await bench.one(mine[k], figures)

    redis0, gc0, sys0 = proc_cpu_s(redis_pid), GC.total, sys_s()
    cpu0, start = time.process_time(), time.perf_counter()
    await asyncio.gather(*(lane(m) for m in lanes if m))
    figures.wall_s = time.perf_counter() - start
    figures.cpu_s = time.process_time() - cpu0 - figures.untimed_cpu_s
    figures.sys_s = sys_s() - sys0
    figures.gc_s = GC.total - gc0
    figures.redis_cpu_s = proc_cpu_s(redis_pid) - redis0
    return figures


async def refusals(bench: Bench, games: list[str], count: int) -> float:
    """CPU µs per command refused by the rules: a seat not to move sends a legal action
    of the seat to move."""
    cpu = 0.0
    for i in range(count):
        game_id = games[i % len(games)]
        command = bench.next_command(game_id)
        if command is None:
            continue
        seat, action, _ = command
        bench.serial += 1
        cpu0 = time.process_time()
        try:
            await bench.service.submit(game_id, (seat + 1) % PLAYERS, f"r{bench.serial}", action)
        except ServiceError as e:
            assert e.code == "not_your_turn", e.code
        cpu += time.process_time() - cpu0
    return cpu / max(1, count) * 1e6


async def run(args: argparse.Namespace, url: str, redis_pid: int) -> None:
    pool = aioredis.ConnectionPool.from_url(url, max_connections=REDIS_CONNECTIONS)
    client = aioredis.Redis(connection_pool=pool)
    store = EventStore(client)
    service = GameService(store, Lobby(client))
    await service.listing.start()
    tailer: Tailer | None = None
    pipeline: LivePipeline | None = None
    if args.tailer:
        tail_pool = aioredis.ConnectionPool.from_url(url)
        tail = aioredis.Redis(connection_pool=tail_pool, single_connection_client=True)
        pipeline = LivePipeline(
            {},
            no_hub,
            lambda p: Tailer(tail, client, lambda game_id, events: None, mode="notify", notices=p),
        )
        tailer = pipeline.tailer
        service.hooks.observer = TailerObserver(pipeline)
    bench = Bench(service, random.Random(args.seed), pipeline)
    games = [await bench.new_game() for _ in range(args.games)]
    # Warm-up: code paths, the script cache, the tailer's subscriptions.
    await sequential(bench, games, min(500, args.commands), redis_pid)
    profile = cProfile.Profile(time.process_time) if args.profile else None
    rounds: list[tuple[Figures, Figures]] = []
    for _ in range(args.rounds):
        await bench.make_spares(args.games)
        if profile is not None:
            profile.enable()
        seq = await sequential(bench, games, args.commands, redis_pid)
        if profile is not None:
            profile.disable()
        await bench.make_spares(args.games)
        con = await concurrent(bench, games, args.commands, args.concurrent, redis_pid)
        rounds.append((seq, con))
    if profile is not None:
        profile.dump_stats(args.profile)
    refusal_us = await refusals(bench, games, args.refusals)
    loop = type(asyncio.get_running_loop()).__module__.split(".")[0]
    label = " + tailer" if tailer is not None else ""
    print(f"event loop: {loop}; {args.games} games of {PLAYERS} players; load {os.getloadavg()}")
    for i, (seq, con) in enumerate(rounds):
        seq.report(f"r{i} sequential{label}")
        con.report(f"r{i} concurrent x{args.concurrent}{label}")
    if len(rounds) > 1:
        for name, index in (("sequential", 0), (f"concurrent x{args.concurrent}", 1)):
            runs = sorted((r[index] for r in rounds), key=lambda f: f.cpu_s / max(1, f.commands))
            runs[len(runs) // 2].report(f"median {name}{label}")
    print(
        f"refused (not your turn), one at a time: {refusal_us:.1f} µs of server CPU each"
        " (decide, then the command id and the missed events read before answering)"
    )
    if bench.late_games:
        print(f"{bench.late_games} games were made during timed runs (more spares needed)")
    if tailer is not None:
        print(f"tailer: {tailer.reads} reads, {tailer.empty_reads} found nothing")
        await tailer.close()
    await client.aclose()
    await pool.disconnect()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--commands", type=int, default=4000, help="per measure and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrent", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--refusals", type=int, default=1000)
    parser.add_argument("--tailer", action="store_true")
    parser.add_argument("--no-uvloop", action="store_true")
    parser.add_argument(
        "--unix", action="store_true", help="reach Redis by a Unix socket instead of TCP"
    )
    parser.add_argument("--profile", help="cProfile the sequential runs into this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        sock = os.path.join(data, "redis.sock")
        extra = ["--unixsocket", sock, "--unixsocketperm", "700"] if args.unix else []
        redis_server = EmbeddedRedis(data, extra_args=extra).start()
        url = f"unix://{sock}" if args.unix else redis_server.url
        try:
            pid = redis_server.pid
            assert pid is not None
            if args.no_uvloop:
                asyncio.run(run(args, url, pid))
            else:
                import uvloop

                uvloop.run(run(args, url, pid))
        finally:
            redis_server.stop()


if __name__ == "__main__":
    main()
