"""Quick pairing across two ``splendor serve`` processes on one Redis: players waiting
on either are paired with each other, each exactly once, and their tokens are theirs."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from tests.multiprocess.servers import served
from tests.server.ws_helpers import connect

WAIT_S = 20.0


def pairing_url(base: str, variant: str, clock: str, name: str) -> str:
    host = base.removeprefix("http://")
    return f"ws://{host}/ws/pairing?variant={variant}&clock={clock}&name={name}"


async def paired(url: str) -> dict[str, Any]:
    """Wait in the pool until told the game."""
    async with await connect(url) as conn:
        while True:
            message: dict[str, Any] = json.loads(await conn.recv(decode=True))
            if message["type"] != "waiting":
                return message


async def test_twenty_players_on_two_processes_are_each_paired_once(
    redis_client: Any, redis_server: str
) -> None:
    """Twenty guests, alternately on process A and B, in two pools: ten games, each of two
    different players of one pool, every player in exactly one, each token opening its
    own seat (read through the other process)."""
    async with served(redis_server) as a, served(redis_server) as b:
        sockets = []
        for i in range(20):
            base = (a, b)[i % 2].base
            variant, clock = ("classic", "5%2B3") if i < 12 else ("duel", "10%2B5")
            sockets.append(paired(pairing_url(base, variant, clock, f"P{i}")))
        told = await asyncio.wait_for(asyncio.gather(*sockets), WAIT_S)
        games: dict[str, list[int]] = {}
        for i, message in enumerate(told):
            assert message["type"] == "paired"
            games.setdefault(message["game"], []).append(i)
        assert len(games) == 10 and all(len(p) == 2 for p in games.values())
        for players in games.values():
            assert (players[0] < 12) == (players[1] < 12)  # one pool
        async with httpx.AsyncClient() as http:
            for i, message in enumerate(told):
                other = (b, a)[i % 2].base
                view = await http.get(
                    f"{other}/api/games/{message['game']}/view",
                    headers={"Authorization": f"Bearer {message['token']}"},
                )
                assert view.json()["view"]["you"] == message["seat"]
                names = [p["name"] for p in view.json()["view"]["players"]]
                assert names[message["seat"]] == f"P{i}"


async def test_pools_seen_and_filled_across_two_processes(
    redis_client: Any, redis_server: str
) -> None:
    """Two guests wait for classic-3p 3+2 on A and an account (rated=0) for casual Duel 5+3 on B: B's GET /api/pairing/pools counts both pools; a guest on B makes Duel's pair (guest and account meet), a third on B fills the table of three with A's two."""
    async with (
        served(redis_server, {"SPLENDOR_PRESENCE_BEAT": "0.1"}) as a,
        served(redis_server) as b,
        httpx.AsyncClient(base_url=b.base) as http,
    ):
        r = await http.post(
            "/api/accounts", json={"username": "Ana_M", "password": "a-long-enough-password"}
        )
        cookie = {"Cookie": f"splendor_session={r.cookies['splendor_session']}"}
        host_a, host_b = a.base.removeprefix("http://"), b.base.removeprefix("http://")
        three = "variant=classic&players=3&clock=3%2B2&name="
        first = [await connect(f"ws://{host_a}/ws/pairing?{three}{n}") for n in ("Gus", "Gil")]
        ana = await connect(
            f"ws://{host_b}/ws/pairing?variant=duel&clock=5%2B3&rated=0", additional_headers=cookie
        )
        for conn in (*first, ana):
            assert json.loads(await conn.recv(decode=True))["type"] == "waiting"
        pools = (await http.get("/api/pairing/pools")).json()["pools"]
        counts = {(p["variant"], p["players"], p["clock"], p["rated"]): p["waiting"] for p in pools}
        assert counts[("classic", 3, "3+2", False)] == 2 and counts[("duel", 2, "5+3", False)] == 1
        assert sum(counts.values()) == 3

        duel = await paired(f"ws://{host_b}/ws/pairing?variant=duel&clock=5%2B3&name=Bo")
        told_ana = json.loads(await ana.recv(decode=True))
        assert told_ana["game"] == duel["game"] and told_ana["opponent"]["name"] == "Bo"
        last = await paired(f"ws://{host_b}/ws/pairing?{three}Cy")
        told = [json.loads(await conn.recv(decode=True)) for conn in first]
        assert {m["game"] for m in told} == {last["game"]}
        assert sorted(m["seat"] for m in [*told, last]) == [0, 1, 2]
        for conn in (*first, ana):
            await conn.close()
