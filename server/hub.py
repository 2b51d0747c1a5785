"""Hubs: what a server process pushes to the sockets watching its games.

One ``Hub`` per watched game per process holds the game's log and the state folded
from it. One ``Tailer`` per process (``server.tailer``) reads the new events of every
watched game from Redis, whichever process appended them, and hands each hub its
events. For each event the hub evolves its state once, then for each *audience* (a
seat, or all spectators together) computes the view, the JSON Patch from that
audience's previous view (``server.viewdiff``) and the redacted event once, encodes
the ``diff`` message once, and puts the same text in the outbox of every socket of
that audience.

Each socket has an ``Outbox``: a bounded queue and a writer task, so a slow or dead
socket never delays the others. When a socket's queue overflows, its pending diffs are
dropped and, once the queue has drained, it gets a fresh snapshot instead: a socket
sees every version in order, or a snapshot that starts it over, never a gap.

Everything that touches a hub's state, audiences and outboxes runs without awaiting
in between (the event loop is the lock): a snapshot taken at version V is always
followed by the diffs from V + 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping, Sequence
from typing import Any, Final

import msgspec
import redis.asyncio as aioredis

from events.game import Variant
from server.projection import LoggedEvent, decode_event
from server.service import reveal_reserves
from server.store import StoredEvent
from server.tailer import TAIL_BLOCK_MS, Tailer, TailMode
from server.viewdiff import Shared, members_patch, view_patch
from server.wire import event_to_wire

__all__ = ["CLOSE_INTERNAL", "DEFAULT_OUTBOX_LIMIT", "Hub", "Hubs", "Outbox", "Send", "Viewer"]

log = logging.getLogger(__name__)

Viewer = int | None  # a seat, or None for a spectator
Send = Callable[[str], Awaitable[None]]
Close = Callable[[int, str], Coroutine[Any, Any, None]]  # a websocket close: code, reason
LoadGame = Callable[[str], Awaitable[tuple[Variant, Sequence[LoggedEvent]]]]

DEFAULT_OUTBOX_LIMIT: Final = 256  # messages waiting for one socket before it is reset
CLOSE_INTERNAL: Final = 1011

_encoder = msgspec.json.Encoder()


def _text(message: Mapping[str, Any]) -> str:
    return _encoder.encode(message).decode()


# ---------------------------------------------------------------------- outboxes


class _CatchUp:
    """A placeholder in an outbox: the diffs ``after < version <= until`` for one
    viewer, computed by the writer when it gets there (not all at once). ``public``:
    the game was over at ``until``, so its past is shown to everyone."""

    __slots__ = ("after", "public", "until")

    def __init__(self, after: int, until: int, public: bool) -> None:
        self.after = after
        self.until = until
        self.public = public


class Outbox:
    """The messages waiting for one socket, and the task that sends them in order.

    *Feed* messages (snapshots, diffs) are dropped when more than ``limit`` wait; the
    socket then gets a snapshot when its queue has drained. *Replies* (ack, error,
    pong) are never dropped: ``reply`` waits for room instead, which stops reading
    from a client that sends faster than it reads.
    """

    def __init__(
        self, hub: Hub, viewer: Viewer, send: Send, limit: int, close: Close | None = None
    ) -> None:
        self.hub = hub
        self.viewer = viewer
        self._send = send
        self._close = close
        self._limit = max(1, limit)
        self._items: deque[tuple[bool, str | _CatchUp]] = deque()  # (is_feed, item)
        self._replies = 0
        self._wake = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self.needs_snapshot = False
        self.resets = 0  # times this socket's diffs were dropped for a snapshot
        self.closed = False
        self._task: asyncio.Task[None] | None = None
        self._closing: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        self.closed = True
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def abandon(self, code: int, reason: str) -> None:
        """Send nothing more and close the socket (its client reconnects)."""
        self.closed = True
        self._items.clear()
        self._wake.set()
        self._room.set()
        if self._close is not None and self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self._close(code, reason))

    # -- filled by the hub (synchronously)

    def feed(self, item: str | _CatchUp) -> None:
        """Queue a snapshot or diff; on overflow drop the feed and ask for a snapshot."""
        if self.needs_snapshot or self.closed:
            return  # the snapshot to come will cover it
        if len(self._items) >= self._limit:
            self.reset(overflow=True)
            return
        self._items.append((True, item))
        self._wake.set()

    def reset(self, *, overflow: bool = False) -> None:
        """Drop the pending feed; a snapshot of the version of that moment follows."""
        if overflow:
            self.resets += 1
        if any(is_feed for is_feed, _ in self._items):
            self._items = deque(entry for entry in self._items if not entry[0])
        self.needs_snapshot = True
        self._wake.set()

    # -- filled by the socket's reader

    async def reply(self, text: str) -> None:
        """Queue an ack, error or pong (after waiting for room if too many wait)."""
        while self._replies >= self._limit and not self.closed:
            self._room.clear()
            await self._room.wait()
        if self.closed:
            return
        self._replies += 1
        self._items.append((False, text))
        self._wake.set()

    # -- the writer

    async def _run(self) -> None:
        try:
            while not self.closed:
                if self._items:
                    is_feed, item = self._items.popleft()
                    if not is_feed:
                        self._replies -= 1
                        self._room.set()
                    if isinstance(item, _CatchUp):
                        await self._catch_up(item)
                    else:
                        await self._send(item)
                elif self.needs_snapshot:
                    # Taken and flagged done in one step: the hub's next diffs are
                    # the ones after this snapshot's version.
                    self.needs_snapshot = False
                    await self._send(self.hub.snapshot(self.viewer))
                else:
                    self._wake.clear()
                    await self._wake.wait()
        except asyncio.CancelledError:
            raise
        except Exception as e:  # the socket is gone: its reader sees it and leaves
            log.debug("socket writer for %s stopped: %r", self.hub.game_id, e)
        finally:
            self.closed = True
            self._room.set()

    async def _catch_up(self, item: _CatchUp) -> None:
        for text in self.hub.diffs(self.viewer, item.after, item.until, item.public):
            if self.needs_snapshot or self.closed:
                return  # overflowed meanwhile: the snapshot to come starts it over
            await self._send(text)


# ---------------------------------------------------------------------- hubs


class _Audience:
    """The sockets that see a game the same way (one seat, or every spectator), with
    the view they all have at the hub's version."""

    __slots__ = ("outboxes", "snapshot", "view", "viewer")

    def __init__(self, viewer: Viewer, view: dict[str, Any]) -> None:
        self.viewer = viewer
        self.view = view
        self.outboxes: set[Outbox] = set()
        self.snapshot: tuple[int, str] | None = None  # (version, text), made once


