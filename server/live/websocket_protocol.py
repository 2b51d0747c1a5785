"""uvicorn's websockets-sansio protocol extended (one of the two fast paths below the
libraries, ``server.web.socket_fast_paths``): it offers the app its transport and an ``Inbox``
through the ASGI extension ``splendor.frames`` (server/live/socket_writers.py says why), answers
an upgrade the websockets library refused, closes a text message that is not UTF-8
with 1007 without a traceback, breaks the reference cycles a closed socket
would leave to the cyclic collector, and lets go of the handshake once it is done.

It reads and overrides uvicorn's internals (``frames``, ``curr_msg_data_type``,
``send_receive_event_to_app``...): ``server.web.socket_fast_paths`` checks they are there before
``splendor serve`` uses it, and uses uvicorn's own protocol otherwise.
"""

from __future__ import annotations

import asyncio
import inspect
from collections import deque
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from server.live.socket_writers import EXTENSION, Inbox

__all__ = ["FrameWritingProtocol"]


class _AppQueue:
    """uvicorn's queue of ASGI events for the app, which also ends the inbox when
    the connection ends (uvicorn queues ``websocket.disconnect`` in many places).
    It holds the inbox, not the protocol: the protocol holds it, and a reference
    back would make every socket a cycle left to the cyclic collector.

    It has what uvicorn calls (``put_nowait``, ``get``, ``empty``), for its one
    reader, the socket's ASGI task. An ``asyncio.Queue`` holds four deques (its
    items, its getters, its putters, its ``join`` event's waiters) of 760 bytes each
    however empty, for every socket; this holds a deque only while events wait,
    which with an inbox is between the connect and the app's first ``receive``."""

    __slots__ = ("_events", "_waiter", "inbox")

    def __init__(self) -> None:
        self._events: deque[Any] | None = None
        self._waiter: asyncio.Future[None] | None = None
        self.inbox: Inbox | None = None

    def put_nowait(self, item: Any) -> None:
        if self._events is None:
            self._events = deque()
        self._events.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        inbox = self.inbox
        if inbox is not None and item.get("type") == "websocket.disconnect":
            inbox.end()

    def empty(self) -> bool:
        return not self._events

    async def get(self) -> Any:
        while not self._events:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        events = self._events
        item = events.popleft()
        if not events:
            self._events = None
        return item


class FrameWritingProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets-sansio protocol, offering the app its transport through
    the ASGI extension ``splendor.frames`` so frames built once can be written to
    many sockets, and an ``Inbox`` for the messages in."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.app_queue = _AppQueue()
        # uvicorn types it an asyncio.Queue, of which it calls only what _AppQueue has.
        self.queue = self.app_queue  # type: ignore[assignment]
        self.inbox: Inbox | None = None

    def open_inbox(self) -> Inbox:
        if self.inbox is None:
            self.inbox = self.app_queue.inbox = Inbox(self.transport)
        return self.inbox

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self.handshake_initiated and self.conn.handshake_exc is not None:
            # The websockets library refused the upgrade request, and uvicorn would
            # leave the connection open and unanswered. Send the library's answer
            # (414, 431, or nothing for a malformed request) and close.
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.transport.close()

    def send_receive_event_to_app(self) -> None:
        inbox = self.inbox
        if inbox is None or self.close_sent:
            super().send_receive_event_to_app()
            return
        frames = self.frames
        data = frames[0] if len(frames) == 1 else b"".join(frames)
        self.frames = []
        if self.curr_msg_data_type == "text":
            try:
                data.decode()
            except UnicodeDecodeError:
                self._refuse_text()
                return
        inbox.put(data)

    def _refuse_text(self) -> None:
        """A text message that is not UTF-8: closed with 1007 (RFC 6455 8.1), as
        uvicorn does, but without the traceback it logs for it (bad input is no error
        of the server's). A binary message is the app's to refuse (``bad_request``)."""
        self.conn.send_close(1007, "A text message must be UTF-8.")
        self.handle_parser_exception()

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None and not self.close_sent:
            # The app's task is created but has not run yet, so it sees the extension.
            scope["extensions"][EXTENSION] = self

    def start_keepalive(self) -> None:
        """uvicorn starts the pings once the handshake's response is sent; from then on
        nothing reads the handshake's request or response (the ASGI scope has its own
        copy of what the app reads). They go, and the request's headers are emptied,
        since the websockets library's parser keeps the request until the socket
        closes: 3 KiB a socket, for as long as it is open."""
        super().start_keepalive()
        self.request.headers.clear()
        del self.request, self.response

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # Two cycles would leave every closed socket's objects to the cyclic
        # collector, so they are broken once of no use (docs/operations.md, "Memory").
        # The scope holds this protocol (the extension), and the websockets
        # protocol's parser, a generator suspended for ever, holds the protocol
        # that holds it.
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"].pop(EXTENSION, None)
        parser = getattr(self.conn, "parser", None)
        if inspect.isgenerator(parser):
            parser.close()  # No data comes after the connection is lost.

    def open_for_frames(self) -> bool:
        """Accepted, not closing, not lost: a frame written now is read in order."""
        return (
            self.handshake_complete
            and not self.close_sent
            and not self.disconnected
            and not self.transport.is_closing()
        )
