"""Benchmark of the ratings' update per finished game (server/players/rating_model.py,
server/players/ratings.py); prints its figures.

    .venv/bin/python bench/ratings_bench.py [--games 2000] [--writers 8]

On one private redis-server (as ``splendor serve`` runs it):

- the model alone: ``server.players.rating_model.rate`` (openskill Plackett-Luce) for a game of 2,
  3 and 4 players, per game;
- one process counting games one after the other (``Ratings.count``: read the
  players' skills, rate, one script that checks and writes), per game, by players;
- ``--writers`` clients counting at once games drawn among 50 players (as processes
  finishing games at once would): games per second and lost races per game (an
  update read again because another game of one of its players was counted first).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

import redis.asyncio as aioredis

from server.players.rating_model import RatedGame, rate
from server.players.ratings import Ratings
from server.store.embedded_redis import EmbeddedRedis

PLAYERS = [f"p{n:02d}" for n in range(46)] + ["bot:random", "bot:greedy", "bot:mcts", "ada"]


def games(count: int, seats: int, seed: int, prefix: str) -> list[RatedGame]:
    rng = random.Random(seed)
    made = []
    for n in range(count):
        players = tuple(rng.sample(PLAYERS, seats))
        ranks = tuple(sorted(rng.choice([1, 2, 2, 3]) for _ in players))
        made.append(RatedGame(f"{prefix}{n}", "classic", n, players, players, ranks))
    return made


def model_cost(count: int) -> dict[int, float]:
    """Microseconds per ``rate`` call, by players."""
    cost = {}
    for game in games(200, 4, 0, "warm"):
        rate(game, {})
    for seats in (2, 3, 4):
        batch = games(count, seats, seats, "m")
        start = time.perf_counter()
        for game in batch:
            rate(game, {})
        cost[seats] = (time.perf_counter() - start) / count * 1e6
    return cost


async def sequential(url: str, count: int, run: int) -> dict[int, float]:
    """Milliseconds per ``Ratings.count`` one after the other, by players."""
    client = aioredis.from_url(url)
    ratings = Ratings(client)
    cost = {}
    for seats in (2, 4):
        batch = games(count, seats, 10 + seats, f"s{run}-{seats}-")
        start = time.perf_counter()
        for game in batch:
            await ratings.count(game)
        cost[seats] = (time.perf_counter() - start) / count * 1e3
    await client.aclose()
    return cost


async def racing(url: str, count: int, writers: int) -> tuple[float, float]:
    """Games per second and lost races per game, ``writers`` clients at once."""
    clients = [aioredis.from_url(url) for _ in range(writers)]
    counters = [Ratings(c) for c in clients]
    batch = games(count, 2, 99, "r")
    queue = list(reversed(batch))

    async def writer(ratings: Ratings) -> None:
        while queue:
            await ratings.count(queue.pop())

    start = time.perf_counter()
    await asyncio.gather(*(writer(r) for r in counters))
    took = time.perf_counter() - start
    lost = sum(r.lost_races for r in counters)
    for c in clients:
        await c.aclose()
    return count / took, lost / count


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--writers", type=int, default=8)
    args = parser.parse_args()
    model = model_cost(args.games)
    print("model alone (server.players.rating_model.rate), per game:")
    for seats, us in model.items():
        print(f"  {seats} players: {us:7.1f} us")
    with tempfile.TemporaryDirectory() as folder:
        redis = EmbeddedRedis(Path(folder)).start()
        try:
            runs = [await sequential(redis.url, args.games, run) for run in range(3)]
            print("Ratings.count one after the other, per game (median of 3 runs):")
            for seats in (2, 4):
                print(f"  {seats} players: {statistics.median(r[seats] for r in runs):6.3f} ms")
            rate_s, lost = await racing(redis.url, args.games, args.writers)
            print(f"{args.writers} writers at once, 2 players among {len(PLAYERS)}:")
            print(f"  {rate_s:7.0f} games/s, {lost:.2f} lost races per game")
        finally:
            redis.stop()


if __name__ == "__main__":
    asyncio.run(main())
