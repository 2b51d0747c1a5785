"""Benchmark of live play over websockets; prints its figures.

    .venv/bin/python bench/ws_bench.py [--games 10 100 500] [--seconds 20]
                                       [--paced-games 113 --rate 100] [--idle 4000]
                                       [--talk 10] [--churn 20]

A real ``splendor serve`` process (the server, measured from outside through
``/proc/<pid>``) on a private redis-server, and, in this process, real websocket
clients (the ``websockets`` library) on loopback:

- **live games**: K four-player classic games, each with 4 player sockets and 4
  spectator sockets. A player answers as soon as its view says it is its move (a
  random legal action, ``expected_version`` set); a finished game is replaced by a new
  one. Latency of a command: from its send to the moment the last of the game's 8
  sockets has the diff of the command's last event (all clocks in this process).
  Server CPU per command: the server process's user + system time over the window
  divided by the commands acked in it (Redis's own CPU is reported beside it).
- **paced**: the same with a global pace (``--rate`` commands/s) instead of answering
  at once: the latency of a server that is not saturated.
- **baselines**, in the same runs: the round trip of ``ping``/``pong`` on a socket of
  an idle game (the server's websocket floor), and of one ``XADD`` from this process.
- **table talk** (``--talk``, ``--churn``): chat lines a second written by random
  seats of random games, and spectators a second opening a socket on a random game,
  staying 5 s and leaving (each change of an audience is told); they run beside the
  commands, whose latency and CPU are measured as above.
- **idle sockets**: a fresh server holding ``--idle`` spectator sockets on 4-player
  games nobody plays; the server's RSS before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import httpx
import msgspec
import redis.asyncio as aioredis
import websockets
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

from bots.moves import moves as game_moves
from server.store.embedded_redis import EmbeddedRedis

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PLAYERS = 4
SPECTATORS = 4
SOCKETS = PLAYERS + SPECTATORS
WARM_UP_S = 3.0
TURN_EVENTS = ("TurnEnded", "GameStarted")
CLOCK: dict[str, int] | None = None  # --clock: every game real-time (its clocks on the live path)
TALK_RATE = 0.0  # --talk: chat lines a second over all games
CHURN_RATE = 0.0  # --churn: spectators arriving a second over all games
CHURN_STAY_S = 5.0
SERVE_WITHOUT_COLLECTOR = (
    "import gc, sys; gc.disable(); from server.cli import main; sys.exit(main(sys.argv[1:]))"
)


# ---------------------------------------------------------------------- processes


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (from /proc/<pid>/stat)."""
    user, system = cpu_split(pid)
    return user + system


SPY_FILE: Path | None = None  # --spy: a py-spy profile of the measured window


