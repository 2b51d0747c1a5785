"""Resuming a socket with ``since``, and replaying a finished game from version 0."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import httpx

from bots.moves import moves as game_moves
from events.game import VARIANTS
from server.common.settings import Settings
from tests.server.ws_helpers import (
    Table,
    Watcher,
    choose,
    connect,
    http_view,
    live_server,
    new_table,
)


async def http_move(http: httpx.AsyncClient, table: Table, rng: random.Random) -> int:
    """One seeded move over HTTP by whoever's turn it is; returns the new version."""
    seat = (await http_view(http, table.id, table.tokens[0]))["turn"]["seat"]
    view = await http_view(http, table.id, table.tokens[seat])
    body = {"command_id": f"http-{view['version']}", "action": choose(game_moves(view), rng)}
    r = await http.post(
        f"/api/games/{table.id}/commands",
        json=body,
        headers={"Authorization": f"Bearer {table.tokens[seat]}"},
    )
    assert r.status_code == 200, r.text
    version: int = r.json()["version"]
    return version


async def read_to(watcher: Watcher, version: int) -> None:
    while watcher.version is None or watcher.version < version:
        await watcher.next()


def diffs_of(watcher: Watcher, after: int, until: int) -> list[dict[str, Any]]:
    return [m for m in watcher.messages if m["type"] == "diff" and after < m["version"] <= until]


async def test_socket_dropped_for_ten_moves_gets_exactly_the_missed_diffs(
    redis_client: Any, redis_server: str
) -> None:
    """A spectator and a player reconnecting with ``since`` get the diffs they missed, in order, and no snapshot: the same diffs as a socket that never left."""
    settings = Settings(redis_url=redis_server, command_rate=0)
    rng = random.Random(5)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=5)
        stayer = Watcher("stayer", await connect(server.ws_url(table.id)))
        player_stayer = Watcher(
            "p0-stayer", await connect(server.ws_url(table.id, table.tokens[0]))
        )
        leavers = [
            Watcher("spectator", await connect(server.ws_url(table.id))),
            Watcher("p0", await connect(server.ws_url(table.id, table.tokens[0]))),
        ]
        for _ in range(5):
            version = await http_move(http, table, rng)
        for watcher in [stayer, player_stayer, *leavers]:
            await read_to(watcher, version)
        left_at = version
        for leaver in leavers:
            await leaver.conn.close()

        for _ in range(10):
            version = await http_move(http, table, rng)
        assert version > left_at + 10  # a move is one event or more

        for leaver, token in zip(leavers, [None, table.tokens[0]], strict=True):
            leaver.conn = await connect(server.ws_url(table.id, token, since=left_at))
            await read_to(leaver, version)
            await leaver.drain()  # nothing else was waiting: the next message is the pong
            assert leaver.snapshots == [leaver.snapshots[0]], "no snapshot on resuming"
            assert leaver.views[version] == await http_view(http, table.id, token)
        await read_to(stayer, version)
        await read_to(player_stayer, version)
        assert diffs_of(leavers[0], left_at, version) == diffs_of(stayer, left_at, version)
        assert diffs_of(leavers[1], left_at, version) == diffs_of(player_stayer, left_at, version)
        assert [m["version"] for m in diffs_of(leavers[0], left_at, version)] == list(
            range(left_at + 1, version + 1)
        )
        for watcher in [stayer, player_stayer, *leavers]:
            await watcher.conn.close()


async def test_finished_game_replays_from_version_zero(
    redis_client: Any, redis_server: str
) -> None:
    """``since=0`` on a finished game streams every diff from the empty table (the view of zero events); each rebuilt version equals GET view at that version."""
    settings = Settings(redis_url=redis_server, command_rate=0)
    rng = random.Random(3)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=3)
        summary: dict[str, Any] = {}
        for _ in range(400):
            summary = (await http.get(f"/api/games/{table.id}")).json()
            if summary["status"] == "finished":
                break
            await http_move(http, table, rng)
        assert summary["status"] == "finished"
        final = summary["version"]

        classic = VARIANTS["classic"]
        for seat, token in [(None, None), (1, table.tokens[1])]:
            watcher = Watcher(
                f"replay-{seat}", await connect(server.ws_url(table.id, token, since=0))
            )
            watcher.start_from(0, classic.view(classic.new_state(), seat))
            await read_to(watcher, final)
            assert watcher.snapshots == []
            assert [m["version"] for m in watcher.messages] == list(range(1, final + 1))
            for version in range(1, final + 1):
                assert watcher.views[version] == await http_view(http, table.id, token, version)
            # The events of a finished game are public: blind reserves show their card.
            blind = [
                m["event"]
                for m in watcher.messages
                if m["event"]["type"] == "CardReserved" and m["event"]["blind"]
            ]
            assert all(e["card"] is not None for e in blind)
            await watcher.conn.close()

        # Up to date already: nothing comes but the answer to a ping.
        current = Watcher("current", await connect(server.ws_url(table.id, since=final)))
        await current.conn.send(json.dumps({"type": "ping"}))
        assert (await current.next())["type"] == "pong"
        await current.conn.close()
        # Ahead of the server (a version it does not have): a snapshot starts it over.
        ahead = Watcher("ahead", await connect(server.ws_url(table.id, since=final + 5)))
        first = await ahead.next()
        assert first["type"] == "snapshot" and first["version"] == final
        await ahead.conn.close()
        await asyncio.sleep(0)
