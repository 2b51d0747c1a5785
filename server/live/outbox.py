"""A socket's outbox: what one websocket is sent, in version order, never waiting on
the socket (``Outbox``). A hub (``server.live.hubs``) feeds its batches; the outbox
writes them to its ``Wire`` at once, holds them behind a catch-up, or drops them for
a snapshot once the socket falls too far behind.

What an outbox needs of its hub is ``OutboxHub``: the game's id, its snapshot
(``opening``), its past diffs and the moment its folding has settled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, Final, Generic, Protocol, TypeVar

from server.common.settings import WS_BUFFER_BYTES
from server.live.socket_writers import Batch, Wire

__all__ = ["DEFAULT_OUTBOX_LIMIT", "Close", "Outbox", "OutboxHub", "Viewer"]

log = logging.getLogger(__name__)

Viewer = int | None  # A seat, or None for a spectator.
Close = Callable[[int, str], Coroutine[Any, Any, None]]  # A websocket's close(code, reason).

DEFAULT_OUTBOX_LIMIT: Final = WS_BUFFER_BYTES  # A socket this many bytes behind is reset.


class OutboxHub(Protocol):
    """What an outbox asks of its game's hub."""

    @property
    def game_id(self) -> str: ...

    async def settled(self) -> None: ...

    def opening(self, viewer: Viewer) -> Batch: ...

    def diffs(self, viewer: Viewer, after: int, until: int, public: bool) -> Iterator[bytes]: ...


HubT = TypeVar("HubT", bound=OutboxHub)


class Outbox(Generic[HubT]):
    """What one socket is sent, in version order, never waiting on the socket.

    Live, each batch of the socket's audience is written to its ``Wire`` at once.
    More than ``limit`` bytes behind, the socket gets no more batches; once its wire
    has drained it gets a snapshot of the hub's version then, and the batches after
    it. Resuming from ``since``, it first gets the diffs it missed, made one by one as
    it takes them, while live batches wait (those count towards ``limit`` too).
    Replies (ack, error, pong) are written at once, after waiting for the wire to
    drain when it is full, which stops reading from a client that never reads.
    """

    def __init__(
        self,
        hub: HubT,
        viewer: Viewer,
        wire: Wire,
        limit: int = DEFAULT_OUTBOX_LIMIT,
        close: Close | None = None,
        digest: str | None = None,
        account: str | None = None,
    ) -> None:
        self.hub = hub
        self.viewer = viewer
        self.digest = digest  # The digest of the seat token the socket was opened with.
        self.account = account  # A spectator's account, signed in (its name is shown).
        self.lang = "en"  # of its error messages: set by the socket (server/web/languages.py)
        self.wire = wire
        self._close = close
        self._limit = max(1, limit)
        self._held: deque[Batch] | None = None  # Live batches waiting for a catch-up.
        self._held_bytes = 0
        self.needs_snapshot = False
        self.resets = 0  # The times this socket's diffs were dropped for a snapshot.
        self.closed = False
        self._task: asyncio.Task[None] | None = None  # A catch-up or a snapshot to come.
        self._closing: asyncio.Task[None] | None = None

    async def stop(self) -> None:
        self.closed = True
        self.wire.close()
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def abandon(self, code: int, reason: str, last: bytes | None = None) -> None:
        """Send nothing more (but ``last``, if given) and close the socket (its client
        reconnects)."""
        self.wire.close(Batch((last,)) if last is not None and not self.closed else None)
        self.closed = True
        if self._close is not None and self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self._close_after(code, reason))

    async def _close_after(self, code: int, reason: str) -> None:
        """Close the socket once ``last`` is on its way (after it, on ASGI's ``send``)."""
        assert self._close is not None
        await self.wire.flushed()
        await self._close(code, reason)

    # -- from the hub (synchronously)

    def feed(self, batch: Batch) -> None:
        """Write a batch of the audience's diffs, or drop it for a snapshot to come."""
        if self.needs_snapshot or self.closed:
            return  # The snapshot to come covers it.
        held = self._held
        if held is not None:
            held.append(batch)
            self._held_bytes += batch.size
            if self._held_bytes > self._limit:
                self.reset(overflow=True)
        elif not self.wire.offer(batch, self._limit):
            self.reset(overflow=True)

    def catch_up(self, after: int, until: int, public: bool) -> None:
        """Send the diffs ``after < version <= until`` before any live batch.
        ``public``: the game was over at ``until``, so its past is shown to all."""
        self._held = deque()
        self._start(self._catch_up(after, until, public))

    def reset(self, *, overflow: bool = False) -> None:
        """Drop what waits; a snapshot of the version of the moment the socket has
        room follows (``resync``, or an overflow)."""
        if self.needs_snapshot or self.closed:
            return
        if overflow:
            self.resets += 1
        self.needs_snapshot = True
        self._held, self._held_bytes = None, 0
        self._start(self._snapshot_when_drained())

    # -- from the socket's reader

    async def reply(self, message: bytes) -> None:
        """Write an ack, error or pong (after the wire drains, if it is full)."""
        if self.wire.buffered() > self._limit:
            await self.wire.drained(self._limit // 2)
        if not self.closed:
            self.wire.write(Batch((message,)))

    # -- tasks

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        task = self._task
        if task is not None and not task.done():
            task.cancel()  # A snapshot overtakes a catch-up.
        self._task = asyncio.get_running_loop().create_task(self._guard(work))

    async def _guard(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception as e:  # The socket is gone; its reader sees that and leaves.
            log.debug("socket writer for %s stopped: %r", self.hub.game_id, e)
            self.closed = True

    async def _snapshot_when_drained(self) -> None:
        await self.wire.drained(self._limit // 2)
        await self.hub.settled()
        if self.closed:
            return
        # Taken and flagged done in one step: the hub's next batches follow it.
        self.needs_snapshot = False
        self.wire.write(self.hub.opening(self.viewer))

    async def _catch_up(self, after: int, until: int, public: bool) -> None:
        for message in self.hub.diffs(self.viewer, after, until, public):
            if self.wire.buffered() > self._limit:
                await self.wire.drained(self._limit // 2)
            if self.needs_snapshot or self.closed:
                return  # It overflowed meanwhile, and the snapshot to come starts it over.
            self.wire.write(Batch((message,)))
        held, self._held, self._held_bytes = self._held, None, 0
        for batch in held or ():
            self.feed(batch)
