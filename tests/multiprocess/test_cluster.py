"""Two ``splendor serve`` processes on a Redis Cluster (3 primaries, 3 replicas:
tests/cluster_helpers.py), told it is one by nothing but the node ``REDIS_URL`` names:
games whose keys land on every primary, players on one process and spectators on the
other, bots and the lobby."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx

from server import cli
from server.live.hub_presence import RECONCILE_BEATS
from server.live.presence import PRESENCE_BEAT_S
from tests.cluster_helpers import LocalCluster
from tests.multiprocess.servers import served, splendor_serve, ws_url
from tests.multiprocess.test_timekeeper import check_lost_on_time, ended, timed_game
from tests.server.ws_helpers import Table, Watcher, connect, http_view, live_view_at, new_table

GAME_S = 240
CLOCK_S = 3


def _replica_url(cluster: LocalCluster) -> str:
    """The URL of a live replica: any node will do for ``REDIS_URL``."""
    primaries = {node.port for node in cluster.primaries()}
    return next(n.url for n in cluster.nodes if n.alive and n.port not in primaries)


async def _tables_on_every_primary(
    http: httpx.AsyncClient, cluster: LocalCluster
) -> dict[int, Table]:
    """New tables until one's keys land on each primary (ids are the server's)."""
    by_primary: dict[int, Table] = {}
    primaries = {node.port for node in cluster.primaries()}
    for seed in range(60):
        table = await new_table(http, players=2, seed=100 + seed)
        port = cluster.primary_of(f"game:{{{table.id}}}:events").port
        by_primary.setdefault(port, table)
        if set(by_primary) == primaries:
            return by_primary
    raise AssertionError(f"60 games and not one on each primary: {by_primary}")


def _assert_in_order(spectator: Watcher, beside: Watcher, final: int) -> None:
    diffs = [m for m in spectator.messages if m["type"] == "diff"]
    start = spectator.snapshots[0]
    assert spectator.snapshots == [start]
    assert [m["version"] for m in diffs] == list(range(start + 1, final + 1))
    assert [m for m in beside.messages if m["type"] == "diff" and m["version"] > start] == diffs


async def test_games_on_every_primary_player_on_one_process_spectators_on_the_other(
    redis_cluster: LocalCluster,
) -> None:
    """On a cluster, games whose keys land on each of the three primaries are played through process A (started on a primary's URL) while spectators watch on B (started on a replica's URL) and A: each spectator on B sees every diff in order, no gap, the same as A's, each version as it was live; B's spectators are told the seats' presence, and a rematch made on A."""
    redis_cluster.flush()
    async with (
        splendor_serve(redis_cluster.url, "notify") as a,
        splendor_serve(_replica_url(redis_cluster), "notify") as b,
        httpx.AsyncClient(base_url=a) as http_a,
        httpx.AsyncClient(base_url=b) as http_b,
    ):
        tables = list((await _tables_on_every_primary(http_a, redis_cluster)).values())
        games: list[tuple[Table, Watcher, Watcher, list[Watcher]]] = []
        for n, table in enumerate(tables):
            players = [
                Watcher(f"p{seat}@a", await connect(ws_url(a, table.id, token)), seed=n, play=True)
                for seat, token in enumerate(table.tokens)
            ]
            on_a = Watcher("s@a", await connect(ws_url(a, table.id)))
            on_b = Watcher("s@b", await connect(ws_url(b, table.id)))
            # Both spectators have their snapshot before anyone plays: a snapshot sent
            # after the first moves would leave nothing to compare those moves with.
            for spectator in (on_a, on_b):
                assert (await spectator.next())["type"] == "snapshot"
            games.append((table, on_a, on_b, players))
        everyone = [w for _, on_a, on_b, players in games for w in (*players, on_a, on_b)]
        await asyncio.wait_for(asyncio.gather(*(w.run() for w in everyone)), GAME_S)

        for table, on_a, on_b, _ in games:
            final = (await http_b.get(f"/api/games/{table.id}")).json()
            assert final["status"] == "finished" and on_b.version == final["version"]
            _assert_in_order(on_b, on_a, final["version"])
            events = (await http_b.get(f"/api/games/{table.id}/events")).json()["events"]
            for version in range(on_b.snapshots[0], final["version"]):
                assert on_b.views[version] == live_view_at(events, version, None), version
            assert on_b.view == await http_view(http_b, table.id, None)
        listed = (await http_b.get("/api/games", params={"status": "finished"})).json()
        assert {t.id for t in tables} <= {g["id"] for g in _games(listed)}

        # Signals (PUBLISH) cross the cluster: presence, then a rematch made on A.
        for _, _, spectator, _ in games:
            told = [m["seats"] for _, m in spectator.signals if m["type"] == "presence"]
            assert [True, True] in told
        table, _, on_b, _ = games[0]
        r = await http_a.post(
            f"/api/games/{table.id}/rematch",
            headers={"Authorization": f"Bearer {table.tokens[0]}"},
        )
        assert r.status_code == 201, r.text
        rematch_id = r.json()["id"]

        async def told_rematch() -> None:
            told = {"type": "rematch", "id": rematch_id, "accepted": [0], "declined": []}
            while not any(m == told for _, m in on_b.signals):
                await on_b.next_any()

        # Told by its signal at once, or if that was lost, within the reconcile bound.
        await asyncio.wait_for(told_rematch(), RECONCILE_BEATS * PRESENCE_BEAT_S + 5)
        for watcher in everyone:
            await watcher.conn.close()


