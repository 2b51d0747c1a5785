"""Analysis on request (``SPLENDOR_ANALYSIS``, docs/analysis.md): a finished game is
queued when someone asks (``POST /api/games/{id}/analysis``) or as a rated game
ends, first come first served, with its place and wait in the answer and the
queue's figures in the metrics."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import redis.asyncio as aioredis
from prometheus_client.parser import text_string_to_metric_families

from events.base import Resign
from server.common.settings import Settings
from server.games.lobby import Lobby
from server.games.service import GameService
from server.store.event_store import EventStore
from server.store.keys import ANALYSIS_RECENT_KEY
from server.web.app import create_app
from server.web.state import running
from server.workers.analyser import Analyser, AnalysisQueue
from tests.ratings.helpers import act, new_game, play_turns
from tests.server.archive_helpers import Clock, play

BUDGET = 2  # iterations a position: the plumbing, not the figures
TOKEN = "scrape-the-queue"


@asynccontextmanager
async def api(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, GameService]]:
    """The app (no sockets, no bots, so no analyser of its own) over ASGI, and its service."""
    app = create_app(settings, plugins=False)
    async with app.router.lifespan_context(app):
        service = running(app).service
        await service.listing.ready()
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://splendor.test") as http:
            yield http, service


def analyser(service: GameService, client: aioredis.Redis) -> Analyser:
    return Analyser(service, AnalysisQueue(client), iterations=BUDGET)


async def finished_games(service: GameService, count: int) -> list[str]:
    """``count`` classic games played to their end by greedy bots (untimed)."""
    clock = Clock()
    return [
        (await play(service, clock, "classic", 2, seed=40 + i, timed=False)).id
        for i in range(count)
    ]


async def test_in_request_mode_a_game_is_analysed_only_once_asked_for_and_once(
    redis_client: aioredis.Redis, settings: Settings
) -> None:
    """Request mode (the default): a finished game is not queued, and reading its
    analysis says not_requested and queues nothing; a POST queues it (202, queued,
    nothing ahead) and a repeat changes nothing (its place kept); an analyser then
    analyses it, and a POST afterwards answers the analysis without queuing it again."""
    assert settings.analysis == "request"
    async with api(settings) as (http, service):
        [game_id] = await finished_games(service, 1)
        queue = AnalysisQueue(redis_client)
        assert await queue.due() == {}
        for _ in range(2):
            r = await http.get(f"/api/games/{game_id}/analysis")
            assert r.status_code == 200 and r.json() == {"status": "not_requested"}
        assert await queue.due() == {}
        first = await http.post(f"/api/games/{game_id}/analysis")
        assert first.status_code == 202
        assert first.json() == {
            "status": "pending",
            "stage": "queued",
            "ahead": 0,
            "analysers": 0,
            "wait_s": None,
        }
        queued = await queue.due()
        assert list(queued) == [game_id]
        again = await http.post(f"/api/games/{game_id}/analysis")
        assert again.status_code == 202 and again.json() == first.json()
        assert await queue.due() == queued
        worker = analyser(service, redis_client)
        try:
            assert await worker.tick()
            assert not await worker.tick()
        finally:
            worker.close()
        done = await http.get(f"/api/games/{game_id}/analysis")
        assert done.status_code == 200 and done.json()["status"] == "done"
        after = await http.post(f"/api/games/{game_id}/analysis")
        assert after.status_code == 200 and after.json() == done.json()
        assert await queue.due() == {}
        r = await http.post("/api/games/nosuchgame/analysis")
        assert r.status_code == 404


async def test_the_queue_is_first_come_first_served_with_each_games_place_and_wait(
    redis_client: aioredis.Redis, settings: Settings
) -> None:
    """Three games asked for in turn: the third has two ahead; the analyser takes the
    first asked for; then the second has none ahead and the third one, each with a
    wait made of the measured analysis's duration and the analysers alive; a game
    part-analysed says how many of its positions are done."""
    async with api(settings) as (http, service):
        games = await finished_games(service, 3)
        for game_id in games:
            assert (await http.post(f"/api/games/{game_id}/analysis")).status_code == 202
        third = (await http.get(f"/api/games/{games[2]}/analysis")).json()
        assert (third["stage"], third["ahead"], third["wait_s"]) == ("queued", 2, None)
        worker = analyser(service, redis_client)
        try:
            assert await worker.tick()
            assert (await http.get(f"/api/games/{games[0]}/analysis")).json()["status"] == "done"
            [recent] = await redis_client.lrange(ANALYSIS_RECENT_KEY, 0, -1)
            mean = float(recent)
            states = [(await http.get(f"/api/games/{g}/analysis")).json() for g in games[1:]]
            assert [(s["stage"], s["ahead"], s["analysers"]) for s in states] == [
                ("queued", 0, 1),
                ("queued", 1, 1),
            ]
            assert [s["wait_s"] for s in states] == [math.ceil(mean * 1), math.ceil(mean * 2)]
            assert await worker.tick(stop_after=1)  # the second, one position searched
            running_state = (await http.get(f"/api/games/{games[1]}/analysis")).json()
            assert running_state["status"] == "pending" and running_state["stage"] == "running"
            assert running_state["positions"] == 1 and running_state["of"] > 1
            third = (await http.get(f"/api/games/{games[2]}/analysis")).json()
            assert third["ahead"] == 0  # the game being analysed is not ahead any more
        finally:
            worker.close()


async def test_rated_games_are_queued_as_they_end_in_rated_mode_only_them(
    redis_client: aioredis.Redis,
) -> None:
    """Rated mode queues a rated game of two accounts as it finishes (resigned after
    two turns each), not a casual one; request and off modes queue neither; every mode
    both."""
    modes = (
        ("rated", {"rated"}),
        ("request", set()),
        ("off", set()),
        ("every", {"rated", "casual"}),
    )
    for mode, expected in modes:
        await redis_client.flushdb()
        queue = AnalysisQueue(redis_client, mode)  # type: ignore[arg-type]
        service = GameService(EventStore(redis_client), Lobby(redis_client))
        service.hooks.analyses = queue
        rated = await new_game(service, "duel", ["Ada", "Bob"])
        await play_turns(service, rated)
        await act(service, rated, 1, Resign())
        assert (await service.reader.summary(rated))["status"] == "finished"
        casual = (await play(service, Clock(), "classic", 2, seed=5, timed=False)).id
        names = {rated: "rated", casual: "casual"}
        assert {names[g] for g in await queue.due()} == expected, mode


async def test_off_mode_refuses_requests_and_says_so(
    redis_client: aioredis.Redis, settings: Settings
) -> None:
    """SPLENDOR_ANALYSIS=off: a request is 409 analysis.off and queues nothing; a read
    says off."""
    async with api(settings.with_(analysis="off")) as (http, service):
        [game_id] = await finished_games(service, 1)
        r = await http.post(f"/api/games/{game_id}/analysis")
        assert r.status_code == 409 and r.json()["reason"]["key"] == "analysis.off"
        assert (await http.get(f"/api/games/{game_id}/analysis")).json() == {"status": "off"}
        assert await AnalysisQueue(redis_client).due() == {}


async def test_requests_are_rate_limited_per_address(
    redis_client: aioredis.Redis, settings: Settings
) -> None:
    """Past its burst of requests (2 here), an address gets 429 rate_limited.analyses,
    before the game is even looked at."""
    limited = settings.with_(analysis_request_rate=0.001, analysis_request_burst=2)
    async with api(limited) as (http, service):
        [game_id] = await finished_games(service, 1)
        codes = [(await http.post(f"/api/games/{game_id}/analysis")).status_code for _ in range(2)]
        assert codes == [202, 202]
        for path in (f"/api/games/{game_id}/analysis", "/api/games/nosuchgame/analysis"):
            r = await http.post(path)
            assert r.status_code == 429 and r.json()["reason"]["key"] == "rate_limited.analyses"


def samples(text: str) -> dict[str, float]:
    """Every sample of an exposition without labels but ``le``, by name."""
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            le = s.labels.get("le")
            found[s.name if le is None else f"{s.name}{{le={le}}}"] = s.value
    return found


async def test_the_queue_is_in_the_metrics(
    redis_client: aioredis.Redis, settings: Settings
) -> None:
    """/metrics shows the queue's length, the analysers alive, the analyses done, the
    waits (a histogram) and the recent analyses' mean duration, for every process."""
    async with api(settings.with_(metrics_token=TOKEN)) as (http, service):
        headers = {"Authorization": f"Bearer {TOKEN}"}
        games = await finished_games(service, 2)
        for game_id in games:
            await http.post(f"/api/games/{game_id}/analysis")
        before = samples((await http.get("/metrics", headers=headers)).text)
        assert before["splendor_analysis_queue"] == 2
        assert before["splendor_analyses_total"] == 0
        assert before["splendor_analysis_wait_seconds_count"] == 0
        worker = analyser(service, redis_client)
        try:
            assert await worker.tick()
        finally:
            worker.close()
        after = samples((await http.get("/metrics", headers=headers)).text)
        assert after["splendor_analysis_queue"] == 1
        assert after["splendor_analysers"] == 1
        assert after["splendor_analysis_running"] == 0
        assert after["splendor_analyses_total"] == 1
        assert after["splendor_analysis_wait_seconds_count"] == 1
        assert after["splendor_analysis_wait_seconds_bucket{le=+Inf}"] == 1
        assert after["splendor_analysis_recent_seconds"] > 0
