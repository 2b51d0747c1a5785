"""Tournaments' records, read through one object, as games' are
(server/games/repository.py): a record cached in this process is fast-forwarded with
the events any process appended since its version; one not cached is folded from its
whole log. The log is the truth: a process that died is rebuilt from it, and a cached
record is dropped freely. Within a process a tournament is changed under its lock."""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict
from typing import Final

from server.common.errors import not_found
from server.tournaments.record import TournamentRecord, is_tournament_id
from server.tournaments.store import TournamentStore

__all__ = ["TournamentRepository"]

CACHE: Final = 500


class TournamentRepository:
    """Records over a ``TournamentStore``: cached, and caught up on demand."""

    def __init__(self, store: TournamentStore, *, cache: int = CACHE) -> None:
        self.store = store
        self._cache: OrderedDict[str, TournamentRecord] = OrderedDict()
        self._size = cache
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, tournament_id: str) -> asyncio.Lock:
        """The lock under which this process changes a tournament."""
        lock = self._locks.get(tournament_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[tournament_id] = lock
        return lock

    async def get(self, tournament_id: str) -> TournamentRecord:
        """The record as the log has it now; ``not_found`` for an unknown id."""
        if not is_tournament_id(tournament_id):
            raise not_found("tournament.not_found", tournament=tournament_id[:64])
        record = self._cache.get(tournament_id)
        if record is None:
            record = TournamentRecord(tournament_id, {})
        await self.catch_up(record)
        if record.state is None:
            raise not_found("tournament.not_found", tournament=tournament_id)
        if not record.meta:
            record.meta = await self.store.meta(tournament_id)
        if record.made < record.last_paired:  # until its games are known made
            # Kept if higher: the director of this process may have marked the record
            # made while this read was under way, and a made game never goes unmade.
            made = await self.store.made(tournament_id)
            record.made = max(record.made, made)
        self._remember(record)
        return record

    async def catch_up(self, record: TournamentRecord) -> bool:
        """Fold what was appended since the record's version; True if anything was.
        A record that can't take the next event is dropped, to be folded anew."""
        stored = await self.store.read(record.id, after=record.version)
        try:
            for event in stored:
                # Another reader of this process may have folded it meanwhile.
                if event.version > record.version:
                    record.apply(event)
        except Exception:
            self.forget(record.id)
            raise
        return bool(stored)

    def _remember(self, record: TournamentRecord) -> None:
        self._cache[record.id] = record
        self._cache.move_to_end(record.id)
        while len(self._cache) > self._size:
            self._cache.popitem(last=False)

    def forget(self, tournament_id: str) -> None:
        self._cache.pop(tournament_id, None)
