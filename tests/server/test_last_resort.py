"""``server.web.unhandled_errors``: what no handler caught is one log line (no traceback, no
query string) and the protocol's shape: a JSON 500 over HTTP, close 1011 on a socket."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Message

from server.common.settings import Settings
from server.web.app import create_app
from server.web.unhandled_errors import LastResort


async def broken(request: Request) -> Response:
    raise ZeroDivisionError("a bug")


async def test_an_uncaught_exception_is_a_json_500_and_one_log_line(
    redis_client: Any, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """A route that fails unexpectedly answers 500 {"code": "server_error", "message"}; the log gets one line naming the path (not its query) and where it failed, without a traceback."""
    app = create_app(settings, routes=[Route("/broken", broken)], plugins=False)
    caplog.set_level(logging.INFO)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http,
    ):
        caplog.clear()
        r = await http.get("/broken?token=secret")
    assert r.status_code == 500
    assert r.headers["content-type"] == "application/json"
    assert r.json()["code"] == "server_error" and r.json()["message"]
    [record] = [r for r in caplog.records if r.name != "httpx"]  # the client's own line
    assert record.levelno == logging.ERROR and record.exc_info is None
    line = record.getMessage()
    assert line.startswith("GET /broken failed: ZeroDivisionError('a bug') at ")
    assert "test_last_resort.py" in line and "secret" not in line


async def test_a_socket_that_fails_is_closed_with_1011(caplog: pytest.LogCaptureFixture) -> None:
    """A websocket app that fails after accepting is closed with 1011 and one log line, where uvicorn would drop the connection (1006) and log a traceback."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "websocket.accept"})
        raise KeyError("bug")

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "websocket.connect"}

    scope = {"type": "websocket", "path": "/ws/games/g", "query_string": b"token=secret"}
    await LastResort(app)(scope, receive, send)
    assert sent == [
        {"type": "websocket.accept"},
        {"type": "websocket.close", "code": 1011, "reason": "server_error"},
    ]
    [record] = caplog.records
    assert record.getMessage().startswith("WEBSOCKET /ws/games/g failed: KeyError('bug')")
