"""Signals: what a server process tells the others about a game beside its events.

Things happen to a game that are not events of its log and must reach the
watchers on every process: a seat's presence changing (``server.live.presence``), a
rematch being made (``server.games.rematch_plan``), a seat's token replaced. Each is published
on the game's channel, ``game:{<id>}:signals`` (the game's hash tag), as a short
message (the channel and its messages are named in server/store/keys.py):

- ``p``: the presence of the game's seats may have changed; read it again;
- ``r<id>``: the game's rematch is ``<id>``;
- ``a``: the game was archived (server/store/archive_format.py): its stream is gone, so what a
  hub has not read yet is read from the store (the archive) rather than tailed;
- ``k<seat>``: the seat's token was replaced (server/games/seat_tokens.py): sockets opened
  with another token than the seat's now are closed.

A message only says *what to look at*: the truth is in Redis (the presence hash, the
meta hash, the seats hash), so a message lost while the connection was being made again costs
nothing: after a reconnection every watched game is read again (``on_reconnect``).

Each process subscribes, on one connection of its own (``Signals``), to the channels
of the games it has a hub for; a subscription is confirmed by Redis before the game
is read, so nothing published after the read is missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Final

from redis.exceptions import RedisError

from server.store.clients import RedisClient
from server.store.fast_paths import subscription_path
from server.store.keys import game_of, signals_channel

__all__ = ["Signals"]

log = logging.getLogger(__name__)

_RETRY_S: Final = (0.05, 0.2, 1.0, 2.0)


class Signals:
    """The signals of the games this process watches: ``on_signal(game_id, message)``
    for each, ``on_reconnect()`` after the connection was lost and made again."""

    def __init__(
        self,
        client: RedisClient,
        on_signal: Callable[[str, bytes], None],
        on_reconnect: Callable[[], None],
    ) -> None:
        self._on_signal = on_signal
        self._on_reconnect = on_reconnect
        self._connection = subscription_path(client, self._message, self._lost)
        self._games: set[str] = set()
        self._repairing: asyncio.Task[None] | None = None
        self._closed = False

    async def watch(self, game_id: str) -> None:
        """Subscribe to a game's signals; returns once Redis has confirmed it."""
        self._games.add(game_id)
        subscriber = await self._connection.connected()
        await subscriber.subscribe([signals_channel(game_id).encode()])

    def unwatch(self, game_id: str) -> None:
        self._games.discard(game_id)
        subscriber = self._connection.protocol
        if subscriber is not None and subscriber.lost is None:
            subscriber.unsubscribe([signals_channel(game_id).encode()])

    async def close(self) -> None:
        self._closed = True
        task = self._repairing
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._connection.aclose()

    def _message(self, channel: bytes, message: bytes) -> None:
        game_id = game_of(channel.decode())
        if game_id in self._games:
            self._on_signal(game_id, message)

    def _lost(self) -> None:
        if not self._closed and (self._repairing is None or self._repairing.done()):
            self._repairing = asyncio.get_running_loop().create_task(self._repair())

    async def _repair(self) -> None:
        """Connect again, subscribe to every watched game, and have them read again."""
        failures = 0
        while not self._closed:
            try:
                subscriber = await self._connection.connected()
                channels = [signals_channel(g).encode() for g in self._games]
                if channels:
                    await subscriber.subscribe(channels)
                self._on_reconnect()
                return
            except (RedisError, OSError) as e:
                delay = _RETRY_S[min(failures, len(_RETRY_S) - 1)]
                log.warning("signals: reconnecting failed (%r); again in %.2f s", e, delay)
                failures += 1
                await asyncio.sleep(delay)
