"""Benchmark of the archive of finished games (server/store/archive_format.py); prints its figures.

    .venv/bin/python bench/archive_bench.py [--games 10] [--rounds 5]

On a private embedded redis-server, ``--games`` finished games of each kind (classic
2 players, classic 4 players, Duel), played by bots at a person's pace
(``archive_games.py``), are written as the service writes them: an append a command
(with its command id), the meta hash, the seats' digests. Then, in one run:

- bytes per game at rest: ``MEMORY USAGE`` of all of a game's keys, stream-stored
  (stream, commands, seats, meta) and archived (archive, meta);
- cold replay: a service with nothing cached reads the game and folds it
  (``GameReader.log``: one script, then decode and fold), stream-stored and then
  archived (read + inflate + fold), each game's best of ``--rounds``; and the
  inflate alone (``server.store.archive_format.decode``).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import tempfile
import time
from collections import defaultdict

import redis.asyncio as aioredis
from archive_games import PlayedGame, corpus

from server.games.archiver import archive_game
from server.games.service import GameService
from server.store import archive_format as archive
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore
from server.store.keys import archive_key, seats_key


async def write_live(store: EventStore, game: PlayedGame) -> None:
    """The game as the service leaves it: one append per command (the events of one
    time), each with a command id; meta; the seats' digests."""
    version = 0
    for n, (at_ms, group) in enumerate(itertools.groupby(game.log, key=lambda e: e[0])):
        events = [data for _, data in group]
        await store.append(
            game.game_id,
            events,
            expected_version=version,
            command_id=None if n == 0 else f"seat-{n % game.players}-move-{n}",
            at_ms=at_ms,
        )
        version += len(events)
    await store.set_meta(
        game.game_id,
        {
            "variant": game.variant,
            "players": game.players,
            "seed": 1 << 62,
            "created_at": game.log[0][0],
        },
    )
    await store.client.hset(seats_key(game.game_id), mapping=dict(enumerate(game.digests)))


async def bytes_at_rest(client: aioredis.Redis, game_id: str) -> int:
    total = 0
    async for key in client.scan_iter(match=f"game:{{{game_id}}}:*"):
        total += int(await client.memory_usage(key) or 0)
    return total


async def cold_replays(
    client: aioredis.Redis, games: list[PlayedGame], rounds: int
) -> dict[str, float]:
    """Each game's best cold load and fold (ms), by game id."""
    best: dict[str, float] = defaultdict(lambda: float("inf"))
    for _ in range(rounds):
        for game in games:
            service = GameService(EventStore(client))
            start = time.perf_counter()
            log = await service.reader.log(game.game_id)
            elapsed = (time.perf_counter() - start) * 1000
            assert len(log) == len(game.log)
            best[game.game_id] = min(best[game.game_id], elapsed)
    return best


def kind(game: PlayedGame) -> str:
    return f"{game.variant} {game.players}p"


async def main(games_per_kind: int, rounds: int) -> None:
    games = corpus(games_per_kind, seed=7)
    with tempfile.TemporaryDirectory() as data:
        redis_server = EmbeddedRedis(data).start()
        client = aioredis.from_url(redis_server.url)
        try:
            store = EventStore(client)
            for game in games:
                await write_live(store, game)
            live_bytes = {g.game_id: await bytes_at_rest(client, g.game_id) for g in games}
            live_ms = await cold_replays(client, games, rounds)
            service = GameService(store)
            for game in games:
                assert await archive_game(service, game.game_id)
            archived_bytes = {g.game_id: await bytes_at_rest(client, g.game_id) for g in games}
            archived_ms = await cold_replays(client, games, rounds)
            inflate_ms: dict[str, float] = {}
            for game in games:
                value = await client.get(archive_key(game.game_id))
                start = time.perf_counter()
                for _ in range(rounds):
                    archive.decode(value)
                inflate_ms[game.game_id] = (time.perf_counter() - start) * 1000 / rounds
        finally:
            await client.aclose()
            redis_server.stop()

    print(f"{games_per_kind} games of each kind, best of {rounds} cold loads each")
    print(
        f"{'kind':12} {'events':>6} {'bytes live':>10} {'archived':>9} {'load live ms':>12} {'archived ms':>11} {'inflate ms':>10}"
    )
    by_kind: dict[str, list[PlayedGame]] = defaultdict(list)
    for game in games:
        by_kind[kind(game)].append(game)
    rows = []
    for name, group in by_kind.items():
        ids = [g.game_id for g in group]
        row = [
            statistics.mean(len(g.log) for g in group),
            statistics.mean(live_bytes[i] for i in ids),
            statistics.mean(archived_bytes[i] for i in ids),
            statistics.mean(live_ms[i] for i in ids),
            statistics.mean(archived_ms[i] for i in ids),
            statistics.mean(inflate_ms[i] for i in ids),
        ]
        rows.append(row)
        print(
            f"{name:12} {row[0]:6.0f} {row[1]:10.0f} {row[2]:9.0f} {row[3]:12.2f} {row[4]:11.2f} {row[5]:10.3f}"
        )
    means = [statistics.mean(column) for column in zip(*rows, strict=True)]
    print(
        f"{'mean':12} {means[0]:6.0f} {means[1]:10.0f} {means[2]:9.0f} {means[3]:12.2f} {means[4]:11.2f} {means[5]:10.3f}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games of each kind")
    parser.add_argument("--rounds", type=int, default=5, help="cold loads of each game")
    args = parser.parse_args()
    asyncio.run(main(args.games, args.rounds))
