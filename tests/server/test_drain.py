"""Draining a process for a restart (server/web/drain.py), in one process: what a socket and
/healthz see from the moment the drain begins to the 1012."""

from __future__ import annotations

import json
from typing import Any

import httpx
import websockets

from bots.moves import moves as game_moves
from server.common.settings import Settings
from server.web.state import parts
from tests.server.ws_helpers import connect, http_view, live_server, new_table, receive


async def test_a_draining_process_answers_what_it_took_and_closes_with_1012(
    redis_client: Any, redis_server: str
) -> None:
    """Once the drain begins: /healthz is 503 draining in the error shape, a new socket is closed with 1012 before any message, a command is neither answered nor applied (a ping still is), then drain.run closes every open socket with 1012 and the game is unchanged."""
    settings = Settings(redis_url=redis_server, command_rate=0)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=3)
        view = await http_view(http, table.id, None)
        seat = view["turn"]["seat"]
        player = await connect(server.ws_url(table.id, table.tokens[seat]))
        spectator = await connect(server.ws_url(table.id))
        mine = (await receive(player))["view"]
        await receive(spectator)
        assert (await http.get("/healthz")).status_code == 200

        drain = parts(server.app).drain
        drain.begin()
        health = await http.get("/healthz")
        assert health.status_code == 503
        assert health.json()["status"] == "draining" and health.json()["code"] == "unavailable"
        async with websockets.connect(server.ws_url(table.id)) as late:
            await late.wait_closed()
            assert late.close_code == 1012
        command = {"type": "command", "command_id": "late", "action": game_moves(mine)[0]}
        await player.send(json.dumps(command))
        await player.send('{"type": "ping"}')
        assert (await receive(player)) == {"type": "pong"}  # the command got nothing

        await drain.run(5)
        for socket in (player, spectator):
            await socket.wait_closed()
            assert socket.close_code == 1012
        assert (await http_view(http, table.id, None))["version"] == view["version"]
