"""Hypothesis over raw bytes on the websocket (a real uvicorn with ``FrameWritingProtocol``,
as ``splendor serve`` runs): any text or binary message from a spectator or a player
gets an ``error`` in PROTOCOL.md's shape (or its answer, for a good one) and the socket
stays open (a ping after it gets its pong); any ``since``, ``token`` or game id gets a
socket or its documented close code; the game is unchanged; the server logs no
traceback and no warning."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import websockets
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection

from server.common.errors import STATUS
from server.common.settings import Settings
from server.games.service import GameService
from server.web.state import running
from tests.fuzz.strategies import bodies, query_values
from tests.server.helpers import Table, new_table, snapshot
from tests.server.ws_helpers import LiveServer, connect, live_server, receive

FUZZ = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,  # the same examples every run: a failure is never a fluke
    # One server, game and sockets for every example, on purpose: they must come out
    # of all of them unchanged and open.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
START_CLOSES = {4000 + status for status in STATUS.values()} | {4403}

MESSAGES = [
    {"type": "ping"},
    {"type": "resync"},
    {"type": "command", "command_id": "c-1", "action": {"kind": "take_two", "color": "red"}},
    {
        "type": "command",
        "command_id": "c-2",
        "expected_version": 4,
        "action": {"kind": "reserve", "level": 2},
    },
]


class ServerLog(logging.Handler):
    """Every record of the server's loggers worth a look: warnings and tracebacks."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.bad: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING or record.exc_info:
            self.bad.append(f"{record.name}: {record.getMessage()}")


@contextlib.contextmanager
def server_log() -> Iterator[ServerLog]:
    """Records what uvicorn and the server log meanwhile (attached after uvicorn has
    configured its loggers)."""
    handler = ServerLog()
    loggers = [logging.getLogger(name) for name in ("uvicorn.error", "server")]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


@dataclass
class Arena:
    """A live server, a started game, and two open sockets on it: a spectator's and
    the seat's whose move it is not (so a well-formed command is refused too)."""

    server: LiveServer
    table: Table
    spectator: ClientConnection
    player: ClientConnection
    log: ServerLog
    before: list[Any]

    async def game(self) -> list[Any]:
        """The game's summary and every view, from the server's own service (what its
        HTTP reads answer, without their round trips)."""
        service: GameService = running(self.server.app).service
        game_id = self.table.id
        views = [await service.reader.view(game_id, viewer) for viewer in (0, 1, None)]
        return [await service.reader.summary(game_id), *views]

    async def unchanged(self) -> None:
        assert await self.game() == self.before


