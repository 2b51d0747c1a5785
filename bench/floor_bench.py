"""The floor of a live move on this machine: the mandatory I/O only; prints its figures.

    .venv/bin/python bench/floor_bench.py [--games 113] [--sockets-per-game 8]
        [--rate 100 | --saturate] [--seconds 20] [--runs 3] [--notify] [--merge-ack]

A minimal websocket server (a subprocess of this script, ``--serve``, so that its CPU
is read apart from the clients' through ``/proc/<pid>/stat``) built on uvloop and
asyncio Protocols only: a hand-written RFC 6455 handshake and frame parser, no game
logic, nothing parsed in a command. For each text frame a socket sends (a command) it

1. writes one ``EVALSHA`` (a Lua script: version check, then an ``XADD`` of ~300 bytes
   to the game's stream ``game:{<n>}:events``, as server/store/event_store.py's append does) to a
   real redis-server (the embedded one) over a raw Protocol connection, pipelined (no
   wait for earlier replies), its replies read by ``hiredis.Reader``;
2. when the reply comes, writes one precomputed ~1.2 KiB text frame (a typical diff
   batch) to each socket of the game (``transport.write``), then a ~60-byte ack frame
   to the sender (``--merge-ack``: the ack appended to the sender's frame, one write).

``--notify``: the server also holds a second Redis connection subscribed to the
keyspace notifications of its games' streams (``notify-keyspace-events Kt``) and reads
them, as ``splendor serve``'s tailer does (one more wake-up a command).

The clients, in this process (uvloop too), are lean hand-made RFC 6455 clients (masked
frames, the server's frames parsed): ``--games`` games of ``--sockets-per-game``
sockets on ``/g/<n>``. Paced: a global pace of ``--rate`` commands/s, each from the
next game in round-robin order whose previous command has completed, sent by its
sockets in turn. ``--saturate``: every game sends its next command as soon as its
previous one completed. Latency: from the send to the moment the last of the game's
sockets read its frame (timed on entry to ``data_received``); a command completes when
that frame and the ack are in. CPU: user and system time of the server and of
redis-server over the measured window (after a warm-up), divided by the commands
completed in it.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import gc
import hashlib
import os
import random
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, cast

import hiredis
import uvloop
from websockets.speedups import apply_mask
from ws_bench import cpu_split, free_port, percentile

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a plain script

from server.store.embedded_redis import EmbeddedRedis

WARM_UP_S: Final = 3.0
GUID: Final = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA

# What a move writes and sends, made once: the floor has no game logic.
EVENT: Final = b'{"type":"TookTokens","seat":2,"tokens":{"white":1,"blue":1,"green":1}' + (
    b',"pad":"' + b"x" * 220 + b'"}'
)  # ~300 bytes, an encoded event
DIFF_TEXT: Final = b'{"type":"diff","version":123,"event":{},"patch":[' + b" " * 1140 + b"]}"
ACK_TEXT: Final = b'{"type":"ack","command_id":"g12-2-345","version":123}   '
COMMAND_TEXT: Final = (
    b'{"type":"command","command_id":"g12-2-345","expected_version":123,'
    b'"action":{"type":"take","tokens":{"white":1,"blue":1,"green":1}}}'
)

# KEYS[1] the stream; ARGV[1] expected version, ARGV[2] the event, ARGV[3] time ms.
APPEND_LUA: Final = b"""
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local actual = 0
if #last > 0 then
  actual = tonumber(string.match(last[1][1], '^(%d+)-'))
end
if actual ~= tonumber(ARGV[1]) then
  return {2, actual}
end
redis.call('XADD', KEYS[1], string.format('%d-0', actual + 1), 'e', ARGV[2], 't', ARGV[3])
return {0, actual + 1}
"""
APPEND_SHA: Final = hashlib.sha1(APPEND_LUA).hexdigest().encode()


# ---------------------------------------------------------------------- RFC 6455


def frame(opcode: int, payload: bytes, mask: bool = False) -> bytes:
    """One final frame (a client's is masked, with a fresh key, as RFC 6455 requires)."""
    n = len(payload)
    bit = 0x80 if mask else 0
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, bit | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, bit | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, bit | 127, n)
    if not mask:
        return head + payload
    key = random.randbytes(4)
    return head + key + apply_mask(payload, key)


