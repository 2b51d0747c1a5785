"""The page's router (client/web/js/app.js) and the pages' awaits: a page that was still
loading, or still asking the server, when the reader went elsewhere neither draws over
the page that came after it nor starts anything of its own."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api
from tests.browser.test_accounts import new_username, sign_up


def holding(held: list[Route]) -> Callable[[Route], None]:
    """A route handler that holds each request back, kept in ``held``."""

    def hold(route: Route) -> None:
        held.append(route)

    return hold


def settle(page: Page) -> None:
    """Let a left page's awaits after its held answer run (its catalog, its view)."""
    page.wait_for_load_state("networkidle")
    page.evaluate("() => new Promise((done) => setTimeout(done, 0))")


def leave_while_its_summary_is_held(page: Page, base: str, game_id: str, address: str) -> None:
    """Open ``address`` with its game's summary held back, go to the leaderboard while
    it loads, then let the summary through and the left page's awaits run."""
    held: list[Route] = []
    summary = re.compile(rf"/api/games/{game_id}(\?.*)?$")
    page.route(summary, holding(held), times=1)
    page.goto(f"{base}/{address}")
    expect(page.locator("#main .loading")).to_be_visible()
    page.evaluate("window.location.hash = '#/leaderboard/classic'")
    expect(page.locator("#main h1")).to_contain_text("Leaderboard")
    assert len(held) == 1
    with page.expect_response(summary):
        held[0].continue_()
    settle(page)


def test_a_table_still_loading_when_another_page_opens_never_draws_over_it(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    console: Console,
    api: Api,
) -> None:
    """A table whose summary is held back is left for the leaderboard before it loads; when the summary comes and the table's other fetches are done, the leaderboard is still what the page shows."""
    game_id = api.new_game()
    api.join(game_id, "Ana")
    page = open_page(browser, contexts, console, "reader")
    leave_while_its_summary_is_held(page, server.base, game_id, f"#/watch/{game_id}")
    expect(page.locator("#main h1")).to_contain_text("Leaderboard")
    expect(page.locator(".game-page")).to_have_count(0)
    assert console.unexpected() == []


def test_a_quick_pairing_asked_for_then_left_never_starts_a_wait(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """A logged-in player presses "Play 5+3" and leaves the lobby while the page still asks who is logged in: once the answer comes, no pairing socket is opened (no wait in a pool nobody sees, no game later)."""
    page = open_page(browser, contexts, console, "leaver")
    # Every socket the page opens, noted as it is made (Playwright's own event comes later).
    page.add_init_script(
        """const Made = window.WebSocket;
        window.madeSockets = [];
        window.WebSocket = class extends Made {
          constructor(url, protocols) { super(url, protocols); window.madeSockets.push(String(url)); }
        };"""
    )
    page.goto(f"{server.base}/#/")
    sign_up(page, new_username("Lv"))
    held: list[Route] = []
    page.route(re.compile(r"/api/me$"), lambda route: held.append(route))
    page.click("#play-5-3")
    page.wait_for_function("() => true")  # the click's handler has run up to its fetch
    assert len(held) == 1
    page.evaluate("window.location.hash = '#/tournaments'")
    expect(page.locator("#main h1")).to_contain_text("Tournaments")
    with page.expect_response(re.compile(r"/api/me$")):
        held[0].continue_()
    page.evaluate("() => new Promise((done) => setTimeout(done, 0))")  # its awaits ran
    made = page.evaluate("window.madeSockets")
    assert [url for url in made if "/ws/pairing" in url] == []
    expect(page.locator("#main h1")).to_contain_text("Tournaments")
    assert console.unexpected() == []


def test_pages_left_while_loading_send_the_reader_nowhere(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    console: Console,
    api: Api,
) -> None:
    """A table opened to play without a seat (which would send the reader to the join page) and a replay (which writes its step into the address), each left for the leaderboard while its summary is held back: once the summaries come, the address is still the leaderboard's."""
    game_id = api.new_game()
    api.join(game_id, "Ana")
    page = open_page(browser, contexts, console, "reader")
    for address in (f"#/play/{game_id}", f"#/replay/{game_id}"):
        leave_while_its_summary_is_held(page, server.base, game_id, address)
        assert page.url.endswith("#/leaderboard/classic"), (address, page.url)
    assert console.unexpected() == []


def test_a_table_whose_catalog_fails_to_load_says_so(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    console: Console,
    api: Api,
) -> None:
    """A table whose game words (the catalog) can't be fetched (the server answers 503) says the game can't be loaded, with a way back to the lobby, instead of "Loading the table…" for good."""
    game_id = api.new_game()
    api.join(game_id, "Ana")
    page = open_page(browser, contexts, console, "reader")
    page.route(
        re.compile(r"/api/catalog/classic$"),
        lambda route: route.fulfill(status=503, json={"code": "unavailable", "message": "Later."}),
    )
    page.goto(f"{server.base}/#/watch/{game_id}")
    expect(page.locator("#main h1")).to_have_text("The game can't be loaded")
    expect(page.locator("#main .loading")).to_have_count(0)
    assert console.unexpected(("503",)) == []
