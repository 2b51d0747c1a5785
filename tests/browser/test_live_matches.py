"""Live matches on the page (issue 12 item 5): time-control presets in the lobby,
clocks that run out, resign with a confirmation, presence, rematch."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api


def test_the_lobby_offers_time_controls_and_shows_them_in_every_row(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """The time control defaults to 5+3 with another person and untimed against bots only; the game is created with the chosen one and its row says it, a seeded game's row says seeded."""
    timed = api.new_game(clock={"initial": 600, "increment": 5})
    seeded = api.new_game(seed=4)
    page = open_page(browser, contexts, console, "lobby")
    page.goto(f"{server.base}/#/")
    expect(page.locator("#time-control")).to_have_value("5+3")
    page.select_option("#seat-1", "bot:greedy")
    expect(page.locator("#time-control")).to_have_value("none")
    page.select_option("#seat-1", "open")
    expect(page.locator("#time-control")).to_have_value("5+3")
    expect(page.locator(f'#open-games [data-game="{timed}"] .tag-clock')).to_have_text("10+5")
    seeded_row = page.locator(f'#open-games [data-game="{seeded}"]')
    expect(seeded_row.locator(".tag-clock")).to_have_text("untimed")
    expect(seeded_row.locator(".tag-seeded")).to_have_text("seeded")

    # A choice made by the player stays whatever the seats become.
    page.select_option("#time-control", "1d")
    page.select_option("#seat-1", "bot:random")
    expect(page.locator("#time-control")).to_have_value("1d")
    page.fill("#player-name", "Lea")
    page.click("#start-game")
    page.wait_for_url("**/#/play/*")
    game_id = page.url.rsplit("/", 1)[1]
    assert api.summary(game_id)["clock"] == {"initial": None, "increment": None, "per_move": 86400}
    assert console.unexpected() == []
