"""A process's tasks interleaving on one tournament, and Redis failing between two
writes of one change (server/tournaments/): the pages its sockets get, the indexes
that find a tournament, an account's slots, and the start's announcement each come
out right whatever happened in between."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import redis.asyncio as aioredis

from events.base import TimeControl
from events.tournament import standings as core
from server.common.errors import ServiceError
from server.store.availability import StoreUnavailable
from server.tournaments.record import TournamentRecord
from server.tournaments.requests import CreateTournament, TournamentClock
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


async def test_a_tournament_whose_indexes_were_never_written_is_listed_at_its_next_open(
    redis_client: aioredis.Redis,
) -> None:
    """A scheduled slot whose log a process wrote before dying (neither listed nor due) is listed and made due when a schedule opens the slot again, and not created twice."""
    service = TournamentService(redis_client)
    soon = service.clock_ms() + 3_600_000
    events = core.create("tslot1", "arena", "duel", CLOCK, soon, duration_ms=600_000)
    await service.store.append("tslot1", events, expected_version=0, at_ms=1, meta={"name": ""})
    assert "tslot1" not in await service.indexes.open_ids()
    again = await service.open(
        "tslot1", "arena", "duel", CLOCK, soon, name="", created_by=None, duration_ms=600_000
    )
    assert again is None and await service.store.version("tslot1") == 1
    assert "tslot1" in await service.indexes.open_ids()
    assert await service.indexes.due(soon, 100) == ["tslot1"]


async def test_claims_left_by_failed_creations_free_the_accounts_slots(
    redis_client: aioredis.Redis,
) -> None:
    """An account whose two open slots are held by creations that failed after their claim (one never written, one written but never listed) creates a tournament: the first claim is released, the second tournament listed; a claim younger than a minute (a creation under way) is left alone."""
    now = [10 * 86_400_000 + 3_600_000]
    service = TournamentService(redis_client, clock_ms=lambda: now[0])
    day = 10 * 86_400_000
    for tid in ("tlost01", "tunlisted"):
        await service.indexes.claim_creation("ana", tid, now[0], day, 2, 5)
    events = core.create("tunlisted", "arena", "duel", CLOCK, now[0] + 600_000, duration_ms=600_000)
    meta = {"name": "", "created_by": "ana"}
    await service.store.append("tunlisted", events, expected_version=0, at_ms=now[0], meta=meta)
    body = CreateTournament("arena", "duel", TournamentClock(3, 2), duration_min=30)
    with pytest.raises(ServiceError) as refused:  # the claims are a creation under way
        await service.create("ana", body)
    assert refused.value.reason.key == "tournament.too_many_open"
    now[0] += 60_000
    created = await service.create("ana", body)
    claims = dict(await service.indexes.open_claims("ana"))
    assert sorted(claims) == sorted(["tunlisted", created.id])
    assert "tunlisted" in await service.indexes.open_ids()


class ListThenWait(TournamentService):
    """A service whose list, once read, waits for ``gate`` before it is kept."""

    def __init__(self, client: aioredis.Redis, now_ms: int) -> None:
        super().__init__(client, clock_ms=lambda: now_ms)
        self.read = asyncio.Event()
        self.gate = asyncio.Event()

    async def _read_listing(self, now: int) -> dict[str, list[dict[str, Any]]]:
        lists = await super()._read_listing(now)
        self.read.set()
        await self.gate.wait()
        return lists


async def test_a_list_read_before_a_creation_is_not_kept_for_its_creator(
    redis_client: aioredis.Redis,
) -> None:
    """A list read under way while a tournament is created is not kept as the process's list for the next second: the creator's next look at the list shows the tournament."""
    now = 20 * 86_400_000
    service = ListThenWait(redis_client, now)
    reading = asyncio.create_task(service.listing())
    await service.read.wait()
    created = await service.open(
        "tlisted1", "arena", "duel", CLOCK, now + 600_000, name="L", created_by=None,
        duration_ms=600_000,
    )  # fmt: skip
    assert created is not None
    service.gate.set()
    await reading
    listed = await service.listing()
    assert [s["id"] for s in listed["upcoming"]] == ["tlisted1"]
