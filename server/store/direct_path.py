"""A dedicated Redis connection for the command path, driven without redis-py's
per-call machinery.

redis-py's asyncio client costs ~150-250 µs of CPU a call in this process (pool get
and release with their lock, event dispatch and metrics hooks, retry and timeout
wrappers, argument encoding, response callbacks), more than the rest of a command.
A command needs one script call (the append) and sometimes a second (the lobby), so
those go through ``DirectRedis``: one connection taken from the client's own pool
(so it is made with every option of the client's URL: TLS, password, database, and
closed with the pool), whose transport is then read by a small protocol of ours:

- commands are written as soon as they are called and answered in order (pipelined:
  concurrent callers share the connection without waiting for each other);
- replies are parsed by hiredis, errors become redis-py's exceptions (the same
  classes its own parser gives: ``NoScriptError``, ``BusyLoadingError``, ...);
- a lost connection fails every call still waiting with a redis ``ConnectionError``
  (their outcome is unknown: the service's commands are idempotent by their id);
  the next call connects again (redis-py's connect, with its retries);
- scripts are called by SHA-1 and sent whole only when Redis does not know them
  (after a restart or a ``SCRIPT FLUSH``), which also caches them again.
- a Redis that can't be reached (a lost connection, a timeout, a write refused by a
  replica) raises ``StoreUnavailable`` from every call (server/store/availability.py),
  whatever the call; other error replies are raised as redis-py's parser gives them.

``DirectRedis.of(client)`` gives the one instance of a client's pool, shared by the
event store and the lobby. Use it from one event loop (as the client itself).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Final, Generic, TypeVar

import hiredis
import redis.asyncio as aioredis
from redis._parsers.base import BaseParser
from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import InvalidResponse, NoScriptError, RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.availability import reraise
from server.store.public_path import Script, WaitingReplies, pack

__all__ = [
    "DirectRedis",
    "ReplyProtocol",
    "Script",
    "Subscriber",
    "TakenConnection",
    "pack",
]

_NOT_ENOUGH: Final = object()  # hiredis's "no whole reply yet" (False is a RESP3 reply)
_ATTRIBUTE: Final = "_splendor_direct_redis"  # a pool's DirectRedis
SUBSCRIBE_TIMEOUT_S: Final = 10.0


class ReplyProtocol(asyncio.Protocol):
    """Reads a taken-over connection's replies with hiredis; ``handle`` gets each one.

    The transport was redis-py's: its protocol is told of the end too, or its
    ``StreamWriter.wait_closed()`` (redis-py's disconnect) would never return.
    """

    def __init__(self, transport: asyncio.WriteTransport, previous: asyncio.BaseProtocol) -> None:
        self.transport = transport
        self._previous = previous
        self._reader = hiredis.Reader(
            protocolError=InvalidResponse,
            replyError=BaseParser.parse_error,
            notEnoughData=_NOT_ENOUGH,
        )
        self.lost: Exception | None = None

    def handle(self, reply: Any) -> None:
        """One whole reply (an error reply is an exception instance)."""
        raise NotImplementedError

    def failed(self, error: Exception) -> None:
        """The connection is lost (``error`` says why): nothing more will come."""

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        reader.feed(data)
        while self.lost is None:
            try:
                reply = reader.gets()
            except InvalidResponse as e:
                self.fail(RedisConnectionError(f"Redis sent a malformed reply: {e}"))
                return
            if reply is _NOT_ENOUGH:
                return
            self.handle(reply)

    def eof_received(self) -> bool:
        return False  # close the transport: connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(RedisConnectionError(f"Connection to Redis lost: {exc or 'closed'}"))
        self._previous.connection_lost(exc)

    def fail(self, error: Exception) -> None:
        """Close the connection for good: ``failed`` is called once."""
        if self.lost is None:
            self.lost = error
            self.failed(error)
        if not self.transport.is_closing():
            self.transport.close()


class _Protocol(ReplyProtocol):
    """Hands the replies out in order to the calls waiting for them."""

    def __init__(self, transport: asyncio.WriteTransport, previous: asyncio.BaseProtocol) -> None:
        super().__init__(transport, previous)
        self.waiting: deque[asyncio.Future[Any]] = deque()

    def handle(self, reply: Any) -> None:
        if not self.waiting:
            self.fail(RedisConnectionError("Redis sent a reply nobody asked for"))
            return
        future = self.waiting.popleft()
        if future.done():  # its caller was cancelled or timed out
            return
        if isinstance(reply, Exception):
            future.set_exception(reply)
        else:
            future.set_result(reply)

    def failed(self, error: Exception) -> None:
        while self.waiting:
            future = self.waiting.popleft()
            if not future.done():
                future.set_exception(error)


class Subscriber(ReplyProtocol):
    """A connection subscribed to channels: ``notify(channel, message)`` for each
    message, as it is parsed (no task nor timeout per message); ``on_lost()`` once
    the connection is lost, if given."""

    def __init__(
        self,
        transport: asyncio.WriteTransport,
        previous: asyncio.BaseProtocol,
        notify: Callable[[bytes, bytes], None],
        on_lost: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(transport, previous)
        self._notify = notify
        self._on_lost = on_lost
        self._unconfirmed = 0
        self._confirmed = asyncio.Event()

    def send(self, *args: bytes) -> None:
        self.transport.write(pack(args))

    def unsubscribe(self, channels: Sequence[bytes]) -> None:
        """Unsubscribe, not waiting for Redis's confirmation."""
        if channels:
            self.send(b"UNSUBSCRIBE", *channels)

    async def subscribe(self, channels: list[bytes]) -> None:
        """Subscribe, and return once Redis has confirmed every channel (so what is
        read from now on cannot miss a message)."""
        self._unconfirmed += len(channels)
        self._confirmed.clear()
        self.send(b"SUBSCRIBE", *channels)
        try:
            await asyncio.wait_for(self._confirmed.wait(), SUBSCRIBE_TIMEOUT_S)
        except TimeoutError:
            raise RedisTimeoutError("Redis did not confirm a subscription") from None
        if self.lost is not None:
            raise self.lost

    def handle(self, reply: Any) -> None:
        if isinstance(reply, Exception):
            self.fail(RedisConnectionError(f"Redis refused a subscription: {reply}"))
        elif isinstance(reply, list) and len(reply) == 3:
            kind = reply[0]
            if kind == b"message":
                self._notify(reply[1], reply[2])
            elif kind == b"subscribe":
                self._unconfirmed -= 1
                if self._unconfirmed <= 0:
                    self._confirmed.set()

    def failed(self, error: Exception) -> None:
        self._confirmed.set()  # a subscribe waiting sees ``lost``
        if self._on_lost is not None:
            self._on_lost()


P = TypeVar("P", bound=ReplyProtocol)


class TakenConnection(Generic[P]):
    """One connection of a redis-py pool, taken for good and read by a protocol of
    ours (``make(transport, redis-py's protocol)``); connected again when lost."""

    def __init__(
        self,
        pool: ConnectionPool,
        make: Callable[[asyncio.WriteTransport, asyncio.BaseProtocol], P],
    ) -> None:
        self._pool = pool
        self._make = make
        self._conn: AbstractConnection | None = None
        self.protocol: P | None = None
        self._connecting: asyncio.Lock | None = None

    async def connected(self) -> P:
        """The protocol of a live connection: the current one, or a new one."""
        protocol = self.protocol
        if protocol is not None and protocol.lost is None:
            return protocol
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            protocol = self.protocol
            if protocol is not None and protocol.lost is None:
                return protocol  # another caller has just connected
            self.protocol = None
            conn = self._conn
            if conn is None:
                conn = await self._pool.get_connection()  # type: ignore[no-untyped-call]
                self._conn = conn
            else:
                await conn.disconnect(nowait=True)  # forget the lost one
                await conn.connect()  # type: ignore[no-untyped-call]
            writer = conn._writer
            if writer is None:  # pragma: no cover - redis-py connected without a stream
                raise RedisConnectionError("redis-py gave a connection without a stream")
            transport = writer.transport  # uvloop's is no asyncio.Transport subclass
            protocol = self._make(transport, transport.get_protocol())
            transport.set_protocol(protocol)
            self.protocol = protocol
            return protocol

    async def aclose(self) -> None:
        """Close the connection and give it back to the pool (``connected`` reopens one)."""
        conn, self._conn, self.protocol = self._conn, None, None
        if conn is not None:
            await conn.disconnect()
            await self._pool.release(conn)


class DirectRedis:
    """One connection of ``pool``, taken for good, with calls pipelined on it."""

    def __init__(self, pool: ConnectionPool) -> None:
        self._connection = TakenConnection(pool, _Protocol)
        # The WAIT still to be written after this turn's scripts (``_wait_after``).
        self._batch: tuple[_Protocol, tuple[bytes, ...], asyncio.Future[Any]] | None = None
        timeout = pool.connection_kwargs.get("socket_timeout")
        self._timeout: float | None = float(timeout) if timeout else None

    @classmethod
    def of(cls, client: aioredis.Redis) -> DirectRedis:
        """The instance of ``client``'s connection pool (made on first use)."""
        pool = client.connection_pool
        # Kept on the pool itself: a map from pools would keep every pool alive (the
        # instance's connection refers back to its pool).
        direct = getattr(pool, _ATTRIBUTE, None)
        if not isinstance(direct, DirectRedis):
            direct = cls(pool)
            setattr(pool, _ATTRIBUTE, direct)
        return direct

    async def execute(self, *args: bytes) -> Any:
        """Send one command and wait for its reply (an error reply is raised)."""
        return await self._call(pack(args))

    async def run(self, script: Script, keys: Sequence[bytes], args: Sequence[bytes]) -> Any:
        """``EVALSHA`` the script, or ``EVAL`` it when Redis does not have it (yet)."""
        try:
            return await self._call(script.evalsha(keys, args))
        except NoScriptError:
            return await self.execute(b"EVAL", script.body, b"%d" % len(keys), *keys, *args)

    def run_now(
        self, script: Script, keys: Sequence[bytes], args: Sequence[bytes]
    ) -> asyncio.Future[Any] | None:
        """``EVALSHA`` the script *now*, without waiting: the future of its reply, for
        ``reply``; None when the connection is not up (then ``run`` it)."""
        protocol = self._connection.protocol
        if protocol is None or protocol.lost is not None:
            return None
        return _send(protocol, script.evalsha(keys, args))

    async def reply(self, future: asyncio.Future[Any]) -> Any:
        """Wait for a reply (an error reply is raised), within the socket timeout."""
        try:
            if self._timeout is None:
                return await future
            try:
                return await asyncio.wait_for(future, self._timeout)
            except TimeoutError:
                # The reply is skipped when it comes: the connection stays in step.
                raise RedisTimeoutError("Timeout reading from Redis") from None
        except RedisError as e:
            reraise(e)

    def run_now_waiting(
        self, script: Script, keys: Sequence[bytes], args: Sequence[bytes], wait: Sequence[bytes]
    ) -> WaitingReplies | None:
        """``run_now``, and ``wait`` (a ``WAIT``) after it on the connection: the
        futures of both replies, for ``run_waiting``; None when not up.

        The scripts sent on the connection before the event loop next runs share one
        ``WAIT``, written after them all (a group commit: ``WAIT`` counts the replicas
        that have every write made before it on its connection)."""
        protocol = self._connection.protocol
        if protocol is None or protocol.lost is not None:
            return None
        return _send(protocol, script.evalsha(keys, args)), self._wait_after(protocol, wait)

    async def run_waiting(
        self,
        script: Script,
        keys: Sequence[bytes],
        args: Sequence[bytes],
        wait: Sequence[bytes],
        sent: WaitingReplies | None = None,
    ) -> tuple[Any, Any]:
        """The replies of the script and of ``wait`` sent after it on one connection
        (those of ``sent`` if given); the script's error reply is raised."""
        if sent is None:
            protocol = await self._connected()
            sent = _send(protocol, script.evalsha(keys, args)), self._wait_after(protocol, wait)
        ran, waited = sent
        try:
            reply = await self.reply(ran)
        except NoScriptError:
            await self._settled(waited)
            protocol = await self._connected()
            evaluated = pack((b"EVAL", script.body, b"%d" % len(keys), *keys, *args))
            ran, waited = _send(protocol, evaluated), self._wait_after(protocol, wait)
            try:
                reply = await self.reply(ran)
            except BaseException:
                waited.add_done_callback(_retrieve)
                raise
        except BaseException:
            waited.add_done_callback(_retrieve)  # its failure is the script's
            raise
        # Shielded: shared with the other scripts of its batch (a timeout cancels).
        return reply, await self.reply(asyncio.shield(waited))

    async def _settled(self, future: asyncio.Future[Any]) -> None:
        with contextlib.suppress(Exception):  # the script's own failure is what counts
            await self.reply(asyncio.shield(future))

    def _wait_after(self, protocol: _Protocol, wait: Sequence[bytes]) -> asyncio.Future[Any]:
        """The reply of a ``WAIT`` written after what this turn of the event loop
        writes on the connection, shared by every caller of this turn."""
        batch = self._batch
        wait = tuple(wait)
        if batch is not None:
            if batch[0] is protocol and batch[1] == wait:
                return batch[2]
            self._write_wait()  # another connection or another WAIT: that batch now
        shared: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._batch = (protocol, wait, shared)
        asyncio.get_running_loop().call_soon(self._write_wait)
        return shared

    def _write_wait(self) -> None:
        batch, self._batch = self._batch, None
        if batch is None:
            return
        protocol, wait, shared = batch
        if protocol.lost is not None:
            shared.set_exception(protocol.lost)
            shared.add_done_callback(_retrieve)
            return
        _send(protocol, pack(wait)).add_done_callback(lambda done: _copy(done, shared))

    def waiting(self) -> int:
        """Replies the connection still owes."""
        protocol = self._connection.protocol
        return 0 if protocol is None else len(protocol.waiting)

    async def _call(self, command: bytes) -> Any:
        protocol = self._connection.protocol
        if protocol is None or protocol.lost is not None:
            protocol = await self._connected()
        return await self.reply(_send(protocol, command))

    async def _connected(self) -> _Protocol:
        """The live connection's protocol; a Redis that can't be reached is unavailable."""
        try:
            return await self._connection.connected()
        except RedisError as e:
            reraise(e)

    async def aclose(self) -> None:
        """Close the connection and give it back to the pool (a new call reopens one)."""
        await self._connection.aclose()


def _copy(source: asyncio.Future[Any], target: asyncio.Future[Any]) -> None:
    """``target`` takes ``source``'s outcome (unless it has one)."""
    if target.done():
        return
    if source.cancelled():
        target.cancel()
    elif (error := source.exception()) is not None:
        target.set_exception(error)
        target.add_done_callback(_retrieve)  # its awaiters see it; none may be left
    else:
        target.set_result(source.result())


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved: no "never retrieved" warning


def _send(protocol: _Protocol, command: bytes) -> asyncio.Future[Any]:
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    protocol.waiting.append(future)
    protocol.transport.write(command)
    return future