def py_spy(pid: int, seconds: float, out: Path) -> subprocess.Popen[bytes]:
    """py-spy (``pip install py-spy``) sampling the server for ``seconds``: on-CPU
    stacks only, collapsed (``--format raw``), one line per stack with its count."""
    command = [
        str(Path(sys.executable).with_name("py-spy")), "record", "-p", str(pid),
        "-d", str(max(1, int(seconds))), "-r", "400", "--nonblocking",
        "--format", "raw", "-o", str(out),
    ]  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def cpu_split(pid: int) -> tuple[float, float]:
    """User and system CPU time of a process, apart."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def splendor_serve(
    redis_url: str, profile: Path | None, *, collector: bool = True
) -> AsyncIterator[tuple[str, int]]:
    """A ``splendor serve`` process (without Python's cyclic garbage collector unless
    ``collector``); yields its address and pid."""
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "SPLENDOR_COMMAND_RATE": "0",
        "SPLENDOR_CREATE_RATE": "0",
        "SPLENDOR_JOIN_RATE": "0",
    }
    prefix = [sys.executable]
    if profile is not None and profile.suffix == ".txt":  # a sampling profile, as text
        prefix += ["-m", "pyinstrument", "-r", "text", "-p", "flat=true", "-o", str(profile)]
    elif profile is not None:
        prefix += ["-m", "cProfile", "-o", str(profile)]
    serve = ["-m", "server.cli"] if collector else ["-c", SERVE_WITHOUT_COLLECTOR]
    command = [*prefix, *serve, "serve", "--port", str(port), "--log-level", "warning"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    base = f"127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=f"http://{base}") as http:
            for _ in range(300):
                if process.poll() is not None:
                    raise RuntimeError("splendor serve exited")
                with contextlib.suppress(httpx.TransportError):
                    if (await http.get("/healthz")).status_code == 200:
                        break
                await asyncio.sleep(0.05)
        yield base, process.pid
    finally:
        # uvicorn re-raises the signal once stopped: SIGINT lets cProfile write its file.
        process.send_signal(signal.SIGINT if profile is not None else signal.SIGTERM)
        stopping = time.perf_counter()
        try:
            process.wait(60)
            if time.perf_counter() - stopping > 5:
                print(f"(the server took {time.perf_counter() - stopping:.0f} s to stop)")
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


# ---------------------------------------------------------------------- clients


class Message(msgspec.Struct):
    """What a spectator needs of a server message (the rest is skipped)."""

    type: str
    version: int | None = None


decode_light = msgspec.json.Decoder(Message).decode
decode_full = msgspec.json.Decoder().decode
encode = msgspec.json.Encoder().encode


def apply_patch(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """Apply add/remove/replace operations in place (all the server sends)."""
    for op in ops:
        path = op["path"]
        if path == "":
            doc = op["value"]
            continue
        parts = [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]
        parent = doc
        for part in parts[:-1]:
            parent = parent[int(part)] if isinstance(parent, list) else parent[part]
        last = parts[-1]
        kind = op["op"]
        if isinstance(parent, list):
            index = len(parent) if last == "-" else int(last)
            if kind == "add":
                parent.insert(index, op["value"])
            elif kind == "remove":
                del parent[index]
            else:
                parent[index] = op["value"]
        elif kind == "remove":
            del parent[last]
        else:
            parent[last] = op["value"]
    return doc


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Stats:
    measuring: bool = False
    latencies: list[float] = field(default_factory=list)
    commands: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    games_finished: int = 0
    chats: int = 0  # --talk lines sent in the measured window
    visits: int = 0  # --churn spectators who came and left in the measured window


class Pacer:
    """A global pace for commands: ``rate`` permits a second, none saved up."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self._next = time.perf_counter()

    async def wait(self) -> None:
        now = time.perf_counter()
        slot = max(self._next, now)
        self._next = slot + 1 / self.rate
        if slot > now:
            await asyncio.sleep(slot - now)


