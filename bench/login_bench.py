"""Benchmark of logging in (server/players/accounts.py); prints its figures.

    .venv/bin/python bench/login_bench.py [--tries 30]

On one private redis-server (as ``splendor serve`` runs it), ``Accounts.verify``
timed for a right password, a wrong password and an unknown username, interleaved
so that the machine's load falls on the three alike: each is one argon2id
verification (the unknown name's against a dummy hash of the same parameters), so
the wrong password and the unknown name should not be told apart by their time.
Then how long the event loop is held while 4 log-ins run at once (the hashing is in
the accounts' own threads): the longest gap between ticks of a 1 ms timer.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import redis.asyncio as aioredis

from server.players.accounts import Accounts
from server.store.embedded_redis import EmbeddedRedis

PASSWORD = "a-long-enough-password"


async def timed(accounts: Accounts, username: str, password: str) -> float:
    start = time.perf_counter()
    await accounts.verify(username, password)
    return (time.perf_counter() - start) * 1000


async def loop_stall(accounts: Accounts, logins: int) -> float:
    """The longest gap (ms) between ticks of a 1 ms timer while ``logins`` run."""
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append((now - last) * 1000)
            last = now

    tick = asyncio.create_task(ticker())
    await asyncio.gather(*(accounts.verify("bench_user", PASSWORD) for _ in range(logins)))
    done.set()
    await tick
    return max(gaps)


async def main(tries: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        redis_server = EmbeddedRedis(Path(folder)).start()
        client = aioredis.from_url(redis_server.url)
        accounts = Accounts(client)
        try:
            await accounts.create("bench_user", PASSWORD)
            await accounts.verify("nobody_here", PASSWORD)  # the dummy hash, made once
            times: dict[str, list[float]] = {"right": [], "wrong": [], "unknown": []}
            cases = {
                "right": ("bench_user", PASSWORD),
                "wrong": ("bench_user", "wrong-password"),
                "unknown": ("nobody_here", "wrong-password"),
            }
            order = list(cases)
            for _ in range(tries):
                order = order[1:] + order[:1]  # each case first, second, third in turn
                for case in order:
                    times[case].append(await timed(accounts, *cases[case]))
            print(f"Accounts.verify, {tries} tries each, interleaved (ms):")
            print("| case | p50 | p90 | mean |")
            print("|---|---|---|---|")
            for case, values in times.items():
                values.sort()
                p90 = values[int(len(values) * 0.9) - 1]
                print(
                    f"| {case} | {statistics.median(values):.1f} | {p90:.1f} |"
                    f" {statistics.fmean(values):.1f} |"
                )
            stall = await loop_stall(accounts, 4)
            print(f"longest event-loop gap while 4 log-ins run at once: {stall:.1f} ms")
        finally:
            accounts.close()
            await client.aclose()
            redis_server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=30)
    asyncio.run(main(parser.parse_args().tries))
