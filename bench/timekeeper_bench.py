"""Benchmark of the timekeeper (server/games/timekeeper.py) with 10,000 live timed games;
prints its figures.

    .venv/bin/python bench/timekeeper_bench.py [--games 10000] [--real 300] [--idle 20]

On one private redis-server (as ``splendor serve`` runs it), one process with a
``GameService`` whose scheduler is ``Deadlines`` and one ``Timekeeper``:

- the deadline set holds ``--games`` placeholders, deadlines hours away written
  straight into the set (for the timekeeper a deadline is a deadline: it reads only
  the earliest ones, and a real game behind each would only fill Redis), and then
  ``--real`` real games (2-player classic, a real-time clock, both first turns played
  through the service, so the mover's bank runs);
- idle: with no deadline due for ``--idle`` seconds, the CPU the timekeeper's
  process uses per second of waiting (``time.process_time``), and Redis's
  (``INFO cpu``), and the round trips it makes;
- lateness: the real games' banks run out over a few seconds (each game's bank is
  drawn between 2 and 6 s); for each, how late its ``TimeRanOut`` was recorded after
  its deadline (the event's ``at`` minus the last ``TurnEnded``'s ``at`` plus the
  bank): p50, p99, max.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from typing import Any

import redis.asyncio as aioredis

from events.base import TimeControl
from server.games.lobby import Lobby
from server.games.service import GameService
from server.games.timekeeper import Deadlines, Timekeeper
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore
from server.store.keys import DEADLINES_KEY


async def redis_cpu(client: aioredis.Redis) -> float:
    info: dict[str, Any] = await client.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


async def real_game(service: GameService, bank: int, seed: int) -> str:
    """A live timed game whose mover's bank (``bank`` s) runs from now on."""
    game_id = (await service.create_game("classic", 2, seed, TimeControl(initial=bank)))["id"]
    await service.join(game_id, "Ana")
    await service.join(game_id, "Bo")
    variant = await service.reader.variant_of(game_id)
    for n in range(2):
        game = service.repository.cached(game_id)  # the benchmark peeks at the projection
        seat = game.state.seat
        action = variant.legal_actions(game.state, seat)[n]
        await service.submit(game_id, seat, f"first-{n}", action)
    return game_id


async def lateness(service: GameService, game_ids: list[str], banks: dict[str, int]) -> list[int]:
    late = []
    for game_id in game_ids:
        log = await service.reader.log(game_id)
        flag = next(e for e in log if type(e.event).__name__ == "TimeRanOut")
        turn = [e for e in log if type(e.event).__name__ == "TurnEnded"][-1]
        late.append(flag.at_ms - (turn.at_ms + banks[game_id] * 1000))
    return late


async def run(games: int, real: int, idle: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        redis_server = EmbeddedRedis(folder).start()
        client = aioredis.from_url(redis_server.url)
        try:
            service = GameService(EventStore(client), Lobby(client), cache_games=real + 10)
            deadlines = Deadlines(client)
            service.hooks.scheduler = deadlines
            far = time.time_ns() // 1_000_000 + 3 * 3600_000
            filler = {f"placeholder-{i}": far + i * 1000 for i in range(games)}
            for start in range(0, len(filler), 1000):
                chunk = dict(list(filler.items())[start : start + 1000])
                await client.zadd(DEADLINES_KEY, chunk)
            keeper = Timekeeper(service, deadlines)
            calls = 0
            due = deadlines.due

            async def counted(now_ms: int, limit: int = 64) -> tuple[list[str], int | None]:
                nonlocal calls
                calls += 1
                return await due(now_ms, limit)

            deadlines.due = counted  # type: ignore[method-assign]
            task = asyncio.create_task(keeper.run())

            # Idle: nothing due for a while.
            await asyncio.sleep(1.0)
            cpu, redis_before, calls_before = time.process_time(), await redis_cpu(client), calls
            started = time.monotonic()
            await asyncio.sleep(idle)
            seconds = time.monotonic() - started
            used = time.process_time() - cpu
            redis_used = await redis_cpu(client) - redis_before
            print(f"deadlines in the set: {await client.zcard(DEADLINES_KEY)}")
            print(
                f"idle, {seconds:.0f} s: server process {1000 * used / seconds:.2f} ms CPU/s, "
                f"Redis {1000 * redis_used / seconds:.2f} ms CPU/s, "
                f"{(calls - calls_before) / seconds:.1f} round trips/s"
            )

            # Lateness: real games whose banks run out over the next seconds.
            rng = random.Random(1)
            banks: dict[str, int] = {}
            ids = []
            for i in range(real):
                bank = rng.randint(2, 6)
                game_id = await real_game(service, bank, i)
                banks[game_id] = bank
                ids.append(game_id)
            for _ in range(600):
                if all(service.repository.cached(g).state.status == "finished" for g in ids):
                    break
                await asyncio.sleep(0.1)
            late = sorted(await lateness(service, ids, banks))
            print(f"deadlines in the set after: {await client.zcard(DEADLINES_KEY)}")
            p99 = late[min(len(late) - 1, int(len(late) * 0.99))]
            print(
                f"lateness of {len(late)} deadlines: p50 {statistics.median(late):.0f} ms, "
                f"p99 {p99} ms, max {late[-1]} ms (recorded {keeper.recorded})"
            )
            keeper.close()
            await task
        finally:
            await client.aclose()
            redis_server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--real", type=int, default=300)
    parser.add_argument("--idle", type=float, default=20.0)
    args = parser.parse_args()
    asyncio.run(run(args.games, args.real, args.idle))


if __name__ == "__main__":
    main()
