"""Two ``splendor serve`` processes on one Redis: a move made through one reaches the
sockets of the other, every version in order."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from bots.moves import moves as game_moves
from tests.multiprocess.servers import splendor_serve, ws_url
from tests.server.ws_helpers import Watcher, connect, http_view, live_view_at, new_table


async def test_player_on_one_server_spectator_on_the_other(
    redis_client: Any, redis_server: str
) -> None:
    """Players on server A, spectators on A and B: B's spectator sees every move in order with no gap, the same diffs as A's, each version as it was live. (A waits for keyspace notifications, B polls every stream: both ways of tailing.)"""
    async with (
        splendor_serve(redis_server, "notify") as a,
        splendor_serve(redis_server, "poll") as b,
        httpx.AsyncClient(base_url=a) as http_a,
        httpx.AsyncClient(base_url=b) as http_b,
    ):
        table = await new_table(http_a, players=2, seed=31)
        players = [
            Watcher(f"p{seat}@a", await connect(ws_url(a, table.id, token)), seed=31, play=True)
            for seat, token in enumerate(table.tokens)
        ]
        on_a = Watcher("s@a", await connect(ws_url(a, table.id)))
        on_b = Watcher("s@b", await connect(ws_url(b, table.id)))
        everyone = [*players, on_a, on_b]
        await asyncio.wait_for(asyncio.gather(*(w.run() for w in everyone)), 180)

        final = (await http_b.get(f"/api/games/{table.id}")).json()
        assert final["status"] == "finished" and on_b.version == final["version"]
        diffs_b = [m for m in on_b.messages if m["type"] == "diff"]
        diffs_a = [m for m in on_a.messages if m["type"] == "diff"]
        start = on_b.snapshots[0]
        assert on_b.snapshots == [start]
        assert [m["version"] for m in diffs_b] == list(range(start + 1, final["version"] + 1))
        assert [m for m in diffs_a if m["version"] > start] == diffs_b
        # Each version as it was while live (GET shows a finished game's past public).
        events = (await http_b.get(f"/api/games/{table.id}/events")).json()["events"]
        for version in range(start, final["version"]):
            assert on_b.views[version] == live_view_at(events, version, None), version
        assert on_b.view == await http_view(http_b, table.id, None)
        for watcher in everyone:
            await watcher.conn.close()


async def test_moves_racing_through_both_servers_are_shown_once_in_one_order(
    redis_client: Any, redis_server: str
) -> None:
    """A seat's two sockets, one on each server, send different moves at the same moment, round after round: each server folds its own move ahead, the one whose append loses undoes it, and the spectators on both servers see the same diffs, every version in order, ending at the game's view."""
    async with (
        splendor_serve(redis_server, "notify") as a,
        splendor_serve(redis_server, "notify") as b,
        httpx.AsyncClient(base_url=a) as http,
    ):
        table = await new_table(http, players=2, seed=41)
        spectators = [
            Watcher("s@a", await connect(ws_url(a, table.id))),
            Watcher("s@b", await connect(ws_url(b, table.id))),
        ]
        sockets = {
            seat: [
                Watcher(f"p{seat}@{name}", await connect(ws_url(base, table.id, token)))
                for name, base in (("a", a), ("b", b))
            ]
            for seat, token in enumerate(table.tokens)
        }
        for watcher in [*spectators, *(w for pair in sockets.values() for w in pair)]:
            await watcher.next()  # its snapshot
        appended = 0
        for round_ in range(12):
            view = await http_view(http, table.id, None)
            if view["status"] != "live":
                break
            seat = view["turn"]["seat"]
            legal = game_moves(await http_view(http, table.id, table.tokens[seat]))
            moves = [legal[0], legal[-1]] if len(legal) > 1 else [legal[0], legal[0]]
            ids = [f"r{round_}-a", f"r{round_}-b"]
            await asyncio.gather(
                *(
                    w.conn.send(json.dumps({"type": "command", "command_id": i, "action": m}))
                    for w, i, m in zip(sockets[seat], ids, moves, strict=True)
                )
            )
            for watcher, command_id in zip(sockets[seat], ids, strict=True):
                while command_id not in watcher.acks and not any(
                    e.get("command_id") == command_id for e in watcher.errors
                ):
                    await watcher.next()
            acked = [w.acks[i] for w, i in zip(sockets[seat], ids, strict=True) if i in w.acks]
            assert acked and len(set(acked)) == len(acked)  # one at least, never twice
            appended += len(acked)
        assert appended >= 12
        final = (await http.get(f"/api/games/{table.id}")).json()["version"]
        for watcher in spectators:
            await asyncio.wait_for(watcher.run(until_version=final), 30)
        on_a, on_b = ([m for m in w.messages if m["type"] == "diff"] for w in spectators)
        assert on_a == on_b and [m["version"] for m in on_a][-1] == final
        expected = await http_view(http, table.id, None)
        assert all(w.view == expected for w in spectators)
        for watcher in [*spectators, *(w for pair in sockets.values() for w in pair)]:
            await watcher.conn.close()
