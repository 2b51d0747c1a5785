"""The audience across ``splendor serve`` processes on one Redis: spectators on
either process counted for a player on one of them, the signed-in ones named, the
summaries of live games counting them all, and a killed process's spectators
counted out within the presence's bound."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import httpx

from server.live.presence import DEAD_AFTER_BEATS
from tests.multiprocess.servers import served, ws_url
from tests.server.test_accounts import sign_up
from tests.server.ws_helpers import Watcher, connect, new_table

BEAT_S = 0.25
ENV = {"SPLENDOR_PRESENCE_BEAT": str(BEAT_S)}
KILLED_BOUND_S = (DEAD_AFTER_BEATS + 1) * BEAT_S + 5.0


async def told_audience(
    watcher: Watcher, spectators: int, accounts: list[str], timeout: float = 10.0
) -> None:
    """Read until the socket is told this audience."""
    wanted = {"type": "audience", "spectators": spectators, "accounts": accounts}

    def last() -> dict[str, Any] | None:
        told = [m for _, m in watcher.signals if m["type"] == "audience"]
        return told[-1] if told else None

    async def reading() -> None:
        while last() != wanted:
            await watcher.next_any()

    await asyncio.wait_for(reading(), timeout)


async def counted(http: httpx.AsyncClient, game_id: str, spectators: int) -> None:
    """Ask until the game's summary says ``spectators`` (each process writes its
    own at most once a second)."""

    async def asking() -> None:
        while (await http.get(f"/api/games/{game_id}")).json().get("spectators") != spectators:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(asking(), 10)


async def test_spectators_on_two_processes_make_one_audience(
    redis_client: Any, redis_server: str
) -> None:
    """A player on server A is told {"spectators": 3, "accounts": ["Ana_Lu"]} for a guest on A, and Ana_Lu (signed in) and a guest on B; both servers' summaries say 3; one of B's leaving makes it 2; B killed (nothing cleaned up), A's player is told 1 within the presence's bound."""
    async with (
        served(redis_server, ENV) as a,
        served(redis_server, ENV) as b,
        httpx.AsyncClient(base_url=a.base) as http_a,
        httpx.AsyncClient(base_url=b.base) as http_b,
    ):
        table = await new_table(http_a, players=2, seed=31)
        r = await sign_up(http_a, "Ana_Lu")
        assert r.status_code == 201, r.text
        cookie = {"Cookie": f"splendor_session={r.cookies['splendor_session']}"}
        player = Watcher("p0@a", await connect(ws_url(a.base, table.id, table.tokens[0])))
        await told_audience(player, 0, [])

        guest_a = await connect(ws_url(a.base, table.id))
        ana_b = await connect(ws_url(b.base, table.id), additional_headers=cookie)
        guest_b = await connect(ws_url(b.base, table.id))
        await told_audience(player, 3, ["Ana_Lu"])
        await counted(http_a, table.id, 3)
        await counted(http_b, table.id, 3)
        listed = (await http_b.get("/api/games", params={"status": "live"})).json()["games"]
        assert [g["spectators"] for g in listed if g["id"] == table.id] == [3]

        await ana_b.close()
        await told_audience(player, 2, [])
        b.process.send_signal(signal.SIGKILL)
        b.process.wait(5)
        await told_audience(player, 1, [], timeout=KILLED_BOUND_S)
        await counted(http_a, table.id, 1)
        for conn in (guest_a, guest_b, player.conn):
            await conn.close()
