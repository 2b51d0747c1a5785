"""Redis through redis-py's public API only: the command path and the subscriptions
as ``server.store.direct_path`` offers them, for when its fast path is not used
(``server.store.fast_paths``: forced by ``SPLENDOR_PUBLIC_PATHS=1``, or a redis-py whose
internals are not the ones it was written against).

- ``PublicRedis``: the command path's calls (``execute``, ``run``, ...) on the
  ``redis.asyncio`` client, over its pool. Replies are Redis's own (no response
  callbacks), as the direct path gives them. ``run_now`` sends nothing early: the
  append is sent when its result is awaited.
- ``PublicSubscription``: a ``redis.asyncio`` ``PubSub`` read by a task of its own,
  with the direct path's ``Subscriber`` contract: ``subscribe`` returns once Redis
  confirmed, ``notify(channel, message)`` per message, and a lost connection is
  reported (``on_lost``) rather than silently made again by redis-py, since a
  message may have been missed meanwhile: the owner reads again.

Also here, since neither needs any redis-py internals: ``Script`` (a Lua script
known by its SHA-1) and ``pack`` (a command in RESP).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Protocol, TypeVar

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.availability import reraise

__all__ = [
    "CommandPath",
    "PublicRedis",
    "PublicSubscription",
    "Script",
    "ScriptsWhenAwaited",
    "Subscription",
    "SubscriptionPath",
    "WaitingPath",
    "WaitingReplies",
    "pack",
]

_CRLF: Final = b"\r\n"
T = TypeVar("T")

SUBSCRIBE_TIMEOUT_S: Final = 10.0
CLOSE_TIMEOUT_S: Final = 2.0


def pack(args: Sequence[bytes], head: bytes = b"", head_count: int = 0) -> bytes:
    """One command in RESP: an array of bulk strings (``head``: the first
    ``head_count`` of them, packed already)."""
    parts = [b"*%d\r\n" % (head_count + len(args)), head]
    for arg in args:
        parts.append(b"$%d\r\n" % len(arg))
        parts.append(arg)
        parts.append(_CRLF)
    return b"".join(parts)


class Script:
    """A Lua script, known by its SHA-1 (computed here: no round trip to load it)."""

    __slots__ = ("_heads", "body", "sha")

    def __init__(self, body: str) -> None:
        self.body = body.encode()
        self.sha = hashlib.sha1(self.body).hexdigest().encode()
        self._heads: dict[int, bytes] = {}

    def evalsha(self, keys: Sequence[bytes], args: Sequence[bytes]) -> bytes:
        """``EVALSHA sha numkeys keys... args...`` packed (its first three parts once)."""
        head = self._heads.get(len(keys))
        if head is None:
            packed = pack([b"EVALSHA", self.sha, b"%d" % len(keys)])
            head = self._heads[len(keys)] = packed[packed.index(_CRLF) + 2 :]  # no count
        return pack((*keys, *args), head, 3)


WaitingReplies = tuple[asyncio.Future[Any], asyncio.Future[Any]]
"""The replies of a script and of the ``WAIT`` sent after it on its connection."""


class CommandPath(Protocol):
    """The command path's calls, fast (``DirectRedis``) or public (``PublicRedis``)."""

    async def execute(self, *args: bytes) -> Any: ...

    async def run(self, script: Script, keys: Sequence[bytes], args: Sequence[bytes]) -> Any: ...

    def run_now(
        self, script: Script, keys: Sequence[bytes], args: Sequence[bytes]
    ) -> asyncio.Future[Any] | None: ...

    async def reply(self, future: asyncio.Future[Any]) -> Any: ...

    async def aclose(self) -> None: ...


