"""Quick pairing's websocket against a real server: waiting, paired, cancel, resume, refusals (server/web/pairing_socket.py)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection

from server.common.settings import Settings
from server.web.state import parts, running
from tests.server.ws_helpers import LiveServer, connect, live_server

# Pools are shared keys: each test starts on an emptied database, so that a wait
# left by an earlier test's server can't be paired with this test's players.
pytestmark = pytest.mark.usefixtures("redis_client")


def pairing_url(server: LiveServer, **params: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"ws://{server.host}:{server.port}/ws/pairing?{query}"


async def next_message(conn: ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await conn.recv(decode=True))
    return message


async def test_two_guests_are_paired_into_one_game(settings: Settings) -> None:
    """Two guests asking for classic 5+3 are told waiting, then paired: the same game,
    seats 0 and 1, each token acting for its own seat only, a live 5+3 game."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        ana = await connect(pairing_url(server, variant="classic", clock="5%2B3", name="Ana"))
        waiting = await next_message(ana)
        assert waiting["type"] == "waiting" and waiting["pool"] == "classic-5+3-casual"
        assert waiting["rated"] is False and waiting["rating"] is None and waiting["ticket"]
        bo = await connect(pairing_url(server, variant="classic", clock="5+3", name="Bo"))
        assert (await next_message(bo))["type"] == "waiting"
        told = [m for m in [await next_message(ana), await next_message(bo)]]
        assert [m["type"] for m in told] == ["paired", "paired"]
        assert told[0]["game"] == told[1]["game"] and {m["seat"] for m in told} == {0, 1}
        assert told[0]["opponent"] == {"name": "Bo", "rating": None}
        assert told[0]["token"] != told[1]["token"] and told[0]["rated"] is False
        game = told[0]["game"]
        for message in told:
            view = await http.get(
                f"/api/games/{game}/view", headers={"Authorization": f"Bearer {message['token']}"}
            )
            assert view.json()["view"]["you"] == message["seat"]
        summary = (await http.get(f"/api/games/{game}")).json()
        assert summary["status"] == "live" and summary["clock"]["initial"] == 300
        assert sorted(s["name"] for s in summary["seats"]) == ["Ana", "Bo"]
        await ana.wait_closed()
        assert ana.close_code == 1000


async def test_cancel_answers_cancelled_and_leaves_the_pool(settings: Settings) -> None:
    """cancel gets {"type": "cancelled"} and a 1000 close; a player who comes next waits, unpaired."""
    async with live_server(settings) as server:
        ana = await connect(pairing_url(server, variant="duel", clock="3%2B2", name="Ana"))
        assert (await next_message(ana))["type"] == "waiting"
        await ana.send('{"type": "ping"}')
        assert await next_message(ana) == {"type": "pong"}
        await ana.send('{"type": "cancel"}')
        assert await next_message(ana) == {"type": "cancelled"}
        await ana.wait_closed()
        assert ana.close_code == 1000
        bo = await connect(pairing_url(server, variant="duel", clock="3%2B2", name="Bo"))
        assert (await next_message(bo))["type"] == "waiting"
        desk = running(server.app).pairing
        pool = desk._tickets
        assert sum(len(t) for t in pool.values()) == 1
        await bo.send('{"type": "ping"}')
        assert await next_message(bo) == {"type": "pong"}  # still waiting, not paired


async def test_a_dropped_socket_resumes_with_its_ticket(settings: Settings) -> None:
    """A socket that drops and comes back with its ticket keeps its place (same since)
    and is paired like any other."""
    async with live_server(settings) as server:
        url = pairing_url(server, variant="classic", clock="10%2B5", name="Ana")
        ana = await connect(url)
        first = await next_message(ana)
        await ana.close()
        again = await connect(f"{url}&ticket={first['ticket']}")
        back = await next_message(again)
        assert back["ticket"] == first["ticket"] and back["since"] == first["since"]
        bo = await connect(pairing_url(server, variant="classic", clock="10%2B5", name="Bo"))
        await next_message(bo)
        assert (await next_message(again))["type"] == "paired"
        assert (await next_message(bo))["type"] == "paired"


async def test_bad_requests_are_refused(settings: Settings) -> None:
    """An unknown variant or clock, a missing name, a bad ticket: one bad_request error, then 4400; a bad message gets an error and the socket stays."""
    async with live_server(settings) as server:
        for params in (
            {"variant": "chess", "clock": "5%2B3", "name": "A"},
            {"variant": "classic", "clock": "1%2B0", "name": "A"},
            {"variant": "classic", "clock": "5%2B3"},
            {"variant": "classic", "clock": "5%2B3", "name": "A", "ticket": "short"},
        ):
            conn = await connect(pairing_url(server, **params))
            error = await next_message(conn)
            assert error["type"] == "error" and error["code"] == "bad_request"
            await conn.wait_closed()
            assert conn.close_code == 4400
        conn = await connect(pairing_url(server, variant="classic", clock="5%2B3", name="A"))
        await next_message(conn)
        await conn.send('{"type": "dance"}')
        assert (await next_message(conn))["code"] == "bad_request"
        await conn.send('{"type": "ping"}')
        assert await next_message(conn) == {"type": "pong"}


async def test_a_draining_process_closes_waiting_sockets_with_1012_and_the_ticket_resumes(
    settings: Settings,
) -> None:
    """When the process drains, a waiting socket is closed with 1012 and a new one at once;
    its ticket, on a socket opened again, takes back the same place (same since)."""
    async with live_server(settings) as server:
        url = pairing_url(server, variant="duel", clock="5%2B3", name="Ana")
        ana = await connect(url)
        first = await next_message(ana)
        drain = parts(server.app).drain
        drain.begin()
        late = await connect(url)
        await late.wait_closed()
        assert late.close_code == 1012
        await drain.run(5)
        await ana.wait_closed()
        assert ana.close_code == 1012
        async with live_server(settings) as other:  # the next process, on the same Redis
            elsewhere = pairing_url(other, variant="duel", clock="5%2B3", name="Ana")
            again = await connect(f"{elsewhere}&ticket={first['ticket']}")
            back = await next_message(again)
            assert back["type"] == "waiting" and back["since"] == first["since"]


async def test_pairing_sockets_spend_the_addresses_seat_budget(redis_server: str) -> None:
    """Each pairing socket counts as a seat joined from its address: past the budget it gets rate_limited and 4429."""
    settings = (
        Settings(redis_url=redis_server).without_rate_limits().with_(join_rate=0.001, join_burst=2)
    )
    async with live_server(settings) as server:
        url = pairing_url(server, variant="duel", clock="10%2B5", name="Ana")
        for _ in range(2):
            conn = await connect(url)
            assert (await next_message(conn))["type"] == "waiting"
            await conn.close()
        refused = await connect(url)
        assert (await next_message(refused))["code"] == "rate_limited"
        await refused.wait_closed()
        assert refused.close_code == 4429
