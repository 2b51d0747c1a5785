"""Bots in timed games (RULES.md part 3, issue 12 item 6): a bot seat has no clock,
so it never loses on time however long it thinks, and it never resigns, aborts nor
claims a game."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest

from bots import choose
from events.base import LEAVE_KINDS
from server.common.settings import Settings
from server.games.timekeeper import Deadlines
from server.web.state import running
from tests.server.ws_helpers import live_server

BOT_THINKS_S = 1.5  # longer than a correspondence move of 1 s: a bot clock would run out


async def _view(http: httpx.AsyncClient, game_id: str, token: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = await http.get(f"/api/games/{game_id}/view", headers=headers)
    view: dict[str, Any] = r.json()["view"]
    return view


async def test_a_bot_thinking_longer_than_a_move_s_time_never_loses_on_time(
    settings: Settings,
) -> None:
    """A person against a greedy bot at 1 s a move, the bot to move first and thinking 1.5 s: its clock is null, no deadline is kept while it thinks, and its move is played (no TimeRanOut, no abort)."""
    settings = settings.with_(bot_delay=BOT_THINKS_S)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        deadlines = Deadlines(running(server.app).redis)
        for seed in range(1, 40):  # a seed where the bot (seat 1) moves first
            r = await http.post(
                "/api/games", json={"variant": "classic", "seed": seed, "clock": {"per_move": 1}}
            )
            game_id = r.json()["id"]
            await http.post(f"/api/games/{game_id}/seats", json={"name": "P"})
            await http.post(f"/api/games/{game_id}/seats", json={"bot": "greedy"})
            view = await _view(http, game_id)
            if view["turn"]["seat"] == 1 and view["version"] == 4:
                break
        else:
            pytest.fail("no seed lets the bot move first")
        assert view["clock"]["remaining"][1] is None and view["clock"]["running"] is None
        assert game_id not in await deadlines.all()
        loop = asyncio.get_running_loop()
        started = loop.time()
        while (await _view(http, game_id))["version"] == view["version"]:
            assert loop.time() - started < 20, "the bot never moved"
            await asyncio.sleep(0.05)
        assert loop.time() - started >= 1.0  # it thought longer than a person's move may last
        events = (await http.get(f"/api/games/{game_id}/events")).json()["events"]
        turn_end = next(e for e in events if e["type"] == "TurnEnded")
        assert turn_end["seat"] == 1
        before = events[: events.index(turn_end)]
        assert not {e["type"] for e in before} & {"TimeRanOut", "GameAborted", "Resigned"}


@pytest.mark.parametrize("variant", ["classic", "duel"])
@pytest.mark.parametrize("level", ["random", "greedy", "mcts"])
async def test_no_bot_level_chooses_to_leave(
    http: httpx.AsyncClient, variant: str, level: str
) -> None:
    """Given a seat's view whose legal lists abort (a first turn) beside the moves, put first, every bot level chooses one of the game's moves, never abort, resign nor a claim."""
    r = await http.post("/api/games", json={"variant": variant, "seed": 3})
    game_id = r.json()["id"]
    tokens = [
        (await http.post(f"/api/games/{game_id}/seats", json={"name": n})).json()["token"]
        for n in ("A", "B")
    ]
    seat = (await _view(http, game_id))["turn"]["seat"]
    view = await _view(http, game_id, tokens[seat])
    leave = [a for a in view["legal"] if a["kind"] in LEAVE_KINDS]
    assert leave == [{"kind": "abort"}]
    view["legal"] = leave + [a for a in view["legal"] if a["kind"] not in LEAVE_KINDS]
    for i in range(5):
        action = choose(level, view, random.Random(i), iterations=20)
        assert action["kind"] not in LEAVE_KINDS and action in view["legal"]
