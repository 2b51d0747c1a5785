"""Quick pairing from the lobby: two pages press "Play 5+3" and land at one table; the wait's timer and Cancel; the pools' counts beside the buttons; the offers after the wait (a bot game in another tab, another clock, bots in a table of three)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import DESKTOP, PHONE, Console, ServerProcess, open_page


def test_two_pages_press_play_5_3_and_land_in_the_same_game(
    browser: Browser, contexts: list[BrowserContext], console: Console, server: ServerProcess
) -> None:
    """Ana (desktop, mouse) presses "Play 5+3" and sees her wait counted; Bo (phone,
    keyboard) does the same; both pages go to the same game's table, each at its own seat."""
    ana = open_page(browser, contexts, console, "ana")
    bo = open_page(browser, contexts, console, "bo", viewport=PHONE)
    ana.goto(f"{server.base}/#/")
    ana.fill("#player-name", "Ana")
    ana.click("#play-5-3")
    expect(ana.locator("#pairing-status")).to_contain_text(
        "Looking for an opponent for Splendor 5+3"
    )
    expect(ana.locator("#pairing-timer")).to_have_text(re.compile(r"^0:0[1-9]$"))
    expect(ana.locator("#play-5-3")).to_be_disabled()
    expect(ana.locator("#pairing-kind")).to_have_text(
        "Casual: guests and accounts, not rated. Log in to play rated."
    )

    bo.goto(f"{server.base}/#/")
    bo.fill("#player-name", "Bo")
    bo.focus("#play-5-3")
    bo.keyboard.press("Enter")
    expect(ana).to_have_url(re.compile(r"#/play/\w+$"), timeout=10_000)
    expect(bo).to_have_url(re.compile(r"#/play/\w+$"), timeout=10_000)
    assert ana.url.rsplit("/", 1)[1] == bo.url.rsplit("/", 1)[1]
    for page, name in ((ana, "Ana"), (bo, "Bo")):
        seat = page.evaluate(
            "id => JSON.parse(localStorage.getItem('splendor.seat.' + id))",
            page.url.rsplit("/", 1)[1],
        )
        assert seat["name"] == name and seat["token"]
        expect(page.locator("main")).to_contain_text("Bo")
        expect(page.locator("main")).to_contain_text("Ana")
    assert console.unexpected() == []


def test_cancel_leaves_the_pool(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    server: ServerProcess,
    redis_server: str,
) -> None:
    """Pressing Duel then "Play 3+2" shows the wait; Escape (or Cancel) brings the buttons back and the pool is empty."""
    page = open_page(browser, contexts, console, "cy", viewport=PHONE)
    page.goto(f"{server.base}/#/")
    page.fill("#player-name", "Cy")
    page.locator("#pairing-panel").get_by_text("Duel", exact=True).click()
    page.click("#play-3-2")
    expect(page.locator("#pairing-status")).to_contain_text("Duel 3+2")
    expect(page.locator("#pairing-cancel")).to_be_focused()
    expect(page.locator("#play-3-2")).to_have_attribute("aria-pressed", "true")
    client = redis.Redis.from_url(redis_server)
    try:
        queue = "pair:{duel-3+2-casual}:queue"
        expect(page.locator("#pairing-timer")).to_have_text(re.compile(r"^0:0[1-9]$"))
        assert client.zcard(queue) == 1
        page.keyboard.press("Escape")
        expect(page.locator("#pairing-status")).to_be_hidden()
        expect(page.locator("#play-3-2")).to_be_enabled()
        assert client.zcard(queue) == 0
    finally:
        client.close()
    assert console.unexpected() == []


def test_the_pools_counts_show_beside_the_buttons(
    browser: Browser, contexts: list[BrowserContext], console: Console, server: ServerProcess
) -> None:
    """Di waits for Splendor with 3 players, 10+5: another lobby picking that game sees "1 waiting" under "Play 10+5" and nothing under the other clocks; Di's cancel brings it back to none."""
    di = open_page(browser, contexts, console, "di", viewport=PHONE)
    di.goto(f"{server.base}/#/")
    di.fill("#player-name", "Di")
    di.locator("#pairing-panel").get_by_text("Splendor, 3 players", exact=True).click()
    di.click("#play-10-5")
    expect(di.locator("#pairing-status")).to_contain_text("Splendor, 3 players 10+5")

    eve = open_page(browser, contexts, console, "eve")
    eve.goto(f"{server.base}/#/")
    eve.locator("#pairing-panel").get_by_text("Splendor, 3 players", exact=True).click()
    expect(eve.locator("#pool-10-5")).to_have_text("1 waiting", timeout=10_000)
    expect(eve.locator("#pool-5-3")).to_have_text("")
    eve.locator("#pairing-panel").get_by_text("Duel", exact=True).click()
    expect(eve.locator("#pool-10-5")).to_have_text("")
    di.click("#pairing-cancel")
    expect(di.locator("#pairing-status")).to_be_hidden()
    eve.locator("#pairing-panel").get_by_text("Splendor, 3 players", exact=True).click()
    expect(eve.locator("#pool-10-5")).to_have_text("", timeout=10_000)
    assert console.unexpected() == []


