"""Benchmark of quick pairing (server/pairing*.py) with 1,000 waiting players; prints
its figures.

    .venv/bin/python bench/pairing_bench.py [--waiting 1000] [--newcomers 200] [--burst 1000]

On one private redis-server (as ``splendor serve`` runs it), one process with a
``GameService`` and a pairing ``Desk`` holding every waiting player (so each round
touches them all, as a process holding their sockets does), at a fixed time (the
allowed gaps do not widen while it runs):

- **steady**: the rated pool holds ``--waiting`` accounts 101 points apart (no two
  within the 100 a fresh wait accepts, so none pair), and ``--newcomers`` arrive one
  by one, each 40 points above a waiting one: from ``Desk.join`` to its ``paired``
  (one round: touch all, read the pool, plan, claim, make the game and seat both,
  tell, touch again), p50, p99 and max; then each phase of one such round alone. The
  pool is topped up after each pairing, so it always holds ``--waiting``;
- **planning alone**: ``pair_off`` over ``--waiting`` entries, pure;
- **burst**: ``--burst`` guests arrive at once (all 1500, so all pair): the time
  until every one is told, and the games made per second.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time

import redis.asyncio as aioredis

from server.games.lobby import Lobby
from server.games.service import GameService
from server.players.pairing_desk import Desk, Ticket
from server.players.pairing_pools import PairingStore, new_ticket
from server.players.pairing_rules import pair_off, pool_named
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore

NOW = 1_800_000_000_000
RATED = pool_named("classic-5+3-rated")
CASUAL = pool_named("duel-5+3-casual")
assert RATED is not None and CASUAL is not None


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


class Table:
    """Accounts' ratings, as the ratings read model would give them."""

    def __init__(self) -> None:
        self.ratings: dict[str, float] = {}

    async def rating(self, account: str, variant: str) -> float:
        return self.ratings[account]


async def add_waiting(desk: Desk, table: Table, name: str, rating: float) -> Ticket:
    assert RATED is not None
    table.ratings[name] = rating
    return await desk.join(RATED, new_ticket(), name, name)


async def steady(desk: Desk, table: Table, waiting: int, newcomers: int) -> None:
    assert RATED is not None
    for i in range(waiting):
        await add_waiting(desk, table, f"w{i}", 101.0 * i)
    assert await desk.store.size(RATED) == waiting
    latencies = []
    for n in range(newcomers):
        target = (n * 7) % waiting
        start = time.perf_counter()
        held = await add_waiting(desk, table, f"n{n}", 101.0 * target + 40)
        await desk.tick(NOW)
        latencies.append(time.perf_counter() - start)
        assert held.paired.done(), "the newcomer was not paired in one round"
        # Back to the full pool: the one it was paired with, in again.
        await add_waiting(desk, table, f"w{target}-{n}", 101.0 * target)
    print(f"steady, {waiting} waiting: join to paired over {newcomers} newcomers")
    print(
        f"  p50 {ms(statistics.median(latencies))}, p99 {ms(percentile(latencies, 0.99))},"
        f" max {ms(max(latencies))}"
    )
    await phases(desk, table, waiting)


async def phases(desk: Desk, table: Table, waiting: int) -> None:
    """One round's phases, each timed alone (the pool full, one pair to make)."""
    assert RATED is not None
    store = desk.store
    ids = [t.waiting.id for t in desk._tickets[RATED].values()]  # the bench peeks
    runs: dict[str, list[float]] = {"touch": [], "read": [], "plan": [], "claim": [], "game": []}
    for n in range(20):
        await add_waiting(desk, table, f"p{n}", 101.0 * n + 40)
        t0 = time.perf_counter()
        await store.touch(RATED, NOW, ids)
        t1 = time.perf_counter()
        _, entries = await store.entries(RATED)
        t2 = time.perf_counter()
        plan = pair_off(NOW, entries)
        t3 = time.perf_counter()
        claimed = await store.claim(RATED, NOW, plan)
        t4 = time.perf_counter()
        for players in claimed:
            await desk._start(RATED, players)
        t5 = time.perf_counter()
        for key, (a, b) in zip(
            runs, [(t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5)], strict=True
        ):
            runs[key].append(b - a)
        await desk.tick(NOW)  # hands the pairs over, forgets them
        await add_waiting(desk, table, f"q{n}", 101.0 * n)
    print(f"one round's phases, {waiting} waiting (median of 20)")
    words = {
        "touch": "touch every entry (mark seen, read what was paired)",
        "read": "read the pool (entries and seen)",
        "plan": "plan (pair_off, pure)",
        "claim": "claim the plan (Lua)",
        "game": "make the game, seat both, tell both",
    }
    for key, values in runs.items():
        print(f"  {words[key]}: {ms(statistics.median(values))}")


async def burst(desk: Desk, count: int) -> None:
    assert CASUAL is not None
    start = time.perf_counter()
    held = [await desk.join(CASUAL, new_ticket(), f"g{i}", None) for i in range(count)]
    joined = time.perf_counter()
    rounds = 0
    while not all(h.paired.done() for h in held):
        await desk.tick(NOW)
        rounds += 1
    done = time.perf_counter()
    games = count // 2
    print(f"burst: {count} guests at once")
    print(
        f"  all joined in {ms(joined - start)}; all told in {ms(done - joined)} more"
        f" ({rounds} round{'s' * (rounds != 1)}, {games / (done - joined):.0f} games a second)"
    )


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        redis_server = EmbeddedRedis(folder).start()
        client = aioredis.from_url(redis_server.url)
        try:
            table = Table()
            service = GameService(EventStore(client), Lobby(client))
            desk = Desk(PairingStore(client), service, ratings=table.rating, clock_ms=lambda: NOW)
            await steady(desk, table, args.waiting, args.newcomers)
            _, entries = await desk.store.entries(RATED)  # type: ignore[arg-type]
            runs = []
            for _ in range(20):
                t0 = time.perf_counter()
                pair_off(NOW, entries)
                runs.append(time.perf_counter() - t0)
            print(
                f"planning alone: pair_off over {len(entries)} entries {ms(statistics.median(runs))}"
            )
            await burst(desk, args.burst)
        finally:
            await client.aclose()
            redis_server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--waiting", type=int, default=1000)
    parser.add_argument("--newcomers", type=int, default=200)
    parser.add_argument("--burst", type=int, default=1000)
    asyncio.run(main(parser.parse_args()))
