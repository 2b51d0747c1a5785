"""The store's contract runs on one Redis and on a Redis Cluster: the tests of
``CONTRACT_MODULES`` get ``redis_client`` (and so ``store``) once for each."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Final

import pytest
import redis.asyncio as aioredis

from server.store.clients import RedisClient, open_client
from tests.cluster_helpers import LocalCluster

CONTRACT_MODULES: Final = {
    "test_store",
    "test_restore",
    "test_deadlines",
    "test_repository",
    "test_mail_outbox",
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.module.__name__.rsplit(".", 1)[-1]
    if module in CONTRACT_MODULES and "redis_kind" in metafunc.fixturenames:
        metafunc.parametrize("redis_kind", ["single", "cluster"], indirect=True)


@pytest.fixture
def redis_kind(request: pytest.FixtureRequest) -> str:
    """ "single" (the session's Redis) or "cluster" (the session's Redis Cluster)."""
    return str(getattr(request, "param", "single"))


@pytest.fixture
def redis_url(redis_kind: str, redis_server: str, request: pytest.FixtureRequest) -> str:
    """The URL of the test's Redis: one node of the cluster for "cluster"."""
    if redis_kind == "cluster":
        cluster: LocalCluster = request.getfixturevalue("redis_cluster")
        return cluster.url
    return redis_server


@pytest.fixture
async def redis_client(redis_kind: str, redis_url: str) -> AsyncIterator[RedisClient]:
    """An emptied database's client: plain, or redis-py's cluster client (every
    primary flushed) as ``splendor serve`` would pick for the URL."""
    client: RedisClient
    if redis_kind == "cluster":
        client = await open_client(redis_url, max_connections=64, socket_connect_timeout=5)
        await client.flushall(target_nodes="primaries")
    else:
        client = aioredis.from_url(redis_url, decode_responses=False)
        await client.flushdb()
    try:
        yield client
    finally:
        await client.aclose()