class WaitingPath(Protocol):
    """A command path whose scripts can be followed by ``WAIT`` on their connection
    (server.store.durability), fast (``DirectRedis``) or public (``PublicRedis``).

    ``run_waiting`` runs a script followed by ``wait`` (``WAIT n timeout``) on the
    same connection and gives both replies (the script's error reply is raised);
    ``run_now_waiting`` sends both now where it can, for ``run_waiting(..., sent=)``.
    ``waiting`` is the number of replies a connection still owes (how busy it is)."""

    def run_now_waiting(
        self, script: Script, keys: Sequence[bytes], args: Sequence[bytes], wait: Sequence[bytes]
    ) -> WaitingReplies | None: ...

    async def run_waiting(
        self,
        script: Script,
        keys: Sequence[bytes],
        args: Sequence[bytes],
        wait: Sequence[bytes],
        sent: WaitingReplies | None = None,
    ) -> tuple[Any, Any]: ...

    def waiting(self) -> int: ...


class Subscription(Protocol):
    """One subscribed connection (``server.store.direct_path.Subscriber`` or ours)."""

    @property
    def lost(self) -> Exception | None: ...

    async def subscribe(self, channels: list[bytes]) -> None: ...

    def unsubscribe(self, channels: Sequence[bytes]) -> None: ...

    def fail(self, error: Exception) -> None: ...


class SubscriptionPath(Protocol):
    """Makes subscribed connections: ``connected()`` the live one or a new one."""

    @property
    def protocol(self) -> Subscription | None: ...

    async def connected(self) -> Subscription: ...

    async def aclose(self) -> None: ...


def _raw(response: Any, **options: Any) -> Any:
    return response


class ScriptsWhenAwaited:
    """What the public command paths share: a call is sent when awaited, a script by
    its SHA-1 and whole when Redis does not know it, and a script followed by
    ``WAIT`` in one pipeline (``_pipeline``: both on one connection). A Redis that
    can't be reached raises ``StoreUnavailable`` from every call, as on the direct
    path (server/store/availability.py)."""

    async def _execute(self, *args: bytes) -> Any:
        """One command and its reply, as Redis gives it (an error reply raised)."""
        raise NotImplementedError

    async def execute(self, *args: bytes) -> Any:
        try:
            return await self._execute(*args)
        except RedisError as e:
            reraise(e)

    async def _pipeline(
        self, command: Sequence[bytes], wait: Sequence[bytes], key: bytes
    ) -> list[Any]:
        """``command`` then ``wait`` on one connection (of ``key``'s node); both replies,
        an error reply as an exception."""
        raise NotImplementedError

    async def _wait_failed(self, error: Exception) -> Any:
        """What ``run_waiting`` gives for a ``WAIT`` answered with an error."""
        return error  # ``Durability.check`` raises it

    async def run(self, script: Script, keys: Sequence[bytes], args: Sequence[bytes]) -> Any:
        try:
            return await self.execute(b"EVALSHA", script.sha, b"%d" % len(keys), *keys, *args)
        except NoScriptError:
            return await self.execute(b"EVAL", script.body, b"%d" % len(keys), *keys, *args)

    def run_now(
        self, script: Script, keys: Sequence[bytes], args: Sequence[bytes]
    ) -> asyncio.Future[Any] | None:
        return None  # sent by ``run`` when the result is awaited

    async def reply(self, future: asyncio.Future[Any]) -> Any:
        try:
            return await future
        except RedisError as e:
            reraise(e)

    def run_now_waiting(
        self, script: Script, keys: Sequence[bytes], args: Sequence[bytes], wait: Sequence[bytes]
    ) -> WaitingReplies | None:
        return None  # sent by ``run_waiting``

    async def run_waiting(
        self,
        script: Script,
        keys: Sequence[bytes],
        args: Sequence[bytes],
        wait: Sequence[bytes],
        sent: WaitingReplies | None = None,
    ) -> tuple[Any, Any]:
        try:
            return await self._run_waiting(script, keys, args, wait)
        except RedisError as e:
            reraise(e)

    async def _run_waiting(
        self, script: Script, keys: Sequence[bytes], args: Sequence[bytes], wait: Sequence[bytes]
    ) -> tuple[Any, Any]:
        count = b"%d" % len(keys)
        key = keys[0] if keys else b""
        reply, acknowledged = await self._pipeline(
            (b"EVALSHA", script.sha, count, *keys, *args), wait, key
        )
        if isinstance(reply, NoScriptError):
            reply, acknowledged = await self._pipeline(
                (b"EVAL", script.body, count, *keys, *args), wait, key
            )
        if isinstance(reply, Exception):
            raise reply
        if isinstance(acknowledged, Exception):
            acknowledged = await self._wait_failed(acknowledged)
        return reply, acknowledged

    def waiting(self) -> int:
        return 0  # each call takes a connection of the pool

    async def aclose(self) -> None:
        pass  # the client is the caller's


