"""The start-up choice between each fast path and the public API (server/store/fast_paths.py):
the capability checks against stand-in classes, the one log line, the environment
variable, and the public Redis paths working on a real Redis."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection, ConnectionPool
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from server.store import fast_paths
from server.store.event_store import EventStore
from server.store.fast_paths import (
    PUBLIC_PATHS_ENV,
    choose,
    command_path,
    redis_shortfall,
    subscription_path,
)
from server.store.public_path import PublicRedis, PublicSubscription, Script
from server.web.socket_fast_paths import uvicorn_protocols, uvicorn_shortfall


@pytest.fixture(autouse=True)
def fresh_choices() -> Iterator[None]:
    """Each test chooses afresh, and leaves the process's choice as it found it."""
    saved = dict(fast_paths._choices)
    fast_paths.forget_choices()
    yield
    fast_paths.forget_choices()
    fast_paths._choices.update(saved)


class ConnectionWithoutWriter:
    """A redis-py connection as a future version might have it: no ``_writer``."""

    def __init__(self) -> None:
        self._reader = None

    async def connect(self) -> None:
        pass

    async def disconnect(self, nowait: bool = False) -> None:
        pass


class ConnectionWithOldDisconnect:
    """Has what the fast path reads, but ``disconnect`` takes no ``nowait``."""

    def __init__(self) -> None:
        self._writer = None

    async def connect(self) -> None:
        pass

    async def disconnect(self) -> None:
        pass


class PoolOfRedis5:
    """A pool as redis-py 5.0 had it: ``get_connection`` needs a command name."""

    def __init__(self) -> None:
        self.connection_kwargs: dict[str, Any] = {}

    async def get_connection(self, command_name: str, *keys: Any) -> None:
        pass

    async def release(self, connection: Any) -> None:
        pass


class WebSocketsWithoutFrames(WebSocketsSansIOProtocol):
    """uvicorn's protocol with a method the fast path overrides taken away."""

    send_receive_event_to_app = None  # type: ignore[assignment]


def test_the_installed_libraries_are_checked_by_what_they_offer() -> None:
    """The checks pass on the versions the fast paths were written against (redis-py 8.1, uvicorn 0.54) and name what a stand-in lacks."""
    if fast_paths.version("redis").startswith("8.1."):
        assert redis_shortfall(AbstractConnection, ConnectionPool) is None
    if fast_paths.version("uvicorn").startswith("0.54."):
        assert uvicorn_shortfall(WebSocketsSansIOProtocol, HttpToolsProtocol) is None
    missing_writer = redis_shortfall(ConnectionWithoutWriter)
    assert missing_writer is not None and "ConnectionWithoutWriter._writer" in missing_writer
    old = redis_shortfall(ConnectionWithOldDisconnect)
    assert old == "ConnectionWithOldDisconnect.disconnect() takes no nowait"
    assert (
        redis_shortfall(pool_class=PoolOfRedis5) == "PoolOfRedis5.get_connection() needs arguments"
    )
    no_frames = uvicorn_shortfall(WebSocketsWithoutFrames)
    assert no_frames is not None
    assert "WebSocketsWithoutFrames.send_receive_event_to_app()" in no_frames


