"""One Redis or a Redis Cluster, told apart by asking the node ``REDIS_URL`` names.

``open_client`` asks that node ``INFO cluster``: with ``cluster_enabled:1`` the
server's client is redis-py's cluster client (``redis.asyncio.cluster.RedisCluster``,
which routes each command to the primary of its key's slot and follows ``MOVED`` and
failovers), otherwise the plain ``redis.asyncio.Redis`` as before. No other setting.

What differs on a cluster, and where it is handled:

- A script, a transaction or a multi-key command may only touch keys of one slot.
  One game's keys share the hash tag ``{<id>}``; the lobby's share ``{lobby}``, the
  timekeeper's ``{clock}``; the other global keys are single keys (``bots:games``,
  ``presence:servers``). Every key is named, with its tag, in server/store/keys.py.
  ``PUBLISH`` reaches the subscribers of every node.
- ``SCAN`` is per node: the cluster client's ``scan_iter`` walks every primary.
- Keyspace notifications are per node: the tailer subscribes on each primary
  (``node_client``) and follows the slots as they move (server/live/tailer.py).
- ``XREAD`` over streams of several slots is refused: reads of many games go in one
  pipeline, which the cluster client sends node by node (``EventStore.tail``).
- The command path's one-connection fast path (server/store/direct_path.py) can't route:
  the cluster takes the public path (server/store/fast_paths.py says so once).

Either way the client is one of ours, ``StoreRedis`` or ``StoreCluster``: redis-py's
own with one difference, that a Redis that can't be reached raises
``StoreUnavailable`` from its commands and pipelines (server/store/availability.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias, TypeGuard

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException, RedisError, SlotNotCoveredError

from server.store.availability import (
    CLOSED_TRANSPORT_ERRORS,
    cluster_unreachable,
    reraise,
    reraise_closed_transport,
)
from server.store.public_path import ScriptsWhenAwaited, Subscription, SubscriptionPath

__all__ = [
    "AnyNodeSubscription",
    "ClusterRedis",
    "RedisClient",
    "StoreCluster",
    "StoreRedis",
    "close_client",
    "cluster_enabled",
    "copy_client",
    "is_cluster",
    "node_client",
    "open_client",
    "ping",
    "subscriber_client",
    "tail_client",
]

log = logging.getLogger(__name__)

RedisClient: TypeAlias = aioredis.Redis | RedisCluster
"""The server's Redis client: one Redis, or a cluster."""

# What a plain client on one node of a cluster keeps of the cluster client's options.
_NODE_OPTIONS: Final = (
    "max_connections",
    "username",
    "password",
    "credential_provider",
    "socket_timeout",
    "socket_connect_timeout",
    "socket_keepalive",
    "socket_keepalive_options",
    "retry",
    "retry_on_error",
    "encoding",
    "encoding_errors",
    "decode_responses",
    "client_name",
    "health_check_interval",
)


class StorePipeline(Pipeline):
    """redis-py's pipeline of ``StoreRedis``: an unreachable Redis is ``StoreUnavailable``."""

    async def execute(self, raise_on_error: bool = True) -> list[Any]:
        try:
            return await super().execute(raise_on_error)
        except RedisError as e:
            reraise(e)
        except CLOSED_TRANSPORT_ERRORS as e:
            reraise_closed_transport(e)

    async def immediate_execute_command(self, *args: Any, **options: Any) -> Any:
        try:
            return await super().immediate_execute_command(*args, **options)  # type: ignore[no-untyped-call]
        except RedisError as e:
            reraise(e)
        except CLOSED_TRANSPORT_ERRORS as e:
            reraise_closed_transport(e)


