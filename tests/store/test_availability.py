"""A Redis that can't be reached is one exception, ``StoreUnavailable``, whichever way
the store reached it: the command path (direct or public), the client's commands, its
scripts and its pipelines, on one Redis and on a cluster (server/store/availability.py).
Any other Redis error is raised as it is."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
import redis
from redis.exceptions import (
    ClusterDownError,
    ClusterError,
    RedisClusterException,
    ResponseError,
    SlotNotCoveredError,
)
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.games.lobby import Lobby, LobbyEntry
from server.store.availability import StoreTimedOut, StoreUnavailable, is_store_down
from server.store.clients import StoreCluster, StoreRedis, close_client, open_client, tail_client
from server.store.direct_path import DirectRedis
from server.store.durability import NotDurable
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore
from server.store.fast_paths import PUBLIC_PATHS_ENV, forget_choices, redis_shortfall
from server.store.keys import events_key
from server.store.public_path import PublicRedis
from tests.cluster_helpers import LocalCluster
from tests.multiprocess.servers import free_port


@pytest.fixture(params=["direct", "public"])
def command_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The command path the stores of the test take: redis_direct, or forced public."""
    if request.param == "public":
        monkeypatch.setenv(PUBLIC_PATHS_ENV, "1")
    else:
        monkeypatch.delenv(PUBLIC_PATHS_ENV, raising=False)
        if redis_shortfall() is not None:
            pytest.skip("the installed redis-py lacks what server/store/direct_path.py uses")
    forget_choices()
    yield str(request.param)
    forget_choices()


@pytest.fixture
async def own_redis(tmp_path: Path) -> AsyncIterator[EmbeddedRedis]:
    """A Redis of the test's own, to stop."""
    server = EmbeddedRedis(tmp_path)
    await asyncio.to_thread(server.start)
    try:
        yield server
    finally:
        await asyncio.to_thread(server.stop)


def entry(game_id: str) -> LobbyEntry:
    return LobbyEntry(game_id, "open", 1, 1, {"id": game_id})


async def test_a_stopped_redis_is_store_unavailable_on_every_way_in(
    command_path: str, own_redis: EmbeddedRedis
) -> None:
    """With its Redis stopped, the server's client (as ``open_client`` makes it) gives StoreUnavailable from an append, a read, the lobby's update (command path) and listing (a registered script), a plain command, a pipeline and a tail client's read; its message is the cause's."""
    client = await open_client(own_redis.url, max_connections=8, socket_connect_timeout=1)
    assert isinstance(client, StoreRedis)
    store, lobby = EventStore(client), Lobby(client)
    tail = tail_client(client)  # the tailers' and the bot runner's
    assert isinstance(store._direct, PublicRedis if command_path == "public" else DirectRedis)
    try:
        await store.append("g", [b"e1"], expected_version=0, command_id=None, at_ms=1)
        assert await lobby.update(entry("g"))
        assert await lobby.newest("open", 5) == [{"id": "g"}]
        await asyncio.to_thread(own_redis.stop)

        calls = {
            "append": store.append("g", [b"e2"], expected_version=1, command_id="c", at_ms=2),
            "read": store.read("g"),
            "lobby update": lobby.update(entry("h")),
            "lobby script": lobby.newest("open", 5),
            "command": store.get_meta("g"),
            "pipeline": client.pipeline(transaction=False).get("k").get("l").execute(),
            "tail": EventStore(tail).tail({"g": 1}, 100),
        }
        for name, call in calls.items():
            with pytest.raises(StoreUnavailable) as failed:
                await call
            error = failed.value
            assert error.cause is not None and error.__cause__ is error.cause, name
            assert str(error) == (str(error.cause) or type(error.cause).__name__), name
            assert repr(error) == f"StoreUnavailable({error.cause!r})", name
    finally:
        await close_client(tail)
        await client.aclose()


async def test_other_redis_errors_are_raised_as_they_are(
    command_path: str, redis_server: str
) -> None:
    """A command Redis refuses (a wrong type) is its own ResponseError, on the command path and on the client: a fault, not StoreUnavailable."""
    client = await open_client(redis_server, max_connections=8, socket_connect_timeout=1)
    store = EventStore(client)
    try:
        await client.flushdb()
        await client.set(events_key("w"), b"not a stream")
        with pytest.raises(ResponseError) as refused:
            await store.read("w")
        assert not isinstance(refused.value, StoreUnavailable)
        with pytest.raises(ResponseError) as refused:
            await client.xlen(events_key("w"))
        assert not isinstance(refused.value, StoreUnavailable)
    finally:
        await client.aclose()


async def _write_after_the_connections_were_reset(url: str) -> BaseException:
    """What a store client raises for a command written on a connection whose transport
    is closed while redis-py still holds it: what uvloop does when the kernel reports a
    reset (a Redis killed with bytes unread, as in a failover). The reset is made here
    by aborting the transports of redis-py's connections (``_writer``, not public: the
    test's only way to reach the socket redis-py keeps)."""
    client = await open_client(url, max_connections=8, socket_connect_timeout=1)
    if isinstance(client, StoreRedis):  # one connection, which no pool looks at first
        await client.aclose()
        client = StoreRedis.from_url(url, single_connection_client=True)
    try:
        await client.set("{q}:k", b"v")
        if isinstance(client, StoreCluster):
            connections = [c for node in client.get_nodes() for c in node._connections]
        else:
            connections = [client.connection]
        writers = [c._writer for c in connections if c is not None and c._writer is not None]
        assert writers
        for writer in writers:
            writer.transport.abort()
        await asyncio.sleep(0)  # the loop closes the aborted handles
        try:
            await client.get("{q}:k")
        except Exception as e:
            return e
        raise AssertionError("a command on a reset connection was answered")
    finally:
        await client.aclose()


