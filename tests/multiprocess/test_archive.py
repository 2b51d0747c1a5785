"""Archives of finished games across processes on one Redis: a game archived by one
``splendor serve`` reads the same on another that had it cached from before its end
(HTTP and a websocket replay); a process killed (-9) while it archives game after
game leaves each one whole, live-shaped or archived, and readable as before."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import textwrap
from typing import Any

import httpx
import redis.asyncio as aioredis

from events.game import VARIANTS
from server.common.wire import decode_action
from server.games.archiver import LEASE_MS, ArchiveQueue, Archiver
from server.games.lobby import Lobby
from server.games.service import GameService
from server.store.event_store import EventStore
from server.store.keys import archive_key, commands_key, events_key, seats_key
from tests.multiprocess.servers import served, ws_url
from tests.server.archive_helpers import Clock, play
from tests.server.test_ws_resume import http_move
from tests.server.ws_helpers import Watcher, connect, http_view, new_table


async def _all_views(http: httpx.AsyncClient, game_id: str, token: str | None) -> list[Any]:
    final = (await http.get(f"/api/games/{game_id}")).json()["version"]
    return [await http_view(http, game_id, token, v) for v in range(1, final + 1)]


async def test_a_game_archived_by_one_server_reads_the_same_on_another(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """A archives the game as soon as it ends (SPLENDOR_ARCHIVE_AFTER=0); B, which cached it mid-game, gives the same events and views at every version, to a spectator and a seat, over HTTP and a websocket replay."""
    async with (
        served(redis_server, {"SPLENDOR_ARCHIVE_AFTER": "0"}) as a,
        served(redis_server, {"SPLENDOR_ARCHIVE_AFTER": "3600"}) as b,
        httpx.AsyncClient(base_url=a.base) as http_a,
        httpx.AsyncClient(base_url=b.base) as http_b,
    ):
        table = await new_table(http_a, players=2, seed=12)
        rng = random.Random(12)
        for _ in range(10):
            await http_move(http_a, table, rng)
        await _all_views(http_b, table.id, None)  # B caches the game at version ~13
        path = f"/api/games/{table.id}"
        seat = {"Authorization": f"Bearer {table.tokens[0]}"}
        while (await http_a.get(path)).json()["status"] != "finished":
            await http_move(http_a, table, rng)
        before = {
            "events": (await http_a.get(path + "/events")).json(),
            "seat events": (await http_a.get(path + "/events", headers=seat)).json(),
            "views": await _all_views(http_a, table.id, None),
            "seat views": await _all_views(http_a, table.id, table.tokens[0]),
        }
        for _ in range(500):  # A's archiver polls every second
            if await redis_client.exists(archive_key(table.id)):
                break
            await asyncio.sleep(0.02)
        assert await redis_client.exists(archive_key(table.id))
        assert not await redis_client.exists(events_key(table.id))

        after = {
            "events": (await http_b.get(path + "/events")).json(),
            "seat events": (await http_b.get(path + "/events", headers=seat)).json(),
            "views": await _all_views(http_b, table.id, None),
            "seat views": await _all_views(http_b, table.id, table.tokens[0]),
        }
        assert after == before
        final = len(before["views"])
        replay = Watcher("replay@b", await connect(ws_url(b.base, table.id) + "?since=0"))
        classic = VARIANTS["classic"]
        replay.start_from(0, classic.view(classic.new_state(), None))
        while replay.version is None or replay.version < final:
            await replay.next()
        assert [replay.views[v] for v in range(1, final + 1)] == before["views"]
        await replay.conn.close()


_ARCHIVING = textwrap.dedent("""
    import asyncio, sys
    import redis.asyncio as aioredis
    from server.games.archiver import ArchiveQueue, Archiver
    from server.games.lobby import Lobby
    from server.games.service import GameService
    from server.store.event_store import EventStore

    async def main() -> None:
        client = aioredis.from_url(sys.argv[1])
        service = GameService(EventStore(client), Lobby(client))
        archiver = Archiver(service, ArchiveQueue(client, after_s=0), clock_ms=lambda: 1 << 50)
        while await archiver.tick():
            pass

    asyncio.run(main())
