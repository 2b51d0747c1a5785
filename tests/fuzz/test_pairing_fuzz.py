"""Hypothesis on quick pairing's socket (``/ws/pairing``, docs/pairing.md) against a
real uvicorn: any message to a waiting socket gets an ``error`` in PROTOCOL.md's shape
(or a pong) and the socket stays open with its place in the pool; any ``variant``,
``clock``, ``name``, ``ticket`` and session cookie gets a waiting socket or one error
and its close code. The server logs no traceback and no warning."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection

from server.common.settings import Settings
from server.players.pairing_pools import PairingStore, entry_id
from server.players.pairing_rules import pool_named
from server.web.state import running
from tests.fuzz.strategies import bodies, query_values
from tests.fuzz.test_ws_fuzz import FUZZ, START_CLOSES, ServerLog, an_error, server_log
from tests.server.ws_helpers import LiveServer, connect, live_server, receive

POOL = pool_named("duel-10+5-casual")
assert POOL is not None


@dataclass
class Waiter:
    """A live server and one guest waiting in duel 10+5 (alone: nobody to pair with)."""

    server: LiveServer
    conn: ClientConnection
    ticket: str
    log: ServerLog

    async def in_pool(self) -> bool:
        store = PairingStore(running(self.server.app).redis)
        return await store.entry(POOL, entry_id(self.ticket)) is not None


def pairing_url(server: LiveServer, params: dict[str, str | None]) -> str:
    query = "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items() if v is not None)
    return f"ws://{server.host}:{server.port}/ws/pairing?{query}"


@pytest.fixture
async def waiter(redis_client: Any, settings: Settings) -> AsyncIterator[Waiter]:
    async with live_server(settings) as server:
        params = {"variant": "duel", "clock": "10+5", "name": "Fuzzy"}
        conn = await connect(pairing_url(server, params))
        waiting = await receive(conn)
        assert waiting["type"] == "waiting", waiting
        with server_log() as log:
            yield Waiter(server, conn, waiting["ticket"], log)
        await conn.close()
        assert log.bad == []


@FUZZ
@given(message=bodies([{"type": "ping"}, {"type": "cancel", "x": 1}]), binary=st.booleans())
@example(message=b'{"type":"cancel","ticket":"x"}', binary=False)
@example(message=b'{"type":"\xff"}', binary=True)
@example(message=b"[" * 3000, binary=False)
@example(message=b" " * 5000, binary=True)
async def test_any_message_to_a_waiting_socket_gets_an_error(
    waiter: Waiter, message: bytes, binary: bool
) -> None:
    """Any bytes as a text or binary frame but a plain cancel: an error (or a ping's pong), the socket still open and still in the pool."""
    if message.strip() in (b'{"type":"cancel"}', b'{"type": "cancel"}'):
        message = b'{"type":"cancel","again":1}'
    try:
        text = message.decode()
    except UnicodeDecodeError:
        binary = True
    await waiter.conn.send(message if binary else text)
    reply = await receive(waiter.conn)
    if reply["type"] != "pong":
        an_error(reply)
    await waiter.conn.send('{"type": "ping"}')
    assert await receive(waiter.conn) == {"type": "pong"}
    assert await waiter.in_pool()


@FUZZ
@given(
    variant=st.sampled_from(["classic", "duel"]) | st.text(max_size=20),
    clock=(st.sampled_from(["3+2", "5+3", "5 3"]) | query_values()).filter(
        lambda c: c.replace(" ", "+") != "10+5"  # the waiter's pool: it would be paired
    ),
    name=st.none() | st.sampled_from(["Ana", "", " "]) | st.text(max_size=40),
    ticket=st.none() | st.sampled_from(["", "x" * 15, "x" * 65, "é" * 20]) | st.text(max_size=70),
    cookie=st.none() | st.sampled_from(["", "x" * 43, "x" * 500]),
)
@example(variant="classic", clock="5+3", name="Ana", ticket=None, cookie="x" * 43)
@example(variant="duel", clock="3+2", name=None, ticket=None, cookie=None)
@example(variant="duel", clock="3+2", name="\x00", ticket="\x00" * 20, cookie=None)
async def test_any_socket_parameters_get_a_wait_or_a_close_code(
    waiter: Waiter,
    variant: str,
    clock: str,
    name: str | None,
    ticket: str | None,
    cookie: str | None,
) -> None:
    """Any variant, clock, name, ticket and unknown session cookie: a wait (then cancelled, or paired) or one error then its close code (4400 for bad parameters); the waiting player elsewhere is untouched."""
    params = {"variant": variant, "clock": clock, "name": name, "ticket": ticket}
    headers = None if cookie is None else {"Cookie": f"splendor_session={cookie}"}
    conn = await connect(pairing_url(waiter.server, params), additional_headers=headers)
    try:
        first = await receive(conn)
        if first["type"] == "error":
            an_error(first)
            await conn.wait_closed()
            assert conn.close_code in START_CLOSES, conn.close_code
        else:
            assert first["type"] in ("waiting", "paired"), first
            if first["type"] == "waiting":
                assert first["pool"] != POOL.name or first["ticket"] == waiter.ticket
                await conn.send('{"type": "cancel"}')
                assert (await receive(conn))["type"] in ("cancelled", "paired")
    finally:
        await conn.close()
    if ticket != waiter.ticket:
        assert await waiter.in_pool()