class Hub:
    """One game watched by this process: its log, its state, its audiences."""

    def __init__(self, game_id: str, variant: Variant, log: Sequence[LoggedEvent]) -> None:
        self.game_id = game_id
        self.variant = variant
        self.log: list[LoggedEvent] = list(log)
        self.state: Any = variant.fold(e.event for e in self.log)
        self._audiences: dict[Viewer, _Audience] = {}

    @property
    def version(self) -> int:
        return len(self.log)

    @property
    def watchers(self) -> int:
        return sum(len(a.outboxes) for a in self._audiences.values())

    def outboxes(self) -> list[Outbox]:
        """The outboxes of every socket watching this game here."""
        return [o for a in self._audiences.values() for o in a.outboxes]

    def attach(self, outbox: Outbox, since: int | None) -> None:
        """Start a socket: a snapshot now, or the diffs after ``since`` if it has seen
        that version, then every diff of its audience."""
        audience = self._audience(outbox.viewer)
        if since is None or since > self.version:
            outbox.feed(self.snapshot(outbox.viewer))
        elif since < self.version:
            outbox.feed(_CatchUp(since, self.version, self.state.status == "finished"))
        audience.outboxes.add(outbox)

    def detach(self, outbox: Outbox) -> None:
        audience = self._audiences.get(outbox.viewer)
        if audience is None:
            return
        audience.outboxes.discard(outbox)
        if not audience.outboxes:
            del self._audiences[outbox.viewer]

    def _audience(self, viewer: Viewer) -> _Audience:
        audience = self._audiences.get(viewer)
        if audience is None:
            audience = _Audience(viewer, self.variant.view(self.state, viewer))
            self._audiences[viewer] = audience
        return audience

    def snapshot(self, viewer: Viewer) -> str:
        """The ``snapshot`` message of ``viewer`` at the hub's version (made once per
        audience and version)."""
        audience = self._audience(viewer)
        if audience.snapshot is None or audience.snapshot[0] != self.version:
            text = _text({"type": "snapshot", "version": self.version, "view": audience.view})
            audience.snapshot = (self.version, text)
        return audience.snapshot[1]

    def apply(self, stored: Sequence[StoredEvent]) -> None:
        """Fold new events of the stream and send every audience its diffs."""
        for entry in stored:
            if entry.version <= self.version:
                continue  # read twice (a tail that started before this hub's load)
            if entry.version != self.version + 1:
                # Not the next one: leave it; the tailer reads on from our version.
                log.warning("%s: hub at %d got %d", self.game_id, self.version, entry.version)
                return
            self._apply_one(
                LoggedEvent(entry.version, entry.at_ms, decode_event(self.variant, entry.data))
            )

    def apply_logged(self, logged: Sequence[LoggedEvent]) -> bool:
        """Fold events this process has just appended (decoded already); False when
        they do not follow the hub's version (events before them are still to read)."""
        for entry in logged:
            if entry.version <= self.version:
                continue  # the tailer was quicker
            if entry.version != self.version + 1:
                return False
            self._apply_one(entry)
        return True

    def _apply_one(self, logged: LoggedEvent) -> None:
        variant = self.variant
        variant.evolve(self.state, logged.event)
        self.log.append(logged)
        finished = self.state.status == "finished"
        plain: msgspec.Raw | None = None  # the event as JSON, when not redacted
        shared: Shared = {}
        for audience in self._audiences.values():
            after = variant.view(self.state, audience.viewer)
            shown = variant.redact(logged.event, audience.viewer, finished)
            if shown is logged.event:
                if plain is None:
                    plain = msgspec.Raw(
                        _encoder.encode(event_to_wire(shown, logged.version, logged.at_ms))
                    )
                wire_event: Any = plain
            else:
                wire_event = event_to_wire(shown, logged.version, logged.at_ms)
            text = _text(
                {
                    "type": "diff",
                    "version": logged.version,
                    "event": wire_event,
                    "patch": members_patch(audience.view, after, shared),
                }
            )
            audience.view = after
            for outbox in audience.outboxes:
                outbox.feed(text)

    def diffs(self, viewer: Viewer, after: int, until: int, public: bool) -> Iterator[str]:
        """The ``diff`` messages of ``viewer`` for versions ``after + 1 .. until``,
        one at a time, from the view at ``after`` (version 0: the empty table).

        ``public`` (the game is over): every reserved card and every event is shown,
        as ``GET /view?version=`` and ``GET /events`` show a finished game's past.
        """
        variant = self.variant
        state = variant.fold(e.event for e in self.log[:after])
        before = self._past_view(state, viewer, public)
        for logged in self.log[after:until]:
            variant.evolve(state, logged.event)
            now = self._past_view(state, viewer, public)
            shown = variant.redact(logged.event, viewer, public)
            yield _text(
                {
                    "type": "diff",
                    "version": logged.version,
                    "event": event_to_wire(shown, logged.version, logged.at_ms),
                    "patch": view_patch(before, now),
                }
            )
            before = now

    def _past_view(self, state: Any, viewer: Viewer, public: bool) -> dict[str, Any]:
        view = self.variant.view(state, viewer)
        if public:
            reveal_reserves(self.variant, state, view)
        return view


