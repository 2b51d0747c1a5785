"""A refused action is told in words next to the actions, and the page goes on."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, BrowserContext, WebSocketRoute, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, click_action, give_seat, public_part, read_table, wait_version


def test_an_outdated_page_is_refused_in_words_then_catches_up_and_plays(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """A page that missed a move (its frames held back) sends a stale move: the refusal shows in words, the page resyncs and its next move is accepted."""
    game_id = api.new_game(seed=11)
    names = ["Ana", "Ben"]
    tokens = [api.join(game_id, name) for name in names]
    seat = api.view(game_id)["turn"]["seat"]
    other = 1 - seat

    held = {"on": False}

    def relay(ws: WebSocketRoute) -> None:
        server_side = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if not held["on"]:
                ws.send(message)

        server_side.on_message(to_page)

    page = open_page(browser, contexts, console, "player")
    page.route_web_socket(re.compile(r"/ws/games/"), relay)
    give_seat(page, server.base, game_id, seat, tokens[seat], names[seat])
    page.goto(f"{server.base}/#/play/{game_id}")
    start = api.view(game_id, tokens[seat])
    wait_version(page, start["version"])
    expect(page.locator("button[data-bank]:not([disabled])").first).to_be_visible()

    # The same seat moves from elsewhere (another tab, say); this page misses it.
    held["on"] = True
    api.command(game_id, tokens[seat], {"kind": "take_two", "color": "white"})
    page.wait_for_timeout(300)
    held["on"] = False
    assert read_table(page)["version"] == start["version"]  # outdated, still offering moves

    me = next(p for p in start["players"] if p["seat"] == seat)
    click_action(page, {"kind": "take_three", "colors": ["blue", "green", "red"]}, me)
    message = page.locator("#action-message")
    expect(message).to_have_class(re.compile(r"msg-error"))
    expect(message).not_to_be_empty()
    assert message.get_attribute("data-code") in ("conflict", "not_your_turn")
    text = message.inner_text()
    assert len(text.split()) >= 4, f"not a sentence: {text!r}"

    # The page catches up by itself and stays usable.
    now = api.view(game_id, tokens[seat])
    wait_version(page, now["version"])
    assert read_table(page) == public_part(now)
    # The other seat plays through the API alone: no socket of its own, so away.
    expect(page.locator("#prompt")).to_contain_text(f"Waiting for {names[other]}, who is away")
    expect(message).to_contain_text(text)  # the refusal stays readable

    api.command(
        game_id, tokens[other], {"kind": "take_three", "colors": ["white", "blue", "green"]}
    )
    mine = api.view(game_id, tokens[seat])
    wait_version(page, mine["version"])
    me = next(p for p in mine["players"] if p["seat"] == seat)
    click_action(page, {"kind": "take_three", "colors": ["blue", "green", "red"]}, me)
    wait_version(page, mine["version"] + 1)
    expect(message).to_be_empty()
    assert read_table(page) == public_part(api.view(game_id, tokens[seat]))
    assert console.unexpected() == []
