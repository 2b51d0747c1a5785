"""Benchmark of one look at attendance (server/live/attendance.py) over many live
games; prints its figures.

    .venv/bin/python bench/attendance_bench.py [--games 2000] [--looks 5]

On one private redis-server (as ``splendor serve`` runs it), one process with a
``GameService``, a ``Presence`` and an ``Attendance``: ``--games`` live untimed
2-player games (made through the service), half of them with a seat's socket open
(``Presence.want``). Then ``--looks`` looks one after another: the wall time of one
(median, max), the process's CPU and Redis's (``INFO cpu``) per look. A look is made
every 5 s by one process, so its cost a second is a fifth of these.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from typing import Any

import redis.asyncio as aioredis

from server.games.lobby import Lobby
from server.games.service import GameService
from server.live.attendance import Attendance
from server.live.presence import Presence
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore


async def redis_cpu(client: aioredis.Redis) -> float:
    info: dict[str, Any] = await client.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


async def run(games: int, looks: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        redis_server = EmbeddedRedis(folder).start()
        client = aioredis.from_url(redis_server.url)
        presence = Presence(client, server_id="bench")
        try:
            lobby = Lobby(client)
            service = GameService(EventStore(client), lobby, cache_games=100)
            await presence.start()

            async def one(n: int) -> None:
                game_id = (await service.create_game("classic", 2))["id"]
                await service.join(game_id, "Ana")
                await service.join(game_id, "Bo")
                if n % 2:
                    presence.want(game_id, 0, True)

            for start in range(0, games, 10):
                await asyncio.gather(*(one(n) for n in range(start, min(games, start + 10))))
            attendance = Attendance(service, lobby, presence)
            walls: list[float] = []
            cpu, redis_before = time.process_time(), await redis_cpu(client)
            for _ in range(looks):
                started = time.perf_counter()
                swept = await attendance.sweep()
                walls.append(time.perf_counter() - started)
            cpu = time.process_time() - cpu
            redis = await redis_cpu(client) - redis_before
            print(f"games {swept.games}, quiet {len(swept.quiet)} (none: all moved just now)")
            print(
                f"one look: median {statistics.median(walls) * 1000:.0f} ms, "
                f"max {max(walls) * 1000:.0f} ms; CPU a look: process "
                f"{cpu / looks * 1000:.0f} ms, Redis {redis / looks * 1000:.0f} ms"
            )
        finally:
            await presence.close()
            await client.aclose()
            redis_server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--looks", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(run(args.games, args.looks))


if __name__ == "__main__":
    main()
