"""Riding out a Redis outage: the one exception a Redis that can't be reached becomes,
what the server says meanwhile, and the embedded Redis started again when it dies.

A Redis error that means "not reachable for now" (``is_store_down``) is translated
into ``StoreUnavailable`` where it leaves the store package, and nowhere else: in the
clients ``server.store.clients`` makes (every command and pipeline of the server's
client, of the tailers' and of the bot runner's) and in the command paths
(``server.store.direct_path``, ``server.store.public_path``). Above the store, code asks
one question, ``except StoreUnavailable``, and each edge answers it in one place: an
API request gets ``503`` with PROTOCOL.md's error shape and the code ``unavailable``
(an addition to the protocol's codes, docs/http-api.md), a websocket gets that
``error`` and is closed with 4503, and ``/healthz`` says why. Any other Redis error is
a fault of ours and is answered as one (500, or 1011 on a socket).

``StoreUnavailable`` is a redis ``ConnectionError``, so that the loops that retry on
any ``RedisError`` (tailer, signals, presence, lobby keeper, timekeeper) need no
change; a timeout stays a redis ``TimeoutError`` too (``StoreTimedOut``).
Subscriptions are not translated: their owners make them again on any error.

Nothing has to be restarted when Redis is back: redis-py's pools connect again on
their next call, ``server.store.direct_path`` on its next command, the tailer and the
bot runner retry on their own (server/live/tailer.py, server/workers/bot_runner.py).

With the embedded Redis (no ``REDIS_URL``), ``RedisKeeper`` watches its process and
starts it again, on the same data folder and the same port (the clients' URL stays
good), when it has died.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import traceback
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import ClassVar, Final, NoReturn

from redis.exceptions import (
    ClusterError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.embedded_redis import EmbeddedRedis, EmbeddedRedisError

__all__ = [
    "CLOSED_TRANSPORT_ERRORS",
    "REDIS_CONNECT_S",
    "STORE_DOWN",
    "RedisKeeper",
    "StoreTimedOut",
    "StoreUnavailable",
    "cluster_unreachable",
    "is_store_down",
    "keep_redis_up",
    "reraise",
    "reraise_closed_transport",
    "translated",
    "written_to_closed_transport",
]

log = logging.getLogger(__name__)

STORE_DOWN: Final[tuple[type[RedisError], ...]] = (
    RedisConnectionError,  # refused, lost, loading (BusyLoadingError), pool full
    RedisTimeoutError,
    ReadOnlyError,  # a replica while its primary is being replaced
    ClusterError,  # CLUSTERDOWN, or a command's redirections exhausted (a failover)
    TryAgainError,
)
"""The Redis errors that mean "not reachable for now", not a mistake of ours."""

REDIS_CONNECT_S: Final = 5.0
"""Connecting to Redis is given up on after this long (the system's wait is minutes)."""
WATCH_S: Final = 0.2  # how often the embedded Redis's process is looked at
RESTART_BACKOFF_S: Final = (0.0, 0.5, 1.0, 2.0, 5.0)  # after failed restarts


def is_store_down(error: BaseException) -> bool:
    """Whether a Redis error means "not reachable for now" (else it is a fault)."""
    if isinstance(error, STORE_DOWN):
        return True
    # A script's write refused by a replica (a failover under way, or a primary made a
    # replica) comes as a plain ResponseError that quotes READONLY.
    return isinstance(error, ResponseError) and "-READONLY " in str(error)


class StoreUnavailable(RedisConnectionError):
    """Redis can't be reached for now: the one exception the store gives for it.

    ``cause`` is the Redis error it stands for (None when the store itself decided,
    as ``NotDurable`` does). Its message is the cause's, so that what clients and logs
    are told does not depend on where the error was translated. ``reason`` is the key
    of the sentence a client is given (server/common/reasons.py).
    """

    reason: ClassVar[str] = "store.unavailable"

    def __init__(self, cause: BaseException | str) -> None:
        if isinstance(cause, str):
            super().__init__(cause)
            self.cause: BaseException | None = None
        else:
            super().__init__(str(cause) or type(cause).__name__)
            self.cause = cause

    def __repr__(self) -> str:
        # Logs name an error by its repr: the cause's, or the message, says what failed.
        return f"{type(self).__name__}({str(self) if self.cause is None else self.cause!r})"


class StoreTimedOut(StoreUnavailable, RedisTimeoutError):
    """Redis did not answer in time: unavailable, and still a redis ``TimeoutError``
    for the code that waits on a timeout."""


def cluster_unreachable(error: RedisClusterException) -> StoreUnavailable:
    """A cluster client's own error while a failover is under way, as the store gives it.

    redis-py's cluster client says "not reachable for now" in two ways that are no
    ``RedisError``: ``SlotNotCoveredError`` when a slot has no known node (its map of
    slots is being rebuilt), and ``RedisClusterException`` when that rebuilding finds no
    node that answers, or nodes that disagree on the slots. Only the map's rebuilding
    (``initialize``) and the slot lookup are translated by this: the same exception for a
    command that can't be routed (keys of several slots) stays a fault of ours.
    """
    unavailable = StoreUnavailable(error)
    unavailable.__cause__ = error
    return unavailable


def translated(error: RedisError) -> RedisError:
    """``error`` as the store gives it: a ``StoreUnavailable`` caused by it when it
    means "not reachable for now", else ``error`` itself (a fault, raised as it is).
    Translating twice gives the first translation, so that a path calling another
    path of the store can translate too."""
    if isinstance(error, StoreUnavailable) or not is_store_down(error):
        return error
    unavailable = (
        StoreTimedOut(error) if isinstance(error, RedisTimeoutError) else StoreUnavailable(error)
    )
    unavailable.__cause__ = error
    return unavailable


def reraise(error: RedisError) -> NoReturn:
    """Raise ``error`` as the store gives it (``translated``): what the store's
    boundary calls in ``except RedisError as e: reraise(e)``."""
    raise translated(error)


CLOSED_TRANSPORT_ERRORS: Final = (RuntimeError, TypeError, AttributeError)
"""What a write on a connection Redis has closed may raise from redis-py instead of its
``ConnectionError``: uvloop's ``RuntimeError`` ("the handler is closed"), and CPython's
``TypeError`` or ``AttributeError`` from its own transports before 3.13.10 (redis-py
issue 4287). redis-py lets them through: no ``RedisError``, so no retry either."""

_SENDING: Final = frozenset({"send_packed_command", "_send_packed_command"})


def written_to_closed_transport(error: BaseException) -> bool:
    """Whether ``error`` is one of ``CLOSED_TRANSPORT_ERRORS`` raised while redis-py
    was writing a command on its connection. Nothing but the transport's write runs
    there (commands are packed before), so the same exceptions raised anywhere else
    stay faults of ours."""
    if not isinstance(error, CLOSED_TRANSPORT_ERRORS):
        return False
    return any(
        frame.f_code.co_name in _SENDING
        and str(frame.f_globals.get("__name__", "")).startswith("redis.")
        for frame, _ in traceback.walk_tb(error.__traceback__)
    )


def reraise_closed_transport(error: Exception) -> NoReturn:
    """Raise ``error`` as the store gives it: a ``StoreUnavailable`` when it was a
    write on a connection Redis has closed (``written_to_closed_transport``; nothing
    was sent, and redis-py has dropped the connection, so the next call connects
    again), else ``error`` itself. What the store's boundary calls in
    ``except CLOSED_TRANSPORT_ERRORS as e: reraise_closed_transport(e)``."""
    if not written_to_closed_transport(error):
        raise error
    unavailable = StoreUnavailable(error)
    raise unavailable from error


class RedisKeeper:
    """Starts the embedded Redis again whenever its process has died.

    The restart runs on the event loop's thread on purpose, as the first start does:
    the new redis-server then dies with this process even on kill -9 (PDEATHSIG
    follows the spawning thread). It blocks the loop for as long as Redis takes to
    load its files (well under a second for this game's data), while every request
    would fail anyway.
    """

    def __init__(self, embedded: EmbeddedRedis) -> None:
        self.embedded = embedded
        self.restarts = 0
        self.down_since: float | None = None  # time.monotonic() when found dead
        self.last_error: str | None = None

    def state(self) -> str:
        """A sentence for /healthz on the embedded Redis, '' while it runs."""
        if self.down_since is None:
            return ""
        down = time.monotonic() - self.down_since
        words = (
            f"The embedded Redis stopped {down:.1f} s ago; the server is starting it again"
            f" on the same data folder ({self.restarts} restarts so far)."
        )
        if self.last_error:
            words += f" Last attempt: {self.last_error.splitlines()[0]}"
        return words

    async def run(self) -> None:
        failures = 0
        while True:
            await asyncio.sleep(WATCH_S)
            if self.embedded.running:
                continue
            if self.down_since is None:
                self.down_since = time.monotonic()
                log.warning(
                    "the embedded Redis (pid %s) has stopped; starting it again on %s",
                    self.embedded.pid,
                    self.embedded.data_dir,
                )
            await asyncio.sleep(RESTART_BACKOFF_S[min(failures, len(RESTART_BACKOFF_S) - 1)])
            try:
                self.embedded.restart()
            except (EmbeddedRedisError, OSError) as e:
                failures += 1
                self.last_error = str(e)
                log.error("the embedded Redis did not start again (%s); retrying", e)
                continue
            self.restarts += 1
            log.warning(
                "the embedded Redis is back on %s (pid %s) after %.1f s",
                self.embedded.url,
                self.embedded.pid,
                time.monotonic() - self.down_since,
            )
            failures, self.down_since, self.last_error = 0, None, None


@asynccontextmanager
async def keep_redis_up(embedded: EmbeddedRedis | None) -> AsyncIterator[RedisKeeper | None]:
    """A ``RedisKeeper`` of ``embedded`` running for the duration (None without one)."""
    if embedded is None:
        yield None
        return
    keeper = RedisKeeper(embedded)
    task = asyncio.get_running_loop().create_task(keeper.run())
    try:
        yield keeper
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
