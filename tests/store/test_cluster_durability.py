"""SPLENDOR_DURABILITY=replica on a Redis Cluster: an append's WAIT runs on the
primary of its game's slot, the tailer's probe on each primary read, and after a
failover an append waits for the new primary's replica."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

from server.store.availability import is_store_down
from server.store.clients import RedisClient
from server.store.durability import Durability
from server.store.event_store import EventStore
from server.store.keys import events_key
from tests.cluster_helpers import LocalCluster, ids_on_every_primary

DURABLE = Durability(replicas=1, timeout_ms=1000)


async def test_appends_on_every_primary_wait_for_their_replica(
    redis_cluster: LocalCluster, cluster_client: RedisClient
) -> None:
    """Durable appends to games on each of the three primaries are answered (each primary's replica acknowledged them), and a durable read of all three games probes every primary."""
    assert isinstance(cluster_client, RedisCluster)
    games = ids_on_every_primary(redis_cluster, "durable", per_primary=1)
    store = EventStore(cluster_client, DURABLE)
    for game_id in games:
        for version in range(3):
            result = await store.append(
                game_id, [b"e"], expected_version=version, command_id=f"c{version}", at_ms=1
            )
            assert result.version == version + 1
    await store.durable(games)
    assert [len(await store.read(g)) for g in games] == [3, 3, 3]


async def test_a_durable_append_after_a_failover_waits_for_the_new_primarys_replica(
    redis_cluster: LocalCluster, cluster_client: RedisClient
) -> None:
    """The primary of a game's slot killed (SIGKILL) and its replica promoted, with no replica of its own yet: a durable append fails as a lost connection would; once the killed node is back (a replica of the new primary), the retries with the same command id, each refused as a lost connection at worst, end answered, and the log holds each event once."""
    assert isinstance(cluster_client, RedisCluster)
    (game_id,) = ids_on_every_primary(redis_cluster, "failover", per_primary=1)[:1]
    store = EventStore(cluster_client, DURABLE)
    await store.append(game_id, [b"a"], expected_version=0, command_id="c0", at_ms=1)
    killed = redis_cluster.kill_primary_of(events_key(game_id))
    try:
        await asyncio.to_thread(redis_cluster.wait_for_failover, events_key(game_id))
        with pytest.raises(RedisError) as refused:
            await store.append(game_id, [b"b"], expected_version=1, command_id="c1", at_ms=1)
        assert is_store_down(refused.value)
    finally:
        await asyncio.to_thread(redis_cluster.restart, killed)
    for _ in range(10):  # as a client does: sent again while answered as a lost connection
        try:
            result = await store.append(
                game_id, [b"b"], expected_version=1, command_id="c1", at_ms=1
            )
            break
        except RedisError as e:
            assert is_store_down(e), e
            await asyncio.sleep(0.1)
    else:
        raise AssertionError("the retries after the failover were all refused")
    assert result.version == 2
    assert [e.data for e in await store.read(game_id)] == [b"a", b"b"]
