"""Redis stopped and started again under running servers: every request that needs it
gets 503 `unavailable` in the protocol's error shape, `/healthz` says why, sockets are
told and closed, and everything works again once Redis is back, without a restart."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import redis.asyncio as aioredis
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection as AsyncClientConnection
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from bots.moves import moves as game_moves
from server.common.settings import Settings
from server.store.availability import REDIS_CONNECT_S
from server.store.embedded_redis import EmbeddedRedis
from server.store.keys import LOBBY_ABORTED_KEY
from server.web.app import create_app
from server.web.state import running
from tests.server.helpers import auth, choose, command_id
from tests.server.test_durability import Server, alive, free_port, play, seated_game
from tests.server.ws_helpers import connect as connect_async
from tests.server.ws_helpers import live_server, new_table

WAIT_S = 30  # the longest any step may take before the test gives up


async def test_connecting_to_redis_is_given_up_on_after_a_few_seconds(app: Starlette) -> None:
    """The app's Redis pool gives up connecting after REDIS_CONNECT_S (not the system's minutes), so an unreachable Redis is a prompt 503."""
    pool = running(app).redis.connection_pool
    assert pool.connection_kwargs["socket_connect_timeout"] == REDIS_CONNECT_S <= 5


async def test_writes_refused_by_a_replica_are_503_unavailable_and_reads_still_served(
    tmp_path: Path,
) -> None:
    """With its Redis made a replica (a failover under way: writes refused, READONLY, even inside scripts), a command and a new game get 503 unavailable while views are still served; once it takes writes again the same command goes through."""
    redis_server = await asyncio.to_thread(EmbeddedRedis(tmp_path / "redis").start)
    admin = aioredis.from_url(redis_server.url)
    app = create_app(Settings(redis_url=redis_server.url, command_rate=0), plugins=False)
    try:
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://splendor.test"
            ) as http,
        ):
            game_id = (await http.post("/api/games", json={"variant": "classic"})).json()["id"]
            tokens = [
                (await http.post(f"/api/games/{game_id}/seats", json={"name": n})).json()["token"]
                for n in ("Ana", "Bo")
            ]
            base = f"/api/games/{game_id}"
            seat = (await http.get(f"{base}/view")).json()["view"]["turn"]["seat"]
            legal = (await http.get(f"{base}/view", headers=auth(tokens[seat]))).json()["view"]
            command = {"command_id": command_id(), "action": legal["legal"][0]}
            await admin.replicaof("127.0.0.1", "1")
            assert_unavailable(
                await http.post(f"{base}/commands", json=command, headers=auth(tokens[seat]))
            )
            assert_unavailable(await http.post("/api/games", json={"variant": "duel"}))
            assert (await http.get(f"{base}/view")).status_code == 200
            await admin.replicaof("NO", "ONE")
            again = await http.post(f"{base}/commands", json=command, headers=auth(tokens[seat]))
            assert again.status_code == 200, again.text
    finally:
        await admin.aclose()
        await asyncio.to_thread(redis_server.stop)


async def received_until_closed(ws: AsyncClientConnection) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    with contextlib.suppress(ConnectionClosed):
        async for message in ws:
            got.append(json.loads(message))
    return got


async def test_each_edge_answers_a_stopped_redis_with_unavailable_and_a_fault_with_500(
    tmp_path: Path,
) -> None:
    """In one process with its Redis stopped: an API request gets 503 unavailable, a watching game socket is told and closed with 4503, a new game socket, a pairing socket and a tournament's socket are closed with 4503; while it runs, a Redis error that is a fault (a key of the wrong type) is a 500 server_error, not unavailable."""
    redis_server = await asyncio.to_thread(EmbeddedRedis(tmp_path / "redis").start)
    settings = Settings(redis_url=redis_server.url, analysis_budget=0, bots="off")
    try:
        async with (
            live_server(settings.without_rate_limits()) as server,
            httpx.AsyncClient(base_url=server.http_url) as http,
        ):
            table = await new_table(http)
            admin = aioredis.from_url(redis_server.url)
            await admin.set(LOBBY_ABORTED_KEY, b"not a sorted set")
            await admin.aclose()
            fault = await http.get("/api/games", params={"status": "aborted"})
            assert fault.status_code == 500 and fault.json()["code"] == "server_error"
            watcher = await connect_async(server.ws_url(table.id))
            assert json.loads(await watcher.recv())["type"] == "snapshot"

            await asyncio.to_thread(redis_server.stop)
            told = await received_until_closed(watcher)
            assert told[-1]["type"] == "error" and told[-1]["code"] == "unavailable", told
            assert watcher.close_code == 4503
            assert_unavailable(await http.get(f"/api/games/{table.id}/events"))
            refused = await connect_async(server.ws_url(table.id))
            assert [m["code"] for m in await received_until_closed(refused)] == ["unavailable"]
            assert refused.close_code == 4503
            pairing = await connect_async(
                f"ws://{server.host}:{server.port}/ws/pairing?variant=duel&clock=3%2B2&name=Ana"
            )
            assert [m["code"] for m in await received_until_closed(pairing)] == ["unavailable"]
            assert pairing.close_code == 4503
            tournament = await connect_async(
                f"ws://{server.host}:{server.port}/ws/tournaments/tabcdefghij"
            )
            told = await received_until_closed(tournament)
            assert [m["code"] for m in told] == ["unavailable"]
            assert tournament.close_code == 4503
    finally:
        await asyncio.to_thread(redis_server.stop)