class ProtocolError(Exception):
    """The peer broke RFC 6455 (unmasked client frame, fragments this floor refuses)."""


class FrameReader:
    """Frames out of a byte stream: header, extended length, masking key, payload."""

    def __init__(self, masked: bool) -> None:
        self.masked = masked  # what the peer must do: clients mask, servers do not
        self.buffer = b""

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        buf = self.buffer + data if self.buffer else data
        frames: list[tuple[int, bytes]] = []
        at, size = 0, len(buf)
        while size - at >= 2:
            first, second = buf[at], buf[at + 1]
            if not first & 0x80 or first & 0x70:
                raise ProtocolError("fragmented frame or reserved bits")
            if bool(second & 0x80) is not self.masked:
                raise ProtocolError("masking does not match the peer's role")
            length, head = second & 0x7F, 2
            if length == 126:
                if size - at < 4:
                    break
                length, head = struct.unpack_from("!H", buf, at + 2)[0], 4
            elif length == 127:
                if size - at < 10:
                    break
                length, head = struct.unpack_from("!Q", buf, at + 2)[0], 10
            key_at = at + head
            start = key_at + 4 if self.masked else key_at
            end = start + length
            if end > size:
                break
            payload = buf[start:end]
            if self.masked:
                payload = apply_mask(payload, buf[key_at:start])
            frames.append((first & 0x0F, payload))
            at = end
        self.buffer = buf[at:]
        return frames


def accept_key(key: bytes) -> bytes:
    return base64.b64encode(hashlib.sha1(key + GUID).digest())


def headers(block: bytes) -> tuple[bytes, dict[bytes, bytes]]:
    """The first line and the (lower-cased) header fields of an HTTP/1.1 head."""
    first, *lines = block.split(b"\r\n")
    fields = {}
    for line in lines:
        name, _, value = line.partition(b":")
        fields[name.strip().lower()] = value.strip()
    return first, fields


# ---------------------------------------------------------------------- the server


class Game:
    """A game on the floor server: its sockets, its version, its stream key."""

    def __init__(self, number: int) -> None:
        self.sockets: list[asyncio.Transport] = []
        self.version = 0
        key = f"game:{{{number}}}:events".encode()
        self.channel = b"__keyspace@0__:" + key
        # EVALSHA sha 1 key <version> <event> <ms>: all but the last three made once.
        self.evalsha = (
            b"*7\r\n$7\r\nEVALSHA\r\n$40\r\n" + APPEND_SHA + b"\r\n$1\r\n1\r\n"
            + b"$%d\r\n%s\r\n" % (len(key), key)
        )  # fmt: skip


@dataclass
class Floor:
    """What the server holds: games by path, the Redis link, the commands in flight."""

    merge_ack: bool
    games: dict[bytes, Game] = field(default_factory=dict)
    redis: asyncio.Transport | None = None
    in_flight: deque[tuple[Game, asyncio.Transport]] = field(default_factory=deque)
    notified: dict[bytes, int] = field(default_factory=dict)
    conflicts: int = 0
    diff: bytes = frame(TEXT, DIFF_TEXT)
    ack: bytes = frame(TEXT, ACK_TEXT)
    event: bytes = b"$%d\r\n%s\r\n" % (len(EVENT), EVENT)

    def command(self, game: Game, sender: asyncio.Transport) -> None:
        assert self.redis is not None
        version = b"%d" % game.version
        ms = b"%d" % int(time.time() * 1000)
        self.redis.write(
            game.evalsha + b"$%d\r\n%s\r\n" % (len(version), version) + self.event
            + b"$%d\r\n%s\r\n" % (len(ms), ms)
        )  # fmt: skip
        self.in_flight.append((game, sender))

    def appended(self, reply: Any) -> None:
        game, sender = self.in_flight.popleft()
        status, version = reply
        if status != 0:
            self.conflicts += 1
        game.version = version
        diff = self.diff
        if self.merge_ack:
            both = diff + self.ack
            for transport in game.sockets:
                transport.write(both if transport is sender else diff)
        else:
            for transport in game.sockets:
                transport.write(diff)
            sender.write(self.ack)


