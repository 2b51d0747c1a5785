"""Every stage of a connection has an end: slow or silent clients on raw sockets are
answered and closed after the configured timeouts (1 s here), oversized heads are
answered 414/431, and a websocket is kept only while it answers pings."""

from __future__ import annotations

import asyncio
import base64
import json
import os
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from server.common.settings import Settings
from server.web.head_limits import MAX_HEADER_LINE, MAX_HEADERS, MAX_REQUEST_TARGET
from tests.fast_paths_marks import needs_our_protocols
from tests.server.ws_helpers import LiveServer, connect, live_server, new_table

TIMEOUT_S = 1.0  # every timeout of the server under test
WAIT_S = 15.0  # how long a test waits for the server's answer: far more than needed


@pytest.fixture
async def server(redis_client: Any, redis_server: str) -> AsyncIterator[LiveServer]:
    """A live server with every connection timeout at 1 s and pings every 0.5 s."""
    settings = Settings(
        redis_url=redis_server,
        request_timeout=TIMEOUT_S,
        keep_alive_timeout=TIMEOUT_S,
        ws_ping_interval=TIMEOUT_S / 2,
        ws_ping_timeout=TIMEOUT_S / 2,
    ).without_rate_limits()
    async with live_server(settings) as live:
        yield live


async def send_raw(server: LiveServer, data: bytes) -> bytes:
    """Open a socket, send ``data``, then read everything until the server closes it."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    try:
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), WAIT_S)
    finally:
        writer.close()


def status_and_body(answer: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    assert b"content-type: application/json" in head.lower()
    error: dict[str, Any] = json.loads(body)
    return status, error


@needs_our_protocols
async def test_a_client_that_sends_nothing_is_closed_without_an_answer(server: LiveServer) -> None:
    """A connection on which nothing is sent is closed after the request timeout, with no bytes sent back."""
    assert await send_raw(server, b"") == b""


@needs_our_protocols
@pytest.mark.parametrize(
    "partial",
    [
        b"GET /api/ga",
        b"GET /api/games HTTP/1.1\r\nHost: x\r\nAccept: appl",
        b'POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n{"variant":',
    ],
    ids=["half a request line", "half the headers", "half the body"],
)
async def test_half_a_request_is_answered_408_and_closed(
    server: LiveServer, partial: bytes
) -> None:
    """A request that does not arrive whole within the request timeout gets 408 in the API's error shape, then the connection is closed."""
    status, error = status_and_body(await send_raw(server, partial))
    assert status == 408
    assert error["code"] == "bad_request"


@needs_our_protocols
async def test_a_request_trickling_in_is_answered_408(server: LiveServer) -> None:
    """A client that keeps sending a header a few bytes at a time (slowloris) still gets 408 once the request timeout is over: the clock is the request's, not the last byte's."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    try:
        writer.write(b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        answer = asyncio.ensure_future(reader.read())
        for _ in range(int(WAIT_S * 5)):
            if answer.done():
                break
            writer.write(b"a")
            await asyncio.sleep(TIMEOUT_S / 5)
        status, _error = status_and_body(await asyncio.wait_for(answer, WAIT_S))
        assert status == 408
    finally:
        writer.close()


async def test_an_idle_keep_alive_connection_is_closed(server: LiveServer) -> None:
    """After a whole request and its answer, a connection left idle is closed after the keep-alive timeout."""
    answer = await send_raw(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 ")
    assert answer.endswith(b'{"status":"ok"}')  # then the server closed it: read() returned


@needs_our_protocols
@pytest.mark.parametrize(
    "path", ["/api/games", "/ws/games/abc"], ids=["request", "websocket upgrade"]
)
async def test_a_request_target_too_long_is_answered_414(server: LiveServer, path: str) -> None:
    """A request line whose target is over the limit gets 414 (a websocket upgrade too) and is closed."""
    target = path + "?x=" + "a" * MAX_REQUEST_TARGET
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {target} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    status, error = status_and_body(await send_raw(server, request.encode()))
    assert status == 414
    assert error["code"] == "bad_request"


@needs_our_protocols
@pytest.mark.parametrize(
    "headers",
    [
        "".join(f"X-{i}: {i}\r\n" for i in range(MAX_HEADERS + 1)),
        "X-Long: " + "a" * MAX_HEADER_LINE + "\r\n",
        "".join(f"X-{i}: {'a' * 7000}\r\n" for i in range(4)),
        "X-Endless: " + "a" * 40_000,
    ],
    ids=["too many", "one too long", "too large in all", "one never ending"],
)
async def test_headers_too_large_are_answered_431(server: LiveServer, headers: str) -> None:
    """Too many headers, a header line too long, or headers too large in all get 431 and the connection is closed."""
    request = f"GET /api/games HTTP/1.1\r\nHost: x\r\n{headers}\r\n"
    status, error = status_and_body(await send_raw(server, request.encode()))
    assert status == 431
    assert error["code"] == "bad_request"


async def test_a_websocket_that_answers_no_ping_is_closed(server: LiveServer) -> None:
    """A websocket client that completes the handshake and then reads nothing (so answers no ping) is closed once its ping times out."""
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http)
    key = base64.b64encode(os.urandom(16)).decode()
    handshake = (
        f"GET /ws/games/{table.id} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    answer = await send_raw(server, handshake.encode())
    assert answer.startswith(b"HTTP/1.1 101 ")
    # Read only at the end: the snapshot, the server's ping, its close frame, then EOF.
    assert b"\x89\x04" in answer  # an unmasked ping frame with a 4-byte payload
    assert b"\x88" in answer  # a close frame


async def test_a_silent_spectator_that_answers_pings_stays(server: LiveServer) -> None:
    """A spectator that sends nothing for many ping periods, its client answering pings, is not timed out: idle is not dead."""
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http)
    conn = await connect(server.ws_url(table.id))
    try:
        assert json.loads(await conn.recv())["type"] == "snapshot"
        await asyncio.sleep(6 * TIMEOUT_S)  # a dozen pings answered by the client library
        await conn.send('{"type": "ping"}')
        while json.loads(await asyncio.wait_for(conn.recv(), WAIT_S))["type"] != "pong":
            pass  # other messages (presence) may come first
    finally:
        await conn.close()
