"""The per-process tailer: one XREAD for every watched game, woken for a new one."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
import websockets

from server.common.settings import Settings
from server.live.hubs import Hub
from server.live.pipeline import LivePipeline
from server.live.tailer import Tailer, TailMode
from server.store.clients import tail_client
from server.store.event_store import EventStore, StoredEvent
from tests.server.ws_helpers import Watcher, connect, live_server, new_table


class Delivered:
    """What a tailer hands over, per game, taken as the hubs take it (the tailer is
    told the new version)."""

    def __init__(self) -> None:
        self.tailer: Tailer | None = None
        self.by_game: dict[str, list[int]] = {}
        self._arrived = asyncio.Event()

    def __call__(self, game_id: str, events: list[StoredEvent]) -> None:
        self.by_game.setdefault(game_id, []).extend(e.version for e in events)
        assert self.tailer is not None
        self.tailer.advance(game_id, events[-1].version)
        self._arrived.set()

    def of(self, game_id: str) -> list[int]:
        return self.by_game.get(game_id, [])

    async def arrival(self) -> None:
        """Wait for the next delivery (10 s at most)."""
        await asyncio.wait_for(self._arrived.wait(), 10)
        self._arrived.clear()

    async def until(self, wanted: dict[str, int], timeout: float = 30) -> None:
        """Wait until each game's last delivery ends at the version wanted (``timeout``
        seconds at most between two deliveries)."""
        while any(self.of(g)[-1:] != [v] for g, v in wanted.items()):
            await asyncio.wait_for(self._arrived.wait(), timeout)
            self._arrived.clear()

    def tailer_on(self, redis_client: aioredis.Redis, **options: Any) -> Tailer:
        self.tailer = Tailer(tail_client(redis_client), redis_client, self, **options)
        return self.tailer


def no_hubs(hub: Hub) -> None:
    """The hub-dropping callback of a pipeline over a tailer alone, which has none."""
    raise AssertionError(f"no hub to drop: {hub.game_id}")


@pytest.mark.parametrize("mode", ["notify", "poll"])
async def test_a_game_added_while_waiting_is_tailed_at_once(
    redis_client: aioredis.Redis,
    store: EventStore,
    mode: TailMode,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A tailer in a one-minute wait on one game (polling: an XREAD, woken by CLIENT UNBLOCK; notified: a wait for notifications, woken in process) picks up a second game at once and delivers both games' new events."""
    monkeypatch.setattr("server.live.tailer.NOTIFY_WAIT_S", 60.0)
    got = Delivered()
    tailer = got.tailer_on(redis_client, block_ms=60_000, mode=mode)
    try:
        for game in ("a", "b"):
            await store.append(game, [b"{}"], expected_version=0, command_id=None, at_ms=1)
        tailer.watch("a", 1)
        await asyncio.sleep(0.3)  # the tailer is now blocked on "a" alone
        tailer.watch("b", 1)
        await asyncio.sleep(0.3)
        await store.append("b", [b"{}"], expected_version=1, command_id=None, at_ms=2)
        await got.arrival()  # far less than the 60 s block
        assert got.by_game == {"b": [2]}
        await store.append("a", [b"{}", b"{}"], expected_version=1, command_id=None, at_ms=3)
        await got.arrival()
        assert got.by_game == {"b": [2], "a": [2, 3]}
    finally:
        await tailer.close()


async def test_auto_mode_turns_keyspace_notifications_on(
    redis_client: aioredis.Redis, store: EventStore
) -> None:
    """On a Redis that allows CONFIG, the tailer asks for stream keyspace events and waits for notifications instead of polling every stream."""
    await redis_client.config_set("notify-keyspace-events", "")
    got = Delivered()
    tailer = got.tailer_on(redis_client)
    try:
        await store.append("c", [b"{}"], expected_version=0, command_id=None, at_ms=1)
        tailer.watch("c", 1)
        await asyncio.sleep(0.2)
        assert tailer.mode == "notify"
        config = await redis_client.config_get("notify-keyspace-events")
        flags = str(next(iter(config.values())))
        assert "K" in flags and ("t" in flags or "A" in flags), flags
        await store.append("c", [b"{}"], expected_version=1, command_id=None, at_ms=2)
        await got.arrival()
        assert got.of("c") == [2]
    finally:
        await tailer.close()


