"""A seat continued on another device: the seat's page offers a link with the token in
the address's fragment (never in a request line) and its QR code; the link seats a
second browser, which then plays as that seat."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, Request, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, click_action, give_seat, wait_version


def test_the_other_device_link_seats_a_second_browser_that_plays_the_seat(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    server: ServerProcess,
    api: Api,
) -> None:
    """The link (token after `#` only, with a warning and a QR code drawn by the server) opened in a second browser context seats it as the same player: its page says so, drops the token from the address, makes a move for that seat, and no request line of it carries the token."""
    game_id = api.new_game(seed=21)
    names = ["Ana", "Ben"]
    tokens = [api.join(game_id, name) for name in names]
    seat = api.view(game_id)["turn"]["seat"]
    first = open_page(browser, contexts, console, "first")
    give_seat(first, server.base, game_id, seat, tokens[seat], names[seat])
    first.goto(f"{server.base}/#/play/{game_id}")
    expect(first.locator("#connection")).to_have_attribute("data-state", "live")

    first.locator("#device-menu summary").click()
    panel = first.locator("#device-menu")
    expect(panel.locator(".device-warning")).to_contain_text("Anyone with this link")
    link = panel.locator('[data-share="device"]').input_value()
    before_fragment, _, fragment = link.partition("#")
    assert tokens[seat] in fragment and tokens[seat] not in before_fragment
    qr = panel.locator(".device-qr img")
    expect(qr).to_be_visible()
    assert qr.evaluate("img => img.complete && img.naturalWidth > 100")

    second = open_page(browser, contexts, console, "second")
    request_lines: list[str] = []

    def on_request(request: Request) -> None:
        request_lines.append(request.url)

    second.on("request", on_request)
    second.goto(link)
    second.wait_for_url(f"**/#/play/{game_id}")
    expect(second.locator("#connection")).to_have_attribute("data-state", "live")
    expect(second.locator(".who-am-i")).to_have_text(f"Playing as {names[seat]}")
    assert tokens[seat] not in second.url

    view = api.view(game_id, tokens[seat])
    take = next(a for a in view["legal"] if a["kind"] == "take_three")
    me = next(p for p in view["players"] if p["seat"] == seat)
    click_action(second, take, me)
    wait_version(second, view["version"] + 1)
    taken = [e for e in api.events(game_id) if e["type"] == "TokensTaken"]
    assert [(e["seat"], sorted(e["tokens"])) for e in taken] == [(seat, sorted(take["colors"]))]
    assert request_lines and not [url for url in request_lines if tokens[seat] in url]
    assert console.unexpected() == []
