"""Frames written straight to a socket are the frames of RFC 6455, as websockets reads them."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from server.sockets import Batch, text_frame


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
