"""The command path's dedicated Redis connection (server/store/direct_path.py) on a real Redis:
pipelined replies in order, errors, scripts, lost connections, a Redis killed and restarted."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import time
import weakref
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.direct_path import DirectRedis, Script, pack
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore, VersionConflict
from tests.fast_paths_marks import direct_redis_works, needs_direct_redis

pytestmark = direct_redis_works

ECHO = Script("return {KEYS[1], ARGV[1]}")


async def client_id(direct: DirectRedis) -> int:
    reply = await direct.execute(b"CLIENT", b"ID")
    assert isinstance(reply, int)
    return reply


@pytest.fixture
async def private_redis(tmp_path: Path) -> AsyncIterator[EmbeddedRedis]:
    """A Redis of the test's own, to kill; every write synced (appendfsync always)."""
    server = EmbeddedRedis(tmp_path, extra_args=["--appendfsync", "always"])
    await asyncio.to_thread(server.start)
    try:
        yield server
    finally:
        await asyncio.to_thread(server.stop)


async def kill_9(server: EmbeddedRedis) -> None:
    pid = server.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while server.running and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert not server.running


def test_pack_writes_resp_bulk_strings() -> None:
    """A command is packed as a RESP array of bulk strings, binary-safe; a script call too."""
    assert pack([b"SET", b"k", b"a\r\nb"]) == b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\nb\r\n"
    call = pack([b"EVALSHA", ECHO.sha, b"2", b"k1", b"k2", b"a"])
    assert ECHO.evalsha([b"k1", b"k2"], [b"a"]) == call
    assert ECHO.evalsha([b"k1", b"k2"], [b"a"]) == call  # its head made once, reused


async def test_one_instance_per_pool_and_replies_in_order(
    redis_client: aioredis.Redis,
) -> None:
    """Clients of one pool share one DirectRedis; concurrent calls each get their own reply."""
    direct = DirectRedis.of(redis_client)
    assert DirectRedis.of(aioredis.Redis(connection_pool=redis_client.connection_pool)) is direct
    replies = await asyncio.gather(*(direct.execute(b"INCR", b"n") for _ in range(300)))
    assert replies == list(range(1, 301))
    assert await direct.execute(b"SET", b"k", b"\x00\xff") == b"OK"
    assert await redis_client.get("k") == b"\x00\xff"


async def test_error_replies_raise_and_the_connection_stays_usable(
    redis_client: aioredis.Redis,
) -> None:
    """An error reply raises redis-py's exception for it; the next call is answered."""
    direct = DirectRedis.of(redis_client)
    await direct.execute(b"SET", b"text", b"abc")
    with pytest.raises(ResponseError, match="not an integer"):
        await direct.execute(b"INCR", b"text")
    assert await direct.execute(b"PING") == b"PONG"


async def test_scripts_are_sent_whole_only_when_redis_lacks_them(
    redis_client: aioredis.Redis,
) -> None:
    """A script unknown to Redis (flushed) is sent by EVAL, then known by its SHA-1 again."""
    direct = DirectRedis.of(redis_client)
    await redis_client.script_flush()
    assert await direct.run(ECHO, [b"key"], [b"arg"]) == [b"key", b"arg"]
    assert await redis_client.script_exists(ECHO.sha.decode()) == [True]
    assert await direct.run(ECHO, [b"k2"], [b"a2"]) == [b"k2", b"a2"]


@needs_direct_redis
async def test_an_append_sent_now_is_in_redis_before_its_result_is_awaited(
    redis_client: aioredis.Redis,
) -> None:
    """``send_append`` writes its command at once (the caller works during the round trip); ``result()`` then gives its outcome, and a conflict is raised there."""
    store = EventStore(redis_client)
    await store.append("early", [b"{}"], expected_version=0, command_id=None, at_ms=1)
    pending = store.send_append("early", [b"{}"], expected_version=1, command_id="c", at_ms=2)
    stale = store.send_append("early", [b"{}"], expected_version=1, command_id=None, at_ms=3)
    await asyncio.sleep(0.2)  # nothing awaits them meanwhile
    assert await store.version("early") == 2
    assert (await pending.result()).version == 2
    with pytest.raises(VersionConflict):
        await stale.result()


async def test_an_append_sent_while_redis_lacks_the_script_is_sent_whole(
    redis_client: aioredis.Redis,
) -> None:
    """An append sent at once by its SHA-1 to a Redis that flushed its scripts is sent again whole when awaited."""
    store = EventStore(redis_client)
    await store.append("flushed", [b"{}"], expected_version=0, command_id=None, at_ms=1)
    await redis_client.script_flush()
    pending = store.send_append("flushed", [b"{}"], expected_version=1, command_id=None, at_ms=2)
    assert (await pending.result()).version == 2