""")


_ARCHIVING_ALL = textwrap.dedent("""
    import asyncio, sys
    import redis.asyncio as aioredis
    from server.games.archiver import ArchiveQueue, archive_game
    from server.games.lobby import Lobby
    from server.games.service import GameService
    from server.store.event_store import EventStore

    async def main() -> None:
        client = aioredis.from_url(sys.argv[1])
        service = GameService(EventStore(client), Lobby(client))
        games = list(await ArchiveQueue(client, after_s=0).all())
        while not await client.exists("go"):
            await asyncio.sleep(0.001)
        done = [await archive_game(service, game_id) for game_id in games]
        print(sum(done), flush=True)

    asyncio.run(main())
""")


async def _short_games(service: GameService, count: int) -> list[str]:
    """Games created, joined and resigned at once: finished, a few events each."""
    games = []
    for i in range(count):
        game_id = (await service.create_game("classic", 2, seed=i))["id"]
        seat = (await service.join(game_id, "Ana")).seat
        await service.join(game_id, "Bo")
        resign = decode_action("classic", b'{"kind": "resign"}')
        await service.submit(game_id, seat, "resign", resign)
        games.append(game_id)
    return games


async def test_two_processes_archiving_the_same_games_archive_each_once(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Two processes archive the same 100 games at once, in the same order: each game is archived by exactly one of them, and reads as before."""
    service = GameService(EventStore(redis_client), Lobby(redis_client))
    service.hooks.archives = ArchiveQueue(redis_client, after_s=0)
    games = await _short_games(service, 100)
    before = {g: await service.reader.events(g, None) for g in games}
    command = [sys.executable, "-c", _ARCHIVING_ALL, redis_server]
    children = [subprocess.Popen(command, stdout=subprocess.PIPE) for _ in range(2)]
    try:
        await asyncio.sleep(0.5)  # both have read the list and wait for the word
        await redis_client.set("go", 1)
        outputs = [await asyncio.to_thread(c.communicate, timeout=120) for c in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    counts = [int(out.strip()) for out, _ in outputs]
    print("archived by each process:", counts)
    assert sum(counts) == len(games), counts
    for g in games:
        assert await redis_client.exists(archive_key(g))
        assert not await redis_client.exists(events_key(g))
        assert await GameService(EventStore(redis_client)).reader.events(g, None) == before[g]


def _shape(exists: list[int]) -> str:
    """``live`` or ``archived`` from which of stream, commands, seats, archive exist."""
    stream, commands, seats, archived = exists
    if archived == 0 and stream == 1 and commands == seats:
        return "live"
    if archived == 1 and stream == commands == seats == 0:
        return "archived"
    return f"half: {exists}"


async def test_a_process_killed_while_archiving_leaves_every_game_whole(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """kill -9 of a process archiving games one after the other: every game is live-shaped or archived, never half, and reads as before; another archiver then archives the rest."""
    clock = Clock()
    service = GameService(EventStore(redis_client), Lobby(redis_client), clock_ms=clock)
    queue = ArchiveQueue(redis_client, after_s=0)
    service.hooks.archives = queue
    games = [
        (await play(service, clock, variant, n, seed=n, timed=False)).id
        for variant, n in (("classic", 4), ("duel", 2))
    ]
    games += await _short_games(service, 300)
    before = {
        g: (await service.reader.events(g, None), await service.reader.summary(g)) for g in games
    }
    assert len(await queue.all()) == len(games)

    child = subprocess.Popen([sys.executable, "-c", _ARCHIVING, redis_server], env=os.environ)
    try:
        for _ in range(5000):
            archived = [k async for k in redis_client.scan_iter(match="game:{*}:archive")]
            if archived or child.poll() is not None:
                break
            await asyncio.sleep(0.002)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert child.returncode == -signal.SIGKILL, "the archiving process ended before the kill"

    async def shapes() -> dict[str, str]:
        out = {}
        for g in games:
            keys = (events_key(g), commands_key(g), seats_key(g), archive_key(g))
            out[g] = _shape([await redis_client.exists(k) for k in keys])
        return out

    seen = await shapes()
    assert set(seen.values()) == {"live", "archived"}, seen
    cold = GameService(EventStore(redis_client), Lobby(redis_client))
    for g in games:
        assert (await cold.reader.events(g, None), await cold.reader.summary(g)) == before[g]

    # The killed process's games are leased: taken again once the lease is over.
    rest = Archiver(cold, queue, clock_ms=lambda: (1 << 50) + LEASE_MS + 1)
    while await rest.tick():
        pass
    assert set((await shapes()).values()) == {"archived"}
    fresh = GameService(EventStore(redis_client), Lobby(redis_client))
    for g in games:
        assert (await fresh.reader.events(g, None), await fresh.reader.summary(g)) == before[g]
