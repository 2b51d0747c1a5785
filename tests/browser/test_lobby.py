"""The lobby: open, live and finished games listed; joining by the list and by the
shared address; a bot seat; the seat kept across reloads."""

from __future__ import annotations

import re
from pathlib import Path

import redis
from playwright.sync_api import Browser, BrowserContext, expect

from server.store.embedded_redis import EmbeddedRedis
from server.store.keys import LOBBY_REBUILDING_KEY
from tests.browser.conftest import PHONE, Console, ServerProcess, open_page
from tests.browser.pages import Api, play_moves, seat_record


def test_lobby_lists_games_and_a_joined_seat_survives_a_reload(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    screenshots: Path,
) -> None:
    """Open games offer Join, live games show names and scores, finished games Replay; joining from the list seats the player, and a reload takes the seat back."""
    open_id = api.new_game(players=2)
    api.join(open_id, "Dora")
    live_id = api.new_game(seed=3)
    live_tokens = [api.join(live_id, "Eve"), api.join(live_id, "Finn")]
    live = play_moves(api, live_id, live_tokens, moves=30)
    done_id = api.new_game(seed=30)
    done = play_moves(api, done_id, [api.join(done_id, "Gil"), api.join(done_id, "Hal")])
    assert live["status"] == "live" and done["status"] == "finished"

    page = open_page(browser, contexts, console, "lobby")
    page.goto(f"{server.base}/#/")
    open_row = page.locator(f'#open-games [data-game="{open_id}"]')
    expect(open_row).to_contain_text("Dora")
    live_row = page.locator(f'#live-games [data-game="{live_id}"]')
    for p in live["players"]:
        expect(live_row.locator(f'[data-seat="{p["seat"]}"]')).to_contain_text(
            f"{p['name']} {p['points']}"
        )
    done_row = page.locator(f'#finished-games [data-game="{done_id}"]')
    winner = done["players"][done["result"]["winners"][0]]["name"]
    expect(done_row).to_contain_text(f"{winner} won")
    expect(done_row.locator('[data-key="replay"]')).to_have_attribute("href", f"#/replay/{done_id}")
    expect(live_row.locator('[data-key="watch"]')).to_have_attribute("href", f"#/watch/{live_id}")
    page.screenshot(path=str(screenshots / "lobby.png"))

    # Join the open game from the list: the game starts, the seat is remembered.
    open_row.locator('[data-key="join"]').click()
    page.wait_for_url(re.compile(r"#/join/"))
    page.fill("#join-name", "Gus")
    page.press("#join-name", "Enter")
    page.wait_for_url(re.compile(rf"#/play/{open_id}$"))
    expect(page.locator("#table")).to_have_attribute("data-status", "live")
    expect(page.locator('[data-player="1"]')).to_have_attribute("data-points", "0")
    assert seat_record(page, open_id)["seat"] == 1
    page.reload()
    expect(page.locator(".who-am-i")).to_have_text("Playing as Gus")
    expect(page.locator("#table")).to_have_attribute("data-you", "1")
    # The join address of a seated browser leads back to its seat.
    page.goto(f"{server.base}/#/join/{open_id}")
    page.wait_for_url(re.compile(rf"#/play/{open_id}$"))
    page.click(".brand")
    expect(page.locator(f'#my-games [data-game="{open_id}"] [data-key="resume"]')).to_be_visible()

    # A phone starts a 3-player game with a bot: two seats taken, one open for a friend.
    phone = browser.new_context(viewport=PHONE, reduced_motion="reduce")
    contexts.append(phone)
    small = console.watch(phone.new_page(), "phone")
    small.goto(f"{server.base}/#/")
    small.fill("#player-name", "Ivy")
    small.check('input[name="players"][value="3"]')
    small.select_option("#seat-1", "bot:greedy")
    expect(small.locator("#seat-2")).to_have_value("open")
    small.click("#start-game")
    small.wait_for_url(re.compile(r"#/play/"))
    expect(small.locator(".banner-open h2")).to_have_text("Waiting for 1 more player")
    game_id = small.url.rsplit("/", 1)[1]
    seats = api.http.get(f"/api/games/{game_id}").json()["seats"]
    assert (seats[0]["name"], seats[0]["bot"]) == ("Ivy", None)
    assert seats[1]["bot"] == "greedy"
    assert small.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert console.unexpected() == []


def test_the_lobby_says_when_the_server_is_rebuilding_its_lists(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    tmp_path: Path,
    server_logs: Path,
) -> None:
    """A server started with its lobby keys lost, while another process holds the rebuild, serves the page at once, and each list says it is being rebuilt."""
    store = EmbeddedRedis(tmp_path / "redis").start()
    try:
        with redis.Redis.from_url(store.url) as client:
            client.set(LOBBY_REBUILDING_KEY, "another process", px=60_000)
        server = ServerProcess(store.url, server_logs).start()
        try:
            page = open_page(browser, contexts, console, "lobby")
            page.goto(f"{server.base}/#/")
            for panel in ("#open-games", "#live-games", "#finished-games"):
                expect(page.locator(panel)).to_contain_text("rebuilding its lists of games")
        finally:
            server.stop()
    finally:
        store.stop()
