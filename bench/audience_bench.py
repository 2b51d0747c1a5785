"""One game watched by a big audience spread over server processes; prints its figures
beside the floor's with the same number of sockets, in the same run.

    .venv/bin/python bench/audience_bench.py [--spectators 10000] [--processes 4]
        [--rate 2] [--seconds 20] [--runs 2] [--idle 5] [--signed-in] [--churn 50]
        [--spy out.txt]

Method. One embedded redis-server and ``--processes`` ``splendor serve`` processes
on it. One two-player classic game: both seats' sockets on the first process, moving
at ``--rate`` commands a second (a random legal action, ``expected_version`` set);
``--spectators`` sockets on the game, spread evenly over the processes (the fast
path's lean RFC 6455 clients of bench/floor_bench.py, in this process, on uvloop;
with ``--signed-in`` each with a session of an account of its own). Once every
spectator was told the whole audience (every process's connects told), CPU a connect
per process: its CPU time from the first connect to then, divided by its spectators.
Memory a socket, per process: the RSS it gained meanwhile, divided by them. Then
``--idle`` seconds of no moves (CPU idle a second, per process: keep-alive pings come
20 s after a connect, so a window of 20 s or more holds them). Then the moves, after
a warm-up. Latency of a command: from its send to the moment the last of the game's
sockets (spectators and seats) read the diff of the version the command's ack names.
CPU a move, per process: its user + system time over the window divided by the
commands; resets: snapshots the spectators got in the window (a socket too far
behind starts over). ``--churn``: then, with no moves, that many spectators a second
leave and as many join, for ``--seconds``: CPU a join and a leave, per process, and
the ``audience`` messages a spectator read a second. Then the floor
(bench/floor_bench.py, ``--notify``): one game with the same number of sockets at the
same rate; the runs alternate, ``--runs`` of each.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import redis.asyncio as aioredis
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import floor_bench
from floor_bench import TEXT, LeanClient, redis_call
from ws_bench import (
    LeanSocket,
    apply_patch,
    cpu_seconds,
    cpu_split,
    decode_full,
    encode,
    lean,
    percentile,
    py_spy,
    rss_mib,
    splendor_serve,
)

from bots.moves import moves as game_moves
from server.players.accounts import COOKIE as COOKIE_NAME
from server.store.embedded_redis import EmbeddedRedis
from server.store.keys import session_key

WARM_UP_S = 3.0


class Version(msgspec.Struct):
    type: str
    version: int | None = None


class Told(msgspec.Struct):
    type: str
    spectators: int = 0


decode_version = msgspec.json.Decoder(Version).decode
decode_told = msgspec.json.Decoder(Told).decode
COOKIE = COOKIE_NAME.encode()


class Watched:
    """The game as the bench sees it: which sockets have each version."""

    def __init__(self, sockets: int) -> None:
        self.sockets = sockets
        self.snapshots = 0  # every spectator's, its opening's and any after a reset
        self.audiences = 0  # ``audience`` messages the spectators read
        self.reached: dict[int, list[float]] = {}  # version -> [sockets, last time]
        self.sent: dict[int, float] = {}  # version an ack named -> its command's send
        self.latencies: list[float] = []
        self.measuring = False
        self.errors: dict[str, int] = {}

    def seen(self, version: int, at: float) -> None:
        entry = self.reached.setdefault(version, [0, at])
        entry[0] += 1
        entry[1] = at
        self._complete(version)

    def acked(self, version: int, sent_at: float) -> None:
        self.sent[version] = sent_at
        self._complete(version)

    def _complete(self, version: int) -> None:
        entry = self.reached.get(version)
        sent = self.sent.get(version)
        if entry is None or sent is None or entry[0] < self.sockets:
            return
        del self.sent[version]
        if self.measuring:
            self.latencies.append(entry[1] - sent)
        for v in [v for v in self.reached if v <= version]:
            del self.reached[v]


class Viewer(LeanClient):
    """A spectator (bench/floor_bench.py's lean client) that reads only each diff's
    version, the audience told and the snapshots."""

    def __init__(self, watched: Watched, path: bytes, session: bytes | None = None) -> None:
        super().__init__(path, b"" if session is None else b"Cookie: %b=%b\r\n" % (COOKIE, session))
        self.watched = watched
        self.spectators = -1  # as the last ``audience`` message said

    def on_frame(self, opcode: int, payload: bytes, at: float) -> None:
        if opcode != TEXT:
            return
        if payload.startswith(b'{"type":"diff"'):
            version = decode_version(payload).version
            if version is not None:
                self.watched.seen(version, at)
        elif payload.startswith(b'{"type":"audience"'):
            self.spectators = decode_told(payload).spectators
            self.watched.audiences += 1
        elif payload.startswith(b'{"type":"snapshot"'):
            self.watched.snapshots += 1


class Seat:
    """A player's socket: keeps its view; ``move`` sends a random legal action."""

    def __init__(self, watched: Watched, seat: int) -> None:
        self.watched, self.seat = watched, seat
        self.socket: LeanSocket | None = None
        self.view: Any = None
        self.version = 0
        self.in_flight: tuple[str, float] | None = None
        self.rng = random.Random(seat)
        self.count = 0

    def bind(self, socket: LeanSocket) -> None:
        self.socket = socket

    def on_message(self, data: bytes, at: float) -> None:
        message = decode_full(data)
        kind = message["type"]
        if kind == "snapshot":
            self.view, self.version = message["view"], message["version"]
        elif kind == "diff":
            self.view = apply_patch(self.view, message["patch"])
            self.version = message["version"]
            self.watched.seen(self.version, at)
        elif kind == "ack" and self.in_flight and message["command_id"] == self.in_flight[0]:
            self.watched.acked(message["version"], self.in_flight[1])
            self.in_flight = None
        elif kind == "error":
            key = message["code"]
            self.watched.errors[key] = self.watched.errors.get(key, 0) + 1
            self.in_flight = None

    def ready_to_move(self) -> bool:
        view = self.view
        return (
            view is not None
            and self.in_flight is None
            and view["status"] == "live"
            and view["turn"]["seat"] == self.seat
            and bool(game_moves(view))
        )

    def move(self) -> None:
        assert self.socket is not None
        self.count += 1
        command_id = f"s{self.seat}-{self.count}"
        self.in_flight = (command_id, time.perf_counter())
        body = {
            "type": "command",
            "command_id": command_id,
            "expected_version": self.version,
            "action": self.rng.choice(game_moves(self.view)),
        }
        self.socket.send_text(encode(body))


@contextlib.asynccontextmanager
async def servers(url: str, count: int) -> AsyncIterator[list[tuple[str, int]]]:
    async with contextlib.AsyncExitStack() as stack:
        yield [await stack.enter_async_context(splendor_serve(url, None)) for _ in range(count)]


async def new_game(base: str) -> tuple[str, list[str]]:
    async with httpx.AsyncClient(base_url=f"http://{base}", timeout=60) as http:
        made = await http.post("/api/games", json={"variant": "classic", "players": 2})
        made.raise_for_status()
        game_id: str = made.json()["id"]
        tokens = []
        for i in range(2):
            joined = await http.post(f"/api/games/{game_id}/seats", json={"name": f"P{i}"})
            joined.raise_for_status()
            tokens.append(joined.json()["token"])
    return game_id, tokens


async def game_run(args: argparse.Namespace, redis: EmbeddedRedis) -> dict[str, Any]:
    redis_call(redis.port, b"FLUSHALL")  # the floor's streams are named as games' are
    url = redis.url
    async with servers(url, args.processes) as started:
        bases = [base for base, _ in started]
        pids = [pid for _, pid in started]
        game_id, tokens = await new_game(bases[0])
        watched = Watched(args.spectators + 2)
        seats = [Seat(watched, i) for i in range(2)]
        conns = [
            await lean(bases[0], game_id, seat.on_message, token, seat.bind)
            for seat, token in zip(seats, tokens, strict=True)
        ]
        if args.signed_in:
            await sign_in(url, args.spectators)
        rss0 = [rss_mib(pid) for pid in pids]
        loop = asyncio.get_running_loop()
        connecting = asyncio.Semaphore(100)
        viewers: list[Viewer] = []
        path = f"/ws/games/{game_id}".encode()

        async def connect(n: int) -> None:
            base = bases[n % len(bases)]
            host, port = base.rsplit(":", 1)
            session = session_of(n) if args.signed_in else None
            async with connecting:
                _, viewer = await loop.create_connection(
                    lambda: Viewer(watched, path, session), host, int(port)
                )
                await asyncio.wait_for(viewer.opened, 120)
                viewers.append(viewer)

        t_connect, cpu_connect = time.perf_counter(), [cpu_seconds(pid) for pid in pids]
        await asyncio.gather(*(connect(n) for n in range(args.spectators)))
        connected_s = time.perf_counter() - t_connect
        # Every snapshot written, and every spectator told the whole audience.
        await settled(viewers, args.spectators)
        settled_s = time.perf_counter() - t_connect
        cpu_settled = [cpu_seconds(pid) for pid in pids]
        rss1 = [rss_mib(pid) for pid in pids]
        gc.collect()
        gc.freeze()
        # Idle: no moves, the sockets only kept alive.
        idle0 = [cpu_seconds(pid) for pid in pids]
        await asyncio.sleep(args.idle)
        idle_ms = [
            (b - a) / args.idle * 1e3
            for a, b in zip(idle0, [cpu_seconds(pid) for pid in pids], strict=True)
        ]

        stop = asyncio.Event()

        async def pace() -> None:
            interval = 1 / args.rate
            while not stop.is_set():
                for seat in seats:
                    if seat.ready_to_move():
                        seat.move()
                        break
                await asyncio.sleep(interval)

        pacer = asyncio.create_task(pace())
        await asyncio.sleep(WARM_UP_S)
        cpu0, own0 = [cpu_seconds(pid) for pid in pids], sum(os.times()[:2])
        sys0 = [cpu_split(pid)[1] for pid in pids]
        snapshots0 = watched.snapshots
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        watched.measuring = True
        spy = py_spy(pids[0], args.seconds, args.spy) if args.spy else None
        await asyncio.sleep(args.seconds)
        if spy is not None:
            await asyncio.to_thread(spy.wait, 60)
        watched.measuring = False
        elapsed = time.perf_counter() - t0
        cpu1, own1 = [cpu_seconds(pid) for pid in pids], sum(os.times()[:2])
        sys1 = [cpu_split(pid)[1] for pid in pids]
        resets = watched.snapshots - snapshots0
        stop.set()
        await pacer
        finished = seats[0].view["status"] != "live"
        churn = await churning(args, bases, game_id, watched, viewers, pids) if args.churn else {}
        for viewer in viewers:
            viewer.abort()
        await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)
    n = max(1, len(watched.latencies))
    share = args.spectators / args.processes
    return {
        "commands": len(watched.latencies),
        "p50_ms": percentile(watched.latencies, 0.5) * 1e3,
        "p99_ms": percentile(watched.latencies, 0.99) * 1e3,
        "cpu_ms": [(b - a) / n * 1e3 for a, b in zip(cpu0, cpu1, strict=True)],
        "sys_ms": [(b - a) / n * 1e3 for a, b in zip(sys0, sys1, strict=True)],
        "kib_socket": [(b - a) * 1024 / share for a, b in zip(rss0, rss1, strict=True)],
        "connect_us": [
            (b - a) / share * 1e6 for a, b in zip(cpu_connect, cpu_settled, strict=True)
        ],
        "connected_s": connected_s,
        "idle_ms": idle_ms,
        "settled_s": settled_s,
        "resets": resets,
        "load": load,
        **churn,
        "client_pct": (own1 - own0) / elapsed * 100,
        "errors": watched.errors,
        "finished": finished,
    }


