"""Pub/sub messages read straight off a connection, for the tailer's notifications.

redis-py's ``PubSub.get_message`` costs ~40-50 µs of CPU a message in this process
(a task switch per message, ``asyncio.timeout`` around every read, its parser and
push handlers), and a move sends one keyspace notification per event (2-3). A
``Subscriber`` takes one connection of the client's pool (see
``server.redis_direct.TakenConnection``), parses what comes with hiredis and hands
every message to a plain callback as it is read: no task, no polling, no timeout.

- ``subscribe``/``unsubscribe`` return once Redis has confirmed every channel, so a
  stream read after ``subscribe`` returns cannot miss an append that is not notified;
- a lost connection calls ``on_lost(error)`` once and fails the calls waiting; the
  next ``subscribe`` opens a new connection, subscribed to nothing: the owner
  subscribes again to what it needs (and reads what it may have missed meanwhile).

Channels and messages are bytes (the connection does not decode).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from server.redis_direct import ReplyProtocol, TakenConnection, pack

__all__ = ["OnLost", "OnMessage", "Subscriber"]

OnMessage = Callable[[bytes, bytes], None]
"""``on_message(channel, data)``: called for every message, as it is read."""
OnLost = Callable[[Exception], None]
"""``on_lost(error)``: the connection is gone, and its subscriptions with it."""


class _Confirmations:
    """A (un)subscribe waiting for Redis to confirm each of its channels."""

    __slots__ = ("future", "left")

    def __init__(self, future: asyncio.Future[None], left: int) -> None:
        self.future = future
        self.left = left


class _SubscriberProtocol(ReplyProtocol):
    def __init__(
        self,
        transport: asyncio.WriteTransport,
        previous: asyncio.BaseProtocol,
        on_message: OnMessage,
        on_lost: OnLost,
    ) -> None:
        super().__init__(transport, previous)
        self.on_message = on_message
        self.on_lost = on_lost
        self.waiting: deque[_Confirmations] = deque()

    def handle(self, reply: Any) -> None:
        if isinstance(reply, Exception):
            self.fail(RedisConnectionError(f"Redis refused a subscription: {reply}"))
            return
        kind = reply[0]
        if kind == b"message":
            self.on_message(reply[1], reply[2])
        elif kind == b"subscribe" or kind == b"unsubscribe":
            if not self.waiting:
                return  # pragma: no cover - Redis confirms only what was asked
            confirmations = self.waiting[0]
            confirmations.left -= 1
            if confirmations.left == 0:
                self.waiting.popleft()
                if not confirmations.future.done():
                    confirmations.future.set_result(None)

    def failed(self, error: Exception) -> None:
        while self.waiting:
            future = self.waiting.popleft().future
            if not future.done():
                future.set_exception(error)
        self.on_lost(error)


class Subscriber:
    """Channels subscribed to on one connection of ``client``'s pool."""

    def __init__(self, client: aioredis.Redis, on_message: OnMessage, on_lost: OnLost) -> None:
        self._connection = TakenConnection(
            client.connection_pool,
            lambda transport, previous: _SubscriberProtocol(
                transport, previous, on_message, on_lost
            ),
        )

    @property
    def connected(self) -> bool:
        """Whether a connection is open (its subscriptions stand)."""
        protocol = self._connection.protocol
        return protocol is not None and protocol.lost is None

    async def subscribe(self, channels: Iterable[bytes | str]) -> None:
        """Subscribe to ``channels``; returns once Redis has confirmed them all."""
        await self._send(b"SUBSCRIBE", channels)

    async def unsubscribe(self, channels: Iterable[bytes | str]) -> None:
        """Stop listening to ``channels`` (at least one; others are kept)."""
        await self._send(b"UNSUBSCRIBE", channels)

    async def aclose(self) -> None:
        """Close the connection (``on_lost`` is not called for it)."""
        protocol = self._connection.protocol
        if protocol is not None:
            protocol.on_lost = _ignore
        await self._connection.aclose()

    async def _send(self, command: bytes, channels: Iterable[bytes | str]) -> None:
        names = [c.encode() if isinstance(c, str) else c for c in channels]
        if not names:
            return
        protocol = await self._connection.connected()
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        protocol.waiting.append(_Confirmations(future, len(names)))
        protocol.transport.write(pack([command, *names]))
        await future


def _ignore(error: Exception) -> None:
    pass
