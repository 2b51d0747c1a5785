"""axe-core (bundled by axe-playwright-python, no network) on the lobby, a table in play
and a replay of both games, its analysis's mistakes marked: no serious or critical
violation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from bots.analysis import Estimate, assemble
from server.store.keys import analysis_key
from server.workers.analyser import done_value
from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, give_seat
from tests.browser.test_layout import bots_finish, seat_in_play

SERIOUS = ("serious", "critical")


def serious_violations(page: Page, where: str) -> list[str]:
    """axe's serious and critical violations on the page as it is, one line each."""
    response: dict[str, Any] = Axe().run(page).response
    return [
        f"{where}: {v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
        for v in response["violations"]
        if v["impact"] in SERIOUS
    ]


@pytest.fixture
def store(redis_server: str) -> Iterator[redis.Redis]:
    """A client of the browser server's Redis."""
    client = redis.Redis.from_url(redis_server)
    try:
        yield client
    finally:
        client.close()


def store_analysis(client: redis.Redis, game_id: str, body: dict[str, Any]) -> None:
    """Keep ``body`` as the game's done analysis, where and as the analyser keeps it."""
    client.hset(analysis_key(game_id), "done", done_value(body))


def analysis_with_mistakes(api: Api, game_id: str) -> dict[str, Any]:
    """A done analysis of a finished 2-player game in which the movers of its first two
    turns each lose chances (mistakes on turns 1 and 2), the chances otherwise even."""
    events = api.events(game_id)
    started = next(e for e in events if e["type"] == "GameStarted")
    ends = [e for e in events if e["type"] == "TurnEnded"][:2]
    opening = [e["version"] for e in events if e.get("reason") == "setup"][:1]
    starts = [max([started["version"], *opening]), *(e["version"] for e in ends)]
    movers = [started["first_seat"], *(e["next_seat"] for e in ends)]

    def chances(seat: int, chance: float) -> list[float]:
        return [chance if s == seat else 1 - chance for s in range(2)]

    estimates = [
        (starts[0], Estimate(chances(movers[0], 0.8), movers[0], None)),
        (starts[1], Estimate(chances(movers[0], 0.4), movers[1], None)),
        (starts[2], Estimate(chances(movers[1], 0.3), movers[2], None)),
    ]
    winners = api.summary(game_id)["result"]["winners"]
    analysis = assemble(2, events[-1]["version"], estimates, winners)
    assert [m["version"] for m in analysis.mistakes][:2] == starts[:2]
    return analysis.wire()


def test_the_lobby_tables_and_replays_have_no_serious_accessibility_violation(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    store: redis.Redis,
) -> None:
    """axe-core finds no serious or critical violation in the lobby, a classic and a Duel table with a choice begun, their finished tables and their replays with mistakes marked (on the current turn, on another, hovered)."""
    # A done analysis stored before the game ends is one the analyser never replaces
    # (it drops a game whose analysis is done), so the replay shows the one stored here.
    placeholder = {"status": "done", "seats": [], "best": {}, "mistakes": []}
    page = open_page(browser, contexts, console, "axe")
    found = []
    page.goto(f"{server.base}/#/")
    expect(page.locator("#start-game")).to_be_visible()
    found += serious_violations(page, "lobby")
    for variant, players in (("classic", 2), ("duel", 2)):
        game_id, token, _ = seat_in_play(api, variant, players, seed=5)
        give_seat(page, server.base, game_id, 0, token, "Ana")
        page.goto(f"{server.base}/#/play/{game_id}")
        expect(page.locator("#table")).to_have_attribute("data-status", "live")
        page.locator("button[data-bank]:enabled, button.cell:enabled").first.click()
        found += serious_violations(page, f"{variant} table")
        finished = bots_finish(
            api,
            variant,
            2,
            seed=3,
            levels=["greedy", "random"],
            before_bots=lambda new_id: store_analysis(store, new_id, placeholder),
        )
        store_analysis(store, finished, analysis_with_mistakes(api, finished))
        page.goto(f"{server.base}/#/watch/{finished}")
        expect(page.locator("#table")).to_have_attribute("data-status", "finished")
        found += serious_violations(page, f"{variant} finished table")
        page.goto(f"{server.base}/#/replay/{finished}")
        expect(page.locator(".move")).not_to_have_count(0)
        page.click("#replay-next-turn")
        expect(page.locator('li.current[data-turn="1"] .move-mistake')).to_be_visible()
        expect(page.locator('li[data-turn="2"] .move-mistake')).to_be_visible()
        found += serious_violations(page, f"{variant} replay")
        page.hover('li[data-turn="2"] .move-mistake')
        found += serious_violations(page, f"{variant} replay, a mistake hovered")
    assert found == [], "\n".join(found)
    assert console.unexpected() == []
