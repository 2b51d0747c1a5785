"""Benchmark of the lobby and start-up with 100,000 finished games in Redis (issue 14,
item 3); prints its figures.

    nice -n 19 .venv/bin/python bench/lobby_bench.py [--games 100000] [--live 20]
        [--requests 300] [--rebuild] [--rebuild-seconds 120] [--before DIR]

On one private redis-server (AOF off: the bench writes gigabytes it throws away):

- a few template games are played to their end through ``GameService`` (classic for
  2, 3 and 4 players and Duel, random legal moves), and ``--games`` finished games are
  written from them with pipelines, as the server writes them: each game's stream
  (its events, ``GameCreated`` naming its own id, times shifted so that every game is
  created and ends a minute after the one before), its meta hash (created_at, seed)
  and its seats hash (the commands hash, which no read of the lobby touches, is left
  out); then the lobby's keys as the live updates leave them (the finished list
  bounded to ``SPLENDOR_FINISHED_GAMES``, 1,000) and ``--live`` live games played for
  real;
- start-up: ``splendor serve`` on that Redis, from the process's start to the first
  ``/healthz`` 200 (and on the empty Redis first: Python's imports, the same with any
  number of games), and the app's lifespan alone (in this process, what the server
  does before it serves); the background refresh of the open and live games after it;
- the lobby's list endpoints over HTTP on that server (keep-alive, one client):
  ``--requests`` each of open, live, finished, all (no status) at the page's limits
  and at the largest (200), p50 and p99 as the client sees them;
- ``--rebuild``: the lobby's keys deleted, a server started again: its start-up, the
  background rebuild from SCAN (every game folded) and ``/healthz`` meanwhile, for
  ``--rebuild-seconds`` at most (its progress from the server's log);
- ``--before DIR``: the start-up of another tree (``git worktree add DIR <commit>``,
  or ``git archive``) on the same keys, the lifespan alone.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import redis.asyncio as aioredis

from server.common.settings import Settings
from server.common.wire import iso_time
from server.games.lobby import KEEP_FINISHED, Lobby, LobbyEntry
from server.games.service import GameService
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore
from server.store.keys import (
    LOBBY_BUILT_KEY,
    LOBBY_FINISHED_KEY,
    LOBBY_GAMES_KEY,
    LOBBY_VERSIONS_KEY,
    events_key,
    meta_key,
    seats_key,
)
from server.web.app import create_app
from server.web.state import running

START_MS = 1_600_000_000_000
MINUTE_MS = 60_000
TEMPLATES = (("classic", 2), ("classic", 3), ("classic", 4), ("duel", 2), ("classic", 2))
PIPELINE = 100  # games a pipeline writes
ROOT = Path(__file__).resolve().parents[1]


class Template:
    """A finished game to copy: its events (bytes, offset from its creation in ms),
    meta and seats hashes, and its lobby entry."""

    def __init__(
        self,
        game_id: str,
        events: list[tuple[int, bytes]],
        meta: dict[Any, Any],
        seats: dict[Any, Any],
        entry: LobbyEntry,
    ) -> None:
        self.id = game_id
        self.events = events
        self.meta = meta
        self.seats = seats
        self.entry = entry


async def play_to_the_end(service: GameService, game_id: str, rng: random.Random) -> None:
    variant = await service.reader.variant_of(game_id)
    for n in range(5000):
        game = service.repository.cached(game_id)  # the benchmark peeks at the projection
        if game.state.status != "live":
            return
        seat = game.state.seat
        action = rng.choice(variant.legal_actions(game.state, seat))
        await service.submit(game_id, seat, f"bench-{game_id}-{n}", action)
    raise RuntimeError(f"{game_id} did not end")


async def templates(client: aioredis.Redis) -> list[Template]:
    """Real finished games, played through the service, read back as stored."""
    store = EventStore(client)
    service = GameService(store, Lobby(client))
    rng = random.Random(14)
    made = []
    for n, (variant, players) in enumerate(TEMPLATES):
        game_id = (await service.create_game(variant, players, seed=n))["id"]
        for seat in range(players):
            await service.join(game_id, f"Player {seat + 1}")
        await play_to_the_end(service, game_id, rng)
        stored = await store.read(game_id)
        created = stored[0].at_ms
        entry = await service.listing.lobby_entry(game_id)
        assert entry is not None and entry.status == "finished"
        made.append(
            Template(
                game_id,
                [(e.at_ms - created, e.data) for e in stored],
                await client.hgetall(meta_key(game_id)),
                await client.hgetall(seats_key(game_id)),
                entry,
            )
        )
    await client.flushdb()
    return made


def game_id_of(n: int) -> str:
    return f"b{n:09d}"  # ten characters, as the server's ids


# KEYS: the template's stream, then (stream, meta, seats) per game. ARGV: the template's
# id, then (game id, created ms) per game. Each game's stream is the template's, its
# GameCreated naming the game's own id and every time shifted to its creation; its
# meta hash the template's with its created_at; its seats hash the template's. In
# Redis, not over the socket: the copy costs Redis's time only.
_COPY_LUA = """
local entries = redis.call('XRANGE', KEYS[1], '-', '+')
local first = tonumber(entries[1][2][4])
local template = ARGV[1]
local meta = redis.call('HGETALL', KEYS[2])
local seats = redis.call('HGETALL', KEYS[3])
for g = 1, (#ARGV - 1) / 2 do
  local id, created = ARGV[2 * g], tonumber(ARGV[2 * g + 1])
  local stream = KEYS[1 + 3 * g]
  for v, entry in ipairs(entries) do
    local data = entry[2][2]
    if v == 1 then
      local at = string.find(data, template, 1, true)
      data = string.sub(data, 1, at - 1) .. id .. string.sub(data, at + #template)
    end
    local t = created + tonumber(entry[2][4]) - first
    redis.call('XADD', stream, entry[1], 'e', data, 't', string.format('%d', t))
  end
  redis.call('HSET', KEYS[2 + 3 * g], unpack(meta))
  redis.call('HSET', KEYS[2 + 3 * g], 'created_at', string.format('%d', created))
  redis.call('HSET', KEYS[3 + 3 * g], unpack(seats))
end
return 1
"""


async def write_games(client: aioredis.Redis, made: list[Template], games: int) -> None:
    """``games`` finished games copied from the templates (kept in Redis for it), a
    minute apart."""
    for t in made:
        for version, (offset, data) in enumerate(t.events, start=1):
            fields: Any = {b"e": data, b"t": b"%d" % (START_MS + offset)}
            await client.xadd(f"template:{{{t.id}}}:events", fields, id=f"{version}-0")
        await client.hset(f"template:{{{t.id}}}:meta", mapping=t.meta)
        await client.hset(f"template:{{{t.id}}}:seats", mapping=t.seats)
    copy = client.register_script(_COPY_LUA)
    for start in range(0, games, PIPELINE):
        by_template: dict[int, list[int]] = {}
        for n in range(start, min(games, start + PIPELINE)):
            by_template.setdefault(n % len(made), []).append(n)
        for index, numbers in by_template.items():
            t = made[index]
            keys = [f"template:{{{t.id}}}:{part}" for part in ("events", "meta", "seats")]
            args: list[str | int] = [t.id]
            for n in numbers:
                game_id = game_id_of(n)
                keys += [events_key(game_id), meta_key(game_id), seats_key(game_id)]
                args += [game_id, START_MS + n * MINUTE_MS]
            await copy(keys=keys, args=args)
        if start % 20_000 == 0:
            print(f"  {start:,} games written", file=sys.stderr, flush=True)
    for t in made:
        await client.delete(*(f"template:{{{t.id}}}:{p}" for p in ("events", "meta", "seats")))


async def write_lobby(client: aioredis.Redis, made: list[Template], games: int, keep: int) -> None:
    """The lobby's finished list as the live updates leave it with a bound of ``keep``
    (older games would be trimmed at once: only the newest are written), then
    ``built``."""
    lobby = Lobby(client, keep)
    for n in range(max(0, games - 2 * keep), games):
        template = made[n % len(made)]
        game_id = game_id_of(n)
        created = START_MS + n * MINUTE_MS
        ended = created + template.events[-1][0]
        summary = {
            **template.entry.summary,
            "id": game_id,
            "created_at": iso_time(created),
            "ended_at": iso_time(ended),
        }
        entry = template.entry
        await lobby.update(LobbyEntry(game_id, "finished", created, entry.version, summary, ended))
    await client.set(LOBBY_BUILT_KEY, b"1")


async def forget_finished(client: aioredis.Redis, games: int) -> None:
    """Take the finished games out of the lobby (the live ones stay)."""
    await client.delete(LOBBY_FINISHED_KEY)
    ids = [game_id_of(n) for n in range(games)]
    for start in range(0, games, 10_000):
        await client.hdel(LOBBY_GAMES_KEY, *ids[start : start + 10_000])
        await client.hdel(LOBBY_VERSIONS_KEY, *ids[start : start + 10_000])


async def live_games(client: aioredis.Redis, count: int) -> None:
    service = GameService(EventStore(client), Lobby(client))
    rng = random.Random(15)
    for n in range(count):
        game_id = (await service.create_game("classic", 2, seed=1000 + n))["id"]
        await service.join(game_id, "Ana")
        await service.join(game_id, "Bo")
        variant = await service.reader.variant_of(game_id)
        for k in range(6):
            state = service.repository.cached(game_id).state
            action = rng.choice(variant.legal_actions(state, state.seat))
            await service.submit(game_id, state.seat, f"live-{n}-{k}", action)


# ---------------------------------------------------------------------- start-up


async def lifespan_seconds(url: str) -> tuple[float, float]:
    """The app's lifespan start (what it does before serving), and the background
    refresh or rebuild after it."""
    app = create_app(Settings(redis_url=url), plugins=True)
    started = time.perf_counter()
    async with app.router.lifespan_context(app):
        serving = time.perf_counter() - started
        await running(app).service.listing.ready()
        ready = time.perf_counter() - started - serving
    return serving, ready


def serve(
    url: str, port: int, log: Path, tree: Path = ROOT, level: str = "info"
) -> subprocess.Popen[bytes]:
    env = {**os.environ, "REDIS_URL": url, "PYTHONPATH": str(tree)}
    with log.open("ab") as out:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "splendor.cli",
                "serve",
                "--port",
                str(port),
                "--log-level",
                level,
            ],
            env=env,
            cwd=tree,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def until_healthy(base: str, proc: subprocess.Popen[bytes], started: float) -> float:
    while True:
        if proc.poll() is not None:
            raise RuntimeError("the server exited")
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return time.perf_counter() - started
        except httpx.HTTPError:
            pass
        time.sleep(0.005)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def percentiles(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    return f"p50 {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms"


def lists(base: str, requests: int) -> None:
    queries = [
        ("open, 12 (the page)", "status=open&limit=12"),
        ("live, 12 (the page)", "status=live&limit=12"),
        ("finished, 12 (the page)", "status=finished&limit=12"),
        ("finished, 50 (default)", "status=finished"),
        ("finished, 200 (most)", "status=finished&limit=200"),
        ("all, 50", "limit=50"),
        ("all, 200", "limit=200"),
    ]
    with httpx.Client(base_url=base) as http:
        for name, query in queries:
            for _ in range(20):
                http.get(f"/api/games?{query}")  # warm
            samples = []
            for _ in range(requests):
                started = time.perf_counter()
                r = http.get(f"/api/games?{query}")
                samples.append(time.perf_counter() - started)
                assert r.status_code == 200
            print(
                f"  GET /api/games {name:<24} {percentiles(samples)}  ({len(r.json()['games'])} games)"
            )


def healthz_during_rebuild(base: str, log: Path, seconds: float) -> None:
    """/healthz every 50 ms for ``seconds`` of the rebuild (or to its end), and how
    far the rebuild got (its progress lines in the server's log)."""
    samples = []
    started = time.perf_counter()
    done = False
    with httpx.Client(base_url=base) as http:
        while time.perf_counter() - started < seconds:
            t = time.perf_counter()
            ok = http.get("/healthz").status_code == 200
            samples.append(time.perf_counter() - t)
            assert ok
            if not http.get("/api/games?status=finished&limit=1").json().get("rebuilding"):
                done = True
                break
            time.sleep(0.05)
    elapsed = time.perf_counter() - started
    progress = [line for line in log.read_text().splitlines() if "lobby rebuil" in line]
    print(f"  rebuild from SCAN: {'done' if done else 'running'} after {elapsed:.0f} s")
    if progress:
        print(f"  its last line: {progress[-1].strip()}")
    print(
        f"  /healthz meanwhile: {percentiles(samples)}, max {max(samples) * 1000:.1f} ms"
        f" over {len(samples)} requests, every one 200"
    )


def import_seconds() -> float:
    """What a new process spends importing the server (the same with any data)."""
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import splendor.cli, server.web.app, server.web.game_socket, uvicorn",
        ],
        cwd=ROOT,
        check=True,
    )
    return time.perf_counter() - started


async def memory(client: aioredis.Redis) -> str:
    info: dict[str, Any] = await client.info("memory")
    keys = await client.dbsize()
    return f"{keys:,} keys, {int(info['used_memory']) / 2**30:.2f} GiB"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--live", type=int, default=20)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--rebuild-seconds", type=float, default=120.0)
    parser.add_argument("--before", type=Path, help="another tree to start on the same keys")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        redis = EmbeddedRedis(Path(tmp) / "redis").start()
        client = aioredis.from_url(redis.url, socket_timeout=300)
        try:
            await client.config_set("appendonly", "no")
            port = free_port()
            started = time.perf_counter()
            proc = serve(redis.url, port, Path(tmp) / "empty.log")
            try:
                empty = until_healthy(f"http://127.0.0.1:{port}", proc, started)
            finally:
                stop(proc)
            print(
                "splendor serve on an empty Redis, process start to /healthz 200:"
                f" {empty * 1000:.0f} ms (importing the server alone:"
                f" {import_seconds() * 1000:.0f} ms)"
            )
            made = await templates(client)
            sizes = [len(t.events) for t in made]
            print(f"templates: {len(made)} finished games of {min(sizes)}-{max(sizes)} events")
            started = time.perf_counter()
            await write_games(client, made, args.games)
            await live_games(client, args.live)
            print(
                f"written: {args.games:,} finished games and {args.live} live ones in"
                f" {time.perf_counter() - started:.0f} s ({await memory(client)})"
            )
            if args.before is not None:
                # The lobby as the tree before kept it: every finished game listed.
                await write_lobby(client, made, args.games, args.games)
                print(f"  before ({args.before}): lifespan {before(args.before, redis.url)}")
                await forget_finished(client, args.games)
            await write_lobby(client, made, args.games, KEEP_FINISHED)
            await run_servers(args, redis.url, Path(tmp))
            if args.rebuild:
                await client.delete(*[k for k in await client.keys("{lobby}:*")])
                print("lobby keys deleted:")
                port = free_port()
                started = time.perf_counter()
                log = Path(tmp) / "rebuild.log"
                proc = serve(redis.url, port, log, level="debug")  # the rebuild's progress
                try:
                    base = f"http://127.0.0.1:{port}"
                    healthy = until_healthy(base, proc, started)
                    print(
                        f"  splendor serve, process start to /healthz 200: {healthy * 1000:.0f} ms"
                    )
                    healthz_during_rebuild(base, log, args.rebuild_seconds)
                finally:
                    stop(proc)
        finally:
            await client.aclose()
            redis.stop()


