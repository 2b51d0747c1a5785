"""EventStore.restore: a whole game written at once with its own versions and times,
only when its id is free (what `splendor import` relies on)."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from server.store.event_store import EventStore, StoredEvent
from server.store.keys import meta_key

EVENTS = [
    StoredEvent(1, 1_000, b'{"a":1}'),
    StoredEvent(2, 1_500, b"x"),
    StoredEvent(3, 9_999, b""),
]


async def test_restore_writes_the_events_with_their_versions_and_times(store: EventStore) -> None:
    """The log reads back as given (versions, times, bytes), the meta hash is set."""
    assert await store.restore("g1", EVENTS, {"variant": "classic", "players": 2})
    assert await store.read("g1") == EVENTS
    assert await store.version("g1") == 3
    assert await store.get_meta("g1") == {"variant": b"classic", "players": b"2"}


async def test_restore_of_a_known_id_writes_nothing(
    store: EventStore, redis_client: aioredis.Redis
) -> None:
    """An id with a stream, or with meta alone, is taken: restore returns False and changes nothing."""
    await store.append("g1", [b"mine"], expected_version=0, command_id=None, at_ms=5)
    assert not await store.restore("g1", EVENTS, {"variant": "duel"})
    assert [e.data for e in await store.read("g1")] == [b"mine"]
    assert await store.get_meta("g1") == {}
    await redis_client.hset(meta_key("g2"), "seed", "1")
    assert not await store.restore("g2", EVENTS, {})
    assert await store.read("g2") == []


async def test_restore_refuses_versions_that_are_not_1_to_n(store: EventStore) -> None:
    """Versions must count 1, 2, … with no gap; nothing is written otherwise."""
    with pytest.raises(ValueError, match="versions"):
        await store.restore("g1", [EVENTS[0], EVENTS[2]], {})
    with pytest.raises(ValueError):
        await store.restore("g1", [], {})
    assert not await store.exists("g1")
