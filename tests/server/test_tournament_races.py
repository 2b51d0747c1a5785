"""A process's tasks interleaving on one tournament, and Redis failing between two
writes of one change (server/tournaments/): the pages its sockets get, the indexes
that find a tournament, an account's slots, and the start's announcement each come
out right whatever happened in between."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import redis.asyncio as aioredis

from events.base import TimeControl
from server.store.availability import StoreUnavailable
from server.tournaments.record import TournamentRecord
from server.tournaments.service import TournamentService
from server.tournaments.watches import TournamentWatches

CLOCK = TimeControl(initial=180, increment=2)


class PageThenWait(TournamentService):
    """A service whose page, once drawn, waits for ``gate`` before it is handed over:
    the page's own read under way while the tournament changes."""

    def __init__(self, client: aioredis.Redis) -> None:
        super().__init__(client)
        self.drawn = asyncio.Event()
        self.gate = asyncio.Event()

    async def page(self, record: TournamentRecord) -> dict[str, Any]:
        page = await super().page(record)
        self.drawn.set()
        await self.gate.wait()
        return page


async def test_a_change_during_a_pages_read_is_sent_after_it(
    redis_client: aioredis.Redis,
) -> None:
    """A player who joins while a watch is reading the page it will send is on the next page the sockets get: the watch does not take the older page for the newer version."""
    service = PageThenWait(redis_client)
    soon = service.clock_ms() + 3_600_000
    record = await service.open(
        "twatch1", "arena", "duel", CLOCK, soon, name="W", created_by=None, duration_ms=600_000
    )
    assert record is not None
    watches = TournamentWatches(service, every_s=0.01)
    pages: list[dict[str, Any]] = []
    watches.follow("twatch1", lambda text: pages.append(json.loads(text)))
    running = asyncio.create_task(watches.run())
    try:
        await service.drawn.wait()  # the first page is drawn, not yet handed over
        await service.join("twatch1", "ana")
        service.gate.set()
        for _ in range(500):
            if pages and [s["player"] for s in pages[-1]["standings"]] == ["ana"]:
                break
            await asyncio.sleep(0.01)
        assert [[s["player"] for s in p["standings"]] for p in pages] == [[], ["ana"]]
    finally:
        running.cancel()
        watches.close()


async def test_a_join_whose_history_index_fails_is_answered_as_made(
    redis_client: aioredis.Redis,
) -> None:
    """A join appended to the log is answered as made (not 503, which a retry would meet as already joined) when Redis fails for the player's history index after it, and the process's pages are told of it."""
    service = TournamentService(redis_client)
    soon = service.clock_ms() + 3_600_000
    record = await service.open(
        "tindex1", "arena", "duel", CLOCK, soon, name="I", created_by=None, duration_ms=600_000
    )
    assert record is not None
    changed: list[str] = []

    async def told(tournament_id: str) -> None:
        changed.append(tournament_id)

    service.subscribe(told)

    async def fails(*args: object) -> None:
        raise StoreUnavailable("Redis went away")

    service.indexes.joined = fails  # type: ignore[method-assign]
    joined = await service.join("tindex1", "ana")
    assert list(joined.tournament.players) == ["ana"] and changed == ["tindex1"]