@pytest.fixture
def quick_offers(redis_server: str, server_logs: Path) -> Iterator[ServerProcess]:
    """A server whose pairing offers come after 1 s rather than 20
    (SPLENDOR_PAIRING_OFFER_AFTER): the test need not wait 20 s."""
    process = ServerProcess(
        redis_server, server_logs, env={"SPLENDOR_PAIRING_OFFER_AFTER": "1"}
    ).start()
    try:
        yield process
    finally:
        process.stop()


def test_after_the_wait_a_bot_game_opens_in_a_new_tab_and_the_place_is_kept(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    quick_offers: ServerProcess,
    redis_server: str,
) -> None:
    """Alone in Duel 3+2 past the wait, Fay is offered a bot game, another clock and no bots (a pool of two); the bot game opens in a new tab at her seat against a bot while the lobby tab still waits (the pool holds her); when Gil presses "Play 3+2" the lobby tab goes to their game."""
    base = quick_offers.base
    fay = open_page(browser, contexts, console, "fay", viewport=DESKTOP)
    fay.goto(f"{base}/#/")
    fay.fill("#player-name", "Fay")
    fay.locator("#pairing-panel").get_by_text("Duel", exact=True).click()
    fay.click("#play-3-2")
    expect(fay.locator("#pairing-offer")).to_be_visible(timeout=10_000)
    expect(fay.locator("#offer-clock")).to_have_text(re.compile(r"^Try (5\+3|10\+5)"))
    expect(fay.locator("#offer-fill")).to_have_count(0)
    with fay.context.expect_page() as opened:
        fay.click("#offer-bot")
    tab = opened.value
    console.watch(tab, "fay-bot-tab")
    expect(tab).to_have_url(re.compile(r"#/play/\w+$"), timeout=10_000)
    bot_game = tab.url.rsplit("/", 1)[1]
    expect(tab.locator("main")).to_contain_text("Greedy")
    expect(fay.locator("#pairing-status")).to_be_visible()
    client = redis.Redis.from_url(redis_server)
    try:
        assert client.zcard("pair:{duel-3+2-casual}:queue") == 1
    finally:
        client.close()

    gil = open_page(browser, contexts, console, "gil")
    gil.goto(f"{base}/#/")
    gil.fill("#player-name", "Gil")
    gil.locator("#pairing-panel").get_by_text("Duel", exact=True).click()
    gil.click("#play-3-2")
    expect(fay).to_have_url(re.compile(r"#/play/\w+$"), timeout=10_000)
    expect(gil).to_have_url(re.compile(r"#/play/\w+$"), timeout=10_000)
    assert fay.url.rsplit("/", 1)[1] == gil.url.rsplit("/", 1)[1] != bot_game
    assert console.unexpected() == []


def test_after_the_wait_another_clock_and_bots_for_a_table_of_three(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    quick_offers: ServerProcess,
) -> None:
    """Two players wait for Splendor with 3 players past the wait: Hal takes the other clock offered and waits there (its status says it); Ivy and Hal, then both accepting bots for the empty seat, land in one game of three with a bot."""
    base = quick_offers.base
    pages = {}
    for name, clock in (("Hal", "5-3"), ("Ivy", "10-5")):
        page = open_page(browser, contexts, console, name.lower(), viewport=PHONE)
        page.goto(f"{base}/#/")
        page.fill("#player-name", name)
        page.locator("#pairing-panel").get_by_text("Splendor, 3 players", exact=True).click()
        page.click(f"#play-{clock}")
        pages[name] = page
    hal, ivy = pages["Hal"], pages["Ivy"]
    expect(hal.locator("#offer-clock")).to_be_visible(timeout=10_000)
    expect(hal.locator("#offer-clock")).to_have_text(
        re.compile(r"^Try 10\+5 \(1 waiting\)$"), timeout=10_000
    )
    hal.click("#offer-clock")
    expect(hal.locator("#pairing-status")).to_contain_text("Splendor, 3 players 10+5")
    expect(hal.locator("#offer-fill")).to_be_visible(timeout=10_000)
    hal.click("#offer-fill")
    expect(hal.locator("#offer-filling")).to_be_visible()
    expect(ivy.locator("#offer-fill")).to_be_visible()
    ivy.click("#offer-fill")
    expect(hal).to_have_url(re.compile(r"#/play/\w+$"), timeout=10_000)
    expect(ivy).to_have_url(re.compile(r"#/play/\w+$"), timeout=10_000)
    assert hal.url.rsplit("/", 1)[1] == ivy.url.rsplit("/", 1)[1]
    expect(hal.locator("main")).to_contain_text("Greedy")
    expect(hal.locator("main")).to_contain_text("Ivy")
    assert console.unexpected() == []
