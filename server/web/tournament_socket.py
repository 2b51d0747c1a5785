"""``WS /ws/tournaments/{id}``: a tournament's page, live. On connect and after every
change of the tournament the socket gets ``{"type": "tournament", ...}``, the body of
``GET /api/tournaments/{id}`` without ``you``; the client sends only ``ping``
(``pong``). An unknown tournament: an ``error`` (``not_found``), then close 4404.

The pages come from the process's watches (server/tournaments/watches.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final

import msgspec
from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from server.common import wire
from server.common.errors import ServiceError, bad_request
from server.web.game_socket import PingMessage
from server.web.languages import request_language
from server.web.state import running

__all__ = ["routes"]

MAX_MESSAGE_BYTES: Final = 1024
_encode = msgspec.json.Encoder().encode
_decode_message = msgspec.json.Decoder(PingMessage).decode


def _error(error: ServiceError, lang: str) -> str:
    return _encode({"type": "error", **error.to_wire(lang)}).decode()


async def tournament_socket(websocket: WebSocket) -> None:
    now = running(websocket)
    watches = now.tournament_watches
    assert watches is not None, "the socket's route is served with its watches"
    tournament_id: str = websocket.path_params["tournament_id"]
    await websocket.accept()
    lang = await request_language(websocket)
    try:
        await now.tournaments.get(tournament_id)
    except ServiceError as e:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await websocket.send_text(_error(e, lang))
            await websocket.close(4000 + e.status, e.code)
        return
    queue: asyncio.Queue[str] = asyncio.Queue()
    watches.follow(tournament_id, queue)

    async def send() -> None:
        while True:
            await websocket.send_text(await queue.get())

    sender = asyncio.ensure_future(send())
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("text") or message.get("bytes") or b""
            raw = raw.encode() if isinstance(raw, str) else raw
            try:
                if len(raw) > MAX_MESSAGE_BYTES:
                    raise bad_request("request.message_too_large", most=MAX_MESSAGE_BYTES)
                wire.decode_with(_decode_message, raw, "message")
            except ServiceError as e:
                queue.put_nowait(_error(e, lang))
                continue
            queue.put_nowait('{"type":"pong"}')
    except (WebSocketDisconnect, RuntimeError, OSError):
        return
    finally:
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await sender
        watches.unfollow(tournament_id, queue)


routes: list[BaseRoute] = [WebSocketRoute("/ws/tournaments/{tournament_id}", tournament_socket)]
