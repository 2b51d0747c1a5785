"""Fixtures of the store tests on a real Redis Cluster."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio.cluster import RedisCluster

from tests.cluster_helpers import LocalCluster


@pytest.fixture
async def cluster_client(redis_cluster: LocalCluster) -> AsyncIterator[RedisCluster]:
    """A cluster client on the session's Redis Cluster, emptied first."""
    redis_cluster.flush()
    client = RedisCluster.from_url(redis_cluster.nodes[0].url)
    try:
        yield client
    finally:
        await client.aclose()
