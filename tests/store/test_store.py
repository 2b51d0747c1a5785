"""Contract tests for EventStore against a real Redis."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis.asyncio as aioredis

from server.store.clients import open_client
from server.store.event_store import (
    READ_PAGE,
    AppendResult,
    EventStore,
    StoredEvent,
    VersionConflict,
)
from server.store.keys import commands_key, events_key

T0 = 1_700_000_000_000


def ev(*names: str) -> list[bytes]:
    return [n.encode() for n in names]


async def test_append_then_read_back_in_order_with_versions(store: EventStore) -> None:
    """Appended events come back in order, numbered 1.. with their timestamps."""
    r1 = await store.append("g1", ev("a", "b"), expected_version=0, command_id=None, at_ms=T0)
    r2 = await store.append("g1", ev("c"), expected_version=2, command_id=None, at_ms=T0 + 5)
    assert r1 == AppendResult(version=2, duplicate=False)
    assert r2 == AppendResult(version=3, duplicate=False)
    assert await store.read("g1") == [
        StoredEvent(version=1, at_ms=T0, data=b"a"),
        StoredEvent(version=2, at_ms=T0, data=b"b"),
        StoredEvent(version=3, at_ms=T0 + 5, data=b"c"),
    ]
    assert await store.version("g1") == 3


async def test_stream_entries_use_version_ids_and_hash_tagged_keys(
    store: EventStore, redis_client: aioredis.Redis
) -> None:
    """The stream lives at game:{id}:events with entry ids <version>-0 and fields e, t."""
    await store.append("g1", ev("x", "y"), expected_version=0, command_id="c1", at_ms=T0)
    assert events_key("g1") == "game:{g1}:events"
    entries = await redis_client.xrange("game:{g1}:events")
    assert entries is not None
    assert [(i, f) for i, f in entries] == [
        (b"1-0", {b"e": b"x", b"t": str(T0).encode()}),
        (b"2-0", {b"e": b"y", b"t": str(T0).encode()}),
    ]
    assert await redis_client.hexists("game:{g1}:commands", "c1")


async def test_events_are_opaque_bytes(store: EventStore) -> None:
    """Arbitrary bytes (NUL, non-UTF-8, colons, empty) survive the round trip unchanged."""
    payloads = [b"\x00\xff\xfe:1-0", b"", "é☃".encode(), bytes(range(256))]
    await store.append("bin", payloads, expected_version=0, command_id=None, at_ms=T0)
    assert [e.data for e in await store.read("bin")] == payloads


async def test_read_ranges_after_and_until(store: EventStore) -> None:
    """read(after, until) returns exactly the versions after < v <= until."""
    await store.append("g", ev(*"abcdefghij"), expected_version=0, command_id=None, at_ms=T0)

    def versions(events: list[StoredEvent]) -> list[int]:
        return [e.version for e in events]

    assert versions(await store.read("g", after=3)) == [4, 5, 6, 7, 8, 9, 10]
    assert versions(await store.read("g", after=3, until=6)) == [4, 5, 6]
    assert versions(await store.read("g", until=2)) == [1, 2]
    assert versions(await store.read("g", after=10)) == []
    assert versions(await store.read("g", after=5, until=5)) == []
    assert versions(await store.read("g", after=8, until=100)) == [9, 10]


async def test_unknown_game_is_empty(store: EventStore) -> None:
    """An unknown game has version 0, no events, no meta, and does not exist."""
    assert await store.version("nope") == 0
    assert await store.read("nope") == []
    assert await store.get_meta("nope") == {}
    assert not await store.exists("nope")


async def test_stale_expected_version_conflicts_and_writes_nothing(store: EventStore) -> None:
    """A stale expected_version raises VersionConflict and leaves the stream unchanged."""
    await store.append("g", ev("a", "b"), expected_version=0, command_id=None, at_ms=T0)
    for stale in (0, 1, 3):
        with pytest.raises(VersionConflict) as info:
            await store.append("g", ev("z"), expected_version=stale, command_id=None, at_ms=T0)
        assert (info.value.expected, info.value.actual) == (stale, 2)
    assert [e.data for e in await store.read("g")] == [b"a", b"b"]


async def test_conflicting_command_id_is_not_recorded(
    store: EventStore, redis_client: aioredis.Redis
) -> None:
    """A command that lost on version is not remembered, so its retry can still apply."""
    await store.append("g", ev("a"), expected_version=0, command_id=None, at_ms=T0)
    with pytest.raises(VersionConflict):
        await store.append("g", ev("b"), expected_version=0, command_id="cmd", at_ms=T0)
    assert not await redis_client.hexists(commands_key("g"), "cmd")
    result = await store.append("g", ev("b"), expected_version=1, command_id="cmd", at_ms=T0)
    assert result == AppendResult(version=2, duplicate=False)


async def test_command_id_is_idempotent(store: EventStore) -> None:
    """The same command id twice gets the same version back and is written once."""
    first = await store.append(
        "g", ev("a", "b"), expected_version=0, command_id="cmd-1", at_ms=T0, reply=b"ok:1"
    )
    again = await store.append(
        "g", ev("a", "b"), expected_version=0, command_id="cmd-1", at_ms=T0 + 1
    )
    assert first == AppendResult(version=2, duplicate=False, reply=b"ok:1")
    assert again == AppendResult(version=2, duplicate=True, reply=b"ok:1")
    assert [e.data for e in await store.read("g")] == [b"a", b"b"]


async def test_the_record_of_a_command_id_can_be_read(store: EventStore) -> None:
    """recorded() gives what an append recorded for its command id, None for an unseen one."""
    await store.append("g", ev("a", "b"), expected_version=0, command_id="c1", at_ms=T0, reply=b"r")
    await store.append("g", ev("c"), expected_version=2, command_id=None, at_ms=T0)
    assert await store.recorded("g", "c1") == b"2:r"
    assert await store.recorded("g", "c2") is None
    assert await store.recorded("other", "c1") is None


async def test_duplicate_command_wins_over_a_moved_on_version(store: EventStore) -> None:
    """A retried command reports its recorded version even after the log moved on."""
    await store.append("g", ev("a"), expected_version=0, command_id="c1", at_ms=T0)
    await store.append("g", ev("b", "c"), expected_version=1, command_id="c2", at_ms=T0)
    retry = await store.append("g", ev("a"), expected_version=0, command_id="c1", at_ms=T0)
    assert retry == AppendResult(version=1, duplicate=True)
    assert await store.version("g") == 3


async def test_command_ids_are_per_game(store: EventStore) -> None:
    """The same command id in two games is two different commands."""
    a = await store.append("g1", ev("a"), expected_version=0, command_id="same", at_ms=T0)
    b = await store.append("g2", ev("b"), expected_version=0, command_id="same", at_ms=T0)
    assert not a.duplicate
    assert not b.duplicate


async def test_many_events_in_one_append_are_all_or_nothing(store: EventStore) -> None:
    """A 500-event append is either fully written or (on conflict) not at all."""
    batch = [f"e{i}".encode() for i in range(500)]
    result = await store.append("g", batch, expected_version=0, command_id="big", at_ms=T0)
    assert result.version == 500
    with pytest.raises(VersionConflict):
        await store.append("g", batch, expected_version=499, command_id="big2", at_ms=T0)
    events = await store.read("g")
    assert [e.data for e in events] == batch
    assert [e.version for e in events] == list(range(1, 501))


async def test_empty_append_is_refused_before_redis(store: EventStore) -> None:
    """Appending no events is a ValueError and creates nothing."""
    with pytest.raises(ValueError):
        await store.append("g", [], expected_version=0, command_id="c", at_ms=T0)
    assert not await store.exists("g")


async def test_invalid_game_ids_are_refused(store: EventStore) -> None:
    """Ids that would break the hash tag (braces) or are empty are refused."""
    for bad in ("", "a{b", "a}b"):
        with pytest.raises(ValueError):
            await store.version(bad)


async def test_concurrent_appends_exactly_one_wins(redis_url: str, store: EventStore) -> None:
    """20 concurrent appends at the same version: one wins, 19 conflict, no gap or duplicate."""
    await store.append("race", ev("start"), expected_version=0, command_id=None, at_ms=T0)
    clients = [
        await open_client(redis_url, max_connections=8, socket_connect_timeout=5) for _ in range(20)
    ]
    try:
        stores = [EventStore(c) for c in clients]

        async def attempt(i: int) -> int | None:
            try:
                res = await stores[i].append(
                    "race",
                    [f"w{i}-a".encode(), f"w{i}-b".encode()],
                    expected_version=1,
                    command_id=f"cmd-{i}",
                    at_ms=T0,
                )
            except VersionConflict as exc:
                assert exc.actual == 3
                return None
            assert res == AppendResult(version=3, duplicate=False)
            return i

        outcomes = await asyncio.gather(*(attempt(i) for i in range(20)))
    finally:
        for c in clients:
            await c.aclose()
    winners = [i for i in outcomes if i is not None]
    assert len(winners) == 1
    events = await store.read("race")
    assert [e.version for e in events] == [1, 2, 3]
    w = winners[0]
    assert [e.data for e in events[1:]] == [f"w{w}-a".encode(), f"w{w}-b".encode()]


async def test_tail_returns_new_events_across_two_games(store: EventStore) -> None:
    """One tail call sees new events of two games, each after its own given version."""
    await store.append("ga", ev("a1", "a2"), expected_version=0, command_id=None, at_ms=T0)
    await store.append("gb", ev("b1"), expected_version=0, command_id=None, at_ms=T0)
    got = await store.tail({"ga": 1, "gb": 0, "gc": 0}, block_ms=100)
    assert {g: [e.data for e in evs] for g, evs in got.items()} == {
        "ga": [b"a2"],
        "gb": [b"b1"],
    }
    assert got["ga"][0].version == 2


async def test_tail_wakes_up_on_a_later_append(store: EventStore) -> None:
    """A blocked tail returns as soon as another writer appends to a watched game."""
    await store.append("ga", ev("a1"), expected_version=0, command_id=None, at_ms=T0)

    async def later() -> None:
        await asyncio.sleep(0.1)
        await store.append("gb", ev("b1"), expected_version=0, command_id=None, at_ms=T0)

    writer = asyncio.create_task(later())
    started = time.monotonic()
    # The blocked XREAD holds one pooled connection; the writer takes another.
    got = await store.tail({"ga": 1, "gb": 0}, block_ms=5000)
    await writer
    assert time.monotonic() - started < 4
    assert list(got) == ["gb"]
    assert got["gb"] == [StoredEvent(version=1, at_ms=T0, data=b"b1")]


async def test_tail_times_out_with_empty_dict(store: EventStore) -> None:
    """With nothing new, tail waits about block_ms and returns {}."""
    await store.append("ga", ev("a1"), expected_version=0, command_id=None, at_ms=T0)
    started = time.monotonic()
    assert await store.tail({"ga": 1, "gb": 0}, block_ms=150) == {}
    assert time.monotonic() - started >= 0.1
    assert await store.tail({}, block_ms=10) == {}


async def test_tail_refuses_block_forever(store: EventStore) -> None:
    """block_ms=0 (Redis' block-forever) is refused."""
    with pytest.raises(ValueError):
        await store.tail({"g": 0}, block_ms=0)


async def test_tail_respects_count(store: EventStore) -> None:
    """tail returns at most count events per game; the rest come on the next call."""
    await store.append("g", ev(*"abcde"), expected_version=0, command_id=None, at_ms=T0)
    first = await store.tail({"g": 0}, block_ms=10, count=3)
    assert [e.version for e in first["g"]] == [1, 2, 3]
    second = await store.tail({"g": 3}, block_ms=10, count=3)
    assert [e.version for e in second["g"]] == [4, 5]


async def test_read_pages_over_long_logs(store: EventStore) -> None:
    """A log longer than one XRANGE page (1000) reads back whole and in order."""
    total = READ_PAGE * 2 + 345
    version = 0
    for start in range(0, total, 700):
        chunk = [f"{i}".encode() for i in range(start, min(start + 700, total))]
        version = (
            await store.append("long", chunk, expected_version=version, command_id=None, at_ms=T0)
        ).version
    assert version == total
    events = await store.read("long")
    assert [e.version for e in events] == list(range(1, total + 1))
    assert [e.data for e in events] == [f"{i}".encode() for i in range(total)]
    middle = await store.read("long", after=999, until=2001)
    assert [e.version for e in middle] == list(range(1000, 2002))


async def test_game_ids_lists_games(store: EventStore, redis_client: aioredis.Redis) -> None:
    """game_ids lists every game with a stream, and nothing else."""
    for g in ("b", "a", "c:with:colons"):
        await store.append(g, ev("x"), expected_version=0, command_id=None, at_ms=T0)
    await store.set_meta("meta-only", {"k": "v"})
    await redis_client.set("game:{fake}:events", b"not a stream")
    await redis_client.set("unrelated", b"1")
    assert await store.game_ids() == ["a", "b", "c:with:colons"]


async def test_meta_set_get_and_exists(store: EventStore) -> None:
    """Meta fields are merged on set and read back as bytes; meta alone makes a game exist."""
    await store.set_meta("g", {"kind": "duel", "players": 2, "raw": b"\x00\x01"})
    await store.set_meta("g", {"players": 3})
    await store.set_meta("g", {})
    assert await store.get_meta("g") == {"kind": b"duel", "players": b"3", "raw": b"\x00\x01"}
    assert await store.exists("g")
    await store.append("h", ev("x"), expected_version=0, command_id=None, at_ms=T0)
    assert await store.exists("h")
