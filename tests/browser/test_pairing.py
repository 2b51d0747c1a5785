"""Quick pairing from the lobby: two pages press "Play 5+3" and land at one table; the wait's timer and Cancel."""

from __future__ import annotations

import re

import redis
from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import PHONE, Console, ServerProcess, open_page


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
        "Casual: guests play guests. Log in to play rated."
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
