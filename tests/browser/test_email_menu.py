"""The account menu's e-mail address (docs/email.md): on a server with
SPLENDOR_SMTP_URL a player adds an address, follows the link the test's SMTP server
got, sees it verified and turns the e-mails off; on a server without it the menu
asks for no address."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import Console, ServerProcess, free_port, open_page
from tests.browser.test_accounts import sign_up
from tests.mail_helpers import Sink, smtp_server


@pytest.fixture
def mailing(redis_server: str, server_logs: Path) -> Iterator[tuple[ServerProcess, Sink]]:
    """A server process sending through the test's SMTP server, and that server."""
    with smtp_server() as (sink, url):
        port = free_port()
        env = {"SPLENDOR_SMTP_URL": url, "SPLENDOR_PUBLIC_URL": f"http://127.0.0.1:{port}"}
        process = ServerProcess(redis_server, server_logs, port, env=env).start()
        try:
            yield process, sink
        finally:
            process.stop()


def test_a_player_adds_and_verifies_an_address_in_the_account_menu(
    browser: Browser,
    contexts: list[BrowserContext],
    mailing: tuple[ServerProcess, Sink],
    console: Console,
) -> None:
    """The menu's E-mail dialog takes an address in a field dressed as the page's, says to check the inbox; the e-mailed link verifies it; the dialog then says Verified and turns the e-mails off with a check box beside its sentence."""
    server, sink = mailing
    username = f"Mel_{secrets.token_hex(3)}"
    address = f"{username.lower()}@example.org"
    page = open_page(browser, contexts, console, "desktop")
    page.goto(f"{server.base}/#/")
    sign_up(page, username)
    page.click("#account-name")
    page.click("#email-open")
    expect(page.locator("#email-dialog")).to_be_visible()
    expect(page.locator("#email-state")).to_have_text("No address yet.")
    # The address field is dressed as every other field of the page (dark, not the
    # browser's default white box).
    field = "e => getComputedStyle(e).backgroundColor"
    assert page.eval_on_selector("#email-address", field) == "rgb(15, 26, 34)"
    page.fill("#email-address", address)
    page.click("#email-save")
    expect(page.locator("#email-state")).to_contain_text("Check your inbox")
    expect(page.locator("#email-resend")).to_be_visible()
    for _ in range(400):  # the server's worker sends it within its poll
        if sink.to(address):
            break
        time.sleep(0.05)
    [mail] = sink.to(address)
    [link] = [link for link in mail.links() if "/mail/verify?" in link]
    page.goto(link)
    expect(page.locator("h1")).to_have_text("Your e-mail address is verified")
    page.goto(f"{server.base}/#/")
    page.click("#account-name")
    page.click("#email-open")
    expect(page.locator("#email-state")).to_have_text("Verified.")
    expect(page.locator("#email-resend")).to_be_hidden()
    expect(page.locator("#email-notify")).to_be_checked()
    # The check box sits beside its sentence, as a check box does.
    box = page.locator("#email-notify").bounding_box()
    words = page.locator('label[for="email-notify"]').bounding_box()
    assert box and words and box["width"] < 30, box
    assert abs((box["y"] + box["height"] / 2) - (words["y"] + words["height"] / 2)) < 6
    page.click("#email-notify")
    expect(page.locator("#email-notify")).not_to_be_checked()
    notify = page.evaluate("fetch('/api/me/email').then((r) => r.json()).then((b) => b.notify)")
    assert notify is False
    assert console.unexpected() == []


def test_without_smtp_the_menu_asks_for_no_address(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """On a server without SPLENDOR_SMTP_URL, a signed-in player's menu has no E-mail item, and no request fails."""
    page = open_page(browser, contexts, console, "desktop")
    page.goto(f"{server.base}/#/")
    sign_up(page, f"Nom_{secrets.token_hex(3)}")
    page.click("#account-name")
    expect(page.locator("#logout")).to_be_visible()
    expect(page.locator("#email-open")).to_be_hidden()
    assert console.unexpected() == []
