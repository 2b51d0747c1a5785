"""A Redis Cluster primary killed for good (a dead machine: not restarted), its replica
promoted with no replica of its own, and two ``splendor serve`` processes: one with
the cluster's default durability (``replica-if-any``), one strict
(``SPLENDOR_DURABILITY=replica``). The first plays every game on and loses no
acknowledged move; the second serves the promoted primary's games for reading, refuses
their moves with ``store.no_replica``, and takes them again once a fresh node joins as
the promoted primary's replica."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import httpx
import pytest
import websockets

from bots.moves import moves as game_moves
from tests.cluster_helpers import ClusterUnavailable, LocalCluster
from tests.multiprocess.servers import served, ws_url
from tests.multiprocess.test_cluster_failover import Played, _found, _move, _new_game
from tests.server.helpers import auth, choose

TOKEN = "metrics-token-for-the-test"
ENV = {
    "SPLENDOR_DURABILITY_TIMEOUT_MS": "500",
    "SPLENDOR_BOTS": "off",
    "SPLENDOR_METRICS_TOKEN": TOKEN,
}
STRICT = {**ENV, "SPLENDOR_DURABILITY": "replica"}
MOVES_AFTER = 3  # each game's moves through the replica-if-any process after the kill
TRIES = 400  # bounds every retry loop below (each try waits 50 ms at most)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """A cluster of this test's own: it kills one of its primaries for good."""
    try:
        cluster = LocalCluster(tmp_path / "cluster")
    except ClusterUnavailable as e:
        pytest.skip(f"no Redis Cluster: {e}")
    with cluster:
        yield cluster


async def _until(
    call: Callable[[], Awaitable[httpx.Response]], done: Callable[[httpx.Response], bool]
) -> httpx.Response:
    """``call()`` again (after a failover, a 503 of a connection being made again may
    come first) until its answer is ``done``; bounded by ``TRIES``."""
    response: httpx.Response | None = None
    for _ in range(TRIES):
        with contextlib.suppress(httpx.TransportError):
            response = await call()
            if done(response):
                return response
        await asyncio.sleep(0.05)
    raise AssertionError(f"never the awaited answer: {response and response.text}")


def _reason(response: httpx.Response) -> str | None:
    if response.status_code < 400:
        return None
    key: str = response.json()["reason"]["key"]
    return key


async def _unreplicated(http: httpx.AsyncClient) -> int:
    """``splendor_unreplicated_writes_total`` of a process, over every primary."""
    metrics = await http.get("/metrics", headers=auth(TOKEN))
    assert metrics.status_code == 200, metrics.text
    pattern = r"^splendor_unreplicated_writes_total\{[^}]*\} ([0-9.e+]+)$"
    return sum(int(float(m)) for m in re.findall(pattern, metrics.text, re.MULTILINE))


class Spectator:
    """A websocket watching a game on one process: the versions it was shown."""

    def __init__(self, base: str, game_id: str) -> None:
        self.url = ws_url(base, game_id, None)
        self.versions: list[int] = []
        self.kinds: list[str] = []
        self.changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        async with websockets.connect(self.url, open_timeout=10) as conn:
            async for raw in conn:
                message = json.loads(raw)
                if message["type"] in ("snapshot", "diff"):
                    self.kinds.append(message["type"])
                    self.versions.append(message["version"])
                    self.changed.set()

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def shown(self, version: int, timeout: float = 20) -> None:
        """Until it was shown ``version``."""

        async def waiting() -> None:
            while version not in self.versions:
                assert self.task is not None and not self.task.done(), self.task
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(waiting(), timeout)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task


