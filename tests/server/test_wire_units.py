"""Small pieces of the server: packed log reads, wire events and times, the rate limiter."""

from __future__ import annotations

import redis.asyncio as aioredis

from events.base import PlayerJoined
from events.classic.events import CardReserved
from server.projection import LOAD_LUA, pairs, unpack_log
from server.ratelimit import RateLimiter
from server.store import EventStore, archive_key, events_key, meta_key
from server.wire import event_to_wire, iso_time


async def test_the_packed_log_reads_what_the_store_wrote(
    store: EventStore, redis_client: aioredis.Redis
) -> None:
    """The one-round-trip load returns the store's events byte for byte, meta and seats."""
    payloads = [b"a b\nc", b"", b"\x00\xff 12 34\n\n", b'{"type":"X"}' * 50]
    await store.append("g", payloads[:2], expected_version=0, command_id=None, at_ms=5)
    await store.append("g", payloads[2:], expected_version=2, command_id="c", at_ms=9)
    await store.set_meta("g", {"seed": 42, "variant": "classic"})
    await redis_client.hset("game:{g}:seats", "0", "abc")
    script = redis_client.register_script(LOAD_LUA)
    keys = [events_key("g"), meta_key("g"), "game:{g}:seats", archive_key("g")]
    packed, meta, seats = await script(keys=keys)
    assert unpack_log(packed) == await store.read("g")
    assert pairs(meta) == {"seed": b"42", "variant": b"classic"}
    assert pairs(seats) == {"0": b"abc"}
    empty, _, _ = await script(
        keys=[events_key("h"), meta_key("h"), "game:{h}:seats", archive_key("h")]
    )
    assert unpack_log(empty) == []


def test_wire_events_name_every_field_with_version_type_and_time() -> None:
    """An event on the wire: version, type, ISO-8601 UTC time, then all its fields."""
    wire = event_to_wire(CardReserved(1, 2, None, True), 7, 1_700_000_000_123)
    assert wire == {
        "version": 7,
        "type": "CardReserved",
        "at": "2023-11-14T22:13:20.123Z",
        "seat": 1,
        "level": 2,
        "card": None,
        "blind": True,
        "gold": 0,
    }
    assert list(wire)[:3] == ["version", "type", "at"]
    assert event_to_wire(PlayerJoined(0, "Ana", None), 2, 0)["bot"] is None
    assert iso_time(0) == "1970-01-01T00:00:00.000Z"


def test_the_token_bucket_allows_a_burst_then_the_rate() -> None:
    """burst commands at once, then one per 1/rate seconds; keys are independent."""
    now = [0.0]
    limiter = RateLimiter(rate=2, burst=3, clock=lambda: now[0])
    assert [limiter.allow("a") for _ in range(3)] == [None, None, None]
    wait = limiter.allow("a")
    assert wait is not None and abs(wait - 0.5) < 1e-9
    assert limiter.allow("b") is None
    now[0] = 0.5
    assert limiter.allow("a") is None
    assert limiter.allow("a") is not None
    assert RateLimiter(rate=0, burst=1).allow("a") is None