class ServerSocket(asyncio.Protocol):
    """One websocket on the floor server: handshake, then commands and control frames."""

    def __init__(self, floor: Floor) -> None:
        self.floor = floor
        self.head = b""
        self.reader = FrameReader(masked=True)
        self.game: Game | None = None
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        transport = self.transport
        assert transport is not None
        game = self.game
        if game is None:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            data = self.head[end + 4 :]
            game = self.game = self._handshake(self.head[:end])
            if game is None:
                return
        try:
            frames = self.reader.feed(data)
        except ProtocolError:
            transport.write(frame(CLOSE, struct.pack("!H", 1002)))
            transport.close()
            return
        for opcode, payload in frames:
            if opcode == TEXT:
                self.floor.command(game, transport)
            elif opcode == PING:
                transport.write(frame(PONG, payload))
            elif opcode == CLOSE:
                transport.write(frame(CLOSE, payload[:2]))
                transport.close()

    def _handshake(self, head: bytes) -> Game | None:
        assert self.transport is not None
        request, fields = headers(head)
        method, path, _ = request.split(b" ", 2)
        key = fields.get(b"sec-websocket-key")
        if (
            method != b"GET"
            or not path.startswith(b"/g/")
            or key is None
            or fields.get(b"upgrade", b"").lower() != b"websocket"
            or fields.get(b"sec-websocket-version") != b"13"
        ):
            self.transport.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            self.transport.close()
            return None
        self.transport.write(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept_key(key) + b"\r\n\r\n"
        )
        game = self.floor.games.get(path)
        if game is None:
            game = self.floor.games[path] = Game(int(path[3:]))
        game.sockets.append(self.transport)
        return game

    def connection_lost(self, exc: Exception | None) -> None:
        if self.game is not None and self.transport in self.game.sockets:
            self.game.sockets.remove(self.transport)


class RedisLink(asyncio.Protocol):
    """The server's Redis connection: replies, in order, to the pipelined EVALSHAs."""

    def __init__(self, on_reply: Callable[[Any], None]) -> None:
        self.reader = hiredis.Reader()
        self.on_reply = on_reply

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        reply = self.reader.gets()
        while reply is not False:
            self.on_reply(reply)
            reply = self.reader.gets()


async def serve(port: int, redis_port: int, games: int, notify: bool, merge_ack: bool) -> None:
    loop = asyncio.get_running_loop()
    floor = Floor(merge_ack)
    redis_transport, _ = await loop.create_connection(
        lambda: RedisLink(floor.appended), "127.0.0.1", redis_port
    )
    floor.redis = redis_transport
    if notify:
        subscribed: asyncio.Future[None] = loop.create_future()
        confirmations = [0]

        def on_notice(reply: Any) -> None:
            kind, channel = reply[0], reply[1]
            if kind == b"message":  # a game's stream grew: the real tailer's wake-up
                floor.notified[channel] = floor.notified.get(channel, 0) + 1
            elif kind == b"subscribe":
                confirmations[0] += 1
                if confirmations[0] == games and not subscribed.done():
                    subscribed.set_result(None)

        sub_transport, _ = await loop.create_connection(
            lambda: RedisLink(on_notice), "127.0.0.1", redis_port
        )
        channels = [Game(n).channel for n in range(games)]
        parts = [b"SUBSCRIBE", *channels]
        sub_transport.write(
            b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)
        )
        await asyncio.wait_for(subscribed, 10)
    server = await loop.create_server(lambda: ServerSocket(floor), "127.0.0.1", port, backlog=2048)
    gc.collect()
    gc.freeze()
    print("ready", flush=True)
    stop = loop.create_future()
    loop.add_signal_handler(15, stop.set_result, None)
    await stop
    server.close()
    print(f"conflicts {floor.conflicts} notices {sum(floor.notified.values())}", flush=True)


