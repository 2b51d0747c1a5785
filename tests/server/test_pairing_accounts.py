"""Quick pairing with accounts (server/web/pairing_socket.py, docs/accounts.md): two logged-in
players are paired into a rated game where each seat is its account; a socket from
another site's page can't use the session."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import websockets

from server.common.settings import Settings
from server.players.pairing_rules import pool_named
from server.web.state import running
from tests.server.ws_helpers import LiveServer, connect, live_server

# Pools are shared keys: each test starts on an emptied database, so that a wait
# left by an earlier test's server can't be paired with this test's players.
pytestmark = pytest.mark.usefixtures("redis_client")

PASSWORD = "a-long-enough-password"


def pairing_url(server: LiveServer, query: str) -> str:
    return f"ws://{server.host}:{server.port}/ws/pairing?{query}"


async def signed_up(http: httpx.AsyncClient, username: str) -> dict[str, str]:
    """The Cookie header of a new account's session."""
    r = await http.post("/api/accounts", json={"username": username, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return {"Cookie": f"splendor_session={r.cookies['splendor_session']}"}


async def message(conn: Any) -> dict[str, Any]:
    received: dict[str, Any] = json.loads(await conn.recv(decode=True))
    return received


async def test_two_accounts_are_paired_into_a_rated_game_of_their_accounts(
    settings: Settings,
) -> None:
    """Two accounts asking for Duel 3+2 wait in the rated pool and are paired into a rated game whose seats are their accounts."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        ana = await signed_up(http, "Ana_P")
        http.cookies.clear()
        bo = await signed_up(http, "Bo_P")
        first = await connect(
            pairing_url(server, "variant=duel&clock=3%2B2"), additional_headers=ana
        )
        waiting = await message(first)
        assert waiting["type"] == "waiting" and waiting["rated"] is True
        second = await connect(
            pairing_url(server, "variant=duel&clock=3%2B2"), additional_headers=bo
        )
        assert (await message(second))["type"] == "waiting"
        told = [await message(first), await message(second)]
        assert [m["type"] for m in told] == ["paired", "paired"] and told[0]["rated"] is True
        summary = (await http.get(f"/api/games/{told[0]['game']}")).json()
        assert summary["rated"] is True and summary["status"] == "live"
        accounts = {s["seat"]: s["account"] for s in summary["seats"]}
        assert accounts == {told[0]["seat"]: "Ana_P", told[1]["seat"]: "Bo_P"}
        await first.close()
        await second.close()


async def test_another_sites_page_cannot_pair_with_the_session(settings: Settings) -> None:
    """A pairing socket carrying the session cookie but another site's Origin is closed 4403 unauthorized."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        cookie = await signed_up(http, "Cy_P")
        conn = await connect(
            pairing_url(server, "variant=classic&clock=5%2B3"),
            additional_headers=cookie,
            origin=websockets.Origin("http://evil.example"),
        )
        refused = await message(conn)
        assert refused["type"] == "error" and refused["code"] == "unauthorized"
        await conn.wait_closed()
        assert conn.close_code == 4403


async def test_guests_only_with_guests_and_accounts_in_rated_games(settings: Settings) -> None:
    """Two guests and two accounts ask for classic 5+3, interleaved: the guests play each
    other in a casual game, the accounts each other in a rated game (their seats' accounts
    set, ratings 1500 told)."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        cookies = {}
        for name in ("Ada", "Ben"):
            cookies[name] = await signed_up(http, name)
            http.cookies.clear()
        url = pairing_url(server, "variant=classic&clock=5%2B3&name=Guest")
        sockets = {
            "g1": await connect(url.replace("Guest", "Gus")),
            "Ada": await connect(url, additional_headers=cookies["Ada"]),
        }
        waiting = {k: await message(c) for k, c in sockets.items()}
        assert waiting["g1"]["pool"] == "classic-5+3-casual" and waiting["g1"]["rating"] is None
        assert waiting["Ada"]["pool"] == "classic-5+3-rated" and waiting["Ada"]["rating"] == 1500
        sockets["g2"] = await connect(url.replace("Guest", "Gil"))
        sockets["Ben"] = await connect(url, additional_headers=cookies["Ben"])
        for key in ("g2", "Ben"):
            assert (await message(sockets[key]))["type"] == "waiting"
        told = {k: await message(c) for k, c in sockets.items()}
        assert (
            told["g1"]["game"] == told["g2"]["game"] != told["Ada"]["game"] == told["Ben"]["game"]
        )
        assert told["g1"]["rated"] is False and told["g1"]["opponent"] == {
            "name": "Gil",
            "rating": None,
        }
        assert told["Ada"]["rated"] is True and told["Ada"]["opponent"] == {
            "name": "Ben",
            "rating": 1500,
        }
        rated = (await http.get(f"/api/games/{told['Ada']['game']}")).json()
        casual = (await http.get(f"/api/games/{told['g1']['game']}")).json()
        assert rated["rated"] is True and casual["rated"] is False
        assert sorted(s["account"] for s in rated["seats"]) == ["Ada", "Ben"]
        assert [s["account"] for s in casual["seats"]] == [None, None]


async def test_an_account_waits_in_one_place_at_a_time(settings: Settings) -> None:
    """An account that starts waiting in a second tab (another pool, then the same one) stops its older wait (conflict, 4409, also for its ticket coming back): it is never paired twice, and the newest wait is the one paired."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        ana = await signed_up(http, "Ana_W")
        http.cookies.clear()
        bo = await signed_up(http, "Bo_W")
        tab_one = await connect(
            pairing_url(server, "variant=duel&clock=3%2B2"), additional_headers=ana
        )
        ticket = (await message(tab_one))["ticket"]
        tab_two = await connect(
            pairing_url(server, "variant=duel&clock=5%2B3"), additional_headers=ana
        )
        assert (await message(tab_two))["type"] == "waiting"
        # Bounded, so that a socket never told fails the test instead of hanging it.
        stopped = await asyncio.wait_for(message(tab_one), 10)
        assert stopped["type"] == "error" and stopped["code"] == "conflict"
        await tab_one.wait_closed()
        assert tab_one.close_code == 4409
        back = await connect(
            pairing_url(server, f"variant=duel&clock=3%2B2&ticket={ticket}"), additional_headers=ana
        )
        assert (await message(back))["code"] == "conflict"
        await back.wait_closed()
        tab_three = await connect(
            pairing_url(server, "variant=duel&clock=5%2B3"), additional_headers=ana
        )
        assert (await message(tab_three))["type"] == "waiting"
        assert (await message(tab_two))["code"] == "conflict"
        opponent = await connect(
            pairing_url(server, "variant=duel&clock=5%2B3"), additional_headers=bo
        )
        assert (await message(opponent))["type"] == "waiting"
        told = await message(tab_three)
        assert told["type"] == "paired" and (await message(opponent))["game"] == told["game"]
        games = (await http.get("/api/games", params={"status": "live"})).json()["games"]
        assert [g["id"] for g in games if "Ana_W" in {s["account"] for s in g["seats"]}] == [
            told["game"]
        ]


async def test_an_account_logged_out_everywhere_or_deleted_stops_waiting(
    settings: Settings,
) -> None:
    """A waiting account that logs out everywhere, and another that deletes itself, are taken out of the rated pool and their sockets told (conflict, 4409) instead of being paired later as an account with no session or a deleted one."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        for name, leave in (("Out_E", "everywhere"), ("Gone_E", "delete")):
            http.cookies.clear()
            cookie = await signed_up(http, name)
            conn = await connect(
                pairing_url(server, "variant=classic&clock=3%2B2"), additional_headers=cookie
            )
            assert (await message(conn))["type"] == "waiting"
            if leave == "everywhere":
                assert (await http.delete("/api/sessions")).status_code == 200
            else:
                gone = await http.request("DELETE", "/api/me", json={"password": PASSWORD})
                assert gone.status_code == 204
            # Bounded, so that a socket never told fails the test instead of hanging it.
            told = await asyncio.wait_for(message(conn), 10)
            assert told["type"] == "error" and told["code"] == "conflict"
            await conn.wait_closed()
            assert conn.close_code == 4409
        store = running(server.app).pairing.store
        pool = pool_named("classic-3+2-rated")
        assert pool is not None and await store.size(pool) == 0


async def test_a_wait_begun_while_logging_out_everywhere_is_cancelled(
    settings: Settings,
) -> None:
    """An account logs out everywhere while its pairing socket's wait is being made (after the socket checked the session, before the wait is named the account's): the socket is told the session ended (unauthorized, 4401) and nobody waits in the pool."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        cookie = await signed_up(http, "Race_P")
        desk = running(server.app).pairing
        join = desk.join

        async def logged_out_meanwhile(*args: Any, **kwargs: Any) -> Any:
            assert (await http.delete("/api/sessions")).status_code == 200
            return await join(*args, **kwargs)

        desk.join = logged_out_meanwhile  # type: ignore[method-assign]
        try:
            conn = await connect(
                pairing_url(server, "variant=classic&clock=3%2B2"), additional_headers=cookie
            )
            told = await asyncio.wait_for(message(conn), 10)
            await conn.wait_closed()
        finally:
            desk.join = join  # type: ignore[method-assign]
        assert told["type"] == "error" and told["code"] == "unauthorized", told
        assert conn.close_code == 4401
        pool = pool_named("classic-3+2-rated")
        assert pool is not None and await desk.store.size(pool) == 0
