"""Benchmark of the game service on the embedded Redis; prints its figures.

    .venv/bin/python bench/service_bench.py [--games 50] [--seeds 10]

Measured in one run, on one private redis-server (append-only, fsync every second,
as `splendor serve` runs it), with one redis.asyncio client:

- raw XADD: one XADD per round trip, awaited one after the other: the ceiling of any
  command that needs a round trip;
- the service, one game at a time: whole classic games replayed command by command
  through ``GameService.submit`` (decide, append with the Lua script, fold into the
  cached projection, lobby update);
- the service, 50 games at once: the same, 50 games concurrently on one event loop;
- cold load of a finished game: a service with an empty cache reads the game's
  stream and folds it (``variant_of``), then the same plus a spectator view.

The games' actions are recorded beforehand (not timed) by playing seeded games with
a fixed policy; replaying them with the same seeds gives the same draws, so every
timed command is legal and the timed work is the service's alone.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from typing import Any

import msgspec
import redis.asyncio as aioredis

from server.games.lobby import Lobby
from server.games.service import GameService
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore

RAW_XADDS = 2000


def policy(legal: list[Any], rng: random.Random) -> Any:
    """Buy when possible (games end sooner), else any legal action."""
    buys = [a for a in legal if type(a).__name__ == "Buy"]
    return buys[-1] if buys and rng.random() < 0.9 else rng.choice(legal)


async def record_game(service: GameService, seed: int) -> list[tuple[int, Any]]:
    """Play a seeded 2-player classic game to its end; its (seat, action) list."""
    game_id = (await service.create_game("classic", 2, seed))["id"]
    await service.join(game_id, "Ana")
    await service.join(game_id, "Bo")
    rng = random.Random(seed)
    moves: list[tuple[int, Any]] = []
    variant = await service.reader.variant_of(game_id)
    for i in range(5000):
        game = service.repository.cached(game_id)  # the benchmark peeks at the projection
        if game.state.status != "live":
            return moves
        seat = game.state.seat
        action = policy(variant.legal_actions(game.state, seat), rng)
        await service.submit(game_id, seat, f"r{i}", action)
        moves.append((seat, action))
    raise RuntimeError("a recorded game did not end")


async def replay(service: GameService, seed: int, moves: list[tuple[int, Any]]) -> str:
    game_id = (await service.create_game("classic", 2, seed))["id"]
    await service.join(game_id, "Ana")
    await service.join(game_id, "Bo")
    for i, (seat, action) in enumerate(moves):
        await service.submit(game_id, seat, f"c{i}", action)
    return game_id


async def raw_xadd_rate(client: aioredis.Redis, count: int) -> float:
    await client.delete("bench:raw")
    payload = msgspec.json.encode({"type": "TokensTaken", "seat": 0, "tokens": {"red": 1}})
    start = time.perf_counter()
    for i in range(count):
        await client.xadd("bench:raw", {"e": payload, "t": i}, id=f"{i + 1}-0")
    elapsed = time.perf_counter() - start
    await client.delete("bench:raw")
    return count / elapsed


async def service_rate(
    store: EventStore, batch: list[tuple[int, list[tuple[int, Any]]]], at_once: bool
) -> tuple[float, list[str]]:
    """Commands per second replaying ``batch`` one game after the other or all at once."""
    service = GameService(store, Lobby(store.client))
    start = time.perf_counter()
    if at_once:
        ids = await asyncio.gather(*(replay(service, seed, moves) for seed, moves in batch))
    else:
        ids = [await replay(service, seed, moves) for seed, moves in batch]
    return sum(len(m) for _, m in batch) / (time.perf_counter() - start), list(ids)


async def cold_loads(
    store: EventStore, game_ids: list[str]
) -> tuple[list[float], list[float], list[float]]:
    """Wall and CPU time of a cold load (read + fold), and wall time with a view."""
    walls, cpus, with_view = [], [], []
    for game_id in game_ids:
        start, cpu = time.perf_counter(), time.process_time()
        await GameService(store).reader.variant_of(game_id)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        start = time.perf_counter()
        await GameService(store).reader.view(game_id, None)
        with_view.append(time.perf_counter() - start)
    return walls, cpus, with_view


async def main(games: int, seeds: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as data:
        redis_server = EmbeddedRedis(data).start()
        client = aioredis.from_url(redis_server.url, decode_responses=False)
        try:
            store = EventStore(client)
            recorder = GameService(store)
            recorded = [(seed, await record_game(recorder, seed)) for seed in range(seeds)]
            per_game = statistics.mean(len(m) for _, m in recorded)
            batch = [recorded[i % len(recorded)] for i in range(games)]
            # Rounds interleave the measures, so a busy machine slows all of them alike;
            # each ratio is taken within its round.
            raws, one, many, finished = [], [], [], []
            for _ in range(rounds):
                raw = await raw_xadd_rate(client, RAW_XADDS)
                rate, ids = await service_rate(store, recorded, at_once=False)
                finished += ids
                one.append((rate, rate / raw))
                rate, _ = await service_rate(store, batch, at_once=True)
                many.append((rate, rate / raw))
                raws.append(raw)
            walls, cpus, with_view = await cold_loads(store, finished)
            events = statistics.mean([await store.version(g) for g in finished])
        finally:
            await client.aclose()
            redis_server.stop()

    def ms(values: list[float]) -> str:
        return (
            f"median {statistics.median(values) * 1000:5.2f} ms, best {min(values) * 1000:5.2f} ms"
        )

    def rates(pairs: list[tuple[float, float]]) -> str:
        best = max(pairs)
        ratio = statistics.median(r for _, r in pairs)
        return f"{statistics.median(r for r, _ in pairs):6.0f} commands/s (best {best[0]:.0f}); median {ratio:.0%} of raw XADD in its round"

    print(
        f"{rounds} rounds; recorded games: {seeds}, {per_game:.0f} commands and {events:.0f} events each"
    )
    print(
        f"raw XADD, one per round trip:  {statistics.median(raws):6.0f} /s (best {max(raws):.0f})"
    )
    print(f"service, one game at a time:   {rates(one)}")
    print(f"service, {games} games at once:   {rates(many)}")
    print(f"cold load of a finished game (read + fold): {ms(walls)}; CPU {ms(cpus)}")
    print(f"cold load + spectator view:                 {ms(with_view)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games played at once")
    parser.add_argument("--seeds", type=int, default=10, help="recorded games")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of measures")
    args = parser.parse_args()
    asyncio.run(main(args.games, args.seeds, args.rounds))