def before(tree: Path, url: str) -> str:
    """The lifespan's start of the tree at ``tree`` on this Redis, in a process of its own."""
    code = (
        "import asyncio, time\n"
        "from server.web.app import create_app\n"
        "from server.common.settings import Settings\n"
        "async def main():\n"
        f"    app = create_app(Settings(redis_url={url!r}))\n"
        "    t = time.perf_counter()\n"
        "    async with app.router.lifespan_context(app):\n"
        "        print(f'{(time.perf_counter() - t) * 1000:.0f} ms')\n"
        "asyncio.run(main())\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tree)}
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tree, capture_output=True, text=True
    )
    return run.stdout.strip() or run.stderr[-800:]


async def run_servers(args: argparse.Namespace, url: str, tmp: Path) -> None:
    serving, ready = await lifespan_seconds(url)
    print(
        f"start-up, lobby keys present: lifespan {serving * 1000:.0f} ms before serving;"
        f" the open and live games refreshed {ready * 1000:.0f} ms after"
    )
    port = free_port()
    started = time.perf_counter()
    proc = serve(url, port, tmp / "serve.log")
    try:
        base = f"http://127.0.0.1:{port}"
        healthy = until_healthy(base, proc, started)
        print(f"  splendor serve, process start to /healthz 200: {healthy * 1000:.0f} ms")
        print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores:")
        lists(base, args.requests)
    finally:
        stop(proc)


if __name__ == "__main__":
    asyncio.run(main())
