"""The audience on one server: the websocket's ``audience`` message (after the
snapshot, on every change, at most once a second, the signed-in spectators named, at
most 20), what each process writes to Redis for the others, and ``spectators`` in
the summaries of live games."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import redis.asyncio as aioredis
from websockets.asyncio.client import ClientConnection

from events.game import CLASSIC
from server.common.settings import Settings
from server.live.hubs import Hub
from server.live.outbox import Outbox
from server.live.presence import AUDIENCE_NAMES, merge_audiences
from server.live.socket_writers import SendWire
from server.store.keys import presence_key
from server.web.state import running
from tests.server.test_accounts import sign_up
from tests.server.ws_helpers import LiveServer, Watcher, connect, live_server, new_table


def audiences(watcher: Watcher) -> list[dict[str, Any]]:
    return [m for _, m in watcher.signals if m["type"] == "audience"]


async def told_audience(watcher: Watcher, spectators: int, accounts: list[str]) -> None:
    """Read until the socket is told this audience (failing after 10 s)."""
    wanted = {"type": "audience", "spectators": spectators, "accounts": accounts}

    async def reading() -> None:
        while not audiences(watcher) or audiences(watcher)[-1] != wanted:
            await watcher.next_any()

    await asyncio.wait_for(reading(), 10)


@contextlib.asynccontextmanager
async def signed_in(server: LiveServer, username: str) -> AsyncIterator[dict[str, str]]:
    """The Cookie header of a new account's session."""
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        r = await sign_up(http, username)
        assert r.status_code == 201, r.text
        yield {"Cookie": f"splendor_session={r.cookies['splendor_session']}"}


async def test_the_audience_follows_the_snapshot_and_names_signed_in_spectators(
    settings: Settings,
) -> None:
    """A player's socket gets {"type":"audience","spectators":0,"accounts":[]} after its snapshot and presence; a guest spectator and a signed-in one make it 2 with the account named; a spectator's own opening counts itself; one leaving makes it 1."""
    async with live_server(settings.without_rate_limits()) as server:
        async with httpx.AsyncClient(base_url=server.http_url) as http:
            table = await new_table(http, players=2, seed=3)
        player = Watcher("p0", await connect(server.ws_url(table.id, table.tokens[0])))
        opening = [await player.next_any() for _ in range(3)]
        assert [m["type"] for m in opening] == ["snapshot", "presence", "audience"]
        assert opening[2] == {"type": "audience", "spectators": 0, "accounts": []}

        guest = Watcher("guest", await connect(server.ws_url(table.id)))
        async with signed_in(server, "Ana_Lu") as cookie:
            ana = Watcher("ana", await connect(server.ws_url(table.id), additional_headers=cookie))
            ana_opening = [await ana.next_any() for _ in range(3)]
            assert ana_opening[2] == {"type": "audience", "spectators": 2, "accounts": ["Ana_Lu"]}
            await told_audience(player, 2, ["Ana_Lu"])
            await told_audience(guest, 2, ["Ana_Lu"])
            await ana.conn.close()
            await told_audience(player, 1, [])
        for watcher in (player, guest):
            await watcher.conn.close()


