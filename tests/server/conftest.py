"""Fixtures of the server tests: the service and the ASGI app on the session's Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
import redis.asyncio as aioredis
from starlette.applications import Starlette

from server.common.settings import Settings
from server.games.lobby import Lobby
from server.games.service import GameService
from server.store.event_store import EventStore
from server.web.app import create_app
from server.web.state import running


@pytest.fixture
def service(store: EventStore) -> GameService:
    """A game service with its lobby, on the test's emptied database."""
    return GameService(store, Lobby(store.client))


@pytest.fixture
def settings(redis_server: str) -> Settings:
    """Settings on the session's Redis, with no rate limit (tests send fast) and no
    analysis of finished games (its tests ask for it: server/workers/analyser.py)."""
    return Settings(redis_url=redis_server, analysis_budget=0).without_rate_limits()


@pytest.fixture
async def app(redis_client: aioredis.Redis, settings: Settings) -> AsyncIterator[Starlette]:
    """The whole app with its lifespan running (database emptied first by redis_client),
    its lobby built (in the background at start-up: awaited, so tests see no late write)."""
    application = create_app(settings, plugins=False)
    async with application.router.lifespan_context(application):
        await running(application).service.listing.ready()
        yield application


@pytest.fixture
async def http(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client talking to the app in-process (ASGI)."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://splendor.test") as client:
        yield client
