"""``server.live.game_signals.Signals`` on the real Redis: a game's messages reach the process
that watches it, and a lost connection is made again, with every game read again."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from server.live.game_signals import Signals
from server.store.keys import rematch_signal, signals_channel


async def test_signals_arrive_and_survive_a_killed_connection(
    redis_client: aioredis.Redis,
) -> None:
    """A watched game's messages arrive, an unwatched game's do not; when Redis drops the subscriber's connection it is made again, the games subscribed again, and on_reconnect called (its messages may have been lost), after which messages arrive again."""
    got: list[tuple[str, bytes]] = []
    reconnected = asyncio.Event()
    signals = Signals(redis_client, lambda g, m: got.append((g, m)), reconnected.set)
    try:
        await signals.watch("g1")
        await signals.watch("g2")
        signals.unwatch("g2")
        await redis_client.publish(signals_channel("g2"), b"p")
        await redis_client.publish(signals_channel("g1"), rematch_signal("next"))
        for _ in range(200):
            if got:
                break
            await asyncio.sleep(0.01)
        assert got == [("g1", b"rnext")]

        await redis_client.client_kill_filter(_type="pubsub")
        await asyncio.wait_for(reconnected.wait(), 10)
        await redis_client.publish(signals_channel("g1"), b"p")
        for _ in range(200):
            if len(got) == 2:
                break
            await asyncio.sleep(0.01)
        assert got[1:] == [("g1", b"p")]
    finally:
        await signals.close()
