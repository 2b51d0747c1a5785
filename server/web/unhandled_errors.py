"""The last resort: an exception no handler caught becomes one log line and an answer
in the protocol's shape, never a plain-text page, a traceback in the log or a socket
dropped without a close frame.

Bad input never gets here: every client's JSON is decoded through
``server.common.wire.decode_with``, and every refusal is a ``ServiceError`` answered by the
routes' handlers. What gets here is a bug (or a store that failed in a way nobody
foresaw): an HTTP request gets ``500 {"code": "server_error", "message"}`` (when no
answer has started), a websocket is closed with 1011. The log line names the request
by its method and path only (a query string may hold a seat token) and the exception
by its type, message and the place it was raised.
"""

from __future__ import annotations

import logging
import traceback
from typing import Final

import msgspec
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from events.reasons import Reason
from server.common.sentences import sentence
from server.web.languages import scope_language

log = logging.getLogger(__name__)

CLOSE_INTERNAL: Final = 1011
SERVER_ERROR: Final = Reason("server.error")


def server_error(lang: str) -> bytes:
    """The body of the 500: PROTOCOL.md's error shape, its sentence in ``lang``."""
    return msgspec.json.encode(
        {
            "code": "server_error",
            "message": sentence(SERVER_ERROR, lang),
            "reason": SERVER_ERROR.to_wire(),
        }
    )


def describe(exc: BaseException) -> str:
    """``TypeError('…') at server/web/api_routes.py:120 in create_game``: one line."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    return f"{exc!r}{where}"


class LastResort:
    """ASGI middleware around the whole app (inside Starlette's own error middleware,
    which would answer in plain text and log a traceback)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = False

        async def watched_send(message: Message) -> None:
            nonlocal started
            if message["type"] in ("http.response.start", "websocket.accept", "websocket.close"):
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        except (ClientDisconnect, WebSocketDisconnect, ConnectionError):
            return  # the client left: nobody to answer, nothing to report
        except Exception as exc:
            log.error(
                "%s %s failed: %s", scope.get("method", "WEBSOCKET"), scope["path"], describe(exc)
            )
            await _answer(scope, send, started)


async def _answer(scope: Scope, send: Send, started: bool) -> None:
    """The protocol's answer to a request that failed, if one can still be given."""
    try:
        if scope["type"] == "http":
            if started:
                return  # part of an answer is out: the server ends the connection
            lang = scope_language(scope)
            body = server_error(lang)
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"content-language", lang.encode()),
            ]
            await send({"type": "http.response.start", "status": 500, "headers": headers})
            await send({"type": "http.response.body", "body": body})
        else:
            await send(
                {"type": "websocket.close", "code": CLOSE_INTERNAL, "reason": "server_error"}
            )
    except Exception:  # the connection is gone or closed already: nothing left to say
        return
