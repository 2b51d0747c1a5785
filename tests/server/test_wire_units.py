"""Small pieces of the server: packed log reads, wire events and times, the rate limiter."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis.asyncio as aioredis
from hypothesis import given, settings
from hypothesis import strategies as st

from events.base import PlayerJoined
from events.classic.events import CardReserved
from events.game import DUEL
from server.common.wire import event_to_wire, iso_time
from server.store.event_store import EventStore
from server.web.rate_limits import RateLimiter
from tests.duel_helpers import DUEL_EVENTS, every_field_named, optional_fields


async def test_the_packed_log_reads_what_the_store_wrote(
    store: EventStore, redis_client: aioredis.Redis
) -> None:
    """The one-round-trip load returns the store's events byte for byte, meta and seats."""
    payloads = [b"a b\nc", b"", b"\x00\xff 12 34\n\n", b'{"type":"X"}' * 50]
    await store.append("g", payloads[:2], expected_version=0, command_id=None, at_ms=5)
    await store.append("g", payloads[2:], expected_version=2, command_id="c", at_ms=9)
    await store.set_meta("g", {"seed": 42, "variant": "classic"})
    await redis_client.hset("game:{g}:seats", "0", "abc")
    loaded = await store.load("g")
    assert loaded.events == await store.read("g")
    assert loaded.meta == {"seed": b"42", "variant": b"classic"}
    assert loaded.digests == {0: "abc"} and not loaded.archived
    assert (await store.load("h")).events == []


def test_wire_events_name_every_field_with_version_type_and_time() -> None:
    """A classic event on the wire: version, type, ISO-8601 UTC time, then all its fields, defaults included."""
    wire = event_to_wire(CardReserved(1, 2, None, True), 7, 1_700_000_000_123, "classic")
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
    assert event_to_wire(PlayerJoined(0, "Ana", None), 2, 0, "classic")["bot"] is None
    assert iso_time(0) == "1970-01-01T00:00:00.000Z"


DUEL_DOC = Path(__file__).resolve().parents[2] / "docs" / "duel.md"


def payload(wire: dict[str, Any]) -> dict[str, Any]:
    """A wire event without what the log adds (its version and time)."""
    return {k: v for k, v in wire.items() if k not in ("version", "at")}


@pytest.mark.parametrize("kind", DUEL_EVENTS, ids=lambda kind: kind.__name__)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_duel_event_leaves_out_its_fields_at_their_default(
    kind: type[Any], data: st.DataObject
) -> None:
    """Every Duel event type, its optional fields at their defaults: the wire names every other field and none of them, and reads back (as an import and the stream read it) to the same event."""
    event = data.draw(st.builds(kind))  # builds fills the required fields only
    wire = event_to_wire(event, 7, 1_700_000_000_123, "duel")
    named = {f.encode_name for f in msgspec.structs.fields(kind)}
    assert list(wire)[:3] == ["version", "type", "at"]
    assert set(wire) == {"version", "type", "at", *(named - optional_fields(kind))}
    assert msgspec.convert(payload(wire), DUEL.event_type) == event
    assert DUEL.event_decoder().decode(msgspec.json.encode(payload(wire))) == event


@pytest.mark.parametrize("kind", DUEL_EVENTS, ids=lambda kind: kind.__name__)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_duel_event_with_its_defaults_named_still_reads_back(
    kind: type[Any], data: st.DataObject
) -> None:
    """Every Duel event type written with every field named, its defaults as explicit nulls and falses (older logs and exports): it reads back to the same event, which the store writes and the wire shows without them."""
    event = data.draw(st.builds(kind))
    explicit = every_field_named(event)
    assert DUEL.event_decoder().decode(msgspec.json.encode(explicit)) == event
    assert msgspec.convert(explicit, DUEL.event_type) == event
    stored = msgspec.json.encode(event)
    assert msgspec.json.encode(payload(event_to_wire(event, 1, 0, "duel"))) == stored
    assert not optional_fields(kind) & set(msgspec.json.decode(stored))


def test_duel_md_marks_exactly_the_fields_left_out_at_their_default() -> None:
    """docs/duel.md's events table marks with ? (or as omitted) every field of a Duel event that has a default, and no other."""
    rows = re.findall(r"^\| `(\w+)` \| (.*?) \|", DUEL_DOC.read_text(encoding="utf-8"), re.M)
    marked = {name: set(re.findall(r"`(\w+)`\?", fields)) for name, fields in rows}
    documented = [kind for kind in DUEL_EVENTS if kind.__struct_config__.tag in marked]
    assert len(documented) >= 15
    for kind in documented:
        assert marked[kind.__struct_config__.tag] == optional_fields(kind), kind.__name__


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
