"""The page's router (client/web/js/app.js): a page that was still loading when the
reader went elsewhere never draws over the page that came after it."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, BrowserContext, Route, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api


def test_a_table_still_loading_when_another_page_opens_never_draws_over_it(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    console: Console,
    api: Api,
) -> None:
    """A table whose summary is held back is left for the leaderboard before it loads; when the summary comes and the table has drawn itself (its socket opened), the leaderboard is still what the page shows."""
    game_id = api.new_game()
    api.join(game_id, "Ana")
    page = open_page(browser, contexts, console, "reader")
    held: list[Route] = []
    summary = re.compile(rf"/api/games/{game_id}(\?.*)?$")
    page.route(summary, lambda route: held.append(route))
    page.goto(f"{server.base}/#/watch/{game_id}")
    expect(page.locator("#main .loading")).to_be_visible()
    page.evaluate("window.location.hash = '#/leaderboard/classic'")
    expect(page.locator("#main h1")).to_contain_text("Leaderboard")
    assert len(held) == 1
    with page.expect_websocket(lambda ws: game_id in ws.url):  # the stale table drew itself
        held[0].continue_()
    expect(page.locator("#main h1")).to_contain_text("Leaderboard")
    expect(page.locator(".game-page")).to_have_count(0)
    assert console.unexpected() == []
