"""The tailer on a Redis Cluster: notifications from every primary, and a primary's
death followed to the replica that takes its slots over."""

from __future__ import annotations

import asyncio

from redis.asyncio.cluster import RedisCluster

from server.store.clients import RedisClient
from server.store.event_store import EventStore
from server.store.keys import events_key
from tests.cluster_helpers import LocalCluster, ids_on_every_primary
from tests.server.test_ws_tailer import Delivered

T0 = 1_700_000_000_000


async def _append(store: EventStore, game_id: str, version: int) -> int:
    result = await store.append(
        game_id, [b"e%d" % (version + 1)], expected_version=version, command_id=None, at_ms=T0
    )
    return result.version


async def test_tailer_follows_every_primary_and_a_failover(
    redis_cluster: LocalCluster, cluster_client: RedisClient
) -> None:
    """Notified on a cluster, the tailer delivers every event of games on each of the three primaries, in order, once; when the primary of one game's slot is killed (SIGKILL), its replica takes over and the events appended there afterwards are delivered too, none missed nor repeated."""
    assert isinstance(cluster_client, RedisCluster)
    games = ids_on_every_primary(redis_cluster, "tail", per_primary=1)
    store = EventStore(cluster_client)
    seen = Delivered()
    tailer = seen.tailer_on(
        cluster_client, mode="notify"
    )  # a copy of it tails (server.web.game_socket)
    versions = dict.fromkeys(games, 0)
    killed = None
    try:
        for game_id in games:
            tailer.watch(game_id, 0)
        for _ in range(3):
            for game_id in games:
                versions[game_id] = await _append(store, game_id, versions[game_id])
        await seen.until(versions)

        victim = games[0]
        killed = redis_cluster.kill_primary_of(events_key(victim))
        await asyncio.to_thread(redis_cluster.wait_for_failover, events_key(victim))
        for _ in range(3):
            for game_id in games:
                versions[game_id] = await _append(store, game_id, versions[game_id])
        await seen.until(versions)
        assert seen.by_game == {g: list(range(1, 7)) for g in games}
    finally:
        await tailer.close()
        if killed is not None:
            await asyncio.to_thread(redis_cluster.restart, killed)