class LiveGame:
    """One game on its 8 sockets; tracks when each version has reached all of them."""

    def __init__(self, game_id: str, stats: Stats, pacer: Pacer | None, seed: int) -> None:
        self.id = game_id
        self.stats = stats
        self.pacer = pacer
        self.rng = random.Random(seed)
        self.reached: dict[int, list[float]] = {}  # version -> [sockets, last time]
        self.sent_at: dict[str, float] = {}
        self.final_sent: dict[int, float] = {}  # last version of a command -> sent at
        self.finished = asyncio.Event()
        self.commands = itertools.count()
        self._later: set[asyncio.Task[None]] = set()

    def later(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in a task of its own (a paced command waiting for its permit)."""
        task = asyncio.get_running_loop().create_task(work)
        self._later.add(task)
        task.add_done_callback(self._later.discard)

    def stop(self) -> None:
        for task in list(self._later):
            task.cancel()

    def seen(self, version: int, at: float) -> None:
        entry = self.reached.get(version)
        if entry is None:
            entry = self.reached[version] = [0, at]
        entry[0] += 1
        entry[1] = at
        if entry[0] == SOCKETS:
            self._complete(version)

    def acked(self, command_id: str, version: int) -> None:
        sent = self.sent_at.pop(command_id, None)
        if sent is None:
            return
        self.final_sent[version] = sent
        self._complete(version)

    def _complete(self, version: int) -> None:
        entry = self.reached.get(version)
        sent = self.final_sent.get(version)
        if entry is None or sent is None or entry[0] < SOCKETS:
            return
        del self.final_sent[version]
        if self.stats.measuring:
            self.stats.latencies.append(entry[1] - sent)
            self.stats.commands += 1
        for v in [v for v in self.reached if v <= version]:
            del self.reached[v]


# ---------------------------------------------------------------------- set-up


async def new_game(http: httpx.AsyncClient, seed: int) -> tuple[str, list[str]]:
    body: dict[str, Any] = {"variant": "classic", "players": PLAYERS, "seed": seed}
    if CLOCK is not None:
        body["clock"] = CLOCK
    r = await http.post("/api/games", json=body)
    r.raise_for_status()
    game_id: str = r.json()["id"]
    tokens = []
    for i in range(PLAYERS):
        r = await http.post(f"/api/games/{game_id}/seats", json={"name": f"P{i}"})
        r.raise_for_status()
        tokens.append(r.json()["token"])
    return game_id, tokens


async def bounded(limit: int, jobs: list[Callable[[], Awaitable[Any]]]) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[Any]]) -> Any:
        async with gate:
            return await job()

    return await asyncio.gather(*(one(j) for j in jobs))


CONNECTING = asyncio.Semaphore(50)  # clients do not all connect in the same millisecond


class LeanSocket(asyncio.Protocol):
    """A websocket client with as little between the socket and the bench as can be:
    ``websockets``' own sans-I/O client protocol driven straight from the transport's
    callbacks. Each message is handed to ``on_message`` with the time its bytes were
    read: no reader task and no queue, and no other socket's work in between (the
    ``websockets`` asyncio client spends more per message than the server does, and
    with 904 sockets in one process that showed in the latencies)."""

    def __init__(self, url: str, on_message: Callable[[bytes, float], None]) -> None:
        self.conn = ClientProtocol(parse_uri(url), max_size=None)
        self.on_message = on_message
        loop = self._loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.conn.send_request(self.conn.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        # Timed as it is read, handled after every socket read in the same turn of
        # the loop: the time a message reached this process, not the time this
        # process got round to it after the other sockets' messages.
        self._loop.call_soon(self._received, data, time.perf_counter())

    def _received(self, data: bytes, at: float) -> None:
        self.conn.receive_data(data)
        for event in self.conn.events_received():
            if isinstance(event, Response):
                if self.conn.handshake_exc is not None:
                    self.opened.set_exception(self.conn.handshake_exc)
                else:
                    self.opened.set_result(None)
            elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                self.on_message(bytes(event.data), at)
        self._flush()  # pongs, a close's answer

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed before the handshake"))
        if not self.closed.done():
            self.closed.set_result(None)

    def send_text(self, text: bytes) -> None:
        if self.conn.state is State.OPEN:
            self.conn.send_text(text)
            self._flush()

    async def close(self) -> None:
        if self.conn.state is State.OPEN:
            self.conn.send_close()
            self._flush()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.closed), 5)
        if self.transport is not None:
            self.transport.close()

    def _flush(self) -> None:
        assert self.transport is not None
        for data in self.conn.data_to_send():
            if data:
                self.transport.write(data)
            elif self.transport.can_write_eof():
                self.transport.write_eof()


async def lean(
    base: str,
    game_id: str,
    on_message: Callable[[bytes, float], None],
    token: str | None = None,
    bind: Callable[[LeanSocket], None] | None = None,
) -> LeanSocket:
    """A ``LeanSocket`` on a game, once its handshake is done; ``bind`` gets it as
    soon as it is made (its first message may come with the handshake's answer)."""
    url = f"ws://{base}/ws/games/{game_id}" + (f"?token={token}" if token else "")
    host, port = base.rsplit(":", 1)

    def make() -> LeanSocket:
        made = LeanSocket(url, on_message)
        if bind is not None:
            bind(made)
        return made

    async with CONNECTING:
        _, socket_ = await asyncio.get_running_loop().create_connection(make, host, int(port))
        await asyncio.wait_for(socket_.opened, 60)
    return socket_


class Spectator:
    """A spectator socket's bench side: each diff's arrival, timed."""

    def __init__(self, game: LiveGame) -> None:
        self.game = game

    def on_message(self, data: bytes, at: float) -> None:
        message = decode_light(data)
        if message.type == "diff" and message.version is not None:
            self.game.seen(message.version, at)


class Player:
    """A player socket's bench side: keeps its view, and answers its turn at once (or
    at the pacer's next permit) with a random legal action."""

    def __init__(self, game: LiveGame, seat: int) -> None:
        self.game = game
        self.seat = seat
        self.socket: LeanSocket | None = None
        self.view: Any = None
        self.version = 0
        self.last_event = ""
        self.in_flight: str | None = None
        self.acted = -1
        self.acked = -1  # the version our last command brought the game to

    def on_message(self, data: bytes, at: float) -> None:
        game = self.game
        message = decode_full(data)
        kind = message["type"]
        if kind == "diff":
            self.version = message["version"]
            self.view = apply_patch(self.view, message["patch"])
            self.last_event = message["event"]["type"]
            game.seen(self.version, at)
        elif kind == "snapshot":
            self.view, self.version = message["view"], message["version"]
            self.last_event = "GameStarted"
        elif kind == "ack":
            self.in_flight = None
            self.acked = message["version"]
            game.acked(message["command_id"], self.acked)
        elif kind == "error" and "command_id" not in message:
            # Not a command's answer: a chat line refused (by a limit, or by a tree
            # without chat as an unknown message).
            key = f"chat: {message['code']}"
            game.stats.errors[key] = game.stats.errors.get(key, 0) + 1
            return
        elif kind in ("chat", "chat_history", "audience"):
            return
        elif kind == "error":
            self.in_flight = None
            game.stats.errors[message["code"]] = game.stats.errors.get(message["code"], 0) + 1
            game.sent_at.pop(message.get("command_id", ""), None)
        view = self.view
        if view["status"] == "finished":
            game.finished.set()
            return
        if (
            self.in_flight is None
            and self.acted != self.version
            and view["turn"]["seat"] == self.seat
            and game_moves(view)
            and (self.last_event in TURN_EVENTS or self.version == self.acked)
        ):
            self.acted = self.version
            self.in_flight = f"{game.id}-{self.seat}-{next(game.commands)}"
            body = encode(
                {
                    "type": "command",
                    "command_id": self.in_flight,
                    "expected_version": self.version,
                    "action": game.rng.choice(game_moves(view)),
                }
            )
            if game.pacer is None:
                self._send(self.in_flight, body)
            else:
                game.later(self._paced(self.in_flight, body))

    def bind(self, socket: LeanSocket) -> None:
        self.socket = socket

    async def _paced(self, command_id: str, body: bytes) -> None:
        assert self.game.pacer is not None
        await self.game.pacer.wait()
        self._send(command_id, body)

    def _send(self, command_id: str, body: bytes) -> None:
        assert self.socket is not None
        self.game.sent_at[command_id] = time.perf_counter()
        self.socket.send_text(body)


class Slot:
    """One of the K game slots: runs games one after the other until stopped."""

    def __init__(
        self, base: str, http: httpx.AsyncClient, stats: Stats, pacer: Pacer | None, seed: int
    ) -> None:
        self.base, self.http, self.stats, self.pacer = base, http, stats, pacer
        self.seeds = itertools.count(seed * 1000)
        self.stopping = False
        self.ready = asyncio.Event()
        self.playing: tuple[LiveGame, list[Player]] | None = None  # for --talk and --churn

    async def run(self, first: tuple[str, list[str]]) -> None:
        game_id, tokens = first
        while not self.stopping:
            seed = next(self.seeds)
            game = LiveGame(game_id, self.stats, self.pacer, seed)
            players = [Player(game, seat) for seat in range(PLAYERS)]
            try:
                conns = [
                    await lean(self.base, game_id, Spectator(game).on_message)
                    for _ in range(SPECTATORS)
                ]
                for player, token in zip(players, tokens, strict=True):
                    conns.append(
                        await lean(self.base, game_id, player.on_message, token, player.bind)
                    )
            except (OSError, TimeoutError, websockets.WebSocketException) as e:
                key = f"connect: {type(e).__name__}"
                self.stats.errors[key] = self.stats.errors.get(key, 0) + 1
                await asyncio.sleep(0.5)
                continue
            self.ready.set()
            self.playing = (game, players)
            while not self.stopping and not game.finished.is_set():
                if all(c.closed.done() for c in conns):
                    self.stats.errors["socket closed"] = (
                        self.stats.errors.get("socket closed", 0) + 1
                    )
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(game.finished.wait(), 0.5)
            self.playing = None
            game.stop()
            await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)
            if game.finished.is_set() and self.stats.measuring:
                self.stats.games_finished += 1
            if not self.stopping:
                game_id, tokens = await new_game(self.http, seed)


