"""The notifications' subscriber (server/redis_pubsub.py) on a real Redis: messages to a
callback in order, keyspace notifications of appends, a lost connection."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from server.redis_pubsub import Subscriber
from server.store import EventStore, events_key


class Heard:
    """What a subscriber's callbacks were given."""

    def __init__(self) -> None:
        self.messages: list[tuple[bytes, bytes]] = []
        self.lost: list[Exception] = []
        self.news = asyncio.Event()

    def message(self, channel: bytes, data: bytes) -> None:
        self.messages.append((channel, data))
        self.news.set()

    def gone(self, error: Exception) -> None:
        self.lost.append(error)
        self.news.set()

    async def until(self, count: int) -> None:
        async with asyncio.timeout(5):
            while len(self.messages) < count:
                self.news.clear()
                await self.news.wait()


@pytest.fixture
async def heard(redis_client: aioredis.Redis) -> AsyncIterator[tuple[Subscriber, Heard]]:
    """A subscriber on the test's Redis and what it heard; closed at the end."""
    log = Heard()
    subscriber = Subscriber(redis_client, log.message, log.gone)
    yield subscriber, log
    await subscriber.aclose()
    assert log.lost == []


async def test_messages_reach_the_callback_in_order_once_subscribed(
    redis_client: aioredis.Redis, heard: tuple[Subscriber, Heard]
) -> None:
    """Once subscribe returns, every message published is handed over, in order; not after
    an unsubscribe."""
    subscriber, log = heard
    await subscriber.subscribe([b"a", "b"])
    assert subscriber.connected
    for i in range(50):
        assert await redis_client.publish("a" if i % 2 else "b", f"m{i}") == 1
    await log.until(50)
    assert log.messages == [(b"a" if i % 2 else b"b", f"m{i}".encode()) for i in range(50)]
    await subscriber.unsubscribe(["a"])
    assert await redis_client.publish("a", "late") == 0
    assert await redis_client.publish("b", "last") == 1
    await log.until(51)
    assert log.messages[-1] == (b"b", b"last")


async def test_an_append_is_heard_as_one_keyspace_notification_per_event(
    redis_client: aioredis.Redis, store: EventStore, heard: tuple[Subscriber, Heard]
) -> None:
    """With stream keyspace notifications on, an append of three events is heard three times."""
    subscriber, log = heard
    before = (await redis_client.config_get("notify-keyspace-events"))["notify-keyspace-events"]
    await redis_client.config_set("notify-keyspace-events", "Kt")
    try:
        channel = f"__keyspace@0__:{events_key('g1')}".encode()
        await subscriber.subscribe([channel])
        await store.append("g1", [b"a", b"b", b"c"], expected_version=0, command_id="c", at_ms=1)
        await log.until(3)
        assert log.messages == [(channel, b"xadd")] * 3
    finally:
        await redis_client.config_set("notify-keyspace-events", before)


async def test_a_lost_connection_is_told_once_and_a_new_subscribe_reconnects(
    redis_client: aioredis.Redis,
) -> None:
    """Killed by Redis, the subscriber calls on_lost once; subscribing again works on a new
    connection."""
    log = Heard()
    subscriber = Subscriber(redis_client, log.message, log.gone)
    try:
        await subscriber.subscribe(["c"])
        assert await redis_client.client_kill_filter(_type="pubsub") == 1
        async with asyncio.timeout(5):
            while not log.lost:
                log.news.clear()
                await log.news.wait()
        assert len(log.lost) == 1 and not subscriber.connected
        assert await redis_client.publish("c", "unheard") == 0
        await subscriber.subscribe(["c"])
        assert await redis_client.publish("c", "heard") == 1
        await log.until(1)
        assert log.messages == [(b"c", b"heard")]
    finally:
        await subscriber.aclose()
    assert len(log.lost) == 1
