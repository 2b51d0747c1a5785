"""The websocket half of the Python client: a live view of one game that survives drops.

``LiveGame`` keeps the viewer's view from the snapshot and the diffs, checks that no
version is skipped (``resync`` otherwise), reconnects with ``since`` after a drop, and
resends unanswered commands with their original ``command_id`` so that a command is
never lost nor applied twice. It also keeps what the server tells beside the view:
each seat's presence (``presence``), the finished game's rematch (``rematch``) and
the table chat of the rooms it reads (``chat``; ``say`` writes to its own room:
docs/chat.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import unicodedata
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

import websockets
from websockets.asyncio.client import ClientConnection, connect

from client.http import ProtocolError
from client.patch import PatchError, apply_patch

CLOSE_RESTART = 1012  # the server is restarting (draining): reconnect elsewhere at once
CHAT_PRESETS = ("hello", "good_luck", "well_played", "thanks", "good_game", "rematch?")


def clock_left(view: dict[str, Any], seat: int, now_ms: int | None = None) -> int | None:
    """What ``seat`` has left on its clock at ``now_ms`` (ms; by default now), from a
    view's ``clock`` (PROTOCOL.md "Live matches"): its ``remaining`` as of the clock's
    ``now``, ticking down while it is ``running``, or, on the seat's first move, what
    is left of its window (``first_move``). None for an untimed game or a bot seat."""
    clock = view.get("clock")
    if not clock:
        return None
    if now_ms is None:
        now_ms = time.time_ns() // 1_000_000
    elapsed = max(0, now_ms - _epoch_ms(clock["now"]))
    turn = view.get("turn") or {}
    window = clock.get("first_move")
    if window is not None and turn.get("seat") == seat:
        return max(0, int(window) - elapsed)
    left: int | None = clock["remaining"][seat] if seat < len(clock["remaining"]) else None
    if left is None or clock.get("running") != seat:
        return left
    return max(0, left - elapsed)


def clock_ticking(view: dict[str, Any]) -> bool:
    """Whether a seat's clock (or first-move window) is running in this view."""
    clock = view.get("clock")
    return bool(
        clock
        and view.get("status") == "live"
        and (clock.get("running") is not None or clock.get("first_move") is not None)
    )


def _epoch_ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


