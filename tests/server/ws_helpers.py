"""Websocket tests against a real server: uvicorn on a free 127.0.0.1 port, the
``websockets`` client library, and a socket-side view rebuilt from snapshot + diffs."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import random
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import jsonpatch
import uvicorn
import websockets
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from bots.moves import moves as game_moves
from events.game import VARIANTS
from server.common.settings import Settings
from server.web.app import create_app
from server.web.connections import server_options

RECV_TIMEOUT = 20.0
# The messages that have no version, which most tests read past.
UNVERSIONED = ("presence", "rematch", "audience", "chat", "chat_history")


@dataclass
class LiveServer:
    """A running server: its address and its app (for ``running(app).hubs``)."""

    host: str
    port: int
    app: Starlette

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def ws_url(self, game_id: str, token: str | None = None, since: int | None = None) -> str:
        params = []
        if token is not None:
            params.append(f"token={token}")
        if since is not None:
            params.append(f"since={since}")
        query = "?" + "&".join(params) if params else ""
        return f"ws://{self.host}:{self.port}/ws/games/{game_id}{query}"


def listening_socket(sndbuf: int | None = None) -> socket.socket:
    """A socket listening on a free 127.0.0.1 port. ``sndbuf`` (inherited by the
    accepted sockets) keeps the kernel from buffering megabytes for a stalled client.

    Made with ``IPPROTO_TCP`` named, as ``splendor serve``'s own socket is (asyncio
    makes it from ``getaddrinfo``): asyncio sets ``TCP_NODELAY`` on a connection only
    when its socket says so, and without it every answer after a connection's first
    waited ~40 ms (Nagle's algorithm against the client's delayed ACK)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if sndbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    sock.setblocking(False)
    return sock


@contextlib.asynccontextmanager
async def live_server(
    settings: Settings, *, sndbuf: int | None = None, ws_max_size: int = 65536
) -> AsyncIterator[LiveServer]:
    """uvicorn serving ``create_app(settings)`` (with its websocket plugin) until exit,
    with the options ``splendor serve`` gives it."""
    app = create_app(settings)
    sock = listening_socket(sndbuf)
    port = sock.getsockname()[1]
    options = server_options(settings)
    options["ws_max_size"] = ws_max_size
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5, **options
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        for _ in range(1000):
            if server.started or task.done():
                break
            await asyncio.sleep(0.01)
        assert server.started, "uvicorn did not start"
        yield LiveServer("127.0.0.1", port, app)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 15)
        sock.close()


@dataclass
class Table:
    """A game created and filled over HTTP: its id and the seats' tokens."""

    id: str
    tokens: list[str]


async def new_table(
    http: httpx.AsyncClient, players: int = 2, seed: int = 7, variant: str = "classic"
) -> Table:
    r = await http.post("/api/games", json={"variant": variant, "players": players, "seed": seed})
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    tokens = []
    for i in range(players):
        r = await http.post(f"/api/games/{game_id}/seats", json={"name": f"P{i}"})
        assert r.status_code == 201, r.text
        tokens.append(r.json()["token"])
    return Table(game_id, tokens)


async def http_view(
    http: httpx.AsyncClient, game_id: str, token: str | None, version: int | None = None
) -> dict[str, Any]:
    params = {} if version is None else {"version": version}
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = await http.get(f"/api/games/{game_id}/view", params=params, headers=headers)
    assert r.status_code == 200, r.text
    view: dict[str, Any] = r.json()["view"]
    return view