# ---------------------------------------------------------------------- the clients


@dataclass
class Stats:
    measuring: bool = False
    latencies: list[float] = field(default_factory=list)
    commands: int = 0


class ClientGame:
    """A game's sockets on the bench side; one command in flight at most."""

    def __init__(self, stats: Stats, saturate: bool) -> None:
        self.stats = stats
        self.saturate = saturate
        self.sockets: list[ClientSocket] = []
        self.idle = True
        self.sent_at = 0.0
        self.last_at = 0.0
        self.frames_left = 0
        self.ack_left = False
        self.turn = 0
        self.stopping = False

    def send(self) -> None:
        sender = self.sockets[self.turn % min(4, len(self.sockets))]
        self.turn += 1
        self.idle = False
        self.frames_left = len(self.sockets)
        self.ack_left = True
        self.sent_at = time.perf_counter()
        sender.send_text(COMMAND_TEXT)

    def diff(self, at: float) -> None:
        self.frames_left -= 1
        if self.frames_left == 0:
            self.last_at = at
            self._maybe_done()

    def acked(self) -> None:
        self.ack_left = False
        self._maybe_done()

    def _maybe_done(self) -> None:
        if self.frames_left or self.ack_left:
            return
        self.idle = True
        if self.stats.measuring:
            self.stats.latencies.append(self.last_at - self.sent_at)
            self.stats.commands += 1
        if self.saturate and not self.stopping:
            self.send()


class LeanClient(asyncio.Protocol):
    """A lean websocket client: handshake, masked text frames out, the server's pings
    answered, every other frame handed to ``on_frame`` with the time it was read."""

    def __init__(self, path: bytes, extra_headers: bytes = b"") -> None:
        self.path = path
        self.extra_headers = extra_headers  # whole lines, each ending in CRLF
        self.key = base64.b64encode(random.randbytes(16))
        self.head: bytes | None = b""
        self.reader = FrameReader(masked=False)
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.transport: asyncio.Transport | None = None

    def on_frame(self, opcode: int, payload: bytes, at: float) -> None:
        raise NotImplementedError

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.transport.write(
            b"GET " + self.path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Key: " + self.key
            + b"\r\nSec-WebSocket-Version: 13\r\n" + self.extra_headers + b"\r\n"
        )  # fmt: skip

    def data_received(self, data: bytes) -> None:
        at = time.perf_counter()  # as read: the last socket's time is the latency's end
        if self.head is not None:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            status, fields = headers(self.head[:end])
            data, self.head = self.head[end + 4 :], None
            if not status.startswith(b"HTTP/1.1 101") or fields.get(
                b"sec-websocket-accept"
            ) != accept_key(self.key):
                self.opened.set_exception(ConnectionError(f"handshake refused: {status!r}"))
                return
            self.opened.set_result(None)
        for opcode, payload in self.reader.feed(data):
            if opcode == PING:  # a server's keep-alive: unanswered, it closes the socket
                assert self.transport is not None
                self.transport.write(frame(PONG, payload, mask=True))
            else:
                self.on_frame(opcode, payload, at)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed before the handshake"))
        if not self.closed.done():
            self.closed.set_result(None)

    def send_text(self, text: bytes) -> None:
        assert self.transport is not None
        self.transport.write(frame(TEXT, text, mask=True))

    def abort(self) -> None:
        """Drop the connection without a closing handshake."""
        if self.transport is not None:
            self.transport.close()

    async def close(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        self.transport.write(frame(CLOSE, struct.pack("!H", 1000), mask=True))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.closed), 5)
        self.transport.close()


