"""Frames written straight to a socket are the frames of RFC 6455, as websockets reads them."""

from __future__ import annotations

import json
from typing import cast

import httpx
import pytest
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from server.hub import Hubs
from server.settings import Settings
from server.sockets import Batch, TransportWire, text_frame
from tests.server.ws_helpers import connect, live_server, new_table


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


async def test_splendor_serve_writes_frames_straight_to_the_transport(
    redis_server: str,
) -> None:
    """Under uvicorn with ``FrameWritingProtocol`` (as ``splendor serve`` runs) a socket's outbox writes to the connection's transport, and what it writes is read as the protocol's messages; this breaks loudly if uvicorn's protocol changes under it."""
    settings = Settings(redis_url=redis_server, command_rate=0)
    async with (
        live_server(settings) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        table = await new_table(http, players=2, seed=3)
        conn = await connect(server.ws_url(table.id))
        snapshot = json.loads(await conn.recv())
        assert snapshot["type"] == "snapshot"
        hubs = cast(Hubs, server.app.state.hubs)
        hub = hubs.get(table.id)
        assert hub is not None
        (outbox,) = hub.outboxes()
        assert isinstance(outbox.wire, TransportWire)
        await conn.send('{"type": "ping"}')
        assert json.loads(await conn.recv()) == {"type": "pong"}
        await conn.close()