@pytest.mark.parametrize("kind", ["redis", "cluster"])
def test_a_write_on_a_reset_connection_is_store_unavailable(
    kind: str, request: pytest.FixtureRequest
) -> None:
    """Under uvloop (the server's loop), a command written on a connection reset under redis-py gives StoreUnavailable (a 503; the next command connects again), on one Redis and on a cluster, never uvloop's RuntimeError (a 500)."""
    uvloop = pytest.importorskip("uvloop")
    if kind == "cluster":
        cluster: LocalCluster = request.getfixturevalue("redis_cluster")
        url = cluster.url
    else:
        url = str(request.getfixturevalue("redis_server"))
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        raised = runner.run(_write_after_the_connections_were_reset(url))
    assert isinstance(raised, StoreUnavailable), repr(raised)


def test_the_store_down_kinds_stay_what_they_were() -> None:
    """StoreUnavailable is a redis ConnectionError (the retry loops catch RedisError), a timeout stays a redis TimeoutError, NotDurable is both unavailable and a timeout, and a cluster's exhausted redirections are unavailable."""
    assert issubclass(StoreUnavailable, redis.ConnectionError)
    assert issubclass(StoreTimedOut, StoreUnavailable) and issubclass(
        StoreTimedOut, RedisTimeoutError
    )
    assert issubclass(NotDurable, StoreTimedOut)
    assert is_store_down(StoreUnavailable("down")) and StoreUnavailable("down").cause is None
    # A cluster client that followed MOVED and TRYAGAIN replies as often as it may, during
    # a failover, gives up with ClusterError("TTL exhausted."): unavailable for now.
    assert is_store_down(ClusterError("TTL exhausted.")) and is_store_down(ClusterDownError("x"))


async def test_a_cluster_that_does_not_answer_is_store_unavailable(
    redis_cluster: LocalCluster,
) -> None:
    """On a Redis Cluster whose primary of a game holds its writes back (CLIENT PAUSE WRITE), the append (the cluster's command path), a command and a pipeline give StoreUnavailable, a timeout still."""
    redis_cluster.flush()
    client = await open_client(
        f"{redis_cluster.url}?socket_timeout=0.05", max_connections=8, socket_connect_timeout=1
    )
    assert isinstance(client, StoreCluster)
    store = EventStore(client)
    primary = redis_cluster.primary_of(events_key("p"))
    admin = redis.Redis(port=primary.port)
    try:
        await store.append("p", [b"e1"], expected_version=0, command_id=None, at_ms=1)
        # Long enough for the calls below, each given up on after redis-py's retries.
        admin.execute_command("CLIENT", "PAUSE", "20000", "WRITE")
        calls = {
            "append": store.append("p", [b"e2"], expected_version=1, command_id="c", at_ms=2),
            "command": client.set("{p}:k", b"v"),
            "pipeline": client.pipeline(transaction=False).set("{p}:k", b"v").execute(),
        }
        for name, call in calls.items():
            with pytest.raises(StoreTimedOut) as failed:
                await call
            assert isinstance(failed.value.cause, RedisTimeoutError), name
    finally:
        admin.execute_command("CLIENT", "UNPAUSE")
        admin.close()
        await client.aclose()


async def test_a_cluster_being_remapped_is_store_unavailable(
    redis_cluster: LocalCluster,
) -> None:
    """While a failover leaves the cluster client a slot with no known node, or no node that answers its CLUSTER SLOTS, a command and a pipeline give StoreUnavailable, never redis-py's RedisClusterException (a 500)."""
    redis_cluster.flush()
    client = await open_client(redis_cluster.url, max_connections=8, socket_connect_timeout=1)
    assert isinstance(client, StoreCluster)
    try:
        await client.set("{q}:k", b"v")
        # The map between two rebuilds: the key's slot has no node (a pipeline rebuilds
        # the map itself on this error).
        client.nodes_manager.slots_cache[client.keyslot("{q}:k")] = []
        with pytest.raises(StoreUnavailable) as failed:
            await client.get("{q}:k")
        assert isinstance(failed.value.cause, SlotNotCoveredError)
    finally:
        await client.aclose()
    nowhere = StoreCluster(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.2)
    calls: dict[str, Callable[[], Awaitable[object]]] = {
        "command": lambda: nowhere.get("{q}:k"),
        "pipeline": lambda: nowhere.pipeline(transaction=False).get("{q}:k").execute(),
    }
    try:
        for name, call in calls.items():
            with pytest.raises(StoreUnavailable) as failed:
                await call()
            assert isinstance(failed.value.cause, RedisClusterException), name
    finally:
        await nowhere.aclose()
