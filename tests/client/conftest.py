"""Fixtures of the client tests: server settings on the session's emptied Redis."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from server.common.settings import Settings


@pytest.fixture
def settings(redis_client: aioredis.Redis, redis_server: str) -> Settings:
    """Settings on the session's Redis (emptied by redis_client), with no rate limit."""
    return Settings(redis_url=redis_server).without_rate_limits()