def test_a_failed_check_falls_back_with_one_log_line(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A check that finds a missing attribute chooses the public path, says so in one warning line naming it, and is not made again."""
    monkeypatch.delenv(PUBLIC_PATHS_ENV, raising=False)
    calls: list[int] = []

    def check() -> str | None:
        calls.append(1)
        return redis_shortfall(ConnectionWithoutWriter)

    with caplog.at_level(logging.INFO, logger="server.store.fast_paths"):
        assert choose("redis_direct", "redis", check) is False
        assert choose("redis_direct", "redis", check) is False
    assert len(calls) == 1
    lines = [r.getMessage() for r in caplog.records if r.name == "server.store.fast_paths"]
    assert len(lines) == 1, lines
    assert lines[0].startswith("public path: redis_direct not used on redis ")
    assert "ConnectionWithoutWriter._writer" in lines[0]
    assert caplog.records[0].levelno == logging.WARNING


def test_the_environment_variable_forces_the_public_paths(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, redis_client: Any
) -> None:
    """With SPLENDOR_PUBLIC_PATHS=1 the command path is the redis.asyncio client, subscriptions are its PubSub, and uvicorn runs its own h11 and websockets-sansio protocols: one line for each."""
    monkeypatch.setenv(PUBLIC_PATHS_ENV, "1")
    with caplog.at_level(logging.INFO, logger="server.store.fast_paths"):
        assert isinstance(command_path(redis_client), PublicRedis)
        assert isinstance(subscription_path(redis_client, lambda c, m: None), PublicSubscription)
        options = uvicorn_protocols(10.0)
        command_path(redis_client)
    assert options["ws"] == "websockets-sansio" and options["http"] == "h11"
    lines = [r.getMessage() for r in caplog.records if r.name == "server.store.fast_paths"]
    assert lines == [
        f"public path: redis_direct not used on redis {fast_paths.version('redis')} ({PUBLIC_PATHS_ENV} is set)",
        f"public path: uvicorn_protocols not used on uvicorn {fast_paths.version('uvicorn')} ({PUBLIC_PATHS_ENV} is set)",
    ]


async def test_the_public_command_path_gives_redis_replies_as_the_direct_one(
    monkeypatch: pytest.MonkeyPatch, redis_client: Any
) -> None:
    """On the public path an event store appends, reads back, recognises a repeated command id, and a script unknown to Redis is sent whole."""
    monkeypatch.setenv(PUBLIC_PATHS_ENV, "1")
    store = EventStore(redis_client)
    assert isinstance(store._direct, PublicRedis)
    first = await store.append("g1", [b"e1", b"e2"], expected_version=0, command_id="c1", at_ms=5)
    again = await store.append("g1", [b"e1", b"e2"], expected_version=0, command_id="c1", at_ms=5)
    assert (first.version, first.duplicate) == (2, False)
    assert (again.version, again.duplicate) == (2, True)
    assert [e.version for e in await store.read("g1")] == [1, 2]
    assert await store.recorded("g1", "c1") is not None
    await redis_client.script_flush()
    echo = Script("return {KEYS[1], ARGV[1]}")
    assert await store._direct.run(echo, (b"k",), (b"v",)) == [b"k", b"v"]


async def test_a_public_subscription_confirms_notifies_and_reports_its_loss(
    monkeypatch: pytest.MonkeyPatch, redis_client: Any
) -> None:
    """A PubSub subscription returns once confirmed, hands each message on, and a killed connection is reported once rather than silently made again."""
    monkeypatch.setenv(PUBLIC_PATHS_ENV, "1")
    messages: list[tuple[bytes, bytes]] = []
    lost = asyncio.Event()
    path = subscription_path(redis_client, lambda c, m: messages.append((c, m)), lost.set)
    subscriber = await path.connected()
    await subscriber.subscribe([b"chan:a", b"chan:b"])
    await redis_client.publish(b"chan:a", b"one")
    await redis_client.publish(b"chan:b", b"two")
    subscriber.unsubscribe([b"chan:b"])
    for _ in range(200):
        if len(messages) == 2 and await redis_client.pubsub_numsub(b"chan:b") == [(b"chan:b", 0)]:
            break
        await asyncio.sleep(0.01)
    assert messages == [(b"chan:a", b"one"), (b"chan:b", b"two")]
    await redis_client.client_kill_filter(_type="pubsub")
    await asyncio.wait_for(lost.wait(), 10)
    assert subscriber.lost is not None and path.protocol is subscriber
    again = await path.connected()
    assert again is not subscriber
    await again.subscribe([b"chan:a"])
    await redis_client.publish(b"chan:a", b"three")
    for _ in range(200):
        if len(messages) == 3:
            break
        await asyncio.sleep(0.01)
    assert messages[-1] == (b"chan:a", b"three")
    await path.aclose()
    await aioredis.Redis(connection_pool=redis_client.connection_pool).aclose()


@pytest.mark.parametrize("public", [True, False], ids=["public", "direct"])
async def test_subscriptions_made_at_once_share_one_connection_and_all_arrive(
    monkeypatch: pytest.MonkeyPatch, redis_client: Any, redis_server: str, public: bool
) -> None:
    """Twenty games subscribed at once on a fresh client (twenty sockets opening together), then each unsubscribed and at once subscribed again (a hub dropped and made again): each is confirmed, on one connection, and every channel's message arrives (redis-py's PubSub is not safe for calls at once: two would each take a connection, and one's subscription be read by nobody)."""
    if public:
        monkeypatch.setenv(PUBLIC_PATHS_ENV, "1")
    client = aioredis.Redis.from_url(redis_server)
    messages: list[tuple[bytes, bytes]] = []
    path = subscription_path(client, lambda c, m: messages.append((c, m)))
    channels = [b"chan:%d" % n for n in range(20)]
    try:
        subscriber = await path.connected()
        await asyncio.wait_for(asyncio.gather(*(subscriber.subscribe([c]) for c in channels)), 15)
        for channel in channels[:10]:
            subscriber.unsubscribe([channel])
            await asyncio.wait_for(subscriber.subscribe([channel]), 15)
        clients = await redis_client.client_list(_type="pubsub")
        assert len(clients) == 1, clients
        for channel in channels:
            await redis_client.publish(channel, b"m")
        for _ in range(300):
            if len(messages) == len(channels):
                break
            await asyncio.sleep(0.01)
        assert sorted(c for c, _ in messages) == sorted(channels)
    finally:
        await path.aclose()
        await client.aclose()


async def test_a_cancelled_subscription_leaves_the_next_ones_confirmed(
    monkeypatch: pytest.MonkeyPatch, redis_server: str, redis_client: Any
) -> None:
    """On the public path, a subscription whose caller is cancelled while it waits its turn (a socket gone while its hub was made) is still sent and confirmed: the next one is confirmed at once, not after the confirmation timeout, and messages of both arrive."""
    monkeypatch.setenv(PUBLIC_PATHS_ENV, "1")
    client = aioredis.Redis.from_url(redis_server)
    messages: list[tuple[bytes, bytes]] = []
    path = subscription_path(client, lambda c, m: messages.append((c, m)))
    try:
        subscriber = await path.connected()
        first = asyncio.create_task(subscriber.subscribe([b"chan:x"]))
        second = asyncio.create_task(subscriber.subscribe([b"chan:y"]))
        await asyncio.sleep(0)  # both asked, the second queued behind the first
        second.cancel()
        await first
        with contextlib.suppress(asyncio.CancelledError):
            await second
        await asyncio.wait_for(subscriber.subscribe([b"chan:z"]), 3)
        for channel in (b"chan:y", b"chan:z"):
            await redis_client.publish(channel, b"m")
        for _ in range(300):
            if len(messages) == 2:
                break
            await asyncio.sleep(0.01)
        assert sorted(c for c, _ in messages) == [b"chan:y", b"chan:z"]
    finally:
        await path.aclose()
        await client.aclose()