class PublicRedis(ScriptsWhenAwaited):
    """The command path on the ``redis.asyncio`` client (its pool, its retries)."""

    def __init__(self, client: aioredis.Redis) -> None:
        # A client of its own on the same pool, so that its response callbacks can
        # be set to give Redis's replies as they are without changing the caller's.
        self._client = aioredis.Redis(connection_pool=client.connection_pool)
        self._raw: set[str] = set()

    def _as_sent(self, name: str) -> None:
        if name not in self._raw:
            self._client.set_response_callback(name, _raw)
            self._raw.add(name)

    async def _execute(self, *args: bytes) -> Any:
        self._as_sent(args[0].decode().upper())
        return await self._client.execute_command(*args)  # type: ignore[no-untyped-call]

    async def _pipeline(
        self, command: Sequence[bytes], wait: Sequence[bytes], key: bytes
    ) -> list[Any]:
        # Both on one connection of the pool, the WAIT right after the script.
        for sent in (command, wait):
            self._as_sent(sent[0].decode().upper())
        async with self._client.pipeline(transaction=False) as pipe:
            pipe.execute_command(*command)
            pipe.execute_command(*wait)
            return list(await pipe.execute(raise_on_error=False))


async def within(call: Awaitable[T], seconds: float, what: str) -> T:
    """``call``'s result, or ``RedisTimeoutError`` after ``seconds``. Then the call is
    cancelled but not waited for: a redis-py call cancelled on a connection whose
    node died may wait for ever for the transport to close (its ``disconnect``
    awaits ``wait_closed`` while another task still reads from it)."""
    task = asyncio.ensure_future(call)
    done, _ = await asyncio.wait([task], timeout=seconds)
    if not done:
        task.cancel()
        task.add_done_callback(_retrieved)
        raise RedisTimeoutError(f"Redis did not {what} in {seconds:g} s")
    return task.result()