def _games(listed: Any) -> list[dict[str, Any]]:
    return list(listed["games"] if isinstance(listed, dict) else listed)


async def test_bots_clocks_the_lobby_and_transfers_on_a_cluster(
    redis_cluster: LocalCluster, tmp_path: Path
) -> None:
    """On a cluster: a game of two bots made through process A plays itself (both processes run bot runners) while a spectator on B sees every diff in order; a timed game whose mover stops loses on time within 1 s, once; the lobby on B lists the games open, then finished; splendor export, then import into the emptied cluster, give back the same file; A's log says once that it takes the public Redis path on a cluster."""
    redis_cluster.flush()
    log_a = tmp_path / "a.log"
    quick_bots = {"SPLENDOR_BOT_DELAY": "0"}
    async with (
        served(redis_cluster.url, quick_bots, log_level="info", log=log_a) as a,
        served(_replica_url(redis_cluster), {**quick_bots, "SPLENDOR_TAIL": "poll"}) as b,
        httpx.AsyncClient(base_url=a.base) as http_a,
        httpx.AsyncClient(base_url=b.base) as http_b,
    ):
        timed_id, _ = await timed_game(http_a, CLOCK_S)
        r = await http_a.post("/api/games", json={"variant": "classic", "players": 2, "seed": 5})
        assert r.status_code == 201, r.text
        game_id = r.json()["id"]
        listed = (await http_b.get("/api/games", params={"status": "open"})).json()
        assert game_id in {g["id"] for g in _games(listed)}
        on_b = Watcher("s@b", await connect(ws_url(b.base, game_id)))
        on_a = Watcher("s@a", await connect(ws_url(a.base, game_id)))
        for spectator in (on_a, on_b):
            assert (await spectator.next())["type"] == "snapshot"  # before the bots play
        for level in ("greedy", "random"):
            r = await http_a.post(f"/api/games/{game_id}/seats", json={"bot": level})
            assert r.status_code == 201, r.text
        await asyncio.wait_for(asyncio.gather(on_b.run(), on_a.run()), GAME_S)
        final = (await http_b.get(f"/api/games/{game_id}")).json()
        assert final["status"] == "finished"
        _assert_in_order(on_b, on_a, final["version"])
        check_lost_on_time(await ended(http_b, timed_id, CLOCK_S + 5), CLOCK_S)
        listed = (await http_b.get("/api/games", params={"status": "finished"})).json()
        assert {game_id, timed_id} <= {g["id"] for g in _games(listed)}
        for watcher in (on_a, on_b):
            await watcher.conn.close()
    text = log_a.read_text()
    assert text.count("redis_direct not used on a Redis Cluster") == 1, text

    first, again = tmp_path / "first.jsonl", tmp_path / "again.jsonl"
    url = redis_cluster.url
    assert (
        await asyncio.to_thread(cli.main, ["export", "--redis-url", url, "--out", str(first)]) == 0
    )
    assert {json.loads(line)["id"] for line in first.read_text().splitlines()} == {
        game_id,
        timed_id,
    }
    redis_cluster.flush()
    assert await asyncio.to_thread(cli.main, ["import", str(first), "--redis-url", url]) == 0
    assert (
        await asyncio.to_thread(cli.main, ["export", "--redis-url", url, "--out", str(again)]) == 0
    )
    assert again.read_text() == first.read_text()