async def baselines(
    base: str,
    redis_url: str,
    idle_game: str,
    stop: asyncio.Event,
    echo: list[float],
    xadd: list[float],
    measuring: Callable[[], bool],
) -> None:
    """Ping/pong on a socket of an idle game and XADD round trips, every 20 ms."""
    answers: asyncio.Queue[float] = asyncio.Queue()

    def answered(data: bytes, at: float) -> None:
        # Told after the snapshot, and whenever they change: not answers.
        if not data.startswith(
            (b'{"type":"presence"', b'{"type":"audience"', b'{"type":"chat_history"')
        ):
            answers.put_nowait(at)

    conn = await lean(base, idle_game, answered)
    await answers.get()  # its snapshot
    client = aioredis.from_url(redis_url)
    try:
        while not stop.is_set():
            t0 = time.perf_counter()
            conn.send_text(b'{"type":"ping"}')
            t1 = await answers.get()  # when the pong was read
            await client.xadd("bench:xadd", {"e": b"x" * 200}, maxlen=1000, approximate=True)
            t2 = time.perf_counter()
            if measuring():
                echo.append(t1 - t0)
                xadd.append(t2 - t1)
            await asyncio.sleep(0.02)
    finally:
        await conn.close()
        await client.aclose()


async def talk(slots: list[Slot], rate: float, stop: asyncio.Event, stats: Stats) -> None:
    """Table talk at ``rate`` messages a second over all games: a random seat of a random
    game writes a line to its room (each line different, as the limits ask)."""
    rng = random.Random(5)
    for n in itertools.count():
        if stop.is_set():
            return
        playing = rng.choice(slots).playing
        if playing is not None:
            player = rng.choice(playing[1])
            if player.socket is not None and not player.socket.closed.done():
                line = {"type": "chat", "chat_id": f"c{n}", "text": f"nice move {n}"}
                player.socket.send_text(encode(line))
                if stats.measuring:
                    stats.chats += 1
        await asyncio.sleep(1 / rate)


