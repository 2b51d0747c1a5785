"""``splendor serve`` subprocesses on one Redis, for the multi-process tests."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Served:
    """A running ``splendor serve``: its base URL and its process (to kill it)."""

    base: str
    process: subprocess.Popen[bytes]


@contextlib.asynccontextmanager
async def splendor_serve(redis_url: str, tail: str = "auto") -> AsyncIterator[str]:
    """A ``splendor serve`` subprocess on ``redis_url``; yields its base URL."""
    async with served(redis_url, {"SPLENDOR_TAIL": tail}) as server:
        yield server.base


@contextlib.asynccontextmanager
async def served(
    redis_url: str,
    env: dict[str, str] | None = None,
    *,
    log_level: str = "warning",
    log: Path | None = None,
) -> AsyncIterator[Served]:
    """A ``splendor serve`` subprocess on ``redis_url``, with more environment. With
    ``log``, its stdout and stderr both go to that file (complete once this exits)."""
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "SPLENDOR_COMMAND_RATE": "0",
        "SPLENDOR_CREATE_RATE": "0",
        "SPLENDOR_JOIN_RATE": "0",
        # Finished games analysed with a tiny budget: these tests are not about it.
        "SPLENDOR_ANALYSIS_BUDGET": "2",
        **(env or {}),
    }
    command = [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--log-level", log_level]
    if log is None:
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    else:
        with log.open("wb") as out:  # the child keeps its own copy of the file
            process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        await answering(base, process, "splendor serve")
        yield Served(base, process)
    finally:
        stop(process)


async def answering(base: str, process: subprocess.Popen[bytes], what: str) -> None:
    """Return once ``base``'s ``/healthz`` answers 200 (``process`` serves it)."""
    async with httpx.AsyncClient(base_url=base) as http:
        for _ in range(200):
            assert process.poll() is None, f"{what} exited"
            with contextlib.suppress(httpx.TransportError):
                if (await http.get("/healthz")).status_code == 200:
                    return
            await asyncio.sleep(0.05)
    raise AssertionError(f"{what} did not answer /healthz")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not exited within 10 s."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


def ws_url(base: str, game_id: str, token: str | None = None) -> str:
    url = base.replace("http://", "ws://") + f"/ws/games/{game_id}"
    return url + (f"?token={token}" if token else "")