def _retrieved(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved: nobody waits for it any more


class PublicSubscriber:
    """A ``PubSub`` read by a task of its own; ``lost`` once its connection was lost."""

    def __init__(
        self,
        client: aioredis.Redis,
        notify: Callable[[bytes, bytes], None],
        on_lost: Callable[[], None] | None,
    ) -> None:
        self._pubsub = client.pubsub()
        self._notify = notify
        self._on_lost = on_lost
        self._lost: Exception | None = None
        self._reader: asyncio.Task[None] | None = None
        self._unconfirmed = 0
        self._confirmed = asyncio.Event()
        self._pending: set[asyncio.Task[Any]] = set()
        self._last_sent: asyncio.Task[None] | None = None

    @property
    def lost(self) -> Exception | None:
        return self._lost

    async def subscribe(self, channels: list[bytes]) -> None:
        if self._lost is not None:
            raise self._lost
        self._unconfirmed += len(channels)
        self._confirmed.clear()
        try:
            # Shielded: a caller cancelled meanwhile must not stop a send half-way (its
            # confirmation, counted above, would never come).
            await asyncio.shield(self._in_order(self._pubsub.subscribe, channels))
        except (RedisError, OSError) as e:
            self.fail(RedisConnectionError(f"subscribing failed: {e!r}"))
            raise
        if self._reader is None:
            connection = self._pubsub.connection
            if connection is not None:
                # redis-py would connect again and subscribe again by itself: a
                # message may have been missed meanwhile, which the owner must know.
                connection.register_connect_callback(self._connected_again)
            self._reader = asyncio.get_running_loop().create_task(self._read())
        try:
            await asyncio.wait_for(self._confirmed.wait(), SUBSCRIBE_TIMEOUT_S)
        except TimeoutError:
            raise RedisTimeoutError("Redis did not confirm a subscription") from None
        if self._lost is not None:
            raise self._lost

    def unsubscribe(self, channels: Sequence[bytes]) -> None:
        if self._lost is not None or not channels:
            return
        task = self._in_order(self._pubsub.unsubscribe, channels)
        self._pending.add(task)
        task.add_done_callback(self._unsubscribed)

    def _unsubscribed(self, task: asyncio.Task[None]) -> None:
        self._pending.discard(task)
        e = None if task.cancelled() else task.exception()
        if isinstance(e, (RedisError, OSError)):
            self.fail(RedisConnectionError(f"unsubscribing failed: {e!r}"))

    def _in_order(
        self, send: Callable[..., Awaitable[Any]], channels: Sequence[bytes]
    ) -> asyncio.Task[None]:
        """Send a (un)subscription after those asked before it, one at a time: redis-py's
        ``PubSub`` is not safe for calls at once (two calls connecting at once each
        take a connection, and one's subscription is read by nobody), and an
        unsubscription sent after a later subscription would undo it."""
        previous = self._last_sent

        async def sending() -> None:
            if previous is not None and not previous.done():
                # Bounded: one stuck can't hold those asked after it for ever.
                await asyncio.wait([previous], timeout=SUBSCRIBE_TIMEOUT_S)
            await within(send(*channels), SUBSCRIBE_TIMEOUT_S, "take a subscription")

        task = self._last_sent = asyncio.get_running_loop().create_task(sending())
        return task

    async def _connected_again(self, connection: Any) -> None:
        self.fail(RedisConnectionError("the subscription's connection was made again"))

    async def _read(self) -> None:
        try:
            while self._lost is None:
                message = await self._pubsub.get_message(timeout=None)
                if message is None:
                    continue
                kind = message.get("type")
                if kind == "message":
                    self._notify(message["channel"], message["data"])
                elif kind == "subscribe":
                    self._unconfirmed -= 1
                    if self._unconfirmed <= 0:
                        self._confirmed.set()
        except asyncio.CancelledError:
            raise
        except Exception as e:  # any failure of the connection ends this subscriber
            self.fail(RedisConnectionError(f"Connection to Redis lost: {e!r}"))

    def fail(self, error: Exception) -> None:
        """Close for good; ``on_lost`` is called once."""
        if self._lost is not None:
            return
        self._lost = error
        self._confirmed.set()  # a subscribe waiting sees ``lost``
        task = asyncio.get_running_loop().create_task(self.close())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        if self._on_lost is not None:
            self._on_lost()

    async def close(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
            await asyncio.wait([reader], timeout=CLOSE_TIMEOUT_S)
        with contextlib.suppress(RedisError, OSError):
            closing = self._pubsub.aclose()  # type: ignore[no-untyped-call]
            await within(closing, CLOSE_TIMEOUT_S, "close a subscription")


class PublicSubscription:
    """``PublicSubscriber``s made on demand, as ``redis_direct.TakenConnection``."""

    def __init__(
        self,
        client: aioredis.Redis,
        notify: Callable[[bytes, bytes], None],
        on_lost: Callable[[], None] | None = None,
    ) -> None:
        self._client = client
        self._notify = notify
        self._on_lost = on_lost
        self._subscriber: PublicSubscriber | None = None

    @property
    def protocol(self) -> PublicSubscriber | None:
        return self._subscriber

    async def connected(self) -> PublicSubscriber:
        subscriber = self._subscriber
        if subscriber is None or subscriber.lost is not None:
            subscriber = self._subscriber = PublicSubscriber(
                self._client, self._notify, self._on_lost
            )
        return subscriber

    async def aclose(self) -> None:
        subscriber, self._subscriber = self._subscriber, None
        if subscriber is not None:
            subscriber._on_lost = None
            subscriber._lost = subscriber._lost or RedisConnectionError("closed")
            await subscriber.close()
