"""The tournament's websocket under strain (server/web/tournament_socket.py): a client
that stops reading holds one page, not one a change, and is closed once it takes
nothing; pings are rate-limited; a draining process closes the socket with 1012."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

import httpx
import pytest
from starlette.websockets import WebSocket
from websockets.frames import Close, Frame, Opcode

from events.base import TimeControl
from server.common.settings import Settings
from server.live.socket_writers import SendWire
from server.tournaments.service import TournamentService
from server.web import tournament_socket
from server.web.state import parts, running
from tests.server.ws_helpers import LiveServer, StalledSocket, connect, live_server

JOINS = 150


async def arena(server: LiveServer) -> tuple[TournamentService, str]:
    """An upcoming arena on the served app, created by the operator (no account)."""
    service = running(server.app).tournaments
    clock = TimeControl(initial=180, increment=2)
    record = await service.open(
        "tsock",
        "arena",
        "duel",
        clock,
        service.clock_ms() + 600_000,
        name="",
        created_by=None,
        duration_ms=600_000,
    )
    assert record is not None
    return service, record.id


async def followed(server: LiveServer, tournament_id: str) -> None:
    """Return once the server's watches hold a socket of the tournament."""
    watches = running(server.app).tournament_watches
    assert watches is not None
    for _ in range(500):
        if tournament_id in watches._watches:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the socket was not followed")


def url(server: LiveServer, tournament_id: str) -> str:
    return f"ws://{server.host}:{server.port}/ws/tournaments/{tournament_id}"


async def frames(stalled: StalledSocket, timeout: float) -> list[Frame]:
    """What a stalled client reads once it reads again: every frame up to the close
    frame, or until nothing comes for ``timeout``."""
    loop = asyncio.get_running_loop()
    got: list[Frame] = []
    while not got or got[-1].opcode != Opcode.CLOSE:
        try:
            data = await asyncio.wait_for(loop.sock_recv(stalled.sock, 65536), timeout)
        except TimeoutError:
            break
        if not data:
            break
        stalled.protocol.receive_data(data)
        got.extend(e for e in stalled.protocol.events_received() if isinstance(e, Frame))
    return got


def pages(got: list[Frame]) -> list[dict[str, Any]]:
    texts = [json.loads(f.data) for f in got if f.opcode == Opcode.TEXT]
    return [t for t in texts if t["type"] == "tournament"]


async def test_a_client_that_stops_reading_gets_only_the_latest_page(
    redis_client: Any, redis_server: str
) -> None:
    """A socket that reads nothing while 150 players join is sent the pages its buffers took and then the latest, not one page a join; a second socket on the tournament gets the page at once."""
    settings = Settings(redis_url=redis_server)
    async with live_server(settings, sndbuf=4096) as server:
        service, tid = await arena(server)
        stalled = StalledSocket(url(server, tid))
        await stalled.open()
        await followed(server, tid)
        for i in range(JOINS):
            await service.join(tid, f"player{i}")
            await asyncio.sleep(0.01)  # each join's page is read and handed to the socket
        got = pages(await frames(stalled, timeout=2.0))
        assert len(got[-1]["standings"]) == JOINS
        assert len(got) < JOINS // 3, len(got)
        stalled.close()
        other = await connect(url(server, tid))
        latest = json.loads(await asyncio.wait_for(other.recv(), 10))
        assert len(latest["standings"]) == JOINS
        await other.close()


async def test_a_socket_whose_client_takes_nothing_is_closed(
    redis_client: Any, redis_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket whose connection takes nothing for the stall time (here 0.3 s) while pages wait is closed with 1013."""
    monkeypatch.setattr(tournament_socket, "STALL_S", 0.3)
    settings = Settings(redis_url=redis_server)
    async with live_server(settings, sndbuf=4096) as server:
        service, tid = await arena(server)
        stalled = StalledSocket(url(server, tid))
        await stalled.open()
        await followed(server, tid)
        for i in range(JOINS):
            await service.join(tid, f"player{i}")
        await asyncio.sleep(1.0)  # past the stall time, with pages waiting
        got = await frames(stalled, timeout=5.0)
        assert got[-1].opcode == Opcode.CLOSE
        assert Close.parse(got[-1].data).code == 1013
        stalled.close()


async def test_a_draining_process_closes_the_tournament_socket_with_1012(
    redis_client: Any, redis_server: str
) -> None:
    """Once the drain begins a new tournament socket is closed with 1012 at once, and the drain closes an open one with 1012 after its page."""
    settings = Settings(redis_url=redis_server)
    async with live_server(settings) as server:
        _, tid = await arena(server)
        socket = await connect(url(server, tid))
        assert json.loads(await socket.recv())["type"] == "tournament"
        drain = parts(server.app).drain
        drain.begin()
        late = await connect(url(server, tid))
        await asyncio.wait_for(late.wait_closed(), 10)
        assert late.close_code == 1012
        await drain.run(5)
        await asyncio.wait_for(socket.wait_closed(), 10)
        assert socket.close_code == 1012


async def test_pings_beyond_the_budget_get_no_pong() -> None:
    """A socket is answered 5 pings at once, then one every 2 s of its clock."""
    now = [100.0]

    async def nowhere(text: str) -> None:
        pass

    socket = tournament_socket.TournamentSocket(
        cast(WebSocket, None), SendWire(nowhere), clock=lambda: now[0]
    )
    assert [socket.ping_allowed() for _ in range(7)] == [True] * 5 + [False] * 2
    now[0] += 1.9
    assert not socket.ping_allowed()
    now[0] += 0.2
    assert socket.ping_allowed() and not socket.ping_allowed()
    now[0] += 60
    assert [socket.ping_allowed() for _ in range(6)] == [True] * 5 + [False]


async def test_the_page_still_answers_a_ping(redis_client: Any, redis_server: str) -> None:
    """A socket's first ping (as the page sends on open) gets its pong after the page."""
    async with (
        live_server(Settings(redis_url=redis_server)) as server,
        httpx.AsyncClient(base_url=server.http_url),
    ):
        _, tid = await arena(server)
        socket = await connect(url(server, tid))
        await socket.send('{"type":"ping"}')
        got = [json.loads(await socket.recv()) for _ in range(2)]
        assert sorted(m["type"] for m in got) == ["pong", "tournament"]
        await socket.close()