async def test_a_cancelled_call_does_not_put_the_replies_out_of_step(
    redis_client: aioredis.Redis,
) -> None:
    """The reply of a call whose caller gave up is skipped: later calls get their own."""
    direct = DirectRedis.of(redis_client)
    blocked = asyncio.create_task(direct.execute(b"BLPOP", b"nothing", b"0.3"))
    await asyncio.sleep(0.05)
    blocked.cancel()
    with pytest.raises(asyncio.CancelledError):
        await blocked
    assert await direct.execute(b"ECHO", b"mine") == b"mine"


async def test_the_client_socket_timeout_applies_and_the_replies_stay_in_step(
    redis_server: str,
) -> None:
    """With the URL's socket_timeout, a call that waits longer raises TimeoutError; its late
    reply is skipped and the next call gets its own."""
    client = aioredis.from_url(redis_server, socket_timeout=0.2)
    try:
        direct = DirectRedis.of(client)
        with pytest.raises(RedisTimeoutError):
            await direct.execute(b"BLPOP", b"nothing", b"0.4")
        await asyncio.sleep(0.4)  # Redis answers the BLPOP (nil) meanwhile
        assert await direct.execute(b"ECHO", b"after") == b"after"
    finally:
        await client.aclose()


async def test_a_lost_connection_fails_waiting_calls_and_the_next_call_reconnects(
    redis_client: aioredis.Redis,
) -> None:
    """Killed by Redis (CLIENT KILL), the calls waiting fail with ConnectionError; the next works."""
    direct = DirectRedis.of(redis_client)
    first = await client_id(direct)
    waiting = [asyncio.create_task(direct.execute(b"BLPOP", b"nothing", b"5")) for _ in range(3)]
    await asyncio.sleep(0.05)
    assert await redis_client.client_kill_filter(_id=first) == 1
    for task in waiting:
        with pytest.raises(RedisConnectionError):
            await task
    assert await client_id(direct) != first
    assert await direct.execute(b"PING") == b"PONG"


async def test_the_pool_closes_it_and_it_reopens(redis_server: str) -> None:
    """Disconnecting the client's pool closes the connection too; a later call opens a new one."""
    client = aioredis.from_url(redis_server)
    try:
        direct = DirectRedis.of(client)
        first = await client_id(direct)
        await client.connection_pool.disconnect()
        assert await client_id(direct) != first
    finally:
        await client.aclose()
    await direct.aclose()


async def test_an_instance_does_not_keep_its_pool_alive(redis_server: str) -> None:
    """Once its client is closed and dropped, the pool and its DirectRedis are freed."""
    client = aioredis.from_url(redis_server)
    assert await DirectRedis.of(client).execute(b"PING") == b"PONG"
    pool = weakref.ref(client.connection_pool)
    await client.aclose()
    del client
    gc.collect()
    assert pool() is None


async def test_appends_across_a_kill_9_and_restart_of_redis(
    private_redis: EmbeddedRedis,
) -> None:
    """Redis killed: appends fail with ConnectionError, then after its restart they work
    again (script reloaded) with the log, versions and command ids as they were."""
    client = aioredis.from_url(private_redis.url)
    try:
        store = EventStore(client)
        first = await store.append("g", [b"a", b"b"], expected_version=0, command_id="c1", at_ms=1)
        assert first.version == 2
        await kill_9(private_redis)
        with pytest.raises(RedisConnectionError):
            await store.append("g", [b"c"], expected_version=2, command_id="c2", at_ms=2)
        await asyncio.to_thread(private_redis.start)
        again = await store.append("g", [b"a", b"b"], expected_version=0, command_id="c1", at_ms=1)
        assert (again.version, again.duplicate) == (2, True)
        with pytest.raises(VersionConflict):
            await store.append("g", [b"x"], expected_version=1, command_id="c3", at_ms=3)
        after = await store.append("g", [b"c"], expected_version=2, command_id="c2", at_ms=2)
        assert (after.version, after.duplicate) == (3, False)
        assert [e.data for e in await store.read("g")] == [b"a", b"b", b"c"]
    finally:
        await client.aclose()


async def test_a_call_waiting_when_redis_dies_fails_with_connection_error(
    private_redis: EmbeddedRedis,
) -> None:
    """A call in flight when Redis is killed fails at once with ConnectionError, not later."""
    client = aioredis.from_url(private_redis.url)
    try:
        direct = DirectRedis.of(client)
        waiting = asyncio.create_task(direct.execute(b"BLPOP", b"nothing", b"10"))
        await asyncio.sleep(0.05)
        started = time.monotonic()
        await kill_9(private_redis)
        with pytest.raises(RedisConnectionError):
            await waiting
        assert time.monotonic() - started < 5
    finally:
        await client.aclose()