class StoreRedis(aioredis.Redis):
    """redis-py's client on one Redis, whose commands and pipelines raise
    ``StoreUnavailable`` when Redis can't be reached (server/store/availability.py)."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        try:
            return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        except RedisError as e:
            reraise(e)
        except CLOSED_TRANSPORT_ERRORS as e:
            reraise_closed_transport(e)

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> StorePipeline:
        return StorePipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)


class StoreClusterPipeline(ClusterPipeline):
    """redis-py's cluster pipeline of ``StoreCluster``: an unreachable Redis is
    ``StoreUnavailable``."""

    async def execute(
        self, raise_on_error: bool = True, allow_redirections: bool = True
    ) -> list[Any]:
        try:
            return await super().execute(raise_on_error, allow_redirections)
        except RedisError as e:
            reraise(e)
        except CLOSED_TRANSPORT_ERRORS as e:
            reraise_closed_transport(e)
        except SlotNotCoveredError as e:
            raise cluster_unreachable(e) from e


class StoreCluster(RedisCluster):
    """redis-py's cluster client, whose commands and pipelines raise
    ``StoreUnavailable`` when the cluster can't be reached (server/store/availability.py)."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().execute_command(*args, **kwargs)
        except RedisError as e:
            reraise(e)
        except CLOSED_TRANSPORT_ERRORS as e:
            reraise_closed_transport(e)
        except SlotNotCoveredError as e:
            # A slot with no known node: its map is being rebuilt, after a failover.
            raise cluster_unreachable(e) from e

    async def initialize(
        self,
        additional_startup_nodes_info: list[tuple[str, int]] | None = None,
        last_failed_node_name: str | None = None,
    ) -> StoreCluster:
        # Rebuilding the map of slots (at the first command, and after a node failed)
        # fails with RedisClusterException when no node answers or the nodes disagree,
        # as they do for a moment during a failover: unreachable for now, not a fault.
        try:
            await super().initialize(additional_startup_nodes_info, last_failed_node_name)
        except RedisError as e:
            reraise(e)
        except CLOSED_TRANSPORT_ERRORS as e:
            reraise_closed_transport(e)
        except RedisClusterException as e:
            raise cluster_unreachable(e) from e
        return self

    def pipeline(
        self, transaction: Any | None = None, shard_hint: Any | None = None
    ) -> StoreClusterPipeline:
        if shard_hint:
            raise RedisClusterException("shard_hint is deprecated in cluster mode")  # as redis-py
        # redis-py's own classes are instantiated so too; its typing marks one attribute
        # abstract that its constructor sets.
        return StoreClusterPipeline(self, transaction)  # type: ignore[abstract]


def is_cluster(client: RedisClient) -> TypeGuard[RedisCluster]:
    """Whether ``client`` is a cluster client."""
    return isinstance(client, RedisCluster)


async def cluster_enabled(url: str, **options: Any) -> bool:
    """Whether the node ``url`` names runs in cluster mode (``INFO cluster``)."""
    probe = aioredis.Redis.from_url(url, **options)
    try:
        info = await probe.info("cluster")
    finally:
        await probe.aclose()
    return str(info.get("cluster_enabled", 0)) == "1"


async def open_client(
    url: str, *, max_connections: int, socket_connect_timeout: float
) -> RedisClient:
    """The server's client for ``url``: a cluster client if its node is in cluster
    mode, else a plain client on a pool of its own. Raises as a first command would
    when the node can't be reached."""
    if await cluster_enabled(url, socket_connect_timeout=socket_connect_timeout):
        cluster = StoreCluster.from_url(
            url, max_connections=max_connections, socket_connect_timeout=socket_connect_timeout
        )
        await cluster.initialize()
        primaries = sorted(node.name for node in cluster.get_primaries())
        log.info("Redis Cluster: %d primaries (%s)", len(primaries), ", ".join(primaries))
        return cluster
    # A plain pool: the blocking one's bookkeeping cost a third of the client's time
    # per move, and a socket that finds the pool full waits and retries (server/web/game_socket.py).
    # A URL's own socket_connect_timeout wins. The client owns its pool (aclose closes it).
    pool = aioredis.ConnectionPool.from_url(
        url, max_connections=max_connections, socket_connect_timeout=socket_connect_timeout
    )
    return StoreRedis.from_pool(pool)


def _options(cluster: RedisCluster, changes: dict[str, Any]) -> dict[str, Any]:
    """The cluster client's connection options a new client takes, with ``changes``."""
    options = {**cluster.get_connection_kwargs(), **changes}
    kept = {k: v for k, v in options.items() if k in _NODE_OPTIONS}
    connection_class = options.get("connection_class")
    if connection_class is not None and "SSL" in getattr(connection_class, "__name__", ""):
        kept["ssl"] = True
    return kept


def copy_client(cluster: RedisCluster, **changes: Any) -> RedisCluster:
    """Another cluster client on the same cluster, with the same options but
    ``changes`` (its own connections: closing it leaves ``cluster``'s alone)."""
    nodes = [ClusterNode(node.host, node.port) for node in cluster.get_nodes()]
    return StoreCluster(startup_nodes=nodes, **_options(cluster, changes))


def tail_client(client: RedisClient) -> RedisClient:
    """A single-connection client like ``client``, without a socket timeout: the
    tailer's ``XREAD BLOCK`` holds its connection for seconds. On a cluster, where
    nothing blocks (``EventStore.tail``), a cluster client of its own. Either is one
    of the store's clients, whose unreachable Redis is ``StoreUnavailable``."""
    if isinstance(client, RedisCluster):
        return copy_client(client)
    pool = client.connection_pool
    kwargs = dict(pool.connection_kwargs)
    kwargs["socket_timeout"] = None
    own_pool = aioredis.ConnectionPool(connection_class=pool.connection_class, **kwargs)
    return StoreRedis(connection_pool=own_pool, single_connection_client=True)


def node_client(cluster: RedisCluster, node: ClusterNode, **changes: Any) -> aioredis.Redis:
    """A plain client on one node of ``cluster`` (its subscriptions, its CONFIG),
    with the cluster client's options but ``changes``."""
    return aioredis.Redis(host=node.host, port=int(node.port), **_options(cluster, changes))


