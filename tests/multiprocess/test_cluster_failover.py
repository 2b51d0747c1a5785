"""Failures on a Redis Cluster, with two ``splendor serve`` processes: a primary killed
(``kill -9``) while games are played through both with ``SPLENDOR_DURABILITY=replica``
(its replica takes over, every game plays on, every acknowledged move is in the log),
and a process sent SIGTERM while spectators watch and a player moves (every client
goes on from the other process, seeing every version once, in order)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from bots.moves import moves as game_moves
from tests.cluster_helpers import ClusterUnavailable, LocalCluster
from tests.multiprocess.followers import play_across_a_stop
from tests.multiprocess.servers import served
from tests.server.helpers import auth, choose

# The cluster mode's client (issue 13 item 1): a server without it has nothing to fail over.
pytest.importorskip("server.store.clients", reason="this server has no Redis Cluster mode")

ENV = {
    "SPLENDOR_DURABILITY": "replica",
    "SPLENDOR_DURABILITY_TIMEOUT_MS": "500",
    "SPLENDOR_BOTS": "off",
}
GAMES = 6
MOVES_BEFORE = 3  # each game's moves before the kill
MOVES_AFTER = 4  # and after the killed node is back (as a replica)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """A cluster of this test's own: it kills one of its primaries."""
    try:
        cluster = LocalCluster(tmp_path / "cluster")
    except ClusterUnavailable as e:
        pytest.skip(f"no Redis Cluster: {e}")
    with cluster:
        yield cluster


@dataclass
class Played:
    """One game's moves as their players saw them answered."""

    game_id: str
    tokens: list[str]
    acked: list[tuple[str, int]] = field(default_factory=list)  # (command id, version)
    unavailable: int = 0  # answers 503 (sent again with the same command id)


async def _retrying(call: Any, played: Played) -> httpx.Response:
    """``call()`` until it is not 503 (a failover under way: the same request again).
    The bound is generous: on a busy machine the killed node's restart and full sync
    as a replica, which strict durability waits for, can take tens of seconds."""
    for _ in range(1800):
        try:
            response: httpx.Response = await call()
        except httpx.TransportError:
            response = httpx.Response(503)
        if response.status_code != 503:
            return response
        played.unavailable += 1
        await asyncio.sleep(0.05)
    raise AssertionError(f"{played.game_id}: unavailable for 90 s")


async def _move(https: list[httpx.AsyncClient], played: Played, rng: random.Random) -> bool:
    """One move of the game's player to move, through its own process (seat 0 through
    the first, seat 1 through the second); False once the game is over."""
    game = played.game_id
    summary = await _retrying(lambda: https[0].get(f"/api/games/{game}/view"), played)
    assert summary.status_code == 200, summary.text
    view = summary.json()["view"]
    if view["status"] != "live":
        return False
    seat = view["turn"]["seat"]
    http, token = https[seat], played.tokens[seat]
    mine = await _retrying(lambda: http.get(f"/api/games/{game}/view", headers=auth(token)), played)
    assert mine.status_code == 200, mine.text
    action = choose(game_moves(mine.json()["view"]), rng)
    command_id = uuid.uuid4().hex
    body = {"command_id": command_id, "action": action}
    answer = await _retrying(
        lambda: http.post(f"/api/games/{game}/commands", json=body, headers=auth(token)),
        played,
    )
    assert answer.status_code == 200, answer.text
    played.acked.append((command_id, answer.json()["version"]))
    return True


async def _new_game(http: httpx.AsyncClient) -> Played:
    made = await http.post("/api/games", json={"variant": "classic", "players": 2})
    assert made.status_code == 201, made.text
    game_id = made.json()["id"]
    tokens = []
    for name in ("Ana", "Bo"):
        seat = await http.post(f"/api/games/{game_id}/seats", json={"name": name})
        assert seat.status_code == 201, seat.text
        tokens.append(seat.json()["token"])
    return Played(game_id, tokens)