# ---------------------------------------------------------------------- registry


class Hubs:
    """The hubs of one process: made when a game gets its first watcher, dropped
    with its last."""

    def __init__(
        self,
        load: LoadGame,
        tail_client: aioredis.Redis,
        wake_client: aioredis.Redis,
        *,
        outbox_limit: int = DEFAULT_OUTBOX_LIMIT,
        block_ms: int = TAIL_BLOCK_MS,
        tail_mode: TailMode = "auto",
    ) -> None:
        self._load = load
        self._hubs: dict[str, Hub] = {}
        self._loading: dict[str, asyncio.Future[Hub]] = {}
        self.outbox_limit = outbox_limit
        self.tailer = Tailer(
            tail_client, wake_client, self._deliver, block_ms=block_ms, mode=tail_mode
        )
        self._appending: dict[str, int] = {}  # game -> events counted off in the tailer

    def __len__(self) -> int:
        return len(self._hubs)

    def get(self, game_id: str) -> Hub | None:
        return self._hubs.get(game_id)

    async def watch(
        self,
        game_id: str,
        viewer: Viewer,
        since: int | None,
        send: Send,
        close: Close | None = None,
    ) -> Outbox:
        """A started outbox for a new socket on ``game_id`` (loading its hub if needed).

        Raises what ``load`` raises (an unknown game) before anything is started.
        """
        hub = self._hubs.get(game_id)
        if hub is None:
            hub = await self._hub(game_id)
        outbox = Outbox(hub, viewer, send, self.outbox_limit, close)
        hub.attach(outbox, since)
        outbox.start()
        return outbox

    async def leave(self, outbox: Outbox) -> None:
        """Stop a socket's outbox; the hub stops with its last watcher."""
        await outbox.stop()
        hub = outbox.hub
        hub.detach(outbox)
        if hub.watchers == 0 and self._hubs.get(hub.game_id) is hub:
            del self._hubs[hub.game_id]
            self.tailer.unwatch(hub.game_id)

    async def _hub(self, game_id: str) -> Hub:
        pending = self._loading.get(game_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Hub] = asyncio.get_running_loop().create_future()
        self._loading[game_id] = future
        try:
            variant, logged = await self._load(game_id)
            hub = self._hubs.get(game_id)
            if hub is None:
                hub = Hub(game_id, variant, logged)
                self._hubs[game_id] = hub
                self.tailer.watch(game_id, hub.version)
            future.set_result(hub)
            return hub
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as e:
            future.set_exception(e)
            future.exception()  # retrieved: other waiters re-raise it themselves
            raise
        finally:
            del self._loading[game_id]

    # -- this process's own appends (``server.service.AppendObserver``)

    def appending(self, game_id: str, events: int) -> None:
        if game_id in self._hubs and self.tailer.expect(game_id, events):
            self._appending[game_id] = events

    def appended(self, game_id: str, logged: Sequence[LoggedEvent]) -> None:
        """Show the events at once, without reading them back from Redis."""
        self._appending.pop(game_id, None)
        hub = self._hubs.get(game_id)
        if hub is not None and not self._fold(hub, lambda: hub.apply_logged(logged)):
            self.tailer.mark(game_id)  # events before these are still to be read

    def append_failed(self, game_id: str) -> None:
        counted = self._appending.pop(game_id, 0)
        if game_id in self._hubs:
            self.tailer.expected_failed(game_id, counted)

    def _deliver(self, game_id: str, events: list[StoredEvent]) -> None:
        hub = self._hubs.get(game_id)
        if hub is not None:
            self._fold(hub, lambda: hub.apply(events))

    def _fold(self, hub: Hub, apply: Callable[[], bool | None]) -> bool:
        """``apply()`` to ``hub``, or drop the hub if it fails; False when ``apply``
        says the events did not follow the hub's version."""
        game_id = hub.game_id
        try:
            in_order = apply() is not False
        except Exception:
            # Its state may be half-changed: drop the hub; its sockets are closed, and
            # their clients reconnect (with ``since``) to a hub loaded afresh.
            log.exception("%s: hub failed to apply events; closing its sockets", game_id)
            del self._hubs[game_id]
            self.tailer.unwatch(game_id)
            for outbox in hub.outboxes():
                outbox.abandon(CLOSE_INTERNAL, "The server lost track of this game; reconnect.")
            return True
        self.tailer.advance(game_id, hub.version)
        return in_order

    async def close(self) -> None:
        await self.tailer.close()
