"""``WS /ws/tournaments/{id}``: a tournament's page, live. On connect and after every
change of the tournament the socket gets ``{"type": "tournament", ...}``, the body of
``GET /api/tournaments/{id}`` without ``you``; the client sends only ``ping``
(``pong``). An unknown tournament: an ``error`` (``not_found``), then close 4404;
Redis unreachable at the start: ``unavailable``, then 4503, as on a game's socket.

The pages come from the process's watches (server/tournaments/watches.py). A socket
holds at most one page not yet sent: a newer page replaces it, so a client that stops
reading costs one page, not one a change. A page goes out once at most
``PAGE_ROOM`` bytes written before it wait for the connection; a socket whose
connection takes too little for ``STALL_S`` is closed with 1013 (the client
reconnects, and gets the page then).
Pongs are written as the game socket writes its replies, after the wire drains, so a
client that never reads is no longer read either; and a socket is answered at most
``PING_BURST`` pings at once, then one every ``PING_EVERY_S`` (the page pings every
10 s): pings beyond that get no pong. A draining process closes the socket with 1012
(server/web/drain.py), and closes a socket opened while it drains at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Final

import msgspec
from starlette.routing import BaseRoute, WebSocketRoute
from starlette.types import Receive, Scope
from starlette.types import Send as ASGISend
from starlette.websockets import WebSocket, WebSocketDisconnect

from server.common import wire
from server.common.errors import ServiceError, bad_request, unavailable
from server.live.socket_writers import Batch, Wire, wire_for
from server.store.availability import StoreUnavailable
from server.web.drain import CLOSE_RESTART, RESTART_REASON, Drain
from server.web.game_socket import PingMessage
from server.web.languages import request_language
from server.web.state import parts, running

__all__ = ["TournamentSocket", "routes"]

MAX_MESSAGE_BYTES: Final = 1024
STALL_S: Final = 20.0  # a connection that takes nothing this long is closed
CLOSE_STALLED: Final = 1013  # RFC 6455 "try again later"
STALLED_REASON: Final = "The socket fell behind: reconnect."
PAGE_ROOM: Final = 16 * 1024  # a page is written once at most this much waits
REPLIES_BUFFERED: Final = 16 * 1024  # replies wait for the wire below this
PING_BURST: Final = 5
PING_EVERY_S: Final = 2.0
_PONG: Final = b'{"type":"pong"}'
_encode = msgspec.json.Encoder().encode
_decode_message = msgspec.json.Decoder(PingMessage).decode


def _error(error: ServiceError, lang: str) -> bytes:
    return _encode({"type": "error", **error.to_wire(lang)})


class TournamentSocket:
    """One socket's writing side: the latest page not yet sent, its replies, its close."""

    def __init__(
        self,
        websocket: WebSocket,
        wire: Wire,
        *,
        stall_s: float = STALL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.websocket = websocket
        self.wire = wire
        self.stall_s = stall_s
        self.clock = clock
        self.lang = "en"
        self.closed = False
        self._page: bytes | None = None
        self._wake = asyncio.Event()
        self._pings = float(PING_BURST)
        self._pinged = clock()

    def deliver(self, page: str) -> None:
        """Take the tournament's page (the watches' ``Deliver``), replacing one not sent."""
        self._page = page.encode()
        self._wake.set()

    async def send_pages(self) -> None:
        """Write each page once what was written before has gone: until closed."""
        while not self.closed:
            await self._wake.wait()
            try:
                await asyncio.wait_for(self.wire.drained(PAGE_ROOM), self.stall_s)
            except TimeoutError:
                await self.close(CLOSE_STALLED, STALLED_REASON)
                return
            self._wake.clear()
            page, self._page = self._page, None
            if page is not None and not self.closed:
                self.wire.write(Batch((page,)))

    async def reply(self, message: bytes) -> None:
        """Write a pong or an error, once the wire has room for it."""
        if self.wire.buffered() > REPLIES_BUFFERED:
            await self.wire.drained(REPLIES_BUFFERED // 2)
        if not self.closed:
            self.wire.write(Batch((message,)))

    def ping_allowed(self) -> bool:
        """Spend one of the socket's pings (a token bucket), if it has one."""
        now = self.clock()
        self._pings = min(PING_BURST, self._pings + (now - self._pinged) / PING_EVERY_S)
        self._pinged = now
        if self._pings < 1:
            return False
        self._pings -= 1
        return True

    async def read(self) -> None:
        """Answer the client's messages until it goes."""
        while not self.closed:
            message = await self.websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("text") or message.get("bytes") or b""
            raw = raw.encode() if isinstance(raw, str) else raw
            try:
                if len(raw) > MAX_MESSAGE_BYTES:
                    raise bad_request("request.message_too_large", most=MAX_MESSAGE_BYTES)
                wire.decode_with(_decode_message, raw, "message")
            except ServiceError as e:
                await self.reply(_error(e, self.lang))
                continue
            if self.ping_allowed():
                await self.reply(_PONG)

    async def close(self, code: int, reason: str) -> None:
        """Send nothing more and close, unless the client has gone already."""
        if self.closed:
            return
        self.closed = True
        self._wake.set()
        self.wire.close()  # what waits for a connection that takes nothing is dropped
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await self.websocket.close(code, reason)

    async def close_for_restart(self) -> None:
        """The process is draining: 1012, after what was written."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wire.drained(0), self.stall_s)
        await self.close(CLOSE_RESTART, RESTART_REASON)


async def _turn_away(websocket: WebSocket, code: int, reason: str, last: bytes | None) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        if last is not None:
            await websocket.send_text(last.decode())
        await websocket.close(code, reason)


async def tournament_socket(websocket: WebSocket, wire: Wire, drain: Drain) -> None:
    now = running(websocket)
    watches = now.tournament_watches
    assert watches is not None, "the socket's route is served with its watches"
    tournament_id: str = websocket.path_params["tournament_id"]
    await websocket.accept()
    if drain.draining:  # this process is stopping: the client goes elsewhere at once
        await _turn_away(websocket, CLOSE_RESTART, RESTART_REASON, None)
        return
    lang = await request_language(websocket)
    try:
        await now.tournaments.get(tournament_id)
    except ServiceError as e:
        await _turn_away(websocket, 4000 + e.status, e.code, _error(e, lang))
        return
    except StoreUnavailable as e:  # the client backs off and reconnects, as on a game's
        failure = unavailable(e)
        await _turn_away(websocket, 4000 + failure.status, failure.code, _error(failure, lang))
        return
    socket = TournamentSocket(websocket, wire, stall_s=STALL_S)
    socket.lang = lang
    if not drain.admit(socket):  # the drain began while the socket was starting
        await _turn_away(websocket, CLOSE_RESTART, RESTART_REASON, None)
        return
    watches.follow(tournament_id, socket.deliver)
    # Either ends the socket: the client went (reader), or it fell behind (sender).
    tasks = {asyncio.ensure_future(socket.read()), asyncio.ensure_future(socket.send_pages())}
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        socket.closed = True
        drain.leave(socket)
        watches.unfollow(tournament_id, socket.deliver)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(
                asyncio.CancelledError, WebSocketDisconnect, RuntimeError, OSError
            ):
                await task


class TournamentSocketApp:
    """The ASGI app of ``/ws/tournaments/{id}``: pages and replies go out through a
    ``server.live.socket_writers`` wire, which tells how much the connection has not
    taken yet (as the game socket's do)."""

    async def __call__(self, scope: Scope, receive: Receive, send: ASGISend) -> None:
        async def send_text(text: str) -> None:
            await send({"type": "websocket.send", "text": text})

        wire = wire_for(scope, send_text)
        websocket = WebSocket(scope, receive=receive, send=send)
        try:
            await tournament_socket(websocket, wire, parts(websocket).drain)
        finally:
            wire.close()


routes: list[BaseRoute] = [WebSocketRoute("/ws/tournaments/{tournament_id}", TournamentSocketApp())]