async def churn(
    base: str, slots: list[Slot], rate: float, stay_s: float, stop: asyncio.Event, stats: Stats
) -> None:
    """Spectators coming and going: ``rate`` a second open a socket on a random live game,
    stay ``stay_s`` seconds and leave (each change of a game's audience is told)."""
    rng = random.Random(6)
    visits: set[asyncio.Task[None]] = set()

    async def visit(game_id: str) -> None:
        try:
            conn = await lean(base, game_id, lambda data, at: None)
        except (OSError, TimeoutError, websockets.WebSocketException):
            stats.errors["churn connect"] = stats.errors.get("churn connect", 0) + 1
            return
        try:
            await asyncio.sleep(stay_s)
        finally:
            await conn.close()
        if stats.measuring:
            stats.visits += 1

    while not stop.is_set():
        playing = rng.choice(slots).playing
        if playing is not None:
            task = asyncio.create_task(visit(playing[0].id))
            visits.add(task)
            task.add_done_callback(visits.discard)
        await asyncio.sleep(1 / rate)
    await asyncio.gather(*visits, return_exceptions=True)


async def live_run(
    base: str,
    pid: int,
    redis_pid: int | None,
    redis_url: str,
    games: int,
    seconds: float,
    rate: float | None,
) -> dict[str, Any]:
    stats = Stats()
    pacer = Pacer(rate) if rate else None
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=f"http://{base}", limits=limits, timeout=60) as http:
        firsts = await bounded(20, [lambda i=i: new_game(http, 7000 + i) for i in range(games)])
        idle_game, _ = await new_game(http, 99)
        slots = [Slot(base, http, stats, pacer, 7000 + i) for i in range(games)]
        tasks = [asyncio.create_task(s.run(f)) for s, f in zip(slots, firsts, strict=True)]
        await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in slots)), 300)
        # The clients' own collections would show in the latencies: the sockets made
        # so far live through the run (as the server freezes its start-up heap).
        gc.collect()
        gc.freeze()
        stop = asyncio.Event()
        echo: list[float] = []
        xadd: list[float] = []
        sampler = asyncio.create_task(
            baselines(base, redis_url, idle_game, stop, echo, xadd, lambda: stats.measuring)
        )
        extras = []
        if TALK_RATE:
            extras.append(asyncio.create_task(talk(slots, TALK_RATE, stop, stats)))
        if CHURN_RATE:
            extras.append(
                asyncio.create_task(churn(base, slots, CHURN_RATE, CHURN_STAY_S, stop, stats))
            )
        await asyncio.sleep(WARM_UP_S)
        cpu0, rcpu0, own0 = cpu_seconds(pid), redis_cpu(redis_pid), own_cpu()
        sys0 = cpu_split(pid)[1]
        t0 = time.perf_counter()
        stats.measuring = True
        spy = py_spy(pid, seconds, SPY_FILE) if SPY_FILE else None
        await asyncio.sleep(seconds)
        stats.measuring = False
        if spy is not None:
            await asyncio.to_thread(spy.wait, 60)
        elapsed = time.perf_counter() - t0
        cpu1, rcpu1, own1 = cpu_seconds(pid), redis_cpu(redis_pid), own_cpu()
        sys1 = cpu_split(pid)[1]
        rss = rss_mib(pid)
        stop.set()
        for slot in slots:
            slot.stopping = True
        await asyncio.gather(*tasks, sampler, *extras, return_exceptions=True)
    n = max(1, stats.commands)
    return {
        "games": games,
        "sockets": games * SOCKETS,
        "rate": rate,
        "commands": stats.commands,
        "per_s": stats.commands / elapsed,
        "p50_ms": percentile(stats.latencies, 0.5) * 1e3,
        "p99_ms": percentile(stats.latencies, 0.99) * 1e3,
        "cpu_us": (cpu1 - cpu0) / n * 1e6,
        "sys_us": (sys1 - sys0) / n * 1e6,
        "cpu_pct": (cpu1 - cpu0) / elapsed * 100,
        "redis_us": (rcpu1 - rcpu0) / n * 1e6,
        "client_pct": (own1 - own0) / elapsed * 100,
        "rss_mib": rss,
        "echo_p50_ms": percentile(echo, 0.5) * 1e3,
        "echo_p99_ms": percentile(echo, 0.99) * 1e3,
        "xadd_p50_ms": percentile(xadd, 0.5) * 1e3,
        "xadd_p99_ms": percentile(xadd, 0.99) * 1e3,
        "errors": dict(stats.errors),
        "finished": stats.games_finished,
        "chats_per_s": stats.chats / elapsed,
        "visits_per_s": stats.visits / elapsed,
        "load": os.getloadavg()[0],
    }


