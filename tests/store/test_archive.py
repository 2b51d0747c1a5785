"""The archive of a finished game (server/store/archive_format.py) and its swap in the store
(EventStore.archive) against real Redis: the format round trip, and every read of the
store giving an archived game's log as its stream gave it."""

from __future__ import annotations

import asyncio
import hashlib

import pytest
import redis.asyncio as aioredis

from server.store import archive_format as archive
from server.store.event_store import EventStore, StoredEvent, VersionConflict
from server.store.keys import archive_key, commands_key, events_key, meta_key

CREATED = b'{"type":"GameCreated","game":"g1","variant":"classic","players":2}'
EVENTS = [
    (1_767_225_600_123, CREATED),
    (1_767_225_600_123, b'{"type":"PlayerJoined","seat":0,"name":"Ana \\n","bot":null}'),
    (1_767_225_599_000, b'{"type":"PlayerJoined","seat":1,"name":"Bo","bot":"greedy"}'),
    (1_767_225_660_000, b'{"type":"TurnEnded","seat":1,"next_seat":0}'),
]
DIGESTS = {0: hashlib.sha256(b"token").hexdigest(), 3: hashlib.sha256(b"other").hexdigest()}


def test_an_archive_reads_back_its_events_times_and_digests() -> None:
    """Events, their times (one going back in time too) and the seats' digests come back exactly; the header gives the count without inflating."""
    value = archive.encode("classic", EVENTS, DIGESTS)
    assert value.startswith(b"1 classic 4\n")
    assert archive.archived_version(value) == 4
    assert archive.decode(value) == archive.Archive(EVENTS, DIGESTS)
    duel = archive.encode("duel", EVENTS[:1], {})
    assert archive.decode(duel) == archive.Archive(EVENTS[:1], {})


def test_what_is_not_an_archive_is_refused() -> None:
    """A log with a raw newline, no events, an unknown dictionary, a damaged value: ArchiveError, never a wrong log."""
    with pytest.raises(archive.ArchiveError):
        archive.encode("classic", [(1, b"a\nb")], {})
    with pytest.raises(archive.ArchiveError):
        archive.encode("classic", [], {})
    with pytest.raises(archive.ArchiveError):
        archive.encode("../x", EVENTS, {})
    with pytest.raises(archive.ArchiveError):
        archive.encode("classic", EVENTS, {0: "abcd"})
    value = archive.encode("classic", EVENTS, DIGESTS)
    for damaged in (b"2" + value[1:], value[:-20], b"1 classic 5\n" + value[12:], b"xyz"):
        with pytest.raises(archive.ArchiveError):
            archive.decode(damaged)


async def _live_game(store: EventStore, game_id: str = "g1") -> list[StoredEvent]:
    for i, (at_ms, data) in enumerate(EVENTS):
        await store.append(game_id, [data], expected_version=i, command_id=f"c{i}", at_ms=at_ms)
    await store.set_meta(game_id, {"variant": "classic", "players": 2, "seed": 42})
    await store.client.hset(f"game:{{{game_id}}}:seats", "0", DIGESTS[0])
    return await store.read(game_id)


async def test_an_archived_game_reads_as_its_stream_did(
    store: EventStore, redis_client: aioredis.Redis
) -> None:
    """After the swap only meta (without seed) and the archive are left, and read, read after/until, version, exists and game_ids answer as before."""
    stored = await _live_game(store)
    value = archive.encode("classic", [(e.at_ms, e.data) for e in stored], DIGESTS)
    seats = "game:{g1}:seats"
    assert await store.archive("g1", 4, value, (seats,)) == 1
    keys = sorted([k.decode() async for k in redis_client.scan_iter(match="game:{g1}:*")])
    assert keys == [archive_key("g1"), meta_key("g1")]
    assert await store.get_meta("g1") == {"variant": b"classic", "players": b"2"}
    assert await store.read("g1") == stored
    assert await store.read("g1", after=1) == stored[1:]
    assert await store.read("g1", after=1, until=3) == stored[1:3]
    assert await store.read("g1", after=4) == []
    assert await store.version("g1") == 4
    assert await store.exists("g1")
    await _live_game(store, "g2")
    assert await store.game_ids() == ["g1", "g2"]
    assert await store.archived("g1") == value
    assert await store.archived("g2") is None


async def test_the_swap_happens_once_and_only_at_the_version_given(
    store: EventStore, redis_client: aioredis.Redis
) -> None:
    """Two swaps at once: one does it, the other finds it done; a swap at another version than the stream's writes nothing; an append (even at version 0) finds the game at its archived version."""
    stored = await _live_game(store)
    value = archive.encode("classic", [(e.at_ms, e.data) for e in stored], {})
    assert await store.archive("g1", 3, value) == -1
    assert await redis_client.exists(events_key("g1"), commands_key("g1")) == 2
    assert await store.archived("g1") is None
    done = await asyncio.gather(*(store.archive("g1", 4, value) for _ in range(5)))
    assert sorted(done) == [0, 0, 0, 0, 1]
    for expected in (0, 4):
        with pytest.raises(VersionConflict) as conflict:
            await store.append("g1", [b"{}"], expected_version=expected, command_id=None, at_ms=1)
        assert conflict.value.actual == 4
    assert not await redis_client.exists(events_key("g1"))
    with pytest.raises(ValueError, match="hash tag"):
        await store.archive("g2", 1, value, ("game:{g1}:seats",))


async def test_restore_of_an_archived_id_writes_nothing(
    store: EventStore, redis_client: aioredis.Redis
) -> None:
    """An id taken by an archive alone (its meta deleted) is still taken: restore writes nothing beside it."""
    stored = await _live_game(store)
    value = archive.encode("classic", [(e.at_ms, e.data) for e in stored], {})
    assert await store.archive("g1", 4, value) == 1
    await redis_client.delete(meta_key("g1"))
    assert not await store.restore("g1", stored, {"variant": "classic"})
    assert not await redis_client.exists(events_key("g1"), meta_key("g1"))


def test_the_shipped_dictionaries_never_change() -> None:
    """Every archive of format 1 is read with these dictionaries, for ever: a new one comes with a new format number."""
    digests = {
        name: hashlib.sha256(archive.dictionary(name, 1)).hexdigest()
        for name in ("classic", "duel")
    }
    assert digests == {
        "classic": "5fa5ce8445dffd11c26864fc931aefb70d85b058401d1f56de596e00cd813989",
        "duel": "300845ec40ffdb338b25325c9422e826ae832eca8c5ac8060fe76dad1e60677a",
    }