async def test_a_primary_lost_for_good_degrades_as_each_durability_mode_says(
    cluster: LocalCluster,
) -> None:
    """The primary of a game killed and not restarted: replica-if-any (the cluster's default) plays every game on, counts the unreplicated appends, and every acknowledged move is in the log; the strict process still serves the game's view, events and a spectator's snapshot and diffs, refuses its move with store.no_replica (nothing written) while moves on other primaries play, and applies the same command once a fresh node is the promoted primary's replica."""
    async with (
        served(cluster.url, ENV) as a,
        served(cluster.url, STRICT) as b,
        httpx.AsyncClient(base_url=a.base, timeout=30) as http_a,
        httpx.AsyncClient(base_url=b.base, timeout=30) as http_b,
    ):
        games: list[Played] = []
        primaries: set[int] = set()
        for _ in range(30):  # games on every primary
            games.append(await _new_game(http_a))
            primaries.add(cluster.primary_of(f"game:{{{games[-1].game_id}}}:events").port)
            if len(primaries) == 3:
                break
        assert len(primaries) == 3
        rng = random.Random(7)
        for played in games:
            assert await _move([http_a, http_a], played, rng)
        victim = games[0]
        key = f"game:{{{victim.game_id}}}:events"
        killed = cluster.kill_primary_of(key)
        promoted = await asyncio.to_thread(cluster.wait_for_failover, key)
        assert promoted.port != killed.port and not killed.alive

        # replica-if-any: every game plays on, the lost replica's shard too.
        async def play_on(played: Played, seed: int) -> None:
            moves = random.Random(seed)
            for _ in range(MOVES_AFTER):
                assert await _move([http_a, http_a], played, moves), played.game_id

        await asyncio.gather(*(play_on(g, n) for n, g in enumerate(games)))
        assert await _unreplicated(http_a) >= MOVES_AFTER

        # Strict: what is there is served (view, events, a spectator's snapshot).
        game = victim.game_id
        view_b = await _until(
            lambda: http_b.get(f"/api/games/{game}/view"), lambda r: r.status_code == 200
        )
        version = view_b.json()["version"]
        assert version == victim.acked[-1][1]
        events = await http_b.get(f"/api/games/{game}/events")
        assert events.status_code == 200, events.text
        assert len(events.json()["events"]) == version
        spectator = Spectator(b.base, game)
        spectator.start()
        try:
            await spectator.shown(version)
            # A move made through the other process is shown as a diff.
            assert await _move([http_a, http_a], victim, rng)
            version = victim.acked[-1][1]  # a move may append more than one event
            await spectator.shown(version)
            assert spectator.kinds[-1] == "diff"

            # Strict: the move is refused with its reason, and nothing is written.
            seat = (await http_b.get(f"/api/games/{game}/view")).json()["view"]["turn"]["seat"]
            token = victim.tokens[seat]
            mine = await http_b.get(f"/api/games/{game}/view", headers=auth(token))
            action = choose(game_moves(mine.json()["view"]), rng)
            body = {"command_id": uuid.uuid4().hex, "action": action}
            commands = f"/api/games/{game}/commands"

            def post() -> Awaitable[httpx.Response]:
                return http_b.post(commands, json=body, headers=auth(token))

            refused = await _until(post, lambda r: _reason(r) == "store.no_replica")
            assert refused.status_code == 503
            assert refused.json()["code"] == "unavailable"
            again = await http_b.get(f"/api/games/{game}/view")
            assert again.json()["version"] == version
            # A game on a primary that kept its replica plays on through it.
            other = next(
                g
                for g in games
                if cluster.primary_of(f"game:{{{g.game_id}}}:events").port != promoted.port
            )
            assert await _move([http_b, http_b], other, rng)

            # A fresh node joins as the promoted primary's replica: the same command
            # is applied, once.
            await asyncio.to_thread(cluster.add_replica, promoted)
            applied = await _until(post, lambda r: r.status_code != 503)
            assert applied.status_code == 200, applied.text
            after = applied.json()["version"]
            assert after > version
            victim.acked.append((body["command_id"], after))
            await spectator.shown(after)
        finally:
            await spectator.stop()

        acknowledged = sum(len(g.acked) for g in games)
        found = sum(_found(cluster, g) for g in games)
        print(f"\nacknowledged {acknowledged} moves, found {found} in the logs")
        assert found == acknowledged