def redis_cpu(pid: int | None) -> float:
    return cpu_seconds(pid) if pid else 0.0


def own_cpu() -> float:
    t = os.times()
    return t.user + t.system


async def idle_run(base: str, pid: int, sockets: int) -> dict[str, Any]:
    per_game = 40
    games = (sockets + per_game - 1) // per_game
    async with httpx.AsyncClient(base_url=f"http://{base}", timeout=60) as http:
        ids = [
            g for g, _ in await bounded(20, [lambda i=i: new_game(http, i) for i in range(games)])
        ]
    before = rss_mib(pid)
    snapshots: list[float] = []
    conns = await bounded(
        100,
        [
            lambda g=g: lean(
                base,
                g,
                lambda data, at: (
                    snapshots.append(at) if data.startswith(b'{"type":"snap') else None
                ),
            )
            for g in ids
            for _ in range(per_game)
        ][:sockets],
    )
    while len(snapshots) < len(conns):  # every snapshot is in
        await asyncio.sleep(0.05)
    await asyncio.sleep(5)
    cpu0 = cpu_seconds(pid)
    await asyncio.sleep(5)
    idle_cpu = (cpu_seconds(pid) - cpu0) / 5 * 100
    after = rss_mib(pid)
    await bounded(200, [lambda c=c: c.close() for c in conns])
    return {
        "sockets": len(conns),
        "games": games,
        "rss_before": before,
        "rss_after": after,
        "per_socket_kib": (after - before) * 1024 / max(1, len(conns)),
        "idle_cpu": idle_cpu,
    }


