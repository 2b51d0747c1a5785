"""Finished games analysed by the bots' runners (server/workers/analyser.py) and served at
``GET /api/games/{id}/analysis``."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from bots.analysis import analyse, turn_starts
from server.common.settings import Settings
from server.games.archiver import archive_game
from server.games.lobby import Lobby
from server.games.service import GameService
from server.store.event_store import EventStore
from server.store.keys import analysis_key
from server.web.state import running
from server.workers.analyser import LEASE_MS, Analyser, AnalysisQueue
from tests.server.archive_helpers import Clock, play
from tests.server.ws_helpers import live_server

BUDGET = 4  # iterations a position: the figures don't matter here, only the plumbing


def _service(client: aioredis.Redis, clock: Clock) -> GameService:
    service = GameService(EventStore(client), Lobby(client), clock_ms=clock)
    service.hooks.analyses = AnalysisQueue(client)
    return service


async def _pure(service: GameService, game_id: str, iterations: int = BUDGET) -> dict[str, Any]:
    variant = await service.reader.variant_of(game_id)
    events = [entry.event for entry in await service.reader.log(game_id)]
    wire = analyse(variant.name, events, game_id, iterations).wire()
    as_json: dict[str, Any] = json.loads(json.dumps(wire))  # the actions' tuples as lists
    return as_json


def _check_chances(body: dict[str, Any], winners: list[int]) -> None:
    seats = body["seats"]
    for chances in zip(*seats, strict=True):
        assert all(0.0 <= c <= 1.0 for c in chances)
        assert sum(chances) == pytest.approx(1.0)
    for seat, line in enumerate(seats):
        assert line[-1] == (1.0 / len(winners) if seat in winners else 0.0)


async def test_a_finished_game_is_analysed_once_as_the_pure_analysis_has_it(
    redis_client: aioredis.Redis,
) -> None:
    """A game that finishes is noted; one analyser tick writes the analysis the pure
    function gives with the game's id as seed (reproducible), chances in [0, 1] summing
    to 1 and ending at 1 for the winner, kept alone in the game's hash; noted again, it
    is not searched again; the archive swap keeps it."""
    clock = Clock()
    service = _service(redis_client, clock)
    queue = AnalysisQueue(redis_client)
    game = await play(service, clock, "duel", 2, seed=7, timed=False)
    assert list(await queue.due()) == [game.id]
    analyser = Analyser(service, queue, iterations=BUDGET, clock_ms=clock)
    try:
        assert await analyser.tick()
        body = await queue.result(game.id)
        assert body is not None
        analysis = json.loads(body)
        assert analysis == await _pure(service, game.id)
        summary = await service.reader.summary(game.id)
        _check_chances(analysis, list(summary["result"]["winners"]))
        assert await queue.due() == {}
        assert await redis_client.hkeys(analysis_key(game.id)) == [b"done"]  # positions gone
        searched = analyser.positions
        await queue.add(game.id)
        assert await analyser.tick()
        assert analyser.positions == searched and await queue.due() == {}
        assert await archive_game(service, game.id)
        assert await redis_client.exists(analysis_key(game.id))
        assert await queue.result(game.id) == body
    finally:
        analyser.close()


async def test_a_runner_dying_mid_analysis_is_taken_over_when_its_lease_ends(
    redis_client: aioredis.Redis,
) -> None:
    """A runner that stops after two positions leaves the game leased; another runner
    leaves it alone until the lease ends, then searches only the positions left and
    writes the same analysis."""
    clock = Clock()
    service = _service(redis_client, clock)
    queue = AnalysisQueue(redis_client)
    game = await play(service, clock, "duel", 2, seed=8, timed=False)
    first = Analyser(service, queue, iterations=BUDGET, clock_ms=clock)
    second = Analyser(service, queue, iterations=BUDGET, clock_ms=clock)
    try:
        assert await first.tick(stop_after=2)
        assert first.positions == 2 and await queue.result(game.id) is None
        assert len(await queue.positions(game.id)) == 2
        assert not await second.tick()  # leased
        clock.now_ms += LEASE_MS + 1
        assert await second.tick()
        variant = await service.reader.variant_of(game.id)
        events = [entry.event for entry in await service.reader.log(game.id)]
        assert second.positions == len(turn_starts(variant.name, events)) - 2 > 0
        body = await queue.result(game.id)
        assert body is not None
        assert json.loads(body) == await _pure(service, game.id)
    finally:
        first.close()
        second.close()


async def test_no_position_is_searched_while_a_bot_of_the_runner_thinks(
    redis_client: aioredis.Redis,
) -> None:
    """Bots' moves first: while the runner says a bot thinks, the analyser holds the
    game it took and searches nothing; once no bot thinks, it goes on to the end."""
    clock = Clock()
    service = _service(redis_client, clock)
    queue = AnalysisQueue(redis_client)
    game = await play(service, clock, "duel", 2, seed=9, timed=False)
    thinking = True
    analyser = Analyser(service, queue, iterations=BUDGET, clock_ms=clock, busy=lambda: thinking)
    try:
        task = asyncio.create_task(analyser.tick())
        for _ in range(20):
            await asyncio.sleep(0.02)
        assert not task.done() and analyser.positions == 0
        assert await queue.positions(game.id) == {}
        thinking = False
        assert await task
        assert await queue.result(game.id) is not None
    finally:
        analyser.close()


async def _finished(http: httpx.AsyncClient, game_id: str) -> None:
    for _ in range(1800):
        if (await http.get(f"/api/games/{game_id}")).json()["status"] == "finished":
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{game_id} did not finish")


async def _bots_game(http: httpx.AsyncClient) -> str:
    game_id: str = (
        await http.post("/api/games", json={"variant": "duel", "players": 2, "seed": 3})
    ).json()["id"]
    for level in ("greedy", "random"):
        assert (await http.post(f"/api/games/{game_id}/seats", json={"bot": level})).is_success
    return game_id


async def test_the_analysis_route_is_pending_then_done_over_a_real_server(
    redis_client: aioredis.Redis, settings: Settings
) -> None:
    """Over a real server analysing every game (SPLENDOR_ANALYSIS=every): 404 for an
    unknown game, 409 for one not finished, pending (queued, nothing ahead) for a
    finished game not analysed yet, then done once a runner analysed it (the body:
    the pure analysis)."""
    quiet = settings.with_(bot_delay=0.0, analysis_budget=0, analysis="every")  # no analyser
    async with live_server(quiet) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        r = await http.get("/api/games/nosuchgame/analysis")
        assert r.status_code == 404
        waiting = (await http.post("/api/games", json={"variant": "duel", "players": 2})).json()
        r = await http.get(f"/api/games/{waiting['id']}/analysis")
        assert r.status_code == 409 and r.json()["code"] == "conflict"
        game_id = await _bots_game(http)
        await _finished(http, game_id)
        r = await http.get(f"/api/games/{game_id}/analysis")
        assert r.status_code == 200
        assert r.json() == {
            "status": "pending",
            "stage": "queued",
            "ahead": 0,
            "analysers": 0,
            "wait_s": None,
        }
        service: GameService = running(server.app).service
        analyser = Analyser(service, AnalysisQueue(redis_client), iterations=BUDGET)
        try:
            assert await analyser.tick()
        finally:
            analyser.close()
        r = await http.get(f"/api/games/{game_id}/analysis")
        assert r.status_code == 200
        body = r.json()
        assert body["status"] == "done" and body == await _pure(service, game_id)
        winners = (await http.get(f"/api/games/{game_id}")).json()["result"]["winners"]
        _check_chances(body, winners)


async def test_the_servers_bot_runner_analyses_the_games_that_finish(
    redis_client: aioredis.Redis, settings: Settings
) -> None:
    """A server with bots on, analysing every game, analyses a game its bots finished,
    with no one asking."""
    fast = settings.with_(bot_delay=0.0, analysis_budget=2, analysis="every")
    async with live_server(fast) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        game_id = await _bots_game(http)
        await _finished(http, game_id)
        for _ in range(1200):
            body = (await http.get(f"/api/games/{game_id}/analysis")).json()
            if body["status"] == "done":
                break
            await asyncio.sleep(0.1)
        assert body["status"] == "done"
        assert body == await _pure(running(server.app).service, game_id, 2)
