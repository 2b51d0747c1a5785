"""A process's watch of the tournaments its sockets follow
(server/web/tournament_socket.py): one ``_Watch`` per tournament reads the log's
version every ``WATCH_S`` (any process's change is seen within it) and at once when
this process changed the tournament, and puts the new page in every socket's queue.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

import msgspec

from server.common.background import in_task
from server.tournaments.service import TournamentService

__all__ = ["TournamentWatches", "watching_tournaments"]

log = logging.getLogger(__name__)

WATCH_S: Final = 0.5
_encode = msgspec.json.Encoder().encode


class _Watch:
    """The sockets of one tournament on this process, and the last version sent."""

    def __init__(self) -> None:
        self.sockets: set[asyncio.Queue[str]] = set()
        self.version: tuple[int, int] = (-1, -1)
        self.wake = asyncio.Event()


class TournamentWatches:
    """Every tournament this process's sockets follow, read again as it changes."""

    def __init__(self, service: TournamentService, *, every_s: float = WATCH_S) -> None:
        self.service = service
        self.every_s = every_s
        self._watches: dict[str, _Watch] = {}
        self._unsubscribe = service.subscribe(self._changed)

    async def _changed(self, tournament_id: str) -> None:
        watch = self._watches.get(tournament_id)
        if watch is not None:
            watch.version = (-1, -1)  # sent again
            watch.wake.set()

    def follow(self, tournament_id: str, queue: asyncio.Queue[str]) -> None:
        watch = self._watches.setdefault(tournament_id, _Watch())
        watch.sockets.add(queue)
        watch.wake.set()

    def unfollow(self, tournament_id: str, queue: asyncio.Queue[str]) -> None:
        watch = self._watches.get(tournament_id)
        if watch is not None:
            watch.sockets.discard(queue)
            if not watch.sockets:
                del self._watches[tournament_id]

    async def run(self) -> None:
        while True:
            for tournament_id, watch in list(self._watches.items()):
                try:
                    await self._send_if_changed(tournament_id, watch)
                except Exception:
                    log.exception("tournament %s not read for its sockets", tournament_id)
            waits = [asyncio.ensure_future(w.wake.wait()) for w in self._watches.values()]
            try:
                if waits:
                    await asyncio.wait(
                        waits, timeout=self.every_s, return_when=asyncio.FIRST_COMPLETED
                    )
                else:
                    await asyncio.sleep(self.every_s)
            finally:
                for wait in waits:
                    wait.cancel()

    async def _send_if_changed(self, tournament_id: str, watch: _Watch) -> None:
        watch.wake.clear()
        record = await self.service.get(tournament_id)
        if (record.version, record.made) == watch.version:
            return
        page = {"type": "tournament", **await self.service.page(record)}
        watch.version = (record.version, record.made)
        text = _encode(page).decode()
        for queue in list(watch.sockets):
            queue.put_nowait(text)

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