def hub_breakdown(games: int = 20) -> dict[str, float]:
    """In-process CPU time of the hub's work per command (no sockets, no Redis): four-
    player classic games replayed through a hub with 4 seat and 4 spectator outboxes,
    and, apart, the views alone (the rules' ``view`` for the 5 audiences of each event)."""
    from events.game import CLASSIC
    from server.games.projection import LoggedEvent, encode_event
    from server.live.hubs import Hub
    from server.live.outbox import Outbox
    from server.live.socket_writers import Batch
    from server.store.event_store import StoredEvent

    class FramingWire:
        """A socket's wire that frames what it is given (as the server's does) and
        drops it."""

        def write(self, batch: Batch) -> None:
            batch.frames  # noqa: B018 - made once per batch, shared by the audience

        def offer(self, batch: Batch, limit: int) -> bool:
            self.write(batch)
            return True

        def buffered(self) -> int:
            return 0

        async def drained(self, below: int) -> None:
            return None

        def close(self, last: Batch | None = None) -> None:
            return None

        async def flushed(self) -> None:
            return None

    hub_s = view_s = 0.0
    commands = 0
    for seed in range(games):
        rng = random.Random(seed)
        state = CLASSIC.new_state()
        log: list[LoggedEvent] = []
        moves: list[tuple[int, int]] = []

        def add(events: list[Any], log: list[LoggedEvent] = log, state: Any = state) -> None:
            for event in events:
                CLASSIC.evolve(state, event)
                log.append(LoggedEvent(len(log) + 1, 1_700_000_000_000, event))

        add(CLASSIC.create("g", PLAYERS))
        for i in range(PLAYERS):
            add(CLASSIC.join(state, f"P{i}", None, rng))
        start = len(log)
        while state.status == "live":
            first = len(log)
            add(
                CLASSIC.decide(
                    state, state.seat, rng.choice(CLASSIC.legal_actions(state, state.seat)), rng
                )
            )
            moves.append((first, len(log)))
        stored = [StoredEvent(e.version, e.at_ms, encode_event(e.event)) for e in log]
        hub = Hub("g", CLASSIC, log[:start])
        for viewer in [*range(PLAYERS), *[None] * SPECTATORS]:
            hub.attach(Outbox(hub, viewer, FramingWire()), None)
        t0 = time.process_time()
        for a, b in moves:
            hub.apply(stored[a:b])
        hub_s += time.process_time() - t0
        replay = CLASSIC.fold(e.event for e in log[:start])
        t0 = time.process_time()
        for logged in log[start:]:
            CLASSIC.evolve(replay, logged.event)
            for viewer in [*range(PLAYERS), None]:
                CLASSIC.view(replay, viewer)
        view_s += time.process_time() - t0
        commands += len(moves)
    return {
        "hub_us": hub_s / commands * 1e6,
        "view_us": view_s / commands * 1e6,
        "commands": commands,
    }


