"""The places below the libraries, chosen once per process: each fast path is used
only if the installed library still has what it reads and overrides, and the public
API is used otherwise, with one log line saying why.

- **Redis** (``server.store.direct_path``): the command path's connection taken from
  redis-py's pool and read with hiredis, and the subscriptions (tailer, signals) read
  the same way. Public path: ``server.store.public_path`` (the ``redis.asyncio`` client and
  its ``PubSub``).
- **Sockets**: the check of uvicorn's protocols is ``server.web.socket_fast_paths``, at
  the edge where those protocols are; it makes its choice here (``choose``), so every
  choice is made, logged and forgotten in one place.

The check is of capability, not of version strings: the private modules import, the
classes have the methods the fast path calls or overrides (with the parameters it
passes), and their code assigns the attributes it reads. ``SPLENDOR_PUBLIC_PATHS=1``
forces the public paths (CI runs the store, socket and live tests both ways).
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
from collections.abc import Callable, Iterable
from importlib.metadata import version
from typing import Any, Final

from redis.asyncio.cluster import RedisCluster

from server.store.clients import AnyNodeSubscription, ClusterRedis, RedisClient
from server.store.public_path import (
    CommandPath,
    PublicRedis,
    PublicSubscription,
    SubscriptionPath,
    WaitingPath,
)

__all__ = [
    "PUBLIC_PATHS_ENV",
    "choose",
    "command_lanes",
    "command_path",
    "direct_redis",
    "forget_choices",
    "missing_members",
    "public_forced",
    "redis_shortfall",
    "subscription_path",
]

log = logging.getLogger(__name__)

PUBLIC_PATHS_ENV: Final = "SPLENDOR_PUBLIC_PATHS"

# What each fast path uses of its library: methods (called or overridden), and
# attributes its code reads that the library's code assigns.
REDIS_CONNECTION_METHODS: Final = ("connect", "disconnect")
REDIS_CONNECTION_ATTRIBUTES: Final = ("_writer",)
REDIS_POOL_METHODS: Final = ("get_connection", "release")
REDIS_POOL_ATTRIBUTES: Final = ("connection_kwargs",)

_choices: dict[str, bool] = {}


def public_forced() -> bool:
    """``SPLENDOR_PUBLIC_PATHS`` is set (to anything but 0 or nothing)."""
    return os.environ.get(PUBLIC_PATHS_ENV, "").strip() not in ("", "0")


@functools.cache
def _source(klass: type) -> str:
    """A class's source ("" if it has none): found by parsing its whole module, so
    read once per class, not once per attribute looked for."""
    try:
        return inspect.getsource(klass)
    except (OSError, TypeError):
        return ""


def _assigned_in(cls: type, name: str) -> bool:
    """Whether the code of ``cls`` or of a class it extends assigns ``self.<name>``."""
    for klass in cls.__mro__:
        if klass is object:
            continue
        source = _source(klass)
        if f"self.{name} =" in source or f"self.{name}:" in source:
            return True
    return False


def missing_members(cls: type, methods: Iterable[str], attributes: Iterable[str] = ()) -> list[str]:
    """The methods ``cls`` lacks and the attributes its code never assigns."""
    missing = [f"{cls.__name__}.{m}()" for m in methods if not callable(getattr(cls, m, None))]
    missing += [
        f"{cls.__name__}.{a}"
        for a in attributes
        if not hasattr(cls, a) and not _assigned_in(cls, a)
    ]
    return missing


def _has_parameter(function: Callable[..., Any], name: str) -> bool:
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _required_arguments(function: Callable[..., Any]) -> list[str]:
    """The parameters after ``self`` that a call must give."""
    try:
        parameters = list(inspect.signature(function).parameters.values())[1:]
    except (TypeError, ValueError):
        return ["?"]
    return [
        p.name
        for p in parameters
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


def redis_shortfall(
    connection_class: type | None = None, pool_class: type | None = None
) -> str | None:
    """What ``server.store.direct_path`` needs and the installed redis-py lacks (None: nothing)."""
    try:
        import hiredis
        from redis._parsers.base import BaseParser
        from redis.asyncio.connection import AbstractConnection, ConnectionPool
        from redis.exceptions import InvalidResponse

        import server.store.direct_path  # noqa: F401  # its own imports work
    except ImportError as e:
        return f"cannot import it ({e})"
    connection_class = connection_class or AbstractConnection
    pool_class = pool_class or ConnectionPool
    missing = missing_members(
        connection_class, REDIS_CONNECTION_METHODS, REDIS_CONNECTION_ATTRIBUTES
    ) + missing_members(pool_class, REDIS_POOL_METHODS, REDIS_POOL_ATTRIBUTES)
    if missing:
        return "missing " + ", ".join(missing)
    if not _has_parameter(getattr(connection_class, "disconnect"), "nowait"):  # noqa: B009
        return f"{connection_class.__name__}.disconnect() takes no nowait"
    get_connection = getattr(pool_class, "get_connection")  # noqa: B009
    if not inspect.iscoroutinefunction(get_connection):
        return f"{pool_class.__name__}.get_connection() is not a coroutine function"
    if _required_arguments(get_connection):
        return f"{pool_class.__name__}.get_connection() needs arguments"
    try:
        reader = hiredis.Reader(
            protocolError=InvalidResponse, replyError=BaseParser.parse_error, notEnoughData=0
        )
        reader.feed(b"-NOSCRIPT No matching script\r\n")
        error = reader.gets()
    except Exception as e:
        return f"hiredis's reader with redis-py's errors fails ({e!r})"
    if not isinstance(error, Exception) or type(error).__name__ != "NoScriptError":
        return f"BaseParser.parse_error gives {error!r} for a NOSCRIPT reply"
    return None


def choose(path: str, library: str, shortfall: Callable[[], str | None]) -> bool:
    """Whether to take the fast path ``path`` (decided once, logged once)."""
    chosen = _choices.get(path)
    if chosen is not None:
        return chosen
    installed = f"{library} {version(library)}"
    if public_forced():
        reason: str | None = f"{PUBLIC_PATHS_ENV} is set"
    else:
        reason = shortfall()
    chosen = _choices[path] = reason is None
    if chosen:
        log.info("fast path: %s on %s", path, installed)
    else:
        log.warning("public path: %s not used on %s (%s)", path, installed, reason)
    return chosen


def direct_redis() -> bool:
    """Whether this process takes the Redis fast path (``server.store.direct_path``)."""
    return choose("redis_direct", "redis", redis_shortfall)


def forget_choices() -> None:
    """Choose again at the next call (for tests that change the environment)."""
    _choices.clear()


def command_path(client: RedisClient) -> CommandPath:
    """The command path's calls for ``client`` (one per pool on the fast path). On a
    cluster, the public path: the fast path's one connection can't route by slot."""
    if isinstance(client, RedisCluster):
        if "redis_direct_cluster" not in _choices:  # said once
            _choices["redis_direct_cluster"] = False
            log.warning(
                "public path: redis_direct not used on a Redis Cluster "
                "(one connection can't route by slot); redis-py's cluster client instead"
            )
        return ClusterRedis(client)
    if direct_redis():
        from server.store.direct_path import DirectRedis

        return DirectRedis.of(client)
    return PublicRedis(client)


_LANES_ATTRIBUTE: Final = "_splendor_command_lanes"  # a pool's lanes


def command_lanes(client: RedisClient, count: int) -> list[WaitingPath]:
    """Up to ``count`` command paths of ``client``'s pool, each on a connection of its
    own (server.store.durability: a ``WAIT`` holds its connection). Made once per pool; on
    the public path one, since each of its calls takes a connection of the pool; on a
    cluster one, whose calls take a connection of the pool of their slot's node."""
    if isinstance(client, RedisCluster):
        return [ClusterRedis(client)]
    if not direct_redis():
        return [PublicRedis(client)]
    from server.store.direct_path import DirectRedis

    pool = client.connection_pool
    lanes = getattr(pool, _LANES_ATTRIBUTE, None)
    if not isinstance(lanes, list) or len(lanes) < count:
        lanes = [DirectRedis(pool) for _ in range(count)]
        setattr(pool, _LANES_ATTRIBUTE, lanes)  # on the pool: closed with it
    return lanes[:count]


def subscription_path(
    client: RedisClient,
    notify: Callable[[bytes, bytes], None],
    on_lost: Callable[[], None] | None = None,
) -> SubscriptionPath:
    """Subscribed connections of ``client``'s pool: ``notify(channel, message)`` for
    each message, ``on_lost()`` once a connection is lost. On a cluster, connections
    on any one node (for ``PUBLISH``ed messages; keyspace notifications are per node:
    the tailer subscribes on each primary itself)."""
    if isinstance(client, RedisCluster):
        return AnyNodeSubscription(client, lambda node: subscription_path(node, notify, on_lost))
    if direct_redis():
        from server.store.direct_path import Subscriber, TakenConnection

        return TakenConnection(
            client.connection_pool,
            lambda transport, previous: Subscriber(transport, previous, notify, on_lost),
        )
    return PublicSubscription(client, notify, on_lost)
