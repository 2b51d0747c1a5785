"""claim_abandon through the service, with presence as its facts (server.live.presence on
the real Redis) and explicit clocks: the mover's time away is counted from when its
last socket closed, never from before the game started."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from events.base import ClaimAbandon
from server.common.errors import ServiceError
from server.games.lobby import Lobby
from server.games.service import GameService
from server.live.presence import Presence
from server.store.event_store import EventStore
from tests.server.test_presence_book import Clock, written

START_MS = 1_700_000_000_000


@pytest.fixture
async def clocked(
    redis_client: aioredis.Redis, store: EventStore
) -> AsyncIterator[tuple[GameService, Presence, Clock]]:
    """A service and a presence on one hand-moved clock, the service asking the
    presence who is away (as server/web/game_socket.py sets it up)."""
    clock = Clock(START_MS)
    service = GameService(store, Lobby(store.client), clock_ms=clock)
    presence = Presence(redis_client, beat_s=1.0, server_id="here", clock_ms=clock)
    await presence.start()
    service.hooks.away_since = presence.seats_away_since
    try:
        yield service, presence, clock
    finally:
        await presence.close()


def listed_claim(view: dict[str, object]) -> bool:
    legal = view["legal"]
    assert isinstance(legal, list)
    return {"kind": "claim_abandon"} in legal


async def test_a_claim_waits_60_s_from_the_movers_last_socket(
    clocked: tuple[GameService, Presence, Clock],
) -> None:
    """While the mover has a socket open no claim is allowed however long it thinks; once its last socket closes, the other seat's claim is refused at 59 s ("… s to go") and not listed, then listed and accepted at 60 s: the mover is out (reason abandon) and the claimer wins."""
    service, presence, clock = clocked
    game_id = (await service.create_game("classic", 2))["id"]
    for name in ("Ana", "Ben"):
        await service.join(game_id, name)
    mover = (await service.reader.view(game_id, None))["turn"]["seat"]
    other = 1 - mover
    presence.want(game_id, mover, True)
    await written(presence)
    clock.now += 600_000
    with pytest.raises(ServiceError) as refused:
        await service.submit(game_id, other, "claim-1", ClaimAbandon())
    assert refused.value.code == "illegal_action"
    assert not listed_claim(await service.reader.view(game_id, other))

    presence.want(game_id, mover, False)
    await written(presence)
    left = clock.now
    clock.now = left + 59_000
    with pytest.raises(ServiceError) as early:
        await service.submit(game_id, other, "claim-2", ClaimAbandon())
    assert "1 s to go" in early.value.message
    assert not listed_claim(await service.reader.view(game_id, other))

    clock.now = left + 60_000
    assert listed_claim(await service.reader.view(game_id, other))
    await service.submit(game_id, other, "claim-3", ClaimAbandon())
    final = await service.reader.view(game_id, None)
    assert final["status"] == "finished"
    assert final["players"][mover]["out"] == "abandon"
    assert final["result"]["reason"] == "abandon" and final["result"]["winners"] == [other]


async def test_a_mover_who_never_came_is_away_since_the_start(
    clocked: tuple[GameService, Presence, Clock],
) -> None:
    """A mover who never opened a socket is away since the game started, not since the epoch: a claim 30 s after the start is refused, 60 s after it accepted."""
    service, _, clock = clocked
    game_id = (await service.create_game("classic", 2))["id"]
    await service.join(game_id, "Ana")
    clock.now += 600_000  # the game waits ten minutes for its second player
    await service.join(game_id, "Ben")
    started = clock.now
    other = 1 - (await service.reader.view(game_id, None))["turn"]["seat"]
    clock.now = started + 30_000
    with pytest.raises(ServiceError):
        await service.submit(game_id, other, "claim-1", ClaimAbandon())
    clock.now = started + 60_000
    await service.submit(game_id, other, "claim-2", ClaimAbandon())
    assert (await service.reader.view(game_id, None))["result"]["reason"] == "abandon"
