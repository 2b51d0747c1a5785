"""Benchmark of the server's memory over websockets opened and closed; prints RSS per round.

    .venv/bin/python bench/memory_bench.py [--rounds 20] [--sockets 2000] [--players 0.25]

A real ``splendor serve`` process (on a private embedded redis-server) on a free
loopback port. Each round opens ``--sockets`` websockets on
a few two-player games (a ``--players`` share of them with a seat token, the rest
spectators), each reads its snapshot and answers a ``ping``, all are held open at
once, then all are closed. After each round, once the server has seen every socket
close, the server's RSS (``/proc/<pid>/status``). Memory per socket is bounded when
the RSS levels off after the first rounds. ``--no-collector`` runs the server with
Python's cyclic collector off: the RSS then grows by whatever a closed socket leaves
in reference cycles.

``--pause``: what a scheduled full collection would cost instead: a server in this
process (the app and uvicorn as ``splendor serve`` builds them, collector tuned the
same way) holding ``--sockets`` open sockets, and the time of ``gc.collect()`` over
that heap (its clients' objects included: an upper bound), best of 5.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import tempfile
import time
from pathlib import Path

import httpx
import websockets
from ws_bench import rss_mib, splendor_serve

from server.store.embedded_redis import EmbeddedRedis

GAMES = 20
CONNECTING = 200  # handshakes in flight at once


async def tables(base: str) -> list[tuple[str, str]]:
    """Two-player games, each with one seat joined: (game id, that seat's token)."""
    made = []
    async with httpx.AsyncClient(base_url=f"http://{base}") as http:
        for seed in range(GAMES):
            r = await http.post("/api/games", json={"variant": "classic", "seed": seed})
            game_id = r.json()["id"]
            r = await http.post(f"/api/games/{game_id}/seats", json={"name": "Ana"})
            made.append((game_id, r.json()["token"]))
    return made


async def open_socket(url: str, gate: asyncio.Semaphore) -> websockets.ClientConnection:
    async with gate:
        conn = await websockets.connect(url, open_timeout=60, max_size=None)
        await conn.recv()  # the snapshot
        await conn.send('{"type": "ping"}')
        while '"pong"' not in await conn.recv():  # the pong (presence messages come too)
            pass
        return conn


async def one_round(base: str, games: list[tuple[str, str]], sockets: int, players: float) -> None:
    gate = asyncio.Semaphore(CONNECTING)
    urls = []
    for i in range(sockets):
        game_id, token = games[i % len(games)]
        seat = f"?token={token}" if i < sockets * players else ""
        urls.append(f"ws://{base}/ws/games/{game_id}{seat}")
    conns = await asyncio.gather(*(open_socket(url, gate) for url in urls))
    await asyncio.gather(*(c.close() for c in conns))


async def server_idle(base: str) -> None:
    """Wait until the server has let every socket go (its hubs are dropped with
    their last socket: an open game's summary is answered either way, so wait a
    little for the closes to be read)."""
    await asyncio.sleep(1.0)
    async with httpx.AsyncClient(base_url=f"http://{base}") as http:
        await http.get("/healthz")


async def collection_pause(sockets: int, players: float) -> None:
    import gc

    import uvicorn

    from server.cli import tune_gc
    from server.common.settings import Settings
    from server.web.app import create_app
    from server.web.connections import server_options

    with tempfile.TemporaryDirectory() as tmp:
        redis = EmbeddedRedis(Path(tmp)).start()
        try:
            settings = Settings(redis_url=redis.url).without_rate_limits()
            app = create_app(settings)
            config = uvicorn.Config(app, log_level="warning", **server_options(settings))
            server = uvicorn.Server(config)
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            base = f"127.0.0.1:{sock.getsockname()[1]}"
            serving = asyncio.create_task(server.serve(sockets=[sock]))
            while not server.started:
                await asyncio.sleep(0.05)
            tune_gc()
            games = await tables(base)
            gate = asyncio.Semaphore(CONNECTING)
            urls = [
                f"ws://{base}/ws/games/{games[i % len(games)][0]}"
                + (f"?token={games[i % len(games)][1]}" if i < sockets * players else "")
                for i in range(sockets)
            ]
            conns = await asyncio.gather(*(open_socket(url, gate) for url in urls))
            pauses = []
            for _ in range(5):
                began = time.perf_counter()
                gc.collect()
                pauses.append(time.perf_counter() - began)
            print(
                f"full collection with {sockets} sockets open: {min(pauses) * 1000:.1f} ms"
                f" (best of 5; {len(gc.get_objects())} objects tracked)",
                flush=True,
            )
            await asyncio.gather(*(c.close() for c in conns))
            server.should_exit = True
            await serving
        finally:
            redis.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--players", type=float, default=0.25, help="share with a seat token")
    parser.add_argument(
        "--no-collector",
        action="store_true",
        help="run the server with gc disabled: what reference counting alone frees",
    )
    parser.add_argument(
        "--pause", action="store_true", help="time a full collection instead (see above)"
    )
    args = parser.parse_args()
    if args.pause:
        await collection_pause(args.sockets, args.players)
        return
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        redis = EmbeddedRedis(Path(tmp)).start()
        try:
            serving = splendor_serve(redis.url, None, collector=not args.no_collector)
            async with serving as (base, pid):
                games = await tables(base)
                start = rss_mib(pid)
                print(f"server RSS at start: {start:.1f} MiB", flush=True)
                figures = []
                for n in range(1, args.rounds + 1):
                    began = time.perf_counter()
                    await one_round(base, games, args.sockets, args.players)
                    await server_idle(base)
                    rss = rss_mib(pid)
                    figures.append(rss)
                    print(
                        f"round {n:2d}: {args.sockets} sockets opened and closed in"
                        f" {time.perf_counter() - began:.1f} s, server RSS {rss:.1f} MiB",
                        flush=True,
                    )
                first, last = figures[0], figures[-1]
                print(
                    f"RSS after round 1: {first:.1f} MiB, after round {args.rounds}: {last:.1f} MiB"
                    f" ({(last - first) / first:+.1%});"
                    f" {args.rounds * args.sockets} sockets in all",
                    flush=True,
                )

        finally:
            redis.stop()


if __name__ == "__main__":
    asyncio.run(main())