def wait_for(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def healthy(url: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"{url}/healthz", timeout=5).status_code == 200
    return False


def socket(url: str, game_id: str, since: int | None = None) -> ClientConnection:
    query = "" if since is None else f"?since={since}"
    return connect(f"ws{url.removeprefix('http')}/ws/games/{game_id}{query}", open_timeout=10)


def messages_until_closed(ws: ClientConnection) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    with contextlib.suppress(ConnectionClosed):
        while True:
            got.append(json.loads(ws.recv(timeout=WAIT_S)))
    return got


def assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    body = response.json()
    assert body["code"] == "unavailable"
    assert "Redis" in body["message"] and "try again" in body["message"]
    assert response.headers["Retry-After"].isdigit()


@pytest.fixture
def outside_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A Redis the test stops and starts (servers use it through REDIS_URL)."""
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        with contextlib.suppress(Exception):
            server.kill()


def test_while_redis_is_down_every_request_is_refused_with_503_and_all_recovers(
    tmp_path: Path, outside_redis: EmbeddedRedis, servers: list[Server]
) -> None:
    """With REDIS_URL's Redis stopped: HTTP calls get 503 `unavailable`, /healthz says why, a watching socket gets `unavailable` and 4503, a new one too; once Redis is back the refused command goes through with its id, once, a socket of one server sees another server's move, and a bot whose move met the outage plays it."""
    redis_port = outside_redis.port
    env = {"REDIS_URL": outside_redis.url, "SPLENDOR_COMMAND_RATE": "0"}
    # The first server's bots wait 4 s before answering: long enough to stop Redis
    # under a bot's move once its runner has seen the move it answers.
    servers.append(
        first := Server(
            tmp_path, free_port(), tmp_path / "first.log", {**env, "SPLENDOR_BOT_DELAY": "4"}
        )
    )
    servers.append(
        other := Server(
            tmp_path, free_port(), tmp_path / "other.log", {**env, "SPLENDOR_BOTS": "off"}
        )
    )
    rng = random.Random(3)
    game_id, tokens = seated_game(first.url, 5)
    version = play(first.url, game_id, tokens, 2, rng)
    base = f"{first.url}/api/games/{game_id}"
    seat = httpx.get(f"{base}/view").json()["view"]["turn"]["seat"]
    seat_view = httpx.get(f"{base}/view", headers=auth(tokens[seat])).json()["view"]
    command = {"command_id": command_id(), "action": choose(game_moves(seat_view), rng)}
    bot_game = httpx.post(f"{first.url}/api/games", json={"variant": "classic", "seed": 6})
    bot_base = f"{first.url}/api/games/{bot_game.json()['id']}"
    human = httpx.post(f"{bot_base}/seats", json={"name": "Cy"}).json()["token"]
    httpx.post(f"{bot_base}/seats", json={"bot": "greedy"})

    def human_legal() -> list[dict[str, Any]]:
        view = httpx.get(f"{bot_base}/view", headers=auth(human)).json()["view"]
        return game_moves(view)

    wait_for(lambda: bool(human_legal()), "the human's turn")
    with socket(first.url, game_id) as watcher:
        assert json.loads(watcher.recv(timeout=WAIT_S))["type"] == "snapshot"
        # The human takes tokens; the bot answers 4 s later; Redis is stopped meanwhile,
        # once the bot runner (which reads new events every 0.2 s) has seen the move.
        take = next(a for a in human_legal() if a["kind"] == "take_three")
        moved = httpx.post(
            f"{bot_base}/commands",
            json={"command_id": command_id(), "action": take},
            headers=auth(human),
        )
        bot_turn = moved.json()["version"]
        time.sleep(1.0)
        outside_redis.stop()
        # The watching socket is told, then closed with 4503.
        told = messages_until_closed(watcher)
        assert told[-1]["type"] == "error" and told[-1]["code"] == "unavailable", told
        assert watcher.close_code == 4503
    for response in (
        httpx.get(f"{first.url}/api/games", timeout=10),
        httpx.get(f"{base}/view", timeout=10),
        httpx.get(f"{base}/events", timeout=10),
        httpx.post(f"{first.url}/api/games", json={"variant": "duel"}, timeout=10),
        httpx.post(f"{base}/commands", json=command, headers=auth(tokens[seat]), timeout=10),
    ):
        assert_unavailable(response)
    health = httpx.get(f"{first.url}/healthz", timeout=10)
    assert_unavailable(health)
    assert health.json()["status"] == "unavailable"
    with socket(first.url, game_id) as refused:
        told = messages_until_closed(refused)
        assert [m["code"] for m in told] == ["unavailable"] and refused.close_code == 4503
    first_log = tmp_path / "first.log"
    wait_for(lambda: "not sent, Redis can't be reached" in first_log.read_text(), "the bot's try")

    restarted = EmbeddedRedis(tmp_path / "redis", port=redis_port).start()
    try:
        wait_for(lambda: healthy(first.url) and healthy(other.url), "the servers' health")
        # The command refused while down, sent again with its id: applied once.
        answers = [
            httpx.post(f"{base}/commands", json=command, headers=auth(tokens[seat]))
            for _ in range(2)
        ]
        assert [a.status_code for a in answers] == [200, 200]
        assert answers[0].json() == answers[1].json()
        after = answers[0].json()["version"]
        assert httpx.get(base).json()["version"] == after > version
        listed = httpx.get(f"{first.url}/api/games", params={"status": "live"}).json()["games"]
        assert game_id in [g["id"] for g in listed]
        # The first server's tailer reads Redis again, keyspace notifications back on.
        with (
            socket(first.url, game_id, since=after) as watcher,
            redis.Redis(port=redis_port) as probe,
        ):
            wait_for(
                lambda: set("Kt") <= set(str(probe.config_get("notify-keyspace-events"))),
                "keyspace notifications",
            )
            moved_on = play(other.url, game_id, tokens, 1, rng)
            diff = json.loads(watcher.recv(timeout=WAIT_S))
            while diff["type"] != "diff":
                diff = json.loads(watcher.recv(timeout=WAIT_S))
            assert diff["version"] == after + 1 and moved_on >= after + 1
        # The bot whose move met the outage plays it now.
        wait_for(
            lambda: httpx.get(bot_base).json()["version"] > bot_turn,
            "the bot's move",
        )
    finally:
        restarted.stop()


def descendants(pid: int) -> set[int]:
    """Every living process below ``pid`` (children, theirs, ...), read from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if fields[0] != "Z":  # a zombie is dead already
                    parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def test_the_embedded_redis_is_started_again_and_sigterm_leaves_no_process(
    tmp_path: Path, servers: list[Server]
) -> None:
    """`splendor serve` starts its embedded Redis again, on the same folder and port, when it is killed, and serves every game as before; stopped by SIGTERM after an MCTS bot has thought in its worker process, it leaves no process behind."""
    data, log = tmp_path / "data", tmp_path / "server.log"
    env = {"SPLENDOR_BOT_DELAY": "0", "SPLENDOR_MCTS_SECONDS": "0.05"}
    servers.append(server := Server(data, free_port(), log, env))
    rng = random.Random(8)
    game_id, tokens = seated_game(server.url, 9)
    version = play(server.url, game_id, tokens, 3, rng)
    port = (data / "redis.port").read_text().strip()
    killed = server.redis_pid()
    time.sleep(1.5)  # appendfsync everysec: the moves reach the disk before the kill
    os.kill(killed, signal.SIGKILL)

    wait_for(lambda: healthy(server.url) and server.redis_pid() != killed, "a new Redis")
    assert (data / "redis.port").read_text().strip() == port
    assert httpx.get(f"{server.url}/api/games/{game_id}").json()["version"] == version
    assert play(server.url, game_id, tokens, 1, rng) > version
    assert "the embedded Redis is back" in log.read_text()

    # An MCTS bot thinks in a worker process of its own.
    mcts_game = httpx.post(f"{server.url}/api/games", json={"variant": "classic"}).json()["id"]
    httpx.post(f"{server.url}/api/games/{mcts_game}/seats", json={"bot": "mcts"})
    httpx.post(f"{server.url}/api/games/{mcts_game}/seats", json={"bot": "greedy"})
    wait_for(
        lambda: httpx.get(f"{server.url}/api/games/{mcts_game}").json()["version"] > 8,
        "the bots' moves",
    )
    started = descendants(server.proc.pid)
    assert len(started) >= 2, "the embedded Redis and the MCTS worker"
    server.stop()
    assert server.proc.returncode in (0, -signal.SIGTERM)
    # multiprocessing's resource tracker ends once the server and the workers are gone.
    with contextlib.suppress(AssertionError):
        wait_for(lambda: not any(alive(pid) for pid in started), "every process's end")
    left = [pid for pid in started if alive(pid)]
    assert left == [], [Path(f"/proc/{pid}/cmdline").read_text() for pid in left]