def session_of(n: int) -> bytes:
    return b"audience-bench-%d" % n


async def sign_in(url: str, spectators: int) -> None:
    """A session for each spectator, of an account of its own (``--signed-in``),
    written straight to Redis as a log-in writes it (server/players/accounts.py)."""
    client = aioredis.from_url(url)
    try:
        sessions = {
            session_key(session_of(n).decode()): f"watcher{n:05d}" for n in range(spectators)
        }
        await client.mset(sessions)
    finally:
        await client.aclose()


async def settled(viewers: list[Viewer], spectators: int, timeout: float = 300) -> None:
    """Return once every spectator has its snapshot and was told the whole audience."""
    deadline = time.perf_counter() + timeout
    while any(v.spectators != spectators for v in viewers):
        if time.perf_counter() > deadline:
            told = sum(v.spectators == spectators for v in viewers)
            raise TimeoutError(f"{told} of {spectators} spectators told the whole audience")
        await asyncio.sleep(0.2)


async def churning(
    args: argparse.Namespace,
    bases: list[str],
    game_id: str,
    watched: Watched,
    viewers: list[Viewer],
    pids: list[int],
) -> dict[str, Any]:
    """``--churn`` spectators a second leave and as many others join, spread over the
    processes, for ``--seconds`` (no moves): CPU a join and a leave, per process, and
    the ``audience`` messages a spectator reads a second."""
    loop = asyncio.get_running_loop()
    path = f"/ws/games/{game_id}".encode()
    joined = 0
    tasks: set[asyncio.Task[None]] = set()

    async def join(n: int) -> None:
        host, port = bases[n % len(bases)].rsplit(":", 1)
        # A signed-in spectator joins as the account of one that left.
        session = session_of(n) if args.signed_in else None
        _, viewer = await loop.create_connection(
            lambda: Viewer(watched, path, session), host, int(port)
        )
        await asyncio.wait_for(viewer.opened, 120)
        viewers.append(viewer)

    audiences0, cpu0 = watched.audiences, [cpu_seconds(pid) for pid in pids]
    t0 = time.perf_counter()
    out = args.spy and args.spy.with_suffix(".churn" + args.spy.suffix)
    spy = py_spy(pids[0], args.seconds, out) if out else None
    interval = 1 / args.churn
    while time.perf_counter() - t0 < args.seconds:
        # The oldest spectator of the next process leaves, and a new one joins it.
        viewers.pop(joined % len(viewers)).abort()
        task = asyncio.create_task(join(joined))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        joined += 1
        await asyncio.sleep(interval)
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - t0
    if spy is not None:
        await asyncio.to_thread(spy.wait, 60)
    cpu1 = [cpu_seconds(pid) for pid in pids]
    share = max(1, joined // len(pids))
    return {
        "churned": joined / elapsed,
        "churn_us": [(b - a) / share * 1e6 for a, b in zip(cpu0, cpu1, strict=True)],
        "audience_per_s": (watched.audiences - audiences0) / len(viewers) / elapsed,
    }


async def floor_run(args: argparse.Namespace, redis: EmbeddedRedis) -> dict[str, Any]:
    floor_args = argparse.Namespace(
        games=1,
        sockets_per_game=args.spectators + 2,
        rate=args.rate,
        saturate=False,
        seconds=args.seconds,
        notify=True,
        merge_ack=False,
    )
    return await floor_bench.one_run(floor_args, redis)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", type=int, default=10_000)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--rate", type=float, default=2.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument(
        "--idle", type=float, default=5.0, help="seconds of no moves measured first"
    )
    parser.add_argument(
        "--signed-in", action="store_true", help="every spectator signed in, as its own account"
    )
    parser.add_argument(
        "--churn", type=float, default=0, help="then spectators leaving and joining a second"
    )
    parser.add_argument(
        "--spy", type=Path, help="py-spy the first process in each measured window (raw stacks)"
    )
    args = parser.parse_args()
    os.environ.update({"SPLENDOR_ANALYSIS_BUDGET": "0", "SPLENDOR_COMMAND_RATE": "0"})
    print(
        f"audience: one game, {args.spectators} spectators over {args.processes} processes,"
        f" {args.rate:g} commands/s; {os.cpu_count()} cores,"
        f" load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        redis = await asyncio.to_thread(EmbeddedRedis(Path(tmp) / "redis").start)
        try:
            for run in range(args.runs):
                g = await game_run(args, redis)
                print(
                    f"run {run + 1} game: {g['commands']} commands; last socket p50"
                    f" {g['p50_ms']:.1f} ms p99 {g['p99_ms']:.1f} ms; CPU a move per process"
                    f" {' '.join(f'{c:.1f}' for c in g['cpu_ms'])} ms (system"
                    f" {' '.join(f'{c:.1f}' for c in g['sys_ms'])}); memory a socket"
                    f" {' '.join(f'{k:.1f}' for k in g['kib_socket'])} KiB; CPU a connect"
                    f" {' '.join(f'{c:.0f}' for c in g['connect_us'])} µs; CPU idle a second"
                    f" {' '.join(f'{c:.1f}' for c in g['idle_ms'])} ms; connected in"
                    f" {g['connected_s']:.0f} s, settled in {g['settled_s']:.0f} s;"
                    f" resets {g['resets']}; client {g['client_pct']:.0f}% of a core;"
                    f" errors {g['errors'] or 'none'}; load average {g['load']:.1f}"
                    + ("; the game ended in the window" if g["finished"] else ""),
                    flush=True,
                )
                if args.churn:
                    print(
                        f"run {run + 1} churn: {g['churned']:.0f} joins and leaves a second;"
                        " CPU a join and a leave per process"
                        f" {' '.join(f'{c:.0f}' for c in g['churn_us'])} µs;"
                        f" {g['audience_per_s']:.2f} audience messages a spectator a second",
                        flush=True,
                    )
                f = await floor_run(args, redis)
                print(
                    f"run {run + 1} floor: {f['commands']} commands; last socket p50"
                    f" {f['p50_ms']:.1f} ms p99 {f['p99_ms']:.1f} ms; CPU a move"
                    f" {(f['user_us'] + f['sys_us']) / 1e3:.1f} ms (system"
                    f" {f['sys_us'] / 1e3:.1f}; one process);"
                    f" client {f['client_pct']:.0f}% of a core",
                    flush=True,
                )
                print(
                    f"run {run + 1} ratio to the floor: p50 {g['p50_ms'] / f['p50_ms']:.1f}x,"
                    f" p99 {g['p99_ms'] / f['p99_ms']:.1f}x; CPU a move, all processes"
                    f" {sum(g['cpu_ms']) / ((f['user_us'] + f['sys_us']) / 1e3):.1f}x",
                    flush=True,
                )
        finally:
            await asyncio.to_thread(redis.stop)


if __name__ == "__main__":
    uvloop.run(main())
