"""Frames written straight to a socket are the frames of RFC 6455, as websockets reads them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import NamedTuple, cast

import httpx
import pytest
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from server.common.settings import Settings
from server.live.hub_registry import HubRegistry
from server.live.socket_writers import INBOX_PAUSE, Batch, Inbox, TransportWire, text_frame
from server.web.state import running
from tests.fast_paths_marks import needs_our_protocols
from tests.server.ws_helpers import connect, live_server, new_table, receive


def parse(data: bytes, count: int = 1) -> list[Frame]:
    """``count`` frames from ``data``, read as a client reads a server's (unmasked);
    nothing may be left over."""
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    frames: list[Frame] = []
    for _ in range(count):
        parser = Frame.parse(reader.read_exact, mask=False)
        try:
            while True:
                next(parser)
        except StopIteration as done:
            frames.append(done.value)
    assert reader.at_eof()
    return frames


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70_000])
def test_a_text_frame_of_any_length_parses_back(size: int) -> None:
    """Every length encoding (7-bit, 16-bit, 64-bit) gives one final text frame holding the payload."""
    payload = b"x" * size
    (frame,) = parse(text_frame(payload))
    assert frame.opcode is Opcode.TEXT and frame.fin and frame.data == payload


def test_a_batch_is_its_messages_framed_in_order() -> None:
    """A batch's bytes are one frame per message, in order, made once and shared."""
    batch = Batch([b'{"a":1}', b"y" * 300, b"[]"])
    assert [f.data for f in parse(batch.frames, 3)] == [b'{"a":1}', b"y" * 300, b"[]"]
    assert batch.frames is batch.frames
    assert batch.size == 7 + 300 + 2


class Watching(NamedTuple):
    """A spectator's socket on a new 2-player game of a live ``splendor serve`` app,
    past its snapshot."""

    hubs: HubRegistry
    game_id: str
    conn: ClientConnection

    def wire(self) -> TransportWire:
        hub = self.hubs.get(self.game_id)
        assert hub is not None
        (outbox,) = hub.outboxes()
        assert isinstance(outbox.wire, TransportWire)
        return outbox.wire


@asynccontextmanager
async def watching(redis_server: str) -> AsyncIterator[Watching]:
    settings = Settings(redis_url=redis_server, command_rate=0)
    async with (
        live_server(settings) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        table = await new_table(http, players=2, seed=3)
        conn = await connect(server.ws_url(table.id))
        assert (await receive(conn))["type"] == "snapshot"
        yield Watching(cast(HubRegistry, running(server.app).hubs), table.id, conn)


@needs_our_protocols
async def test_splendor_serve_writes_frames_straight_to_the_transport(
    redis_server: str,
) -> None:
    """Under uvicorn with ``FrameWritingProtocol`` (as ``splendor serve`` runs) a socket's outbox writes to the connection's transport, and what it writes is read as the protocol's messages; this breaks loudly if uvicorn's protocol changes under it."""
    async with watching(redis_server) as socket:
        socket.wire()
        await socket.conn.send('{"type": "ping"}')
        assert (await receive(socket.conn)) == {"type": "pong"}
        await socket.conn.close()


@needs_our_protocols
async def test_splendor_serve_hands_messages_to_the_inbox_in_order_and_ends_it_with_the_connection(
    redis_server: str,
) -> None:
    """Under ``FrameWritingProtocol`` a socket's messages reach its session through an ``Inbox``: a burst of 60 (more than ``INBOX_PAUSE``, so reading stops and starts again) is answered in order, and closing the connection ends the session (its outbox leaves the hub)."""
    async with watching(redis_server) as socket:
        assert socket.wire().protocol.inbox is not None
        burst = [
            json.dumps({"type": "command", "command_id": f"c{i}", "action": {}}) for i in range(60)
        ]
        for message in burst:  # written at once: none waits for an answer
            await socket.conn.send(message)
        answers = [(await receive(socket.conn)) for _ in burst]
        assert [a["command_id"] for a in answers] == [f"c{i}" for i in range(60)]
        assert {a["code"] for a in answers} == {"unauthorized"}  # a spectator cannot act
        await socket.conn.close()
        for _ in range(100):
            if socket.hubs.get(socket.game_id) is None:
                break
            await asyncio.sleep(0.02)
        assert socket.hubs.get(socket.game_id) is None


async def test_a_text_message_that_is_not_utf8_closes_the_socket_with_1007(
    redis_server: str,
) -> None:
    """A text frame whose bytes are not UTF-8 is refused as uvicorn refuses it, with close code 1007, inbox or not."""
    async with watching(redis_server) as socket:
        await socket.conn.send(b'{"type": "ping", "x": "\xff"}', text=True)
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await socket.conn.recv()
        assert socket.conn.close_code == 1007


class RecordingTransport:
    """The part of a transport an inbox uses: it writes down pauses and resumes."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def pause_reading(self) -> None:
        self.calls.append("pause")

    def resume_reading(self) -> None:
        self.calls.append("resume")


async def test_an_inbox_stops_reading_when_full_and_gives_what_it_holds_before_its_end() -> None:
    """An inbox pauses its transport at ``INBOX_PAUSE`` waiting messages and resumes at half of it; after ``end`` it still gives the messages it holds, then None."""
    transport = RecordingTransport()
    inbox = Inbox(cast(asyncio.Transport, transport))
    waiting = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    inbox.put(b"first")
    assert await waiting == b"first"
    for i in range(INBOX_PAUSE):
        inbox.put(b"%d" % i)
    assert transport.calls == ["pause"]
    got = [await inbox.get() for _ in range(INBOX_PAUSE // 2)]
    assert transport.calls == ["pause", "resume"]
    inbox.end()
    rest = []
    while (message := await inbox.get()) is not None:
        rest.append(message)
    assert got + rest == [b"%d" % i for i in range(INBOX_PAUSE)]
    assert await inbox.get() is None


async def test_the_app_queue_gives_uvicorns_events_in_order_and_ends_the_inbox() -> None:
    """``FrameWritingProtocol``'s queue of ASGI events gives them in order, waits for one when empty, holds no deque once drained, and ends the socket's inbox at ``websocket.disconnect``."""
    # Imported here: the module extends uvicorn's internals, checked before use.
    from server.live.websocket_protocol import _AppQueue

    queue = _AppQueue()
    inbox = queue.inbox = Inbox(cast(asyncio.Transport, RecordingTransport()))
    assert queue.empty()
    waiting = asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    queue.put_nowait({"type": "websocket.connect"})
    assert await waiting == {"type": "websocket.connect"}
    events = [{"type": "websocket.receive", "text": str(i)} for i in range(5)]
    for event in events:
        queue.put_nowait(event)
    assert not queue.empty()
    assert [await queue.get() for _ in events] == events
    assert queue.empty() and queue._events is None
    queue.put_nowait({"type": "websocket.disconnect", "code": 1000})
    assert await inbox.get() is None
    assert await queue.get() == {"type": "websocket.disconnect", "code": 1000}