class ClientSocket(LeanClient):
    """A floor game's socket: a long frame is the move's diff, a short one its ack."""

    def __init__(self, game: ClientGame, path: bytes) -> None:
        super().__init__(path)
        self.game = game

    def on_frame(self, opcode: int, payload: bytes, at: float) -> None:
        if opcode == TEXT:
            if len(payload) > 200:
                self.game.diff(at)
            else:
                self.game.acked()


# ---------------------------------------------------------------------- measuring


def on_cpu(pid: int) -> float:
    """Seconds on a CPU of all the process's threads, from the scheduler's own
    nanosecond count (``/proc/<pid>/task/*/schedstat``): a cross-check of the
    tick-sampled user/system times for a process that runs in short bursts."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


def redis_call(port: int, *parts: bytes) -> bytes:
    """One command on a short-lived blocking socket (set-up only)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts))
        reader = hiredis.Reader()
        while (reply := reader.gets()) is False:
            reader.feed(s.recv(65536))
        return reply if isinstance(reply, bytes) else repr(reply).encode()


async def pace(games: list[ClientGame], rate: float, stop: asyncio.Event) -> int:
    """Send at ``rate`` commands/s, round-robin over the games, skipping busy ones;
    returns the number of permits no game could take."""
    loop = asyncio.get_running_loop()
    interval, next_at, turn, skipped = 1 / rate, loop.time(), 0, 0
    while not stop.is_set():
        next_at += interval
        for _ in range(len(games)):
            game = games[turn % len(games)]
            turn += 1
            if game.idle:
                game.send()
                break
        else:
            skipped += 1
        delay = next_at - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
    return skipped


async def one_run(args: argparse.Namespace, redis: EmbeddedRedis) -> dict[str, Any]:
    redis_call(redis.port, b"FLUSHALL")
    redis_call(redis.port, b"CONFIG", b"SET", b"notify-keyspace-events",
               b"Kt" if args.notify else b"")  # fmt: skip
    redis_call(redis.port, b"SCRIPT", b"LOAD", APPEND_LUA)
    port = free_port()
    command = [
        sys.executable, __file__, "--serve", "--port", str(port), "--redis-port",
        str(redis.port), "--games", str(args.games),
        *(["--notify"] if args.notify else []), *(["--merge-ack"] if args.merge_ack else []),
    ]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None and redis.pid is not None
    try:
        if (await asyncio.to_thread(server.stdout.readline)).strip() != "ready":
            raise RuntimeError("the floor server did not start")
        stats = Stats()
        games = [ClientGame(stats, args.saturate) for _ in range(args.games)]
        loop = asyncio.get_running_loop()
        connecting = asyncio.Semaphore(50)

        async def connect(game: ClientGame, n: int) -> None:
            async with connecting:
                _, made = await loop.create_connection(
                    lambda: ClientSocket(game, b"/g/%d" % n), "127.0.0.1", port
                )
                await asyncio.wait_for(made.opened, 30)
                game.sockets.append(made)

        await asyncio.gather(
            *(connect(g, n) for n, g in enumerate(games) for _ in range(args.sockets_per_game))
        )
        await asyncio.sleep(0.5)  # every socket is in its game on the server too
        gc.collect()
        gc.freeze()
        stop = asyncio.Event()
        pacer = None
        if args.saturate:
            for game in games:
                game.send()
        else:
            pacer = asyncio.create_task(pace(games, args.rate, stop))
        await asyncio.sleep(WARM_UP_S)
        s0, r0, own0 = cpu_split(server.pid), cpu_split(redis.pid), os.times()
        exact0 = on_cpu(server.pid), on_cpu(redis.pid)
        t0 = time.perf_counter()
        stats.measuring = True
        await asyncio.sleep(args.seconds)
        stats.measuring = False
        elapsed = time.perf_counter() - t0
        s1, r1, own1 = cpu_split(server.pid), cpu_split(redis.pid), os.times()
        exact1 = on_cpu(server.pid), on_cpu(redis.pid)
        load = os.getloadavg()[0]
        stop.set()
        for game in games:
            game.stopping = True
        skipped = await pacer if pacer is not None else 0
        await asyncio.sleep(0.2)  # the last commands in flight
        await asyncio.gather(*(s.close() for g in games for s in g.sockets))
    finally:
        server.terminate()
        tail, _ = await asyncio.to_thread(server.communicate, None, 30)
    n = max(1, stats.commands)
    return {
        "commands": stats.commands,
        "per_s": stats.commands / elapsed,
        "p50_ms": percentile(stats.latencies, 0.5) * 1e3,
        "p99_ms": percentile(stats.latencies, 0.99) * 1e3,
        "user_us": (s1[0] - s0[0]) / n * 1e6,
        "sys_us": (s1[1] - s0[1]) / n * 1e6,
        "redis_us": (sum(r1) - sum(r0)) / n * 1e6,
        "exact_us": (exact1[0] - exact0[0]) / n * 1e6,
        "redis_exact_us": (exact1[1] - exact0[1]) / n * 1e6,
        "client_pct": (own1.user + own1.system - own0.user - own0.system) / elapsed * 100,
        "load": load,
        "skipped": skipped,
        "server": tail.strip(),
    }