class LiveGame:
    """A websocket to one game: ``view`` and ``version`` are always the latest seen.

    ``presence`` is, per seat, whether it is present (one of its sockets open on the
    server; bots always are), as last told, or None before the server told it
    (``away_since``: since when each absent seat has been away, ISO-8601, None for a
    present seat or one not taken);
    ``rematch`` is the id of the game's rematch once one is made.
    ``chat`` holds, per room it reads (``players`` for a seat, ``spectators`` for a
    spectator, and for a seat once the game is over), the room's messages as told
    (the history after each snapshot, then each new one); ``chat_mode`` is ``on`` or
    ``presets`` once told, None while the server has the chat off.
    ``base_url`` may be several server addresses: a socket closed with 1012 (the
    server is restarting) or a connection that fails moves to the next one at once. ``revision`` counts
    every change of any of them (``changes`` yields at each). ``clock_left(seat)``
    reads a seat's clock now, counting this computer's monotonic time since the clock
    arrived (``clock_arrived``), so a computer whose wall clock is off reads it right.
    """

    def __init__(
        self,
        base_url: str | Sequence[str],
        game_id: str,
        *,
        token: str | None = None,
        reconnect_delay: float = 0.2,
        max_reconnect_delay: float = 5.0,
        lang: str | None = None,
    ) -> None:
        self.addresses = [base_url] if isinstance(base_url, str) else list(base_url)
        if not self.addresses:
            raise ValueError("LiveGame needs a server address")
        self._at = 0  # the address in use: the next one after a 1012 or a failed connection
        self.game_id = game_id
        self.token = token
        self.lang = lang  # of the server's error messages (?lang= on the socket's URL)
        self.view: dict[str, Any] | None = None
        self.version = -1
        self.presence: list[bool] | None = None
        self.spectators = 0  # How many watch the game (PROTOCOL.md, "Audience").
        self.away_since: list[str | None] | None = None
        self.rematch: str | None = None
        self.chat: dict[str, list[dict[str, Any]]] = {}
        self.chat_mode: str | None = None
        self._saying: dict[str, tuple[str, str, asyncio.Future[dict[str, Any]]]] = {}
        self.revision = 0
        self.clock_arrived = 0.0  # time.monotonic() when the view's clock last changed
        self._clock_seen: object = None
        self.reconnects = 0
        self.snapshots = 0  # snapshots received: one, unless a gap or a reset needed more
        self.close_codes: list[int | None] = []  # each socket's close code, in order
        self._delay = reconnect_delay
        self._max_delay = max_reconnect_delay
        self._socket: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Condition()
        self._pending: dict[str, tuple[dict[str, Any], asyncio.Future[int]]] = {}
        self._closed = False
        self._fatal: Exception | None = None

    # ------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> LiveGame:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        """Open the socket and wait for the first view."""
        self._reader = asyncio.create_task(self._run())
        await self.wait_for(lambda view: True)

    async def close(self) -> None:
        self._closed = True
        if self._socket is not None:
            await self._socket.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        for _, future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionError("the live game was closed"))
        for _, _, said in self._saying.values():
            if not said.done():
                said.set_exception(ConnectionError("the live game was closed"))

    def drop(self) -> None:
        """Cut the connection as a network would (for tests): the client resumes."""
        if self._socket is not None:
            self._socket.transport.abort()

    @property
    def address(self) -> str:
        """The server address in use (or to be tried next)."""
        return self.addresses[self._at]

    def _url(self) -> str:
        params: dict[str, Any] = {} if self.lang is None else {"lang": self.lang}
        if self.token:
            params["token"] = self.token
        if self.version >= 0:
            params["since"] = self.version
        query = f"?{urlencode(params)}" if params else ""
        base = self.address.rstrip("/")
        scheme = "wss" if base.startswith("https") else "ws"
        return f"{scheme}:{base.split(':', 1)[1]}/ws/games/{self.game_id}{query}"

    async def _run(self) -> None:
        delay = self._delay
        failed = 0  # connections that failed in a row (no socket, or turned away)
        while not self._closed:
            opened = served = False
            code: int | None = None
            try:
                async with connect(self._url(), max_size=2**22) as socket:
                    self._socket = socket
                    opened = True
                    # Unanswered commands go again with their ids: applied once at most.
                    for message, _ in list(self._pending.values()):
                        await socket.send(json.dumps(message))
                    try:
                        async for raw in socket:
                            served = True
                            await self._receive(socket, json.loads(raw))
                    finally:
                        code = socket.close_code
            except (OSError, websockets.ConnectionClosed, websockets.InvalidHandshake):
                pass
            except websockets.InvalidURI as wrong:
                self._fatal = wrong
                async with self._changed:
                    self._changed.notify_all()
                return
            self._socket = None
            if opened:
                self.close_codes.append(code)
            if self._closed:
                return
            self.reconnects += 1
            if served:
                delay, failed = self._delay, 0
            if code == CLOSE_RESTART and served:
                # The server is restarting: straight on to the next address, with since.
                self._at = (self._at + 1) % len(self.addresses)
                continue
            if not opened or code == CLOSE_RESTART:
                # Unreachable, or turned away while it drains: try the next address at
                # once, and back off only once each has failed.
                self._at = (self._at + 1) % len(self.addresses)
                failed += 1
                if failed % len(self.addresses):
                    continue
            await asyncio.sleep(delay)
            delay = min(delay * 2, self._max_delay)

    async def _receive(self, socket: ClientConnection, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "snapshot":
            self.snapshots += 1
            self.view = message["view"]
            self.version = message["version"]
            self._note_clock()
        elif kind == "diff":
            if self.view is None or message["version"] != self.version + 1:
                if message["version"] > self.version:
                    await socket.send(json.dumps({"type": "resync"}))
                return
            try:
                self.view = apply_patch(self.view, message["patch"])
            except PatchError:
                await socket.send(json.dumps({"type": "resync"}))  # a fresh snapshot
                return
            self.version = message["version"]
            self._note_clock()
        elif kind == "audience":
            self.spectators = int(message["spectators"])
        elif kind == "presence":
            self.presence = list(message["seats"])
            self.away_since = message.get("away_since")
        elif kind == "rematch":
            self.rematch = message["id"]
        elif kind == "chat_history":
            self.chat[message["room"]] = list(message["messages"])
            self.chat_mode = message.get("mode", "on")
        elif kind == "chat":
            self._chat_told(message)
        elif kind == "ack":
            self._settle(message["command_id"], message["version"], None)
            return
        elif kind == "error":
            command_id = message.get("command_id")
            if message["code"] == "unavailable":
                # The server can't reach its store and closes this socket: the
                # command stays pending and goes again on the next one.
                return
            error = ProtocolError.of(message)
            if command_id:
                self._settle(command_id, None, error)
            chat_id = message.get("chat_id")
            said = self._saying.pop(chat_id, None) if chat_id else None
            if said is not None and not said[2].done():
                said[2].set_exception(error)
            return
        else:
            return
        self.revision += 1
        async with self._changed:
            self._changed.notify_all()

    def _chat_told(self, message: dict[str, Any]) -> None:
        """A new chat message: kept in its room (once), and the oldest ``say`` of the
        same words in that room, if any, is answered with it."""
        room = self.chat.setdefault(message["room"], [])
        if any(m["id"] == message["id"] for m in room):
            return
        room.append(message)
        words = message.get("text", message.get("preset"))
        for chat_id, (said_room, said_words, future) in list(self._saying.items()):
            if said_room == message["room"] and said_words == words and not future.done():
                del self._saying[chat_id]
                future.set_result(message)
                break

    def _settle(self, command_id: str, version: int | None, error: Exception | None) -> None:
        entry = self._pending.pop(command_id, None)
        if entry is None or entry[1].done():
            return
        if error is not None:
            entry[1].set_exception(error)
        else:
            entry[1].set_result(version if version is not None else -1)

    # ------------------------------------------------------------ use

    def _note_clock(self) -> None:
        clock = None if self.view is None else self.view.get("clock")
        if clock != self._clock_seen:
            self._clock_seen = clock
            self.clock_arrived = time.monotonic()

    def server_now_ms(self, at: float | None = None) -> int | None:
        """The server's time (ms since the epoch) at local monotonic time ``at`` (by
        default now), as the view's clock tells it: the clock's ``now`` plus the local
        time since that clock arrived. None for an untimed game."""
        clock = None if self.view is None else self.view.get("clock")
        if not clock:
            return None
        since = (time.monotonic() if at is None else at) - self.clock_arrived
        return _epoch_ms(clock["now"]) + max(0, round(since * 1000))

    def clock_left(self, seat: int, at: float | None = None) -> int | None:
        """``seat``'s time left (ms) at local monotonic time ``at`` (by default now),
        ticking from when its clock arrived: see the module's ``clock_left``."""
        now_ms = self.server_now_ms(at)
        return None if self.view is None or now_ms is None else clock_left(self.view, seat, now_ms)

    async def wait_for(self, predicate: Any, timeout: float | None = 30.0) -> dict[str, Any]:
        """Wait until ``predicate(view)`` holds; the view then. It is asked again at
        each change (of the view, the presence or the rematch), so it may look at
        ``presence`` and ``rematch`` too."""

        async def waiting() -> dict[str, Any]:
            async with self._changed:
                while self.view is None or not predicate(self.view):
                    if self._fatal is not None:
                        raise self._fatal
                    await self._changed.wait()
                return self.view

        return await asyncio.wait_for(waiting(), timeout)

    async def wait_version(self, version: int, timeout: float | None = 30.0) -> dict[str, Any]:
        return await self.wait_for(lambda view: self.version >= version, timeout)

    async def changes(self) -> AsyncIterator[dict[str, Any]]:
        """The view each time it, the presence or the rematch changed (changes may
        be merged if the reader is slow)."""
        seen = -1
        while True:
            view = await self.wait_for(lambda v, seen=seen: self.revision > seen, timeout=None)
            seen = self.revision
            yield view

    async def updates(self) -> AsyncIterator[dict[str, Any]]:
        """Each new view, as it arrives (views may be skipped if the reader is slow)."""
        seen = -1
        while True:
            view = await self.wait_for(lambda v, seen=seen: self.version > seen, timeout=None)
            seen = self.version
            yield view

    async def send(
        self,
        action: dict[str, Any],
        *,
        expected_version: int | None = None,
        command_id: str | None = None,
        timeout: float = 30.0,
    ) -> int:
        """Send ``action``; the version it reached, or ProtocolError with its code."""
        command_id = command_id or uuid.uuid4().hex
        message: dict[str, Any] = {"type": "command", "command_id": command_id, "action": action}
        if expected_version is not None:
            message["expected_version"] = expected_version
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending[command_id] = (message, future)
        if self._socket is not None:
            with contextlib.suppress(websockets.ConnectionClosed):
                await self._socket.send(json.dumps(message))
        return await asyncio.wait_for(asyncio.shield(future), timeout)

    @property
    def chat_room(self) -> str:
        """The room this socket writes to: ``players`` for a seat, else ``spectators``."""
        return "players" if self.token else "spectators"

    async def say(
        self,
        text: str | None = None,
        *,
        preset: str | None = None,
        chat_id: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        """Write ``text`` (or a ``preset``, one of ``CHAT_PRESETS``) to this socket's
        room; the message as the room was told it, or ProtocolError with the refusal
        (``bad_request``, ``rate_limited``: docs/chat.md). The server sends no
        acknowledgement: the message answering it is the room's next one with the same
        words (``text`` as the server normalizes it: NFC, trimmed). A message is not
        sent again after a reconnection."""
        if (text is None) == (preset is None):
            raise ValueError("say takes either text or a preset")
        chat_id = chat_id or uuid.uuid4().hex
        body: dict[str, Any] = {"type": "chat", "chat_id": chat_id}
        if text is not None:
            body["text"] = text
            words = unicodedata.normalize("NFC", text).strip()
        else:
            assert preset is not None
            body["preset"] = words = preset
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._saying[chat_id] = (self.chat_room, words, future)
        try:
            if self._socket is None:
                raise ConnectionError("the live game has no socket open")
            await self._socket.send(json.dumps(body))
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        finally:
            self._saying.pop(chat_id, None)