def subscriber_client(cluster: RedisCluster, node: ClusterNode) -> aioredis.Redis:
    """A plain client on one node for subscriptions: no socket timeout (a subscribed
    connection waits as long as it takes) and no retries (a lost connection is the
    owner's to make again, elsewhere if the node died: redis-py's own reconnecting
    would keep trying the dead node)."""
    return node_client(cluster, node, socket_timeout=None, retry=Retry(NoBackoff(), 0))


async def ping(client: RedisClient) -> None:
    """Raise unless Redis answers: on a cluster, every primary (redis-py's PING goes
    to every node, and a dead replica does not stop the games)."""
    if isinstance(client, RedisCluster):
        await client.ping(target_nodes=RedisCluster.PRIMARIES)
    else:
        await client.ping()


async def close_client(client: RedisClient) -> None:
    """Close a client and its connections (a plain client's pool too)."""
    await client.aclose()
    if not isinstance(client, RedisCluster):
        await client.connection_pool.disconnect()


class AnyNodeSubscription:
    """Subscribed connections on one node of a cluster, any live one: ``PUBLISH``
    reaches the subscribers of every node. Each connection is made on a node picked
    afresh from the cluster's map, so one lost with its node is made again on
    another. ``make(client)`` gives the subscription path of a plain node client."""

    def __init__(
        self, cluster: RedisCluster, make: Callable[[aioredis.Redis], SubscriptionPath]
    ) -> None:
        self._cluster = cluster
        self._make = make
        self._path: SubscriptionPath | None = None
        self._client: aioredis.Redis | None = None
        self._connecting: asyncio.Lock | None = None

    @property
    def protocol(self) -> Subscription | None:
        return None if self._path is None else self._path.protocol

    async def connected(self) -> Subscription:
        protocol = self.protocol
        if protocol is not None and protocol.lost is None:
            return protocol
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:  # callers at once share one connection
            protocol = self.protocol
            if protocol is not None and protocol.lost is None:
                return protocol
            return await self._connect()

    async def _connect(self) -> Subscription:
        await self.aclose()
        nodes = self._cluster.get_nodes()
        if not nodes:
            await self._cluster.initialize()
            nodes = self._cluster.get_nodes()
        node = random.choice(nodes)
        self._client = subscriber_client(self._cluster, node)
        self._path = self._make(self._client)
        return await self._path.connected()

    async def aclose(self) -> None:
        path, client, self._path, self._client = self._path, self._client, None, None
        if path is not None:
            await path.aclose()
        if client is not None:
            await client.aclose()


class ClusterRedis(ScriptsWhenAwaited):
    """The command path on redis-py's cluster client: each call goes to the primary
    of its keys' slot (a script's keys must share one). Replies come through the
    client's response callbacks (``XRANGE`` entries as ``(id, {field: value})``),
    which the callers read as well as Redis's own.

    A script followed by ``WAIT`` (server.store.durability) must run on one connection of
    the node that holds its keys: both go in one cluster pipeline, the ``WAIT``
    aimed at that node (``target_nodes``), so redis-py sends them together on one
    connection of that node's pool. A slot that moved meanwhile gets the script
    sent on by redis-py and the ``WAIT`` refused (a replica) or failing: the append
    then fails as a lost connection would, the map is read again, and its retry
    (same command id) waits on the new primary."""

    def __init__(self, client: RedisCluster) -> None:
        self._client = client

    async def _execute(self, *args: bytes) -> Any:
        return await self._client.execute_command(args[0].decode().upper(), *args[1:])

    async def _pipeline(
        self, command: Sequence[bytes], wait: Sequence[bytes], key: bytes
    ) -> list[Any]:
        if not key:
            raise ValueError("a waiting script needs a key: its slot's node waits")
        node = self._client.nodes_manager.get_node_from_slot(self._client.keyslot(key))
        pipe = self._client.pipeline(transaction=False)
        pipe.execute_command(command[0].decode(), *command[1:])
        pipe.execute_command(wait[0].decode(), *wait[1:], target_nodes=node)
        try:
            replies: list[Any] = await pipe.execute(raise_on_error=False)
        except (RedisError, OSError):
            await self._read_map()  # the node may be gone: for the command's retry
            raise
        return replies

    async def _wait_failed(self, error: Exception) -> Any:
        # The WAIT's node is no longer the slot's primary (a failover: the script was
        # sent on by redis-py, the WAIT refused): answered as a lost connection, and
        # the map read again for the command's retry.
        await self._read_map()
        raise RedisConnectionError(f"WAIT on the node of the slot failed: {error}") from error

    async def _read_map(self) -> None:
        with contextlib.suppress(RedisError, OSError):
            await self._client.nodes_manager.initialize()