async def test_a_hub_that_cannot_read_its_log_closes_its_sockets(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """An event the hub cannot decode closes its sockets with 1011; the clients can reconnect to a hub loaded afresh."""
    settings = Settings(redis_url=redis_server, command_rate=0)
    store = EventStore(redis_client)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=8)
        watcher = Watcher("s", await connect(server.ws_url(table.id)))
        first: dict[str, Any] = await watcher.next()
        version = first["version"]
        await store.append(
            table.id, [b"not an event"], expected_version=version, command_id=None, at_ms=5
        )
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await watcher.next()
        assert watcher.conn.close_code == 1011


async def test_own_appends_are_counted_off_and_others_still_read(
    redis_client: aioredis.Redis, store: EventStore
) -> None:
    """Notified, the notifications of appends announced with ``expect`` are counted off without a read, yet another process's events always arrive: appended after ours, before ours (its notification counted off in place of one of ours), or while an announced append wrote nothing."""
    got = Delivered()

    async def foreign(version: int, count: int) -> None:
        await store.append("g", [b"{}"] * count, expected_version=version, command_id=None, at_ms=1)

    pipeline = LivePipeline(
        {}, no_hubs, lambda p: got.tailer_on(redis_client, mode="notify", notices=p)
    )
    tailer = pipeline.tailer
    try:
        await foreign(0, 1)
        pipeline.watch("g", 1)
        await asyncio.sleep(0.2)
        await foreign(1, 1)  # the channel delivers: from now on our appends are counted
        await got.arrival()
        assert got.of("g") == [2]
        reads = tailer.reads
        assert pipeline.expect("g", 2)
        await foreign(2, 2)  # "ours": the hub would get 3 and 4 from the service
        tailer.advance("g", 4)
        await asyncio.sleep(0.3)
        assert (got.of("g"), tailer.reads) == ([2], reads)  # counted off, nothing read
        await foreign(4, 1)  # another process's, after ours
        await got.arrival()
        assert got.of("g") == [2, 5]
        assert pipeline.expect("g", 2)
        await foreign(5, 1)  # another's comes first and is counted off as ours...
        await foreign(6, 2)  # ...then ours: its last notification reads everything
        await got.arrival()
        await asyncio.sleep(0.1)
        assert got.of("g") == [2, 5, 6, 7, 8]
        assert pipeline.expect("g", 2)
        await foreign(8, 2)  # counted off in place of an append that then failed
        await asyncio.sleep(0.2)
        pipeline.expected_failed("g", 2)
        await got.arrival()
        assert got.of("g") == [2, 5, 6, 7, 8, 9, 10]
    finally:
        await tailer.close()


async def test_a_lost_notification_connection_is_made_again_and_nothing_is_missed(
    redis_client: aioredis.Redis, store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Notified, when Redis drops the notifications' connection the tailer connects and subscribes again, and reads what was appended meanwhile: no event is missed, none is read twice."""
    monkeypatch.setattr("server.live.tailer.SWEEP_S", 3600.0)  # only the reconnection may read
    got = Delivered()

    async def append(version: int) -> None:
        await store.append("g", [b"{}"], expected_version=version, command_id=None, at_ms=1)

    tailer = got.tailer_on(redis_client, mode="notify")
    try:
        await append(0)
        tailer.watch("g", 1)
        await asyncio.sleep(0.2)
        await append(1)
        await got.arrival()
        killed = await redis_client.client_kill_filter(_type="pubsub")
        assert killed >= 1
        await append(2)  # its notification has nowhere to go
        await got.arrival()  # read once the connection is back
        await append(3)  # and notified as before
        await got.arrival()
        await asyncio.sleep(0.2)
        assert got.of("g") == [2, 3, 4]
    finally:
        await tailer.close()
