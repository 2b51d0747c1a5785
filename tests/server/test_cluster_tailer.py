"""The tailer on a Redis Cluster: notifications from every primary, and a primary's
death followed to the replica that takes its slots over."""

from __future__ import annotations

import asyncio

from redis.asyncio.cluster import RedisCluster

from server.redis_cluster import RedisClient, copy_client
from server.store import EventStore, StoredEvent, events_key
from server.tailer import Tailer
from tests.cluster_helpers import LocalCluster, ids_on_every_primary

T0 = 1_700_000_000_000
WAIT_S = 30


class Seen:
    """What a tailer delivered, game by game, advancing it as a hub would."""

    def __init__(self) -> None:
        self.tailer: Tailer | None = None
        self.versions: dict[str, list[int]] = {}
        self.news = asyncio.Event()

    def deliver(self, game_id: str, events: list[StoredEvent]) -> None:
        self.versions.setdefault(game_id, []).extend(e.version for e in events)
        assert self.tailer is not None
        self.tailer.advance(game_id, events[-1].version)
        self.news.set()

    async def until(self, wanted: dict[str, int]) -> None:
        while any(self.versions.get(g, [0])[-1:] != [v] for g, v in wanted.items()):
            self.news.clear()
            await asyncio.wait_for(self.news.wait(), WAIT_S)


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
    seen = Seen()
    tailer = Tailer(copy_client(cluster_client), cluster_client, seen.deliver, mode="notify")
    seen.tailer = tailer
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
        assert seen.versions == {g: list(range(1, 7)) for g in games}
    finally:
        await tailer.close()
        if killed is not None:
            await asyncio.to_thread(redis_cluster.restart, killed)