@pytest.fixture
async def arena(redis_client: Any, settings: Settings) -> AsyncIterator[Arena]:
    async with (
        live_server(settings) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        table = await new_table(http, players=2, seed=13)
        mover = (await table.view(0))["turn"]["seat"]
        spectator = await connect(server.ws_url(table.id))
        player = await connect(server.ws_url(table.id, table.tokens[1 - mover]))
        for conn in (spectator, player):
            assert (await receive(conn))["type"] == "snapshot"
        with server_log() as log:
            arena = Arena(server, table, spectator, player, log, [])
            arena.before = await arena.game()
            assert arena.before[1:] == (await snapshot(table))[1:]  # the same as HTTP's
            yield arena
        await spectator.close()
        await player.close()
        assert log.bad == []


async def reply_to(conn: ClientConnection, message: str | bytes) -> dict[str, Any]:
    """Send one message; its answer (an error, a pong, an ack, or a resync's snapshot)."""
    await conn.send(message)
    while True:
        reply = await receive(conn)
        if reply["type"] != "diff":
            return reply


async def still_open(conn: ClientConnection) -> None:
    """The socket answers a ping: it is open and reads what follows."""
    await conn.send('{"type": "ping"}')
    while (reply := await receive(conn))["type"] != "pong":
        assert reply["type"] in ("snapshot", "diff"), reply


def an_error(reply: dict[str, Any]) -> None:
    """PROTOCOL.md's error message: a known code, a sentence, a reason (a key and its
    arguments), a string command id if any."""
    assert reply["type"] == "error", reply
    assert reply["code"] in STATUS, reply
    assert isinstance(reply["message"], str) and reply["message"]
    assert set(reply) <= {"type", "code", "message", "reason", "command_id", "chat_id"}
    assert isinstance(reply["reason"]["key"], str) and isinstance(reply["reason"]["args"], dict)
    assert isinstance(reply.get("command_id", ""), str)


@FUZZ
@given(message=bodies(MESSAGES), binary=st.booleans(), as_player=st.booleans())
@example(message=b"[" * 990 + b"]" * 990, binary=False, as_player=False)
@example(message=b'{"type":"\xff"}', binary=True, as_player=False)
@example(message=b"[" * 3000, binary=True, as_player=True)
@example(message=b'{"type":"command","command_id":"\xff","action":{}}', binary=True, as_player=True)
@example(
    message=b'{"type":"command","command_id":"c","action":' + b"[" * 1000 + b"]" * 1000 + b"}",
    binary=False,
    as_player=True,
)
async def test_any_message_gets_an_answer_and_the_socket_stays_open(
    arena: Arena, message: bytes, binary: bool, as_player: bool
) -> None:
    """Any bytes as a text frame (when they are UTF-8) or a binary frame, from a spectator or the seat not to move: an error (or a good message's answer), the socket still open, the game unchanged."""
    conn = arena.player if as_player else arena.spectator
    try:
        text = message.decode()
    except UnicodeDecodeError:
        binary = True
    reply = await reply_to(conn, message if binary else text)
    if reply["type"] not in ("pong", "snapshot"):  # a good ping or resync
        an_error(reply)
    await still_open(conn)
    await arena.unchanged()


@FUZZ
@given(
    since=st.none() | query_values(),
    token=st.sampled_from(["none", "seat", "wrong", "empty"]) | st.text(max_size=50),
    game=st.sampled_from(["real", "unknown"]) | st.text(min_size=1, max_size=70),
)
@example(since="abc", token="none", game="real")
@example(since="-1", token="seat", game="real")
@example(since="9" * 5000, token="none", game="real")
@example(since=None, token="wrong", game="real")
@example(since=None, token="none", game="\x00")
async def test_any_socket_parameters_get_a_socket_or_a_close_code(
    arena: Arena, since: str | None, token: str, game: str
) -> None:
    """Any since, token and game id: a socket that starts (snapshot or diffs, then a pong), or one error then close 4400/4403/4404; never a dropped connection."""
    table = arena.table
    game_id = {"real": table.id, "unknown": "nosuchgame"}.get(game, game)
    chosen = {"none": None, "seat": table.tokens[0], "wrong": "x" * 43, "empty": ""}
    params = {"token": chosen.get(token, token), "since": since}
    query = "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items() if v is not None)
    path = f"/ws/games/{quote(game_id, safe='')}"
    url = f"ws://{arena.server.host}:{arena.server.port}{path}{'?' + query if query else ''}"
    try:
        conn = await connect(url)
    except websockets.InvalidStatus as refused:  # no route: a path that is not a game's
        assert refused.response.status_code in (403, 404), refused.response
        assert "/" in game_id or game_id in (".", "..")
        return
    try:
        first = await receive(conn)
        if first["type"] == "error":
            an_error(first)
            with pytest.raises(websockets.ConnectionClosedError):
                await receive(conn)
            assert conn.close_code in START_CLOSES, conn.close_code
        else:
            assert first["type"] in ("snapshot", "diff"), first
            await still_open(conn)
    finally:
        await conn.close()
    await arena.unchanged()


async def test_a_text_frame_not_utf8_closes_with_1007_quietly(arena: Arena) -> None:
    """A text frame that is not UTF-8 is closed with 1007 (RFC 6455; docs/live.md) and logs no traceback; the other sockets stay open."""
    await arena.spectator.send(b'{"type": "ping", "x": "\xff"}', text=True)
    with pytest.raises(websockets.ConnectionClosedError):
        await receive(arena.spectator)
    assert arena.spectator.close_code == 1007
    await still_open(arena.player)
    await arena.unchanged()


def raw_frame(opcode: int, payload: bytes, *, fin: bool = True, mask: bool = True) -> bytes:
    """One client frame as written by hand, so that it can break RFC 6455."""
    head = bytes([(0x80 if fin else 0) | opcode])
    bit = 0x80 if mask else 0
    size = len(payload)
    if size < 126:
        head += bytes([bit | size])
    elif size < 65536:
        head += struct.pack("!BH", bit | 126, size)
    else:
        head += struct.pack("!BQ", bit | 127, size)
    if not mask:
        return head + payload
    key = b"\x01\x02\x03\x04"
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


async def raw_session(server: LiveServer, game_id: str, frames: list[bytes]) -> bytes:
    """Open a socket by hand, write ``frames``, and read what the server sends until it
    closes the connection (or goes quiet for a second)."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    writer.write(
        f"GET /ws/games/{game_id} HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    received = await reader.readuntil(b"\r\n\r\n")
    assert received.startswith(b"HTTP/1.1 101 "), received
    writer.write(b"".join(frames))
    with contextlib.suppress(TimeoutError, ConnectionError):
        while chunk := await asyncio.wait_for(reader.read(65536), 1):
            received += chunk
    writer.close()
    return received


PING = b'{"type": "ping"}'


@pytest.mark.parametrize(
    ("frames", "ends"),
    [
        ([raw_frame(1, PING, mask=False)], b"\x88\x13\x03\xea"),  # 1002: not masked
        ([raw_frame(3, PING)], b"\x03\xea"),  # 1002: no such opcode
        ([raw_frame(0, PING)], b"\x03\xea"),  # 1002: a continuation of nothing
        ([raw_frame(9, b"x" * 126)], b"\x03\xea"),  # 1002: a ping over 125 bytes
        ([raw_frame(8, b"\x03\xe7")], b"\x03\xea"),  # 1002: close code 999
        ([raw_frame(2, b" " * 70_000)], b"\x03\xf1"),  # 1009: too big
        ([raw_frame(1, b'"\xff"')], b"\x03\xef"),  # 1007: a text frame not UTF-8
        ([raw_frame(1, PING[:5], fin=False), raw_frame(0, PING[5:])], b'{"type":"pong"}'),
        ([raw_frame(2, b'{"type": "\xff', fin=False), raw_frame(0, b'"}')], b"not UTF-8"),
    ],
)
async def test_frames_that_break_the_rfc_get_its_close_code(
    arena: Arena, frames: list[bytes], ends: bytes
) -> None:
    """Frames that break RFC 6455 close the socket with 1002 (1009 too big, 1007 a text frame not UTF-8), quietly; a message in fragments is one message (answered, or bad_request for a binary one not UTF-8)."""
    received = await raw_session(arena.server, arena.table.id, frames)
    assert ends in received, received[-80:]
    await still_open(arena.spectator)
    await arena.unchanged()