def show(r: dict[str, Any]) -> None:
    print(
        f"{r['commands']} commands, {r['per_s']:.1f}/s; latency p50 {r['p50_ms']:.3f} ms"
        f" p99 {r['p99_ms']:.3f} ms; server CPU {r['user_us'] + r['sys_us']:.0f} µs/command"
        f" (user {r['user_us']:.0f}, system {r['sys_us']:.0f}; schedstat {r['exact_us']:.0f});"
        f" Redis {r['redis_us']:.0f} µs/command (schedstat {r['redis_exact_us']:.0f});"
        f" client {r['client_pct']:.0f}% of a core; load {r['load']:.2f};"
        f" permits skipped {r['skipped']}; server: {r['server']}",
        flush=True,
    )


def show_ranges(results: list[dict[str, Any]]) -> None:
    def span(key: str, fmt: str) -> str:
        values = [r[key] for r in results]
        return f"{min(values):{fmt}}-{max(values):{fmt}}"

    cpu = [r["user_us"] + r["sys_us"] for r in results]
    print(
        f"ranges over {len(results)} runs: {span('per_s', '.0f')}/s; p50 {span('p50_ms', '.3f')}"
        f" ms, p99 {span('p99_ms', '.3f')} ms; server CPU {min(cpu):.0f}-{max(cpu):.0f}"
        f" µs/command (system {span('sys_us', '.0f')}; schedstat {span('exact_us', '.0f')});"
        f" Redis {span('redis_us', '.0f')}"
        f" µs/command; client {span('client_pct', '.0f')}%",
        flush=True,
    )


async def bench(args: argparse.Namespace) -> None:
    mode = "saturated" if args.saturate else f"paced {args.rate:g}/s"
    print(
        f"floor: {args.games} games x {args.sockets_per_game} sockets, {mode},"
        f" notify {'on' if args.notify else 'off'}, ack {'merged' if args.merge_ack else 'apart'};"
        f" {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        redis = await asyncio.to_thread(EmbeddedRedis(Path(tmp) / "redis").start)
        try:
            results = []
            for _ in range(args.runs):
                results.append(await one_run(args, redis))
                show(results[-1])
            if len(results) > 1:
                show_ranges(results)
        finally:
            await asyncio.to_thread(redis.stop)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=113)
    parser.add_argument("--sockets-per-game", type=int, default=8)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--saturate", action="store_true")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--notify", action="store_true")
    parser.add_argument("--merge-ack", action="store_true")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--redis-port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        uvloop.run(serve(args.port, args.redis_port, args.games, args.notify, args.merge_ack))
    else:
        uvloop.run(bench(args))


if __name__ == "__main__":
    main()
