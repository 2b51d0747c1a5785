"""The waiting room of an open game: how long it has waited, and a seated player
filling open seats with bots from the page."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, give_seat


def open_room(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    server: ServerProcess,
    api: Api,
    players: int,
) -> tuple[str, Page, Page]:
    """An open game whose first seat Ana took: its id, Ana's page and a spectator's."""
    game_id = api.new_game(players=players, seed=players)
    token = api.join(game_id, "Ana")
    page = open_page(browser, contexts, console, "creator")
    give_seat(page, server.base, game_id, 0, token, "Ana")
    page.goto(f"{server.base}/#/play/{game_id}")
    spectator = open_page(browser, contexts, console, "spectator")
    spectator.goto(f"{server.base}/#/watch/{game_id}")
    return game_id, page, spectator


def test_a_seated_player_fills_the_open_seats_with_bots_and_the_game_starts(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    server: ServerProcess,
    api: Api,
) -> None:
    """The creator's page says how long the game has waited; "Fill a seat with a bot" seats the chosen bot in an open seat, and filling the last one starts the game; a spectator gets no such controls."""
    game_id, page, spectator = open_room(browser, contexts, console, server, api, 3)
    room = page.locator("#waiting-room")
    expect(room.locator("h2")).to_have_text("Waiting for 2 more players")
    expect(room.locator("#waited")).to_have_text(
        re.compile(r"^Open for \d+ seconds? · it expires in 30 min unless its seats are taken$")
    )
    expect(spectator.locator("#waiting-room h2")).to_have_text("Waiting for 2 more players")
    expect(spectator.locator("#fill-with-bot")).to_have_count(0)
    expect(spectator.locator("#cancel-game")).to_have_count(0)

    page.select_option("#bot-level", "random")
    page.click("#fill-with-bot")
    expect(room.locator("h2")).to_have_text("Waiting for 1 more player")
    page.select_option("#bot-level", "greedy")
    page.click("#fill-with-bot")
    expect(page.locator("#waiting-room")).to_have_count(0)
    summary = api.summary(game_id)
    assert summary["status"] == "live"
    assert [s["bot"] for s in summary["seats"]] == [None, "random", "greedy"]
    expect(spectator.locator("#waiting-room")).to_have_count(0)
    assert console.unexpected() == []


def test_the_creator_cancels_the_open_game_from_the_page(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    server: ServerProcess,
    api: Api,
) -> None:
    """ "Cancel the game", confirmed, aborts the open game (GameAborted, reason "abort"): the creator's and a spectator's pages say it was cancelled, the badge says Aborted, and the lobby no longer lists it as open."""
    game_id, page, spectator = open_room(browser, contexts, console, server, api, 2)
    expect(spectator.locator("#waiting-room h2")).to_have_text("Waiting for 1 more player")

    page.click("#cancel-game")
    expect(page.locator("#cancel-confirm")).to_be_visible()
    page.click("#cancel-yes")
    for watcher in (page, spectator):
        banner = watcher.locator("#aborted-banner")
        expect(banner.locator("h2")).to_have_text("Game cancelled")
        expect(banner).to_contain_text("Ana cancelled the game")
        expect(watcher.locator("#connection")).to_have_text("Aborted")
        expect(watcher.locator("#waiting-room")).to_have_count(0)
    assert api.summary(game_id)["status"] == "aborted"
    last = api.events(game_id)[-1]
    assert (last["type"], last["reason"], last["seat"]) == ("GameAborted", "abort", 0)

    page.goto(f"{server.base}/#/")
    expect(page.locator("#open-games")).to_be_visible()
    expect(page.locator(f'#open-games [data-game="{game_id}"]')).to_have_count(0)
    assert console.unexpected() == []
