"""axe-core (bundled by axe-playwright-python, no network) on the lobby, a table in play
and a replay of both games: no serious or critical violation."""

from __future__ import annotations

from typing import Any

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

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


def test_the_lobby_tables_and_replays_have_no_serious_accessibility_violation(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """axe-core finds no serious or critical violation in the lobby, a classic and a Duel table with a choice begun, their finished tables and their replays."""
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
        finished = bots_finish(api, variant, 2, seed=3, levels=["greedy", "random"])
        page.goto(f"{server.base}/#/watch/{finished}")
        expect(page.locator("#table")).to_have_attribute("data-status", "finished")
        found += serious_violations(page, f"{variant} finished table")
        page.goto(f"{server.base}/#/replay/{finished}")
        expect(page.locator(".move")).not_to_have_count(0)
        page.click("#replay-next-turn")
        found += serious_violations(page, f"{variant} replay")
    assert found == [], "\n".join(found)
    assert console.unexpected() == []
