"""Attendance across ``splendor serve`` processes on one Redis (server/live/attendance.py):
an open game is listed by every process while its seated person has a socket open on
any of them, leaves the lists once that socket has been closed 10 s (one look every
5 s, by whichever process holds the turn), and comes back when a socket opens on
another process."""

from __future__ import annotations

import asyncio
import time

import httpx

from tests.multiprocess.servers import served, ws_url
from tests.server.ws_helpers import connect

ENV = {"SPLENDOR_PRESENCE_BEAT": "0.25"}
BOUND_S = 10 + 5 + 10  # the grace, a look's period, and the machine's load on top


async def open_listed(http: httpx.AsyncClient) -> list[str]:
    games = (await http.get("/api/games", params={"status": "open"})).json()["games"]
    return [g["id"] for g in games]


async def until(http: httpx.AsyncClient, game_id: str, listed: bool, within_s: float) -> float:
    """Poll the open list until ``game_id`` is (or is not) in it; the seconds it took."""
    started = time.monotonic()
    while (game_id in await open_listed(http)) != listed:
        assert time.monotonic() - started < within_s, f"{game_id} listed={not listed} still"
        await asyncio.sleep(0.25)
    return time.monotonic() - started


async def test_an_open_game_leaves_every_list_when_its_seated_person_leaves(
    redis_server: str,
) -> None:
    """Ana's socket on server A: B lists her open game; it closes: after the 10 s grace (never before 9 s) B's list drops it; her socket on B: A lists it again."""
    async with (
        served(redis_server, ENV) as a,
        served(redis_server, ENV) as b,
        httpx.AsyncClient(base_url=a.base) as http_a,
        httpx.AsyncClient(base_url=b.base) as http_b,
    ):
        game_id = (
            await http_a.post("/api/games", json={"variant": "classic", "players": 3})
        ).json()["id"]
        r = await http_a.post(f"/api/games/{game_id}/seats", json={"name": "Ana"})
        token = r.json()["token"]
        socket = await connect(ws_url(a.base, game_id, token))
        await until(http_b, game_id, True, 5)
        await asyncio.sleep(6)  # a look or more with her there: still listed
        assert game_id in await open_listed(http_b)
        await socket.close()
        closed = time.monotonic()
        await until(http_b, game_id, False, BOUND_S)
        assert time.monotonic() - closed >= 9
        again = await connect(ws_url(b.base, game_id, token))
        await until(http_a, game_id, True, 5 + 10)
        await again.close()
