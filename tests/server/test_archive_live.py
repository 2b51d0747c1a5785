"""An archived game over the websocket, on a live server: a spectator replaying it
from version 0 while it is archived sees every version's view as before; sockets
opened after, on a process reading it cold, replay the same messages; a seat's
command gets game_over. And the hubs' side: archiving tells every process, whose
tailer then reads from the archive what it had not read."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import httpx
import redis.asyncio as aioredis

from events.game import VARIANTS
from server.common.settings import Settings
from server.games.archiver import archive_game
from server.games.service import GameService
from server.store import archive_format as archive
from server.store.event_store import EventStore
from server.store.keys import ARCHIVED_SIGNAL, archive_key, signals_channel
from server.web.state import running
from tests.server.archive_helpers import Clock, play
from tests.server.test_ws_resume import http_move, read_to
from tests.server.test_ws_tailer import Delivered
from tests.server.ws_helpers import Watcher, connect, http_view, live_server, new_table


async def _replay(
    url: str, name: str, seat: int | None, until: int, after_each: Any = None
) -> Watcher:
    watcher = Watcher(name, await connect(url))
    classic = VARIANTS["classic"]
    watcher.start_from(0, classic.view(classic.new_state(), seat))
    while watcher.version is None or watcher.version < until:
        await watcher.next()
        if after_each is not None:
            await after_each(watcher.version)
    return watcher


async def test_a_game_archived_while_replayed_reads_the_same(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Replays from since=0 (spectator and seat) during and after the archive get the same messages, each version's view equal to GET view before the archive; a command after it gets game_over."""
    settings = Settings(redis_url=redis_server, command_rate=0, archive_after=3600)
    rng = random.Random(8)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        service: GameService = running(server.app).service
        table = await new_table(http, players=2, seed=8)
        watching = Watcher("live", await connect(server.ws_url(table.id)))
        status = "live"
        while status != "finished":
            await http_move(http, table, rng)
            status = (await http.get(f"/api/games/{table.id}")).json()["status"]
        final = (await http.get(f"/api/games/{table.id}")).json()["version"]
        await read_to(watching, final)
        tokens: list[tuple[int | None, str | None]] = [(None, None), (1, table.tokens[1])]
        views = {
            seat: [await http_view(http, table.id, token, v) for v in range(1, final + 1)]
            for seat, token in tokens
        }

        async def archive_at_half(version: int | None) -> None:
            if version == final // 2:
                assert await archive_game(service, table.id)

        replays: dict[int | None, list[dict[str, Any]]] = {}
        for seat, token in tokens:
            url = server.ws_url(table.id, token, since=0)
            during = archive_at_half if seat is None else None
            watcher = await _replay(url, f"during-{seat}", seat, final, during)
            assert [watcher.views[v] for v in range(1, final + 1)] == views[seat]
            replays[seat] = watcher.messages
            await watcher.conn.close()
        assert await redis_client.exists(archive_key(table.id))
        # The socket open all along is still served: a ping is answered.
        await watching.conn.send(json.dumps({"type": "ping"}))
        assert (await watching.next())["type"] == "pong"
        await watching.conn.close()

        # Cold: no hub, no cached projection; the hub loads the game from its archive.
        for _ in range(200):
            if running(server.app).hubs.get(table.id) is None:
                break
            await asyncio.sleep(0.02)
        service.repository.drop_cache()
        for seat, token in tokens:
            url = server.ws_url(table.id, token, since=0)
            watcher = await _replay(url, f"after-{seat}", seat, final)
            assert watcher.messages == replays[seat]
            await watcher.conn.close()

        player = Watcher("late", await connect(server.ws_url(table.id, table.tokens[0])))
        assert (await player.next())["type"] == "snapshot"
        command = {"type": "command", "command_id": "late-1", "action": {"kind": "resign"}}
        await player.conn.send(json.dumps(command))
        answer = await player.next()
        assert (answer["type"], answer["code"]) == ("error", "game_over"), answer
        await player.conn.close()


async def test_a_tailer_reads_what_a_game_archived_behind_its_back_holds(
    redis_client: aioredis.Redis, store: EventStore
) -> None:
    """A tailer polling five games (XREAD, which finds no stream once archived) is told a game was archived (read_alone): it reads the events it had not read, from the archive."""
    got = Delivered()
    tailer = got.tailer_on(redis_client, block_ms=60_000, mode="poll")
    try:
        for game in "abcde":
            await store.append(game, [b"{}"], expected_version=0, command_id=None, at_ms=1)
            tailer.watch(game, 1)
        await asyncio.sleep(0.3)  # blocked on all five
        log = [(1, b"{}"), (2, b'{"n":2}'), (3, b'{"n":3}')]
        assert await store.archive("a", 1, archive.encode("classic", log, {})) == 1
        tailer.read_alone("a")
        await got.arrival()
        assert got.by_game == {"a": [2, 3]}
    finally:
        await tailer.close()


async def test_archiving_tells_every_process_s_hubs(redis_client: aioredis.Redis) -> None:
    """The archive's script publishes the game's archived signal (server/live/game_signals.py), which the hubs turn into a read from the store."""
    clock = Clock()
    service = GameService(EventStore(redis_client), clock_ms=clock)
    game = await play(service, clock, "classic", 2, seed=30, timed=False)
    pubsub = redis_client.pubsub()
    await pubsub.subscribe(signals_channel(game.id))
    try:
        assert (await pubsub.get_message(timeout=5))["type"] == "subscribe"
        assert await archive_game(service, game.id)
        message = await pubsub.get_message(timeout=5)
        assert message is not None and message["data"] == ARCHIVED_SIGNAL
    finally:
        await pubsub.aclose()
