"""How long ``splendor serve`` takes from its process's start to ``/healthz`` 200, on an
empty private Redis, its bytecode cached as an install has it (one start first, not
counted). With ``--before TREE`` (another checkout with its own ``.venv``), runs of
both trees interleave, each round the other one first. Plain script:

    .venv/bin/python bench/startup_bench.py [--runs 4] [--before ../wt-base]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from server.store.embedded_redis import EmbeddedRedis

HERE = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def healthy_after(tree: Path, redis_url: str) -> float:
    """Seconds from a ``splendor serve`` process's start to its first ``/healthz`` 200."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["REDIS_URL"] = redis_url
    command = [str(tree / ".venv/bin/python"), "-m", "server.cli", "serve"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    if r.status == 200:
                        return time.perf_counter() - started
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.005)
            if process.poll() is not None:
                raise RuntimeError(f"splendor serve in {tree} exited")
    finally:
        process.terminate()
        process.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--before", type=Path, help="another tree, timed interleaved")
    args = parser.parse_args()
    trees = [HERE] + ([args.before.resolve()] if args.before else [])
    with tempfile.TemporaryDirectory() as folder:
        redis = EmbeddedRedis(Path(folder) / "redis").start()
        try:
            for tree in trees:
                healthy_after(tree, redis.url)  # writes the bytecode
            times: dict[Path, list[float]] = {tree: [] for tree in trees}
            for run in range(args.runs):
                for tree in trees if run % 2 == 0 else trees[::-1]:
                    times[tree].append(healthy_after(tree, redis.url))
        finally:
            redis.stop()
    for tree, seconds in times.items():
        shown = ", ".join(f"{s:.2f}" for s in seconds)
        print(f"{tree}: healthy after {shown} s (load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
