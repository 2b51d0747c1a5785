"""The audience you can see: a player at the table is told who watches (the
signed-in spectators by name), and the lobby's live list counts the spectators."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, ViewportSize, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, give_seat
from tests.browser.test_accounts import new_username, sign_up

NARROW: ViewportSize = {"width": 360, "height": 740}


def test_a_player_sees_who_opens_the_game_to_watch(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    server: ServerProcess,
    api: Api,
) -> None:
    """Ana at her table (a 360 px phone) sees no audience line; a signed-in spectator and a guest open the game and her page says "2 watching: <name>…", within the screen's width; the lobby's live list says "2 watching" beside the game; the guest leaving makes it "1 watching: <name>"."""
    game_id = api.new_game(players=2, seed=5)
    ana_token = api.join(game_id, "Ana")
    api.join(game_id, "Bo")
    ana = open_page(browser, contexts, console, "ana", viewport=NARROW)
    give_seat(ana, server.base, game_id, 0, ana_token, "Ana")
    ana.goto(f"{server.base}/#/play/{game_id}")
    expect(ana.locator("#turn-line")).to_be_visible()
    expect(ana.locator("#table-audience")).to_be_hidden()

    watcher = open_page(browser, contexts, console, "watcher")
    watcher.goto(f"{server.base}/#/")
    name = new_username("Watch")
    sign_up(watcher, name)
    watcher.goto(f"{server.base}/#/watch/{game_id}")
    guest = open_page(browser, contexts, console, "guest")
    guest.goto(f"{server.base}/#/watch/{game_id}")
    expect(guest.locator("#table-audience")).to_have_text(f"2 watching: {name}…", timeout=10_000)
    expect(ana.locator("#table-audience")).to_have_text(f"2 watching: {name}…", timeout=10_000)
    box = ana.locator("#table-audience").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= NARROW["width"]

    lobby = open_page(browser, contexts, console, "lobby")
    lobby.goto(f"{server.base}/#/")
    row = lobby.locator(f"#live-games [data-game='{game_id}']")
    expect(row.locator(".game-watchers")).to_have_text("2 watching", timeout=10_000)

    guest.close()
    expect(ana.locator("#table-audience")).to_have_text(f"1 watching: {name}", timeout=10_000)
    assert console.unexpected() == []
