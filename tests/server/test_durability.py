"""`splendor serve` as a real process on its embedded Redis: games survive a clean stop
and a kill -9 of both the server and its Redis, with the same versions and views."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bots.moves import moves as game_moves
from tests.server.helpers import auth, choose, command_id

STARTUP_SECONDS = 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """One `splendor serve` process on a data folder (its embedded Redis's, unless
    ``env`` gives a ``REDIS_URL``)."""

    def __init__(
        self, data_dir: Path, port: int, log: Path, env: dict[str, str] | None = None
    ) -> None:
        env = {**{k: v for k, v in os.environ.items() if k != "REDIS_URL"}, **(env or {})}
        splendor = Path(sys.executable).parent / "splendor"
        self.log = log.open("ab")
        self.proc = subprocess.Popen(
            [
                str(splendor),
                "serve",
                "--port",
                str(port),
                "--data-dir",
                str(data_dir),
                "--log-level",
                "info",
            ],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, log.read_text()
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise AssertionError(f"the server did not start:\n{log.read_text()}")

    def redis_pid(self) -> int:
        """The embedded redis-server: the server process's child."""
        children = []
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            children += (task / "children").read_text().split()
        pids = [int(c) for c in children if "redis" in Path(f"/proc/{c}/comm").read_text()]
        assert len(pids) == 1, children
        return pids[0]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(20)
        self.log.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(20)
        self.log.close()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (dead, not yet reaped) counts as gone.
    return "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0]


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Server]]:
    """Started servers, killed at the end whatever happened."""
    started: list[Server] = []
    yield started
    for server in started:
        with contextlib.suppress(Exception):
            server.kill()


def everything(url: str, game_id: str, tokens: list[str]) -> dict[str, Any]:
    """What clients can read of a game: summary, views, events, each seat's view."""
    base = f"{url}/api/games/{game_id}"
    out: dict[str, Any] = {"summary": httpx.get(base).json()}
    for seat, token in [(0, tokens[0]), (1, tokens[1]), (None, None)]:
        out[f"view-{seat}"] = httpx.get(f"{base}/view", headers=auth(token)).json()
        out[f"events-{seat}"] = httpx.get(f"{base}/events", headers=auth(token)).json()
    out["view-at-5"] = httpx.get(f"{base}/view", params={"version": 5}).json()
    return out


def seated_game(url: str, seed: int) -> tuple[str, list[str]]:
    """A new two-player classic game with its seats taken: its id and the tokens."""
    game_id: str = httpx.post(f"{url}/api/games", json={"variant": "classic", "seed": seed}).json()[
        "id"
    ]
    tokens = [
        httpx.post(f"{url}/api/games/{game_id}/seats", json={"name": n}).json()["token"]
        for n in ("Ana", "Bo")
    ]
    return game_id, tokens


def play(url: str, game_id: str, tokens: list[str], moves: int, rng: random.Random) -> int:
    base = f"{url}/api/games/{game_id}"
    version = 0
    for _ in range(moves):
        seat = httpx.get(f"{base}/view").json()["view"]["turn"]["seat"]
        view = httpx.get(f"{base}/view", headers=auth(tokens[seat])).json()["view"]
        body = {"command_id": command_id(), "action": choose(game_moves(view), rng)}
        r = httpx.post(f"{base}/commands", json=body, headers=auth(tokens[seat]))
        assert r.status_code == 200, r.text
        version = r.json()["version"]
    return version


def test_games_survive_a_clean_stop_and_a_kill_9_of_server_and_redis(
    tmp_path: Path, servers: list[Server]
) -> None:
    """Moves made before a stop, and before kill -9 of both processes (after the everysec AOF sync), are all there after a restart on the same data folder."""
    data, log, port = tmp_path / "data", tmp_path / "server.log", free_port()
    rng = random.Random(5)
    servers.append(server := Server(data, port, log))
    assert f"splendor-live: open http://127.0.0.1:{port}/" in log.read_text()
    game_id, tokens = seated_game(server.url, 77)
    version = play(server.url, game_id, tokens, 8, rng)
    before = everything(server.url, game_id, tokens)
    redis_pid = server.redis_pid()
    server.stop()
    # uvicorn shuts down gracefully, then exits by the signal it received.
    assert server.proc.returncode in (0, -signal.SIGTERM)
    assert "Application shutdown complete" in log.read_text()
    assert not alive(redis_pid), "the embedded Redis stops with the server"
    assert (data / "appendonly.aof").exists() or (data / "appendonlydir").is_dir()

    servers.append(server := Server(data, port, log))
    assert everything(server.url, game_id, tokens) == before
    assert before["summary"]["version"] == version
    version = play(server.url, game_id, tokens, 6, rng)
    before = everything(server.url, game_id, tokens)
    time.sleep(1.5)  # appendfsync everysec: the last write reaches the disk
    redis_pid = server.redis_pid()
    os.kill(redis_pid, signal.SIGKILL)
    server.proc.kill()
    server.kill()
    deadline = time.monotonic() + 10
    while alive(redis_pid) and time.monotonic() < deadline:
        time.sleep(0.05)

    servers.append(server := Server(data, port, log))
    after = everything(server.url, game_id, tokens)
    assert after == before
    assert after["summary"]["version"] == version
    assert play(server.url, game_id, tokens, 2, rng) > version
    server.stop()
