"""Quick pairing you can see, against a real server: ``GET /api/pairing/pools``, guests
and accounts meeting in a casual pool, pools of three and four filling, and bots
filling the seats of players who accepted them (docs/pairing.md)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection

from server.common.settings import Settings
from tests.server.test_pairing_accounts import signed_up
from tests.server.ws_helpers import LiveServer, connect, live_server, new_table

pytestmark = pytest.mark.usefixtures("redis_client")


def pairing_url(server: LiveServer, query: str) -> str:
    return f"ws://{server.host}:{server.port}/ws/pairing?{query}"


async def message(conn: ClientConnection) -> dict[str, Any]:
    received: dict[str, Any] = json.loads(await conn.recv(decode=True))
    return received


def waiting_in(body: dict[str, Any], variant: str, players: int, clock: str, rated: bool) -> int:
    [pool] = [
        p
        for p in body["pools"]
        if (p["variant"], p["players"], p["clock"], p["rated"]) == (variant, players, clock, rated)
    ]
    count: int = pool["waiting"]
    return count


async def test_the_pools_say_who_waits_where_and_how_many_play(settings: Settings) -> None:
    """GET /api/pairing/pools lists the 24 pools with "waiting" (two guests in classic-3p 5+3 casual, an account in Duel 10+5 rated) and "playing": the seats with a socket open in live games on every process (two here)."""
    async with (
        live_server(settings.with_(presence_beat=0.05)) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        body = (await http.get("/api/pairing/pools")).json()
        assert len(body["pools"]) == 24 and body["playing"] == 0
        assert set(body["pools"][0]) == {"variant", "players", "clock", "rated", "waiting"}
        cookie = await signed_up(http, "Ana_W")
        http.cookies.clear()
        url = pairing_url(server, "variant=classic&players=3&clock=5%2B3&name=Gus")
        waiting = [
            await connect(url),
            await connect(url.replace("Gus", "Gil")),
            await connect(
                pairing_url(server, "variant=duel&clock=10%2B5"), additional_headers=cookie
            ),
        ]
        for conn in waiting:
            assert (await message(conn))["type"] == "waiting"
        table = await new_table(http, players=2, seed=9)
        seats = [await connect(server.ws_url(table.id, token)) for token in table.tokens]
        for conn in seats:
            await conn.recv()

        async def asked() -> dict[str, Any]:
            while True:
                body = (await http.get("/api/pairing/pools")).json()
                if body["playing"] == 2:
                    return body
                await asyncio.sleep(0.1)

        body = await asyncio.wait_for(asked(), 10)
        assert waiting_in(body, "classic", 3, "5+3", False) == 2
        assert waiting_in(body, "duel", 2, "10+5", True) == 1
        assert waiting_in(body, "classic", 2, "5+3", False) == 0
        assert sum(p["waiting"] for p in body["pools"]) == 3
        for conn in (*waiting, *seats):
            await conn.close()


async def test_a_guest_and_an_account_meet_in_a_casual_pool(settings: Settings) -> None:
    """An account asking rated=0 waits in the casual pool (rating null) and is paired with a guest there, in a casual game where its seat is its account's; a guest asking rated=1 is refused 4401."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        cookie = await signed_up(http, "Ana_C")
        http.cookies.clear()
        ana = await connect(
            pairing_url(server, "variant=classic&clock=3%2B2&rated=0"), additional_headers=cookie
        )
        waiting = await message(ana)
        assert waiting["pool"] == "classic-3+2-casual" and waiting["rating"] is None
        gus = await connect(pairing_url(server, "variant=classic&clock=3%2B2&name=Gus"))
        assert (await message(gus))["type"] == "waiting"
        told = [await message(ana), await message(gus)]
        assert [m["type"] for m in told] == ["paired", "paired"]
        assert told[0]["game"] == told[1]["game"] and told[0]["rated"] is False
        assert told[0]["opponent"] == {"name": "Gus", "rating": None}
        summary = (await http.get(f"/api/games/{told[0]['game']}")).json()
        assert summary["rated"] is False
        assert {s["name"]: s["account"] for s in summary["seats"]} == {
            "Ana_C": "Ana_C",
            "Gus": None,
        }
        refused = await connect(pairing_url(server, "variant=classic&clock=3%2B2&name=Bo&rated=1"))
        assert (await message(refused))["code"] == "unauthorized"
        await refused.wait_closed()
        assert refused.close_code == 4401


@pytest.mark.parametrize("players", [3, 4])
async def test_a_pool_of_three_or_four_fills_into_one_game(
    settings: Settings, players: int
) -> None:
    """Three (four) guests asking for classic with players=3 (4) wait, told the pool classic-3p-… (4p), and are all paired into one live game of that many seats, each told the others."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        names = ["Ana", "Bo", "Cy", "Di"][:players]
        query = f"variant=classic&players={players}&clock=10%2B5&name="
        sockets = []
        for name in names:
            conn = await connect(pairing_url(server, query + name))
            waiting = await message(conn)
            assert waiting["pool"] == f"classic-{players}p-10+5-casual"
            assert waiting["players"] == players and waiting["offer_after_ms"] == 20_000
            sockets.append(conn)
        told = [await message(conn) for conn in sockets]
        assert {m["type"] for m in told} == {"paired"} and len({m["game"] for m in told}) == 1
        assert sorted(m["seat"] for m in told) == list(range(players))
        assert sorted(o["name"] for o in told[0]["others"]) == sorted(names[1:])
        summary = (await http.get(f"/api/games/{told[0]['game']}")).json()
        assert summary["status"] == "live" and summary["players"] == players
        assert sorted(s["name"] for s in summary["seats"]) == sorted(names)


async def test_players_who_accept_bots_get_a_table_with_bots_in_the_seats_left(
    settings: Settings,
) -> None:
    """Two guests in a pool of four: each sends {"type": "fill"} (told "filling"); once both have, they are paired into one casual game of four whose two other seats are bots, and told so; fill in a pool of two is refused (bad_request), the socket open."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        two = await connect(pairing_url(server, "variant=duel&clock=5%2B3&name=Eve"))
        assert (await message(two))["type"] == "waiting"
        await two.send('{"type": "fill"}')
        assert (await message(two))["code"] == "bad_request"
        await two.send('{"type": "ping"}')
        assert await message(two) == {"type": "pong"}

        query = "variant=classic&players=4&clock=5%2B3&name="
        ana = await connect(pairing_url(server, query + "Ana"))
        bo = await connect(pairing_url(server, query + "Bo"))
        for conn in (ana, bo):
            assert (await message(conn))["type"] == "waiting"
        await ana.send('{"type": "fill"}')
        assert await message(ana) == {"type": "filling"}
        await bo.send('{"type": "fill"}')
        assert await message(bo) == {"type": "filling"}
        told = [await message(ana), await message(bo)]
        assert [m["type"] for m in told] == ["paired", "paired"]
        assert told[0]["game"] == told[1]["game"] and told[0]["rated"] is False
        assert sorted((o["name"], o["bot"]) for o in told[0]["others"])[0] == ("Bo", None)
        assert [o["bot"] for o in told[0]["others"]].count("greedy") == 2
        summary = (await http.get(f"/api/games/{told[0]['game']}")).json()
        assert summary["players"] == 4 and summary["status"] == "live"
        assert sorted(str(s["bot"]) for s in summary["seats"]) == [
            "None",
            "None",
            "greedy",
            "greedy",
        ]
        await two.close()
