"""Accounts in the page's top bar (docs/accounts.md): sign up, log out, log in (by
keyboard at phone size, a wrong password first); the lobby's "rated" toggle for a
logged-in player, and a guest sent to log in before taking a rated game's seat."""

from __future__ import annotations

import secrets

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import PHONE, Console, ServerProcess, open_page

PASSWORD = "a-long-enough-password"


def new_username(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(3)}"


def me_status(page: Page) -> int:
    """What GET /api/me answers the page now (its cookie, if any)."""
    status: int = page.evaluate("fetch('/api/me').then((r) => r.status)")
    return status


def sign_up(page: Page, username: str) -> None:
    page.click("#signup-open")
    expect(page.locator("#account-dialog")).to_be_visible()
    page.fill("#account-username", username)
    page.fill("#account-password", PASSWORD)
    page.click("#account-submit")
    expect(page.locator("#account-name")).to_have_text(username)


def test_sign_up_log_out_and_log_in_again_by_keyboard(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """Signing up logs the page in (the name in the top bar, the lobby's rated toggle shown, "You play as"); logging out ends the session; at phone size the keyboard alone logs in again, after a wrong password's message."""
    username = new_username("Ada")
    page = open_page(browser, contexts, console, "desktop")
    page.goto(f"{server.base}/#/")
    expect(page.locator("#login-open")).to_be_visible()
    expect(page.locator("#rated-field")).to_be_hidden()
    sign_up(page, username)
    expect(page.locator("#account-dialog")).to_be_hidden()
    expect(page.locator("#rated-field")).to_be_visible()
    expect(page.locator("#name-field")).to_be_hidden()
    expect(page.locator("#playing-as")).to_have_text(f"You play as {username}.")
    assert me_status(page) == 200
    page.click("#account-name")
    page.click("#logout")
    expect(page.locator("#login-open")).to_be_visible()
    expect(page.locator("#rated-field")).to_be_hidden()
    assert me_status(page) == 401

    phone = open_page(browser, contexts, console, "phone", PHONE)
    phone.goto(f"{server.base}/#/")
    expect(phone.locator("#login-open")).to_be_in_viewport()
    expect(phone.locator("#signup-open")).to_be_in_viewport()
    phone.focus("#login-open")
    phone.keyboard.press("Enter")
    expect(phone.locator("#account-username")).to_be_focused()
    phone.keyboard.type(username.lower())  # any case logs in
    phone.keyboard.press("Tab")
    phone.keyboard.type("not the password")
    phone.keyboard.press("Enter")
    expect(phone.locator("#account-error")).to_have_text("Wrong username or password.")
    phone.keyboard.type(PASSWORD)  # the wrong one is selected: typing replaces it
    phone.keyboard.press("Enter")
    expect(phone.locator("#account-name")).to_have_text(username)
    expect(phone.locator("#account-name")).to_be_in_viewport()
    phone.focus("#account-name")
    phone.keyboard.press("Enter")
    expect(phone.locator("#logout-everywhere")).to_be_visible()
    phone.keyboard.press("Escape")
    expect(phone.locator("#logout-everywhere")).to_be_hidden()
    assert console.unexpected(("401",)) == []


def test_a_rated_game_from_the_lobby_seats_accounts_only(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """A logged-in player starts a rated 5+3 game with an open seat; a guest following the join address is asked to log in, signs up there and takes the seat as the account: the game starts rated between the two accounts."""
    host, guest = new_username("Host"), new_username("Gus")
    page = open_page(browser, contexts, console, "host")
    page.goto(f"{server.base}/#/")
    sign_up(page, host)
    page.select_option("#seat-1", "open")
    page.select_option("#time-control", "none")
    page.check("#rated")
    page.click("#start-game")
    expect(page.locator("#new-game-error")).to_contain_text("needs a time control")
    page.select_option("#time-control", "5+3")
    page.click("#start-game")
    page.wait_for_url("**/#/play/*")
    game_id = page.url.rsplit("/", 1)[1]
    summary = page.evaluate(f"fetch('/api/games/{game_id}').then((r) => r.json())")
    assert summary["rated"] is True and summary["seats"][0]["account"] == host

    other = open_page(browser, contexts, console, "guest")
    other.goto(f"{server.base}/#/join/{game_id}")
    expect(other.locator("#join-rated")).to_contain_text("only players logged in")
    other.click("#join-login")
    other.click("#account-switch")
    other.fill("#account-username", guest)
    other.fill("#account-password", PASSWORD)
    other.click("#account-submit")
    expect(other.locator("#joining-as")).to_have_text(f"You join as {guest}.")
    other.click("#join-game")
    other.wait_for_url(f"**/#/play/{game_id}")
    summary = other.evaluate(f"fetch('/api/games/{game_id}').then((r) => r.json())")
    assert summary["status"] == "live" and summary["rated"] is True
    assert [s["account"] for s in summary["seats"]] == [host, guest]
    assert console.unexpected(("401",)) == []


def test_two_accounts_press_play_and_land_in_a_rated_game(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """Logged in, "Play 10+5" needs no name: two accounts are paired into one rated Duel whose seats are their accounts."""
    names = [new_username("Pa"), new_username("Pb")]
    pages = [open_page(browser, contexts, console, name) for name in names]
    for page, name in zip(pages, names, strict=True):
        page.goto(f"{server.base}/#/")
        sign_up(page, name)
        page.locator("#pairing-panel").get_by_text("Duel", exact=True).click()
        page.click("#play-10-5")
    for page in pages:
        page.wait_for_url("**/#/play/*", timeout=10_000)
    game_id = pages[0].url.rsplit("/", 1)[1]
    assert pages[1].url.rsplit("/", 1)[1] == game_id
    summary = pages[0].evaluate(f"fetch('/api/games/{game_id}').then((r) => r.json())")
    assert summary["rated"] is True and summary["variant"] == "duel"
    assert sorted(s["account"] for s in summary["seats"]) == sorted(names)
    assert console.unexpected() == []
