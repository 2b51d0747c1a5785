"""Presence across ``splendor serve`` processes on one Redis: a seat's socket on one
process is seen by the watchers of another, and stops counting when it closes, when
it is cut, and when its process is killed (within the documented bound)."""

from __future__ import annotations

import asyncio
import random
import signal
from typing import Any

import httpx

from server.live.presence import DEAD_AFTER_BEATS
from tests.multiprocess.servers import served, ws_url
from tests.server import helpers
from tests.server.ws_helpers import StalledSocket, Watcher, connect, new_table

BEAT_S = 0.25
ENV = {"SPLENDOR_PRESENCE_BEAT": str(BEAT_S)}
# A killed process stops counting within DEAD_AFTER_BEATS + 1 beats (docs/live.md);
# the wait allows the test's own round trips on top.
KILLED_BOUND_S = (DEAD_AFTER_BEATS + 1) * BEAT_S + 5.0


async def told(watcher: Watcher, seats: list[bool], timeout: float = 10.0) -> None:
    """Read until the socket is told ``seats``."""

    async def reading() -> None:
        while watcher.presence != seats:
            await watcher.next_any()

    await asyncio.wait_for(reading(), timeout)


async def test_a_seat_on_one_server_is_present_for_a_spectator_on_another(
    redis_client: Any, redis_server: str
) -> None:
    """Seat 0's socket on server A: the spectator on server B is told [true, false], then [false, false] when it closes; a socket cut without a close (its TCP connection aborted) stops counting too."""
    async with (
        served(redis_server, ENV) as a,
        served(redis_server, ENV) as b,
        httpx.AsyncClient(base_url=a.base) as http,
    ):
        table = await new_table(http, players=2, seed=21)
        spectator = Watcher("s@b", await connect(ws_url(b.base, table.id)))
        await spectator.next_any()
        assert (await spectator.next_any())["seats"] == [False, False]

        seat0 = await connect(ws_url(a.base, table.id, table.tokens[0]))
        await told(spectator, [True, False])
        await seat0.close()
        await told(spectator, [False, False])

        seat1 = await connect(ws_url(a.base, table.id, table.tokens[1]))
        await told(spectator, [False, True])
        seat1.transport.abort()  # no close frame: the server sees the connection end
        await told(spectator, [False, False])
        await spectator.conn.close()


async def test_a_client_that_vanishes_stops_counting_once_it_misses_a_ping(
    redis_client: Any, redis_server: str
) -> None:
    """Seat 1's client on server A goes silent without closing anything (it reads nothing, so answers no ping): the spectator on server B is told [false, false] once A's ping timeout has passed and A has dropped the socket."""
    pings = {"SPLENDOR_WS_PING_INTERVAL": "0.5", "SPLENDOR_WS_PING_TIMEOUT": "0.5"}
    async with (
        served(redis_server, {**ENV, **pings}) as a,
        served(redis_server, ENV) as b,
        httpx.AsyncClient(base_url=a.base) as http,
    ):
        table = await new_table(http, players=2, seed=24)
        spectator = Watcher("s@b", await connect(ws_url(b.base, table.id)))
        silent = StalledSocket(ws_url(a.base, table.id, table.tokens[1]))
        await silent.open()
        try:
            await told(spectator, [False, True])
            await told(spectator, [False, False], timeout=10.0)  # 0.5 s + 0.5 s, and slack
        finally:
            silent.close()
        await spectator.conn.close()


async def test_the_sockets_of_a_killed_server_stop_counting_within_the_bound(
    redis_client: Any, redis_server: str
) -> None:
    """Seat 1's socket is on server C, which is killed (SIGKILL: nothing is cleaned up, nobody publishes): the spectator on server B is told [false, false] within (DEAD_AFTER_BEATS + 1) beats, found by B's own beats; seat 0 on A stays present meanwhile."""
    async with (
        served(redis_server, ENV) as a,
        served(redis_server, ENV) as b,
        served(redis_server, ENV) as c,
        httpx.AsyncClient(base_url=a.base) as http,
    ):
        table = await new_table(http, players=2, seed=22)
        seat0 = await connect(ws_url(a.base, table.id, table.tokens[0]))
        await connect(ws_url(c.base, table.id, table.tokens[1]))
        spectator = Watcher("s@b", await connect(ws_url(b.base, table.id)))
        await told(spectator, [True, True])
        c.process.send_signal(signal.SIGKILL)
        c.process.wait(5)
        await told(spectator, [True, False], timeout=KILLED_BOUND_S)
        await seat0.close()
        await told(spectator, [False, False])
        await spectator.conn.close()


async def test_a_rematch_made_on_one_server_is_told_to_a_spectator_on_another(
    redis_client: Any, redis_server: str
) -> None:
    """A finished game watched on server B: seat 1 asks for the rematch through server A, and B's spectator gets {"type":"rematch","id","accepted":[1],"declined":[]}; seat 0 declines it through server B and the spectator on B is told {"accepted":[1],"declined":[0]}, as A's answer to the decline said."""
    async with (
        served(redis_server, ENV) as a,
        served(redis_server, ENV) as b,
        httpx.AsyncClient(base_url=a.base) as http,
        httpx.AsyncClient(base_url=b.base) as http_b,
    ):
        table = await helpers.new_table(http, players=2, seed=23)
        await table.play(random.Random(23), 2000)
        spectator = Watcher("s@b", await connect(ws_url(b.base, table.id)))
        await spectator.next()
        made = await http.post(
            f"/api/games/{table.id}/rematch", headers=helpers.auth(table.tokens[1])
        )
        assert made.status_code == 201

        async def rematch_told() -> dict[str, Any]:
            while True:
                message = await spectator.next_any()
                if message["type"] == "rematch":
                    return message

        offered = {"type": "rematch", "id": made.json()["id"], "accepted": [1], "declined": []}
        assert await asyncio.wait_for(rematch_told(), 10) == offered
        declined = await http_b.post(
            f"/api/games/{table.id}/rematch/decline", headers=helpers.auth(table.tokens[0])
        )
        assert declined.json() == {"id": offered["id"], "accepted": [1], "declined": [0]}
        assert await asyncio.wait_for(rematch_told(), 10) == {**offered, "declined": [0]}
        await spectator.conn.close()
