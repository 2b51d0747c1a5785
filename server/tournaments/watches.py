"""A process's watch of the tournaments its sockets follow
(server/web/tournament_socket.py): one ``_Watch`` per tournament reads the log's
version every ``WATCH_S`` (any process's change is seen within it) and at once when
this process changed the tournament, and hands the new page to every socket
(``Deliver``: a socket keeps only the latest page it has not sent yet).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Final

import msgspec

from server.common.background import in_task
from server.tournaments.service import TournamentService

__all__ = ["TournamentWatches", "watching_tournaments"]

log = logging.getLogger(__name__)

WATCH_S: Final = 0.5

Deliver = Callable[[str], None]
"""``deliver(page)``: a socket's way to take a page (never waiting)."""
_encode = msgspec.json.Encoder().encode


class _Watch:
    """The sockets of one tournament on this process, and the last version sent."""

    def __init__(self) -> None:
        self.sockets: set[Deliver] = set()
        self.version: tuple[int, int] = (-1, -1)
        self.page: str | None = None  # the last page sent, for sockets that come
        self.changed = True  # read at the next turn rather than at the next sweep


class TournamentWatches:
    """Every tournament this process's sockets follow, read again as it changes."""

    def __init__(self, service: TournamentService, *, every_s: float = WATCH_S) -> None:
        self.service = service
        self.every_s = every_s
        self._watches: dict[str, _Watch] = {}
        self._wake = asyncio.Event()
        self._unsubscribe = service.subscribe(self._changed)

    async def _changed(self, tournament_id: str) -> None:
        watch = self._watches.get(tournament_id)
        if watch is not None:
            watch.version = (-1, -1)  # sent again
            watch.changed = True
            self._wake.set()

    def follow(self, tournament_id: str, deliver: Deliver) -> None:
        """Hand ``deliver`` the tournament's page now, and again after every change."""
        watch = self._watches.setdefault(tournament_id, _Watch())
        watch.sockets.add(deliver)
        if watch.page is not None:
            deliver(watch.page)  # as read at the watch's last look, at most WATCH_S ago
        else:
            self._wake.set()

    def unfollow(self, tournament_id: str, deliver: Deliver) -> None:
        watch = self._watches.get(tournament_id)
        if watch is not None:
            watch.sockets.discard(deliver)
            if not watch.sockets:
                del self._watches[tournament_id]

    async def run(self) -> None:
        """Read every watched tournament every ``every_s`` (another process's
        changes), and one that this process changed or a socket began to follow at
        once."""
        loop = asyncio.get_running_loop()
        sweep_at = loop.time()
        while True:
            self._wake.clear()
            sweep = loop.time() >= sweep_at
            if sweep:
                sweep_at = loop.time() + self.every_s
            for tournament_id, watch in list(self._watches.items()):
                if not (sweep or watch.changed):
                    continue
                try:
                    await self._send_if_changed(tournament_id, watch)
                except Exception:
                    log.exception("tournament %s not read for its sockets", tournament_id)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(0.0, sweep_at - loop.time()))

    async def _send_if_changed(self, tournament_id: str, watch: _Watch) -> None:
        watch.changed = False
        record = await self.service.get(tournament_id)
        # What the page is drawn from, taken before the page's own read: the record may
        # move on meanwhile, and a version noted after it would hide that change.
        seen = (record.version, record.made)
        if seen == watch.version:
            return
        page = {"type": "tournament", **await self.service.page(record)}
        watch.version = seen
        text = watch.page = _encode(page).decode()
        for deliver in list(watch.sockets):
            deliver(text)

    def close(self) -> None:
        self._unsubscribe()


@asynccontextmanager
async def watching_tournaments(service: TournamentService) -> AsyncIterator[TournamentWatches]:
    watches = TournamentWatches(service)
    try:
        async with in_task(watches.run(), name="tournament watches"):
            yield watches
    finally:
        watches.close()