def show_live(r: dict[str, Any]) -> None:
    pace = f"paced {r['rate']:.0f}/s" if r["rate"] else "as fast as answered"
    print(
        f"K={r['games']:>4} ({r['sockets']} sockets, {pace}): {r['commands']} commands,"
        f" {r['per_s']:.0f}/s; latency p50 {r['p50_ms']:.2f} ms p99 {r['p99_ms']:.2f} ms;"
        f" server CPU {r['cpu_us']:.0f} µs/command (system {r['sys_us']:.0f};"
        f" {r['cpu_pct']:.0f}% of a core),"
        f" RSS {r['rss_mib']:.0f} MiB; Redis {r['redis_us']:.0f} µs/command;"
        f" client {r['client_pct']:.0f}% of a core; echo p50 {r['echo_p50_ms']:.2f}"
        f" p99 {r['echo_p99_ms']:.2f} ms; XADD p50 {r['xadd_p50_ms']:.2f}"
        f" p99 {r['xadd_p99_ms']:.2f} ms; games finished {r['finished']};"
        f" errors {r['errors'] or 'none'}; load {r['load']:.1f}"
        + (
            f"; chat {r['chats_per_s']:.1f} lines/s, spectators {r['visits_per_s']:.1f}"
            " came and left /s"
            if TALK_RATE or CHURN_RATE
            else ""
        ),
        flush=True,
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="*", default=[10, 100, 500])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--paced-games", type=int, default=113)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--idle", type=int, default=4000)
    parser.add_argument(
        "--clock",
        metavar="INITIAL+INCREMENT",
        help="play every game on a real-time clock, e.g. 300+3 (seconds); default untimed",
    )
    parser.add_argument(
        "--talk",
        type=float,
        default=0.0,
        metavar="LINES_PER_S",
        help="table talk: chat lines a second over all games (e.g. 10)",
    )
    parser.add_argument(
        "--churn",
        type=float,
        default=0.0,
        metavar="SPECTATORS_PER_S",
        help="spectators arriving a second over all games, each staying 5 s (e.g. 20)",
    )
    parser.add_argument(
        "--profile", type=Path, help="profile the server: FILE.txt (pyinstrument) or cProfile"
    )
    parser.add_argument(
        "--spy", type=Path, help="py-spy the server in each measured window (collapsed stacks)"
    )
    args = parser.parse_args()
    global SPY_FILE, CLOCK, TALK_RATE, CHURN_RATE
    SPY_FILE = args.spy
    TALK_RATE, CHURN_RATE = args.talk, args.churn
    if args.clock:
        initial, _, increment = args.clock.partition("+")
        CLOCK = {"initial": int(initial), "increment": int(increment or 0)}
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)
    b = hub_breakdown()
    print(
        f"hub, in process: {b['hub_us']:.0f} µs CPU a command ({b['commands']} commands of"
        f" 4-player games, 5 audiences, 8 outboxes), of which the rules' views"
        f" {b['view_us']:.0f} µs",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        url = os.environ.get("REDIS_URL")
        embedded = None
        if url is None:
            embedded = EmbeddedRedis(Path(tmp) / "redis").start()
            url = embedded.url
        redis_pid = embedded.pid if embedded else None
        try:
            async with splendor_serve(url, args.profile) as (base, pid):
                for games in args.games:
                    show_live(await live_run(base, pid, redis_pid, url, games, args.seconds, None))
                if args.paced_games:
                    show_live(
                        await live_run(
                            base, pid, redis_pid, url, args.paced_games, args.seconds, args.rate
                        )
                    )
            if args.idle:
                async with splendor_serve(url, None) as (base, pid):
                    r = await idle_run(base, pid, args.idle)
                    print(
                        f"idle: {r['sockets']} sockets on {r['games']} games: server RSS"
                        f" {r['rss_before']:.0f} -> {r['rss_after']:.0f} MiB"
                        f" ({r['per_socket_kib']:.1f} KiB a socket), idle CPU {r['idle_cpu']:.1f}%",
                        flush=True,
                    )
        finally:
            if embedded is not None:
                embedded.stop()


if __name__ == "__main__":
    asyncio.run(main())
