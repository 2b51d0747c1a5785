"""Presence and rematch messages on the websocket, one server: their shape, their
place after the snapshot, and when they are sent."""

from __future__ import annotations

import asyncio
import random
import time

import httpx
import redis.asyncio as aioredis

from server.common.settings import Settings
from server.store.keys import PRESENCE_SERVERS_KEY, meta_key, presence_key
from tests.server import helpers
from tests.server.ws_helpers import Watcher, connect, live_server, new_table


async def until_presence(watcher: Watcher, seats: list[bool]) -> None:
    """Read until the socket is told ``seats`` (failing after the receive timeout)."""
    while watcher.presence != seats:
        await watcher.next_any()


async def kinds_until_pong(watcher: Watcher) -> list[str]:
    """The types of the messages a socket gets up to the answer to a ping."""
    await watcher.conn.send('{"type": "ping"}')
    kinds = []
    while (message := await watcher.next_any())["type"] != "pong":
        kinds.append(message["type"])
    return kinds


async def test_presence_follows_the_snapshot_and_every_change(settings: Settings) -> None:
    """A socket's first messages are its snapshot then {"type":"presence","seats":[bool,…],"away_since":[time|null,…]} (a seat never connected is away since the game started); a seat's first socket makes it present for everyone, a second changes nothing, and it is absent once its last closes, away since then; a socket resuming with since gets the presence with no snapshot."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=8)
        spectator = Watcher("s", await connect(server.ws_url(table.id)))
        first = [await spectator.next_any(), await spectator.next_any()]
        assert [m["type"] for m in first] == ["snapshot", "presence"]
        events = (await http.get(f"/api/games/{table.id}/events")).json()["events"]
        started = next(e["at"] for e in events if e["type"] == "GameStarted")
        # Never connected: away since the game started.
        assert first[1] == {
            "type": "presence",
            "seats": [False, False],
            "away_since": [started, started],
        }

        seat0 = Watcher("p0", await connect(server.ws_url(table.id, table.tokens[0])))
        assert (await seat0.next_any())["type"] == "snapshot"
        assert await seat0.next_any() == {
            "type": "presence",
            "seats": [True, False],
            "away_since": [None, started],
        }
        await until_presence(spectator, [True, False])

        again = Watcher("p0b", await connect(server.ws_url(table.id, table.tokens[0])))
        await again.next_any()
        await again.next_any()
        assert await kinds_until_pong(spectator) == []  # nothing changed
        await seat0.conn.close()
        assert await kinds_until_pong(spectator) == []  # one of its sockets is still open
        await again.conn.close()
        await until_presence(spectator, [False, False])
        left = spectator.signals[-1][1]["away_since"]
        assert left[0] > started and left[1] == started  # ISO-8601 UTC: ordered as text

        version = (await http.get(f"/api/games/{table.id}")).json()["version"]
        url = server.ws_url(table.id, table.tokens[1], since=version)
        resumed = Watcher("p1", await connect(url))
        told = await resumed.next_any()
        assert (told["type"], told["seats"]) == ("presence", [False, True])
        await until_presence(spectator, [False, True])
        for watcher in (spectator, resumed):
            await watcher.conn.close()


async def test_a_bot_seat_is_always_present(settings: Settings) -> None:
    """A bot's seat is present from the moment it is taken, with no socket: the spectator is told when the bot joins."""
    async with (
        live_server(settings.with_(bots="off")) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        r = await http.post("/api/games", json={"variant": "classic", "players": 2})
        game_id = r.json()["id"]
        spectator = Watcher("s", await connect(server.ws_url(game_id)))
        await spectator.next_any()
        assert await spectator.next_any() == {
            "type": "presence",
            "seats": [False, False],
            "away_since": [None, None],  # an open game: nobody is away yet
        }
        await http.post(f"/api/games/{game_id}/seats", json={"name": "Ana"})
        await http.post(f"/api/games/{game_id}/seats", json={"bot": "random"})
        await until_presence(spectator, [False, True])
        await spectator.conn.close()


async def test_a_rematch_is_told_to_the_watchers_of_the_finished_game(
    settings: Settings,
) -> None:
    """A spectator of a finished game gets {"type":"rematch","id","accepted","declined"} when a seat makes the rematch (that seat accepted), again when the other seat accepts, and not when a seat calls again; a socket opened later has "rematch" in its snapshot's view and gets the message, with both answers, after the presence."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await helpers.new_table(http, players=2, seed=12)
        await table.play(random.Random(12), 2000)
        spectator = Watcher("s", await connect(server.ws_url(table.id)))
        snapshot = await spectator.next()
        assert snapshot["view"]["status"] == "finished" and "rematch" not in snapshot["view"]
        made = await http.post(
            f"/api/games/{table.id}/rematch", headers=helpers.auth(table.tokens[0])
        )
        rematch_id = made.json()["id"]
        while not [m for _, m in spectator.signals if m["type"] == "rematch"]:
            await spectator.next_any()
        offered = {"type": "rematch", "id": rematch_id, "accepted": [0], "declined": []}
        assert spectator.signals[-1][1] == offered
        await http.post(f"/api/games/{table.id}/rematch", headers=helpers.auth(table.tokens[1]))
        both = {**offered, "accepted": [0, 1]}
        while spectator.signals[-1][1] != both:
            await spectator.next_any()
        await http.post(f"/api/games/{table.id}/rematch", headers=helpers.auth(table.tokens[1]))
        kinds = await kinds_until_pong(spectator)
        assert "rematch" not in kinds
        late = Watcher("late", await connect(server.ws_url(table.id)))
        opening = [await late.next_any() for _ in range(3)]
        assert [m["type"] for m in opening] == ["snapshot", "presence", "rematch"]
        assert opening[0]["view"]["rematch"] == rematch_id
        assert opening[2] == both
        for watcher in (spectator, late):
            await watcher.conn.close()


async def test_what_a_lost_signal_hid_is_told_within_the_reconcile_bound(
    settings: Settings, redis_client: aioredis.Redis
) -> None:
    """A rematch and another process's socket of seat 1, written to Redis with no signal published (as a Redis Cluster drops one while a bus link is made again), reach a spectator all the same: every hub is read again on its share of the beats, within RECONCILE_BEATS beats."""
    beat = 0.1
    elsewhere = "another-process"
    async with (
        live_server(settings.with_(presence_beat=beat)) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        table = await helpers.new_table(http, players=2, seed=14)
        await table.play(random.Random(14), 2000)
        spectator = Watcher("s", await connect(server.ws_url(table.id)))
        await spectator.next()

        async def beating() -> None:  # the other process, alive
            while True:
                await redis_client.zadd(
                    PRESENCE_SERVERS_KEY, {elsewhere: time.time_ns() // 1_000_000}
                )
                await asyncio.sleep(beat / 2)

        other = asyncio.create_task(beating())
        try:
            await asyncio.sleep(2 * beat)  # known alive before its socket is read
            await redis_client.hset(
                presence_key(table.id), f"on:1:{elsewhere}", time.time_ns() // 1_000_000
            )
            await redis_client.hset(meta_key(table.id), "rematch", "made-elsewhere")

            async def told() -> None:
                while not (
                    spectator.presence == [False, True]
                    and {"type": "rematch", "id": "made-elsewhere", "accepted": [], "declined": []}
                    in [m for _, m in spectator.signals]
                ):
                    await spectator.next_any()

            await asyncio.wait_for(told(), 10)
        finally:
            other.cancel()
            await spectator.conn.close()
