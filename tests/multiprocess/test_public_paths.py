"""``splendor serve`` with ``SPLENDOR_PUBLIC_PATHS=1`` (server/store/fast_paths.py): a game
served end to end on redis-py's public client and uvicorn's own protocols, beside a
server on the fast paths."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from tests.multiprocess.servers import served, ws_url
from tests.server.ws_helpers import Watcher, connect, http_view, new_table


async def test_a_server_forced_onto_the_public_paths_serves_a_game_end_to_end(
    redis_client: Any, redis_server: str, tmp_path: Path
) -> None:
    """Players and a spectator on a server with SPLENDOR_PUBLIC_PATHS=1, a spectator on a server on the fast paths: the game is played to its end, both spectators see every version once, in order; the public server's log says so in one line per path."""
    log = tmp_path / "public.log"
    async with (
        served(redis_server, {"SPLENDOR_PUBLIC_PATHS": "1"}, log=log) as public,
        served(redis_server, {"SPLENDOR_PUBLIC_PATHS": "0"}) as fast,
        httpx.AsyncClient(base_url=public.base) as http,
    ):
        table = await new_table(http, players=2, seed=47)
        players = [
            Watcher(
                f"p{seat}", await connect(ws_url(public.base, table.id, token)), seed=47, play=True
            )
            for seat, token in enumerate(table.tokens)
        ]
        on_public = Watcher("s@public", await connect(ws_url(public.base, table.id)))
        on_fast = Watcher("s@fast", await connect(ws_url(fast.base, table.id)))
        everyone = [*players, on_public, on_fast]
        await asyncio.wait_for(asyncio.gather(*(w.run() for w in everyone)), 180)

        final = (await http.get(f"/api/games/{table.id}")).json()
        assert final["status"] == "finished"
        for spectator in (on_public, on_fast):
            diffs = [m["version"] for m in spectator.messages if m["type"] == "diff"]
            start = spectator.snapshots[0]
            assert spectator.snapshots == [start]
            assert diffs == list(range(start + 1, final["version"] + 1))
            assert spectator.view == await http_view(http, table.id, None)
        for watcher in everyone:
            await watcher.conn.close()
    lines = [line for line in log.read_text().splitlines() if "path:" in line]
    assert len(lines) == 2, lines
    assert "public path: uvicorn_protocols not used on uvicorn" in lines[0]
    assert "public path: redis_direct not used on redis" in lines[1]
    assert all("SPLENDOR_PUBLIC_PATHS is set" in line for line in lines)