async def test_live_summaries_count_the_spectators(settings: Settings) -> None:
    """GET /api/games?status=live and GET /api/games/{id} of a live game say "spectators": N (the spectators' sockets, not the players'); an open or finished game's summary has no such field."""
    async with (
        live_server(settings.with_(bots="off")) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        table = await new_table(http, players=2, seed=4)
        open_game = (await http.post("/api/games", json={"variant": "classic"})).json()["id"]
        sockets: list[ClientConnection] = [
            await connect(server.ws_url(table.id, table.tokens[0])),
            await connect(server.ws_url(table.id)),
            await connect(server.ws_url(table.id)),
            await connect(server.ws_url(open_game)),
        ]
        for conn in sockets:
            await conn.recv()  # its snapshot: it is counted
        listed = (await http.get("/api/games", params={"status": "live"})).json()["games"]
        assert [g["spectators"] for g in listed if g["id"] == table.id] == [2]
        assert (await http.get(f"/api/games/{table.id}")).json()["spectators"] == 2
        assert "spectators" not in (await http.get(f"/api/games/{open_game}")).json()
        every = {g["id"]: g for g in (await http.get("/api/games")).json()["games"]}
        assert every[table.id]["spectators"] == 2 and "spectators" not in every[open_game]
        for conn in sockets:
            await conn.close()


async def test_each_process_writes_its_spectators_at_most_once_a_second(
    settings: Settings, redis_client: aioredis.Redis
) -> None:
    """The process writes its spectators of a game to the game's presence hash (watch:<server> = "<ms> <count> <names>"): the first at once, the changes within the next interval not until it is over (here an hour: Redis still says 1 with 4 sockets open), and deleted when the last leaves."""
    async with (
        live_server(settings) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        hubs = running(server.app).hubs
        assert hubs is not None
        presence = hubs.hub_presence
        table = await new_table(http, players=2, seed=5)
        field = f"watch:{presence.presence.server_id}"

        async def written() -> bytes | None:
            raw: bytes | None = await redis_client.hget(presence_key(table.id), field)
            return raw

        first = await connect(server.ws_url(table.id))
        await first.recv()
        while await written() is None:
            await asyncio.sleep(0.01)
        at, count, names = (await written() or b"").decode().split(" ", 2)
        assert (count, names) == ("1", "[]") and int(at) > 0
        assert len(await hubs.spectators([table.id])) == 1

        presence.audience_every_s = 3600.0  # the next writes wait for an hour
        while presence._audience_writer is not None and presence._audience_dirty:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)  # the writer is asleep for the hour now
        others = [await connect(server.ws_url(table.id)) for _ in range(3)]
        for conn in others:
            await conn.recv()
        assert presence._audience_dirty == {table.id}
        assert (await written() or b"").split(b" ")[1] == b"1"
        assert await hubs.spectators([table.id]) == [4]  # the hub here counts at once
        for conn in (first, *others):
            await conn.close()


async def test_the_sockets_are_told_at_most_once_an_interval() -> None:
    """Three spectators arriving together: the player's socket is told the first at once and the other two together once the interval is over (0, 1, then 3: never 2); each spectator's opening counts itself; the names are sorted, at most 20."""
    hub = Hub("g", CLASSIC, [])
    hub.audience_every_s = 0.05
    told: dict[str, list[dict[str, Any]]] = {}

    def wire(name: str) -> SendWire:
        told[name] = []

        async def send(text: str) -> None:
            message = json.loads(text)
            if message["type"] == "audience":
                told[name].append(message)

        return SendWire(send)

    player = Outbox(hub, 0, wire("player"))
    hub.attach(player, None)
    spectators = [Outbox(hub, None, wire(name), account=name) for name in ("cy", "Ana", "bo")]
    for outbox in spectators:
        hub.attach(outbox, None)
    while len(told["player"]) < 3:
        await asyncio.sleep(0.01)
    assert told["player"] == [
        {"type": "audience", "spectators": 0, "accounts": []},
        {"type": "audience", "spectators": 1, "accounts": ["cy"]},
        {"type": "audience", "spectators": 3, "accounts": ["Ana", "bo", "cy"]},
    ]
    assert told["Ana"][0]["spectators"] == 2  # its opening counts itself
    assert told["cy"][-1] == told["Ana"][-1] == told["player"][-1]

    many = merge_audiences([(15, tuple(f"a{i:02}" for i in range(15)))] * 2)
    assert many == (30, tuple(f"a{i:02}" for i in range(15)))  # one account named once
    more = merge_audiences([(30, tuple(f"n{i:02}" for i in range(30)))])
    assert len(more[1]) == AUDIENCE_NAMES == 20 and more[1][-1] == "n19"
    for outbox in (player, *spectators):
        hub.detach(outbox)
        await outbox.stop()
    hub.drop()


async def test_the_first_twenty_names_follow_the_spectators_coming_and_going() -> None:
    """25 signed-in spectators and a guest: 26 counted, the first 20 names in order (case aside); one of them leaving lets the 21st in; a name sorting first coming in takes its place; an account on two sockets is named once and stays until both leave."""
    hub = Hub("g", CLASSIC, [])

    async def send(text: str) -> None:
        return None

    names = [f"p{i:02}" for i in range(25)]
    outboxes = {n: Outbox(hub, None, SendWire(send), account=n) for n in reversed(names)}
    guest = Outbox(hub, None, SendWire(send))
    for outbox in (*outboxes.values(), guest):
        hub.attach(outbox, None)
    assert hub.local_audience() == (26, tuple(names[:20]))
    hub.detach(outboxes["p03"])
    assert hub.local_audience()[1] == tuple(n for n in names[:21] if n != "p03")
    first = Outbox(hub, None, SendWire(send), account="A0")
    again = Outbox(hub, None, SendWire(send), account="A0")
    hub.attach(first, None)
    hub.attach(again, None)
    assert hub.local_audience()[1][0] == "A0" and len(hub.local_audience()[1]) == 20
    hub.detach(first)
    assert hub.local_audience()[1][0] == "A0" and hub.local_audience()[0] == 26
    hub.detach(again)
    assert hub.local_audience()[1][0] == "p00"
    hub.drop()