def _found(cluster: LocalCluster, played: Played) -> int:
    """How many of the game's acknowledged moves its log holds, at their versions."""
    primary = cluster.primary_of(f"game:{{{played.game_id}}}:events")
    with contextlib.closing(redis.Redis(port=primary.port)) as client:
        recorded = client.hgetall(f"game:{{{played.game_id}}}:commands")
        length = int(client.xlen(f"game:{{{played.game_id}}}:events"))
    found = 0
    for command_id, version in played.acked:
        seen = recorded.get(command_id.encode())
        if seen is not None and int(seen.split(b":")[0]) == version and version <= length:
            found += 1
    return found


async def test_a_primary_killed_mid_game_loses_no_acknowledged_move(
    cluster: LocalCluster,
) -> None:
    """Games on every primary played through two processes; the primary of one game is
    killed with SIGKILL while moves are being made: its replica takes over (the killed
    node rejoins as its replica, so that WAIT has one again), every game makes its moves
    after it, and every acknowledged move is in the log at its version (acknowledged and
    found counts printed)."""
    async with (
        served(cluster.url, ENV) as a,
        served(cluster.url, ENV) as b,
        httpx.AsyncClient(base_url=a.base, timeout=30) as http_a,
        httpx.AsyncClient(base_url=b.base, timeout=30) as http_b,
    ):
        games = [await _new_game(http_a) for _ in range(GAMES)]
        primaries = {cluster.primary_of(f"game:{{{g.game_id}}}:events").port for g in games}
        while len(primaries) < 3:  # games on every primary
            games.append(await _new_game(http_b))
            primaries.add(cluster.primary_of(f"game:{{{games[-1].game_id}}}:events").port)
        https = [http_a, http_b]
        killed = asyncio.Event()
        back = asyncio.Event()

        async def play(played: Played, seed: int) -> None:
            rng = random.Random(seed)
            for _ in range(MOVES_BEFORE):
                if not await _move(https, played, rng):
                    return
            await killed.wait()
            await _move(https, played, rng)  # across the failover
            await back.wait()
            for _ in range(MOVES_AFTER):
                if not await _move(https, played, rng):
                    return

        playing = [asyncio.create_task(play(g, n)) for n, g in enumerate(games)]
        victim = games[0]
        key = f"game:{{{victim.game_id}}}:events"
        while len(victim.acked) < MOVES_BEFORE - 1:  # moves in flight when it dies
            await asyncio.sleep(0.01)
        node = cluster.kill_primary_of(key)
        killed.set()
        promoted = await asyncio.to_thread(cluster.wait_for_failover, key)
        assert promoted.port != node.port
        await asyncio.to_thread(cluster.restart, node)  # a replica again, for WAIT
        back.set()
        await asyncio.gather(*playing)

        acknowledged = sum(len(g.acked) for g in games)
        found = sum(_found(cluster, g) for g in games)
        print(f"\nacknowledged {acknowledged} moves, found {found} in the logs")
        print(f"503 answers sent again: {sum(g.unavailable for g in games)}")
        assert found == acknowledged
        for played in games:  # every game played on after the failover
            assert len(played.acked) >= MOVES_BEFORE + 1, played.game_id
        # The victim's later moves went to the promoted node. Whether one was answered
        # 503 on the way depends on timing: redis-py's cluster client retries a command
        # while the map is read again, and a failover done within its retries costs
        # the player nothing but the wait.
        assert cluster.primary_of(key).port == promoted.port


async def test_a_process_sent_sigterm_on_a_cluster_hands_every_client_to_the_other(
    redis_cluster: LocalCluster,
) -> None:
    """On the cluster, players and spectators on A; A sent SIGTERM after a few moves: every client goes on from B with since (one snapshot, every version once in order, the right view) and each acknowledged command is in the log at its version."""
    env = {**ENV, "SPLENDOR_PRESENCE_BEAT": "30", "SPLENDOR_DRAIN_SECONDS": "10"}
    async with (
        served(redis_cluster.url, env) as a,
        served(redis_cluster.url, env) as b,
        httpx.AsyncClient(base_url=b.base) as http,
    ):
        outcome = await play_across_a_stop(http, [a.base, b.base], a.process, seed=37)
        for follower in outcome.everyone:
            assert follower.closes[0] == (a.base, 1012), follower.name
        game_id = outcome.everyone[0].game_id
        played = Played(game_id, [], list(outcome.acked.items()))
        assert _found(redis_cluster, played) == len(outcome.acked)
