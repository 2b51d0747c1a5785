"""The game sockets below ASGI: messages out encoded once, framed once, and written
to every socket that sees them; messages in handed straight to the socket's reader.

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

``server.live.websocket_protocol.FrameWritingProtocol`` is uvicorn's websockets-sansio protocol
offering its transport to the app, as the ASGI extension ``splendor.frames``;
``splendor serve`` runs with it when ``server.web.socket_fast_paths`` allows (else uvicorn's own
protocol, and ``SendWire``: nothing here depends on uvicorn's internals). Everything else in the connection (handshake, pings, close, reading)
is uvicorn's: a frame written here is only ever a whole frame, between two of its.

Both wires report the bytes not yet handed to the kernel (``buffered``) and wait for
them to drain (``drained``), which is how an outbox bounds a slow socket.

Messages in: the protocol also offers an ``Inbox`` (``inbox_for``), which
takes the socket's messages as bytes, as they are parsed, where ASGI would decode each
text message to a ``str`` for the app to encode again, queue it, and stop reading the
socket until the app took it (two system calls a message, to stop and start
reading). An inbox stops reading only when ``INBOX_PAUSE`` messages wait. The end of
the connection (every ``websocket.disconnect`` uvicorn queues) ends the inbox too.
"""

from __future__ import annotations

import asyncio
import struct
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, Protocol

__all__ = [
    "EXTENSION",
    "INBOX_PAUSE",
    "Batch",
    "FrameOffer",
    "Inbox",
    "SendWire",
    "TransportWire",
    "Wire",
    "inbox_for",
    "text_frame",
]

EXTENSION: Final = "splendor.frames"
INBOX_PAUSE: Final = 16  # Messages waiting before the socket stops being read.
FLUSH_S: Final = 1.0  # Longest wait for a closing socket's last message (SendWire).

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

    __slots__ = ("framed", "payloads", "size")

    def __init__(self, payloads: Sequence[bytes]) -> None:
        self.payloads = payloads
        self.size = sum(len(p) for p in payloads)
        self.framed: bytes | None = None  # ``frames``, once made

    @property
    def frames(self) -> bytes:
        if self.framed is None:
            self.framed = b"".join([text_frame(p) for p in self.payloads])
        return self.framed


class Wire(Protocol):
    """Puts messages on one socket, never waiting."""

    def write(self, batch: Batch) -> None: ...

    def offer(self, batch: Batch, limit: int) -> bool:
        """Write ``batch`` unless more than ``limit`` bytes wait already (then False,
        and nothing is written): ``buffered`` and ``write`` in one call, since a hub
        makes it for every socket of an audience."""
        ...

    def buffered(self) -> int:
        """Bytes written here and not yet handed to the socket."""
        ...

    async def drained(self, below: int) -> None:
        """Return once ``buffered()`` is at most ``below`` (at once if it is)."""
        ...

    def close(self, last: Batch | None = None) -> None:
        """Write nothing more but ``last`` (if given), dropping what waits here."""
        ...

    async def flushed(self) -> None:
        """Return once ``last`` (of ``close``) is handed to the socket, or given up on:
        a close sent after this comes after it."""
        ...


class FrameOffer(Protocol):
    """What the ASGI extension ``splendor.frames`` offers: the connection's protocol
    (``server.live.websocket_protocol.FrameWritingProtocol``)."""

    transport: asyncio.Transport
    writable: asyncio.Event
    # What ``open_for_frames`` reads, read by ``TransportWire.offer`` too.
    handshake_complete: bool
    close_sent: bool
    disconnected: bool

    def open_for_frames(self) -> bool: ...

    def open_inbox(self) -> Inbox: ...


