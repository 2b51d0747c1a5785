"""The sending side of the game sockets: messages encoded once, framed once, and
written to every socket that sees them.

A hub makes one ``Batch`` per audience for the events of one append (a command is
2 to 4 events): the ``diff`` messages as JSON bytes. Every socket of the audience
gets the same batch. A ``Wire`` puts batches on one socket:

- ``TransportWire`` (the server's own path): a server's websocket frames are not
  masked, so a frame's bytes are the same for every socket. The batch is framed once
  (``Batch.frames``) and written with one ``transport.write`` per socket: one system
  call per socket and command, where the ASGI path takes one ``send`` per message,
  each through the protocol's frame writer.
- ``SendWire``: through any ASGI server's ``websocket.send``, one message at a time,
  from a queue drained by a task. Used where ``TransportWire`` is not offered.

``FrameWritingProtocol`` is uvicorn's websockets-sansio protocol offering its
transport to the app, as the ASGI extension ``splendor.frames``; ``splendor serve``
runs with it. Everything else in the connection (handshake, pings, close, reading)
is uvicorn's: a frame written here is only ever a whole frame, between two of its.

Both wires report the bytes not yet handed to the kernel (``buffered``) and wait for
them to drain (``drained``), which is how an outbox bounds a slow socket.
"""

from __future__ import annotations

import asyncio
import struct
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, Protocol

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

__all__ = [
    "EXTENSION",
    "Batch",
    "FrameWritingProtocol",
    "SendWire",
    "TransportWire",
    "Wire",
    "text_frame",
]

EXTENSION: Final = "splendor.frames"

SendText = Callable[[str], Awaitable[None]]


def text_frame(payload: bytes) -> bytes:
    """One unmasked, unfragmented text frame (RFC 6455 5.2), as a server sends."""
    size = len(payload)
    if size < 126:
        return bytes((0x81, size)) + payload
    if size < 65536:
        return struct.pack("!BBH", 0x81, 126, size) + payload
    return struct.pack("!BBQ", 0x81, 127, size) + payload


class Batch:
    """Messages for every socket of one audience, in order: JSON bytes, and their
    frames (made on first use, then shared)."""

    __slots__ = ("_frames", "payloads", "size")

    def __init__(self, payloads: Sequence[bytes]) -> None:
        self.payloads = payloads
        self.size = sum(len(p) for p in payloads)
        self._frames: bytes | None = None

    @property
    def frames(self) -> bytes:
        if self._frames is None:
            self._frames = b"".join([text_frame(p) for p in self.payloads])
        return self._frames


class Wire(Protocol):
    """Puts messages on one socket, never waiting."""

    def write(self, batch: Batch) -> None: ...

    def buffered(self) -> int:
        """Bytes written here and not yet handed to the socket."""
        ...

    async def drained(self, below: int) -> None:
        """Return once ``buffered()`` is at most ``below`` (at once if it is)."""
        ...

    def close(self) -> None:
        """Write nothing more."""
        ...


class TransportWire:
    """Frames straight to the connection's transport (see ``FrameWritingProtocol``)."""

    __slots__ = ("_protocol", "_transport")

    def __init__(self, protocol: FrameWritingProtocol) -> None:
        self._protocol = protocol
        self._transport = protocol.transport

    def write(self, batch: Batch) -> None:
        if self._protocol.open_for_frames():
            self._transport.write(batch.frames)

    def buffered(self) -> int:
        return self._transport.get_write_buffer_size()

    async def drained(self, below: int) -> None:
        protocol = self._protocol
        while self.buffered() > below and protocol.open_for_frames():
            if protocol.writable.is_set():
                # Between the transport's low and high water marks: no event to wait on.
                await asyncio.sleep(0.005)
            else:  # set again by resume_writing, or when the connection is lost
                await protocol.writable.wait()

    def close(self) -> None:
        pass  # the connection is uvicorn's to close


class SendWire:
    """Messages through an ASGI ``websocket.send``, one by one, in a task of its own."""

    def __init__(self, send: SendText) -> None:
        self._send = send
        self._queue: deque[bytes] = deque()
        self._bytes = 0
        self._wake = asyncio.Event()
        self._drained = asyncio.Event()  # set when _bytes falls to _below
        self._below = 0
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    def write(self, batch: Batch) -> None:
        if self._closed:
            return
        self._queue.extend(batch.payloads)
        self._bytes += batch.size
        self._wake.set()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    def buffered(self) -> int:
        return self._bytes

    async def drained(self, below: int) -> None:
        while self._bytes > below and not self._closed:
            self._below = below
            self._drained.clear()
            await self._drained.wait()

    def close(self) -> None:
        self._closed = True
        self._queue.clear()
        self._bytes = 0
        self._drained.set()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()

    async def _run(self) -> None:
        try:
            while not self._closed:
                if not self._queue:
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                payload = self._queue.popleft()
                await self._send(payload.decode())
                self._bytes -= len(payload)
                if self._bytes <= self._below:
                    self._drained.set()
        except asyncio.CancelledError:
            raise
        except Exception:  # the socket is gone: its reader sees it and leaves
            self._closed = True
            self._queue.clear()
            self._bytes = 0
            self._drained.set()


def wire_for(scope: Mapping[str, Any], send: SendText) -> Wire:
    """The fastest wire the server offers this connection."""
    protocol = scope.get("extensions", {}).get(EXTENSION)
    if isinstance(protocol, FrameWritingProtocol):
        return TransportWire(protocol)
    return SendWire(send)


class FrameWritingProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets-sansio protocol, offering the app its transport through
    the ASGI extension ``splendor.frames`` so frames built once can be written to
    many sockets."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None and not self.close_sent:
            # The app's task is created but has not run yet: it sees the extension.
            scope["extensions"][EXTENSION] = self

    def open_for_frames(self) -> bool:
        """Accepted, not closing, not lost: a frame written now is read in order."""
        return (
            self.handshake_complete
            and not self.close_sent
            and not self.disconnected
            and not self.transport.is_closing()
        )
