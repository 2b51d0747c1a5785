"""SPLENDOR_DURABILITY=replica at the store: an append is answered once a real replica
has it, and a replica that does not acknowledge in time makes it fail as a lost
connection would, the command's retry then being applied once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis

from server.common.settings import Settings, SettingsError
from server.store.availability import is_store_down
from server.store.durability import Durability, NotDurable
from server.store.event_store import EventStore, VersionConflict
from server.store.keys import events_key
from tests.replica_helpers import Replicated, replicated_redis

DURABLE = Durability(replicas=1, timeout_ms=200)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicated]:
    with replicated_redis(tmp_path_factory.mktemp("replicated")) as pair:
        yield pair


@pytest.fixture
async def client(pair: Replicated) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(pair.url)
    await client.flushdb()
    try:
        yield client
    finally:
        pair.resume_replica()
        await client.aclose()


async def test_an_append_is_answered_once_the_replica_has_it(
    pair: Replicated, client: aioredis.Redis
) -> None:
    """Each acknowledged append is already in the replica's copy of the stream (also
    when Redis has lost the script and it is sent whole)."""
    store = EventStore(client, DURABLE)
    for version in range(5):
        if version == 3:
            await client.script_flush()
        result = await store.append(
            "g1", [b"e%d" % version], expected_version=version, command_id=f"c{version}", at_ms=1
        )
        assert result.version == version + 1
        assert pair.replica_length(events_key("g1")) == version + 1


async def test_appends_made_at_once_share_their_waits_and_are_all_on_the_replica(
    pair: Replicated, client: aioredis.Redis
) -> None:
    """Twenty games appended to at once (the appends of one turn of the event loop
    share a WAIT on each connection): every answered append is on the replica."""
    store = EventStore(client, DURABLE)

    async def play(game_id: str) -> None:
        for version in range(3):
            await store.append(
                game_id, [b"e"], expected_version=version, command_id=f"c{version}", at_ms=1
            )
            assert pair.replica_length(events_key(game_id)) >= version + 1

    await asyncio.gather(*(play(f"many{n}") for n in range(20)))


async def test_without_a_replica_the_append_fails_as_a_lost_connection(
    pair: Replicated, client: aioredis.Redis
) -> None:
    """Replica paused: NotDurable, a store-down error (answered ``unavailable``); the
    retry with the same command id once the replica is back writes nothing more."""
    store = EventStore(client, DURABLE)
    await store.append("g2", [b"created"], expected_version=0, command_id=None, at_ms=1)
    pair.pause_replica()
    with pytest.raises(NotDurable) as failed:
        await store.append("g2", [b"move"], expected_version=1, command_id="m1", at_ms=2)
    assert is_store_down(failed.value)
    assert pair.primary_length(events_key("g2")) == 2  # written, not yet durable
    pair.resume_replica()
    again = await store.append("g2", [b"move"], expected_version=1, command_id="m1", at_ms=3)
    assert again.duplicate and again.version == 2
    assert [e.data for e in await store.read("g2")] == [b"created", b"move"]
    assert pair.replica_length(events_key("g2")) == 2


async def test_a_retry_on_another_connection_waits_for_the_first_write(
    pair: Replicated, client: aioredis.Redis
) -> None:
    """A duplicate met by another process is not answered while the write that
    recorded it is on no replica (the script writes the record again, so WAIT covers it)."""
    first = EventStore(client, DURABLE)
    await first.append("g3", [b"created"], expected_version=0, command_id=None, at_ms=1)
    other_client = aioredis.from_url(pair.url)
    try:
        other = EventStore(other_client, DURABLE)
        pair.pause_replica()
        with pytest.raises(NotDurable):
            await first.append("g3", [b"move"], expected_version=1, command_id="m1", at_ms=2)
        with pytest.raises(NotDurable):
            await other.append("g3", [b"move"], expected_version=1, command_id="m1", at_ms=2)
        pair.resume_replica()
        result = await other.append("g3", [b"move"], expected_version=1, command_id="m1", at_ms=2)
        assert result.duplicate and result.version == 2
    finally:
        await other_client.aclose()


async def test_durable_confirms_what_was_read(pair: Replicated, client: aioredis.Redis) -> None:
    """``durable`` returns once the replica has what was written before it, and raises
    NotDurable while the replica is paused."""
    plain = EventStore(client)  # no durability: answered by the primary alone
    store = EventStore(client, DURABLE)
    pair.pause_replica()
    await plain.append("g4", [b"created"], expected_version=0, command_id=None, at_ms=1)
    with pytest.raises(NotDurable):
        await store.durable(["g4"])
    pair.resume_replica()
    await store.durable(["g4"])
    assert pair.replica_length(events_key("g4")) == 1


async def test_a_version_conflict_is_still_a_conflict(
    pair: Replicated, client: aioredis.Redis
) -> None:
    """A stale expected version is refused as without durability (nothing to wait for)."""
    store = EventStore(client, DURABLE)
    await store.append("g5", [b"created"], expected_version=0, command_id=None, at_ms=1)
    with pytest.raises(VersionConflict):
        await store.append("g5", [b"x"], expected_version=0, command_id="c", at_ms=1)


def test_durability_of_settings() -> None:
    """The setting: off by default; ``replica`` waits for one replica with its timeout."""
    assert Durability.of(Settings()) is None
    on = Settings.from_env(
        {"SPLENDOR_DURABILITY": "replica", "SPLENDOR_DURABILITY_TIMEOUT_MS": "250"}
    )
    assert Durability.of(on) == Durability(replicas=1, timeout_ms=250)
    with pytest.raises(SettingsError):
        Settings.from_env({"SPLENDOR_DURABILITY": "always"})
    with pytest.raises(SettingsError):
        Settings.from_env({"SPLENDOR_DURABILITY_TIMEOUT_MS": "0"})
