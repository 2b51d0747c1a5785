"""A closed connection leaves nothing for the cyclic garbage collector: reference
counting alone frees its protocol objects (the server tunes the collector down, so
what is left in cycles piles up: docs/operations.md, "Memory")."""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import websockets
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from websockets.http11 import Request
from websockets.server import ServerProtocol

from server.common.settings import Settings
from server.live.websocket_protocol import FrameWritingProtocol
from tests.fast_paths_marks import needs_our_protocols
from tests.server.ws_helpers import live_server, new_table

SOCKETS = 40
CONNECTION_TYPES = (HttpToolsProtocol, FrameWritingProtocol, ServerProtocol)


@contextmanager
def collector_off() -> Iterator[None]:
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def connection_objects() -> int:
    # type(), not isinstance(): weak proxies among the objects raise once dead.
    return sum(issubclass(type(o), CONNECTION_TYPES) for o in gc.get_objects())


async def until_freed(baseline: int) -> int:
    """The server's connection objects left once closes have been read (a few
    seconds at most), without collecting."""
    left = connection_objects() - baseline
    for _ in range(100):
        if left <= 0:
            break
        await asyncio.sleep(0.05)
        left = connection_objects() - baseline
    return left


@needs_our_protocols
async def test_closed_websockets_and_requests_leave_no_cycles(
    redis_client: Any, redis_server: str
) -> None:
    """With the cyclic collector off, websockets (players and spectators) and HTTP requests opened and closed leave none of their protocol objects behind."""
    settings = Settings(redis_url=redis_server).without_rate_limits()
    async with live_server(settings) as server:
        async with httpx.AsyncClient(base_url=server.http_url) as http:
            table = await new_table(http)
        gc.collect()
        baseline = connection_objects()
        with collector_off():
            for i in range(SOCKETS):
                token = table.tokens[i % 2] if i % 2 else None
                async with websockets.connect(server.ws_url(table.id, token)) as conn:
                    await conn.recv()
                    await conn.send('{"type": "ping"}')
                    await conn.recv()
            for _ in range(SOCKETS):
                async with httpx.AsyncClient(base_url=server.http_url) as http:
                    await http.get(f"/api/games/{table.id}")
            assert await until_freed(baseline) == 0


@needs_our_protocols
async def test_an_open_websocket_keeps_nothing_of_its_handshake(
    redis_client: Any, redis_server: str
) -> None:
    """Once a websocket is open, its protocol holds neither the handshake's request nor its response, and the request the websockets library's parser still holds has no headers left (the socket reads on, and its session knew its seat)."""
    settings = Settings(redis_url=redis_server).without_rate_limits()
    async with live_server(settings) as server:
        async with httpx.AsyncClient(base_url=server.http_url) as http:
            table = await new_table(http)
        async with websockets.connect(server.ws_url(table.id, table.tokens[0])) as conn:
            snapshot = json.loads(await conn.recv())
            assert snapshot["type"] == "snapshot" and snapshot["view"]["you"] == 0
            protocols = [o for o in gc.get_objects() if type(o) is FrameWritingProtocol]
            assert protocols and not any(
                hasattr(p, "request") or hasattr(p, "response") for p in protocols
            )
            requests = [o for o in gc.get_objects() if type(o) is Request and o is not conn.request]
            assert requests and not any(r.headers for r in requests)
            await conn.send('{"type": "ping"}')
            while json.loads(await conn.recv())["type"] != "pong":
                pass  # the presence and the audience come after the snapshot