class TransportWire:
    """Frames straight to the connection's transport (see ``FrameOffer``)."""

    __slots__ = ("_transport", "protocol")

    def __init__(self, protocol: FrameOffer) -> None:
        self.protocol = protocol
        self._transport = protocol.transport

    def write(self, batch: Batch) -> None:
        if self.protocol.open_for_frames():
            self._transport.write(batch.frames)

    def offer(self, batch: Batch, limit: int) -> bool:
        transport = self._transport
        if transport.get_write_buffer_size() > limit:
            return False
        # ``write``, its calls made inline: this runs for every socket of a big audience.
        protocol = self.protocol
        if (
            protocol.handshake_complete
            and not protocol.close_sent
            and not protocol.disconnected
            and not transport.is_closing()
        ):
            frames = batch.framed
            transport.write(frames if frames is not None else batch.frames)
        return True

    def buffered(self) -> int:
        return self._transport.get_write_buffer_size()

    async def drained(self, below: int) -> None:
        protocol = self.protocol
        while self.buffered() > below and protocol.open_for_frames():
            if protocol.writable.is_set():
                # Between the transport's low and high water marks there is no event
                # to wait on, so the wire polls.
                await asyncio.sleep(0.005)
            else:  # Set again by resume_writing, or when the connection is lost.
                await protocol.writable.wait()

    def close(self, last: Batch | None = None) -> None:
        # The connection is uvicorn's to close, and frames written are in the transport.
        if last is not None:
            self.write(last)

    async def flushed(self) -> None:
        pass  # Frames are in the transport already, before any close frame.


class SendWire:
    """Messages through an ASGI ``websocket.send``, one by one, in a task of its own."""

    def __init__(self, send: SendText) -> None:
        self._send = send
        self._queue: deque[bytes] = deque()
        self._bytes = 0
        self._wake = asyncio.Event()
        self._drained = asyncio.Event()  # Set when _bytes falls to _below.
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

    def offer(self, batch: Batch, limit: int) -> bool:
        if self._bytes > limit:
            return False
        self.write(batch)
        return True

    def buffered(self) -> int:
        return self._bytes

    async def drained(self, below: int) -> None:
        while self._bytes > below and not self._closed:
            self._below = below
            self._drained.clear()
            await self._drained.wait()

    def close(self, last: Batch | None = None) -> None:
        was_closed, self._closed = self._closed, True
        self._queue.clear()
        self._bytes = 0
        self._drained.set()
        if last is not None and not was_closed:
            # The task sends ``last`` and ends (``flushed``).
            self._queue.extend(last.payloads)
            self._bytes = last.size
            self._wake.set()
            if self._task is None:
                self._task = asyncio.get_running_loop().create_task(self._run())
            return
        task, self._task = self._task, None
        if task is not None:
            task.cancel()

    async def flushed(self) -> None:
        task = self._task
        if task is not None and not task.done():
            await asyncio.wait({task}, timeout=FLUSH_S)

    async def _run(self) -> None:
        try:
            while True:
                if not self._queue:
                    if self._closed:
                        return
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
        except Exception:  # The socket is gone; its reader sees that and leaves.
            self._closed = True
            self._queue.clear()
            self._bytes = 0
            self._drained.set()


def wire_for(scope: Mapping[str, Any], send: SendText) -> Wire:
    """The fastest wire the server offers this connection."""
    protocol: FrameOffer | None = scope.get("extensions", {}).get(EXTENSION)
    if protocol is not None:
        return TransportWire(protocol)
    return SendWire(send)


def inbox_for(scope: Mapping[str, Any]) -> Inbox | None:
    """The connection's inbox, when the server offers one: from now on the socket's
    messages go there instead of to ASGI's ``receive``. Take it before accepting."""
    protocol: FrameOffer | None = scope.get("extensions", {}).get(EXTENSION)
    if protocol is not None:
        return protocol.open_inbox()
    return None


class Inbox:
    """The messages of one socket, in order, as bytes; ``None`` once it has ended.
    Its deque is made only while messages wait: an empty one costs 760 bytes, on
    every socket of a big audience, whose spectators seldom send anything."""

    __slots__ = ("_ended", "_messages", "_paused", "_transport", "_waiter")

    def __init__(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        self._messages: deque[bytes] | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._paused = False
        self._ended = False

    async def get(self) -> bytes | None:
        """The next message (waiting for it), or None when the connection has ended."""
        while not self._messages:
            if self._ended:
                return None
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        messages = self._messages
        message = messages.popleft()
        if self._paused and len(messages) <= INBOX_PAUSE // 2 and not self._ended:
            self._paused = False
            self._transport.resume_reading()
        if not messages:
            self._messages = None
        return message

    # -- from the protocol

    def put(self, message: bytes) -> None:
        if self._messages is None:
            self._messages = deque()
        self._messages.append(message)
        if len(self._messages) >= INBOX_PAUSE and not self._paused:
            self._paused = True
            self._transport.pause_reading()  # The client sends faster than it is answered.
        self._wake()

    def end(self) -> None:
        self._ended = True
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