def live_view_at(
    events: list[dict[str, Any]], version: int, viewer: int | None, variant: str = "classic"
) -> dict[str, Any]:
    """The view ``viewer`` had at ``version`` while the game was live: the public log
    (``GET /events`` of a finished game) folded to there, seen by ``Variant.view``."""
    rules = VARIANTS[variant]
    decode = rules.event_decoder().decode
    log = [
        decode(json.dumps({k: v for k, v in e.items() if k not in ("version", "at")}))
        for e in events[:version]
    ]
    return rules.view(rules.fold(log), viewer)


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A seeded choice that ends games soon and reserves blind now and then."""
    blind = [a for a in legal if a["kind"] == "reserve" and a.get("level") is not None]
    if blind and rng.random() < 0.25:
        return rng.choice(blind)
    buys = [a for a in legal if a["kind"] == "buy"]
    if buys and rng.random() < 0.9:
        return buys[-1]
    return rng.choice(legal)


@dataclass
class Watcher:
    """One socket: every message it got (raw text too) and its view rebuilt from them.

    ``views[v]`` is the view after version ``v`` as rebuilt by this socket. A player
    (``play=True``) sends a command whenever the latest view says it is its move.
    ``presence``, ``rematch``, ``chat`` and ``chat_history`` messages (they have no
    version) are kept apart, in ``signals``, each with the number of other messages
    before it; ``next`` skips them.
    """

    name: str
    conn: ClientConnection
    seed: int = 0
    play: bool = False
    view: dict[str, Any] | None = None
    version: int | None = None
    views: dict[int, dict[str, Any]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    acks: dict[str, int] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)
    snapshots: list[int] = field(default_factory=list)
    signals: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    received_at: dict[int, float] = field(default_factory=dict)  # version -> monotonic
    acted: set[int] = field(default_factory=set)
    # Awaited before a player acts on a version (a test checks the game there first).
    before_acting: Callable[[int], Awaitable[None]] | None = None
    _acting: asyncio.Task[None] | None = None
    sent: int = 0
    updated: asyncio.Event = field(default_factory=asyncio.Event)

    def take(self, text: str) -> dict[str, Any]:
        """Apply one server message to the rebuilt view and check the version order."""
        message: dict[str, Any] = json.loads(text)
        if message["type"] in UNVERSIONED:
            self.signals.append((len(self.messages), message))
            self.updated.set()
            return message
        self.texts.append(text)
        self.messages.append(message)
        kind = message["type"]
        if kind == "snapshot":
            self.view = message["view"]
            self.version = message["version"]
            self.snapshots.append(message["version"])
        elif kind == "diff":
            assert self.view is not None and self.version is not None, f"{self.name}: diff first"
            assert message["version"] == self.version + 1, (
                f"{self.name}: version {message['version']} after {self.version}"
            )
            assert message["event"]["version"] == message["version"]
            self.view = jsonpatch.apply_patch(self.view, message["patch"])
            self.version = message["version"]
        elif kind == "ack":
            self.acks[message["command_id"]] = message["version"]
        elif kind == "error":
            self.errors.append(message)
        if kind in ("snapshot", "diff"):
            assert self.view is not None and self.version is not None
            self.received_at[self.version] = time.monotonic()
            self.views[self.version] = copy.deepcopy(self.view)
        self.updated.set()
        return message

    def start_from(self, version: int, view: dict[str, Any]) -> None:
        """Rebuild from a view known to the test (``since=version``)."""
        self.view = copy.deepcopy(view)
        self.version = version

    async def next(self, timeout: float = RECV_TIMEOUT) -> dict[str, Any]:
        """The next message but the unversioned ones (kept in ``signals``)."""
        while True:
            message = await self.next_any(timeout)
            if message["type"] not in UNVERSIONED:
                return message

    async def next_any(self, timeout: float = RECV_TIMEOUT) -> dict[str, Any]:
        """The next message, whatever it is."""
        text = await asyncio.wait_for(self.conn.recv(), timeout)
        assert isinstance(text, str)
        return self.take(text)

    @property
    def presence(self) -> list[bool] | None:
        """The seats' presence as last told, if it was."""
        told = [m["seats"] for _, m in self.signals if m["type"] == "presence"]
        return told[-1] if told else None

    async def run(self, until_version: int | None = None) -> None:
        """Read until the game is over (or at ``until_version``), playing if a player.

        A player acts in a task of its own, so reading never waits for it.
        """
        try:
            while True:
                if self.play:
                    self._maybe_act()
                if self.view is not None and (
                    self.view["status"] == "finished"
                    or (until_version is not None and (self.version or 0) >= until_version)
                ):
                    return
                await self.next()
        finally:
            if self._acting is not None:
                await self._acting

    async def drain(self) -> None:
        """Read until the answer to a ping: every reply to what was sent before is in."""
        await self.conn.send('{"type": "ping"}')
        while (await self.next())["type"] != "pong":
            pass

    def _maybe_act(self) -> None:
        view = self.view
        if view is None or view["status"] != "live" or self.version in self.acted:
            return
        if view["you"] != view["turn"]["seat"] or not game_moves(view):
            return
        if self._acting is not None and not self._acting.done():
            return  # the task in flight looks again when it is done
        assert self.version is not None
        self.acted.add(self.version)
        self._acting = asyncio.create_task(self._act(self.version, view))

    async def _act(self, version: int, view: dict[str, Any]) -> None:
        if self.before_acting is not None:
            await self.before_acting(version)
        if self.version == version:
            rng = random.Random(f"{self.seed}:{version}")
            self.sent += 1
            command = {
                "type": "command",
                "command_id": f"{self.name}-{version}",
                "expected_version": version,
                "action": choose(game_moves(view), rng),
            }
            await self.conn.send(json.dumps(command))
        self._acting = None
        self._maybe_act()


async def receive(conn: ClientConnection, timeout: float = RECV_TIMEOUT) -> dict[str, Any]:
    """The next message of a socket but the unversioned ones (``UNVERSIONED``)."""
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(conn.recv(), timeout))
        if message["type"] not in UNVERSIONED:
            return message


async def connect(url: str, **kwargs: Any) -> ClientConnection:
    return await websockets.connect(url, open_timeout=10, close_timeout=5, **kwargs)


class StalledSocket:
    """A websocket client that connects and then reads nothing until told to.

    Built on the ``websockets`` sans-I/O protocol over a plain socket with a small
    receive buffer, so the server, not this process's buffers, holds what it sends.
    """

    def __init__(self, url: str, rcvbuf: int = 4096) -> None:
        self.url = url
        self.rcvbuf = rcvbuf
        self.protocol = ClientProtocol(parse_uri(url), max_size=None)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)

    async def open(self) -> None:
        """Connect and send the opening handshake (its answer is read later)."""
        loop = asyncio.get_running_loop()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.rcvbuf)
        self.sock.setblocking(False)
        uri = parse_uri(self.url)
        await loop.sock_connect(self.sock, (uri.host, uri.port))
        self.protocol.send_request(self.protocol.connect())
        await loop.sock_sendall(self.sock, b"".join(self.protocol.data_to_send()))

    async def read_into(self, watcher: Watcher, until_version: int, timeout: float) -> None:
        """Read at last: feed every text message to ``watcher`` up to a version."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while watcher.version is None or watcher.version < until_version:
            left = deadline - loop.time()
            assert left > 0, f"stalled socket stuck at {watcher.version}"
            data = await asyncio.wait_for(loop.sock_recv(self.sock, 65536), left)
            assert data, "the server closed the stalled socket"
            self.protocol.receive_data(data)
            for event in self.protocol.events_received():
                if isinstance(event, Frame) and event.opcode == Opcode.TEXT:
                    watcher.take(event.data.decode())

    def close(self) -> None:
        self.sock.close()
