"""Ratings in the page (docs/ratings.md): two accounts play a rated game on two pages,
and both ratings change on the profile pages, on the leaderboard and in the lobby."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import PHONE, Console, ServerProcess, open_page
from tests.browser.pages import Api, click_action, seat_record
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_accounts import new_username, sign_up


def rating_on_profile(page: Page, base: str, username: str, games: int) -> int:
    """The classic rating the profile page shows once it counts ``games`` rated games."""
    page.goto(f"{base}/#/player/{username}")
    panel = page.locator('.rating-panel[data-variant="classic"]')
    expect(panel).to_contain_text(f"{games} rated game")
    return int(panel.locator(".rating").inner_text())


def test_a_rated_game_between_two_pages_moves_both_ratings(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """Two accounts sign up on two pages, play a rated 5+3 game (a first move each by
    clicking), and the host resigns: the winner's profile shows a higher rating than
    1500 and the loser's a lower one, each with a one-point graph and the game with its
    result and replay link; the leaderboard lists the winner above the loser with those
    ratings; the lobby shows them beside the names; the profile fits a phone; axe finds
    no serious violation on the profile and the leaderboard."""
    host_name, guest_name = new_username("Host"), new_username("Gus")
    host = open_page(browser, contexts, console, "host")
    host.goto(f"{server.base}/#/")
    sign_up(host, host_name)
    host.select_option("#seat-1", "open")
    host.select_option("#time-control", "5+3")
    host.check("#rated")
    host.click("#start-game")
    host.wait_for_url("**/#/play/*")
    game_id = host.url.rsplit("/", 1)[1]

    guest = open_page(browser, contexts, console, "guest")
    guest.goto(f"{server.base}/#/")
    sign_up(guest, guest_name)
    guest.goto(f"{server.base}/#/join/{game_id}")
    expect(guest.locator("#joining-as")).to_have_text(f"You join as {guest_name}.")
    guest.click("#join-game")
    guest.wait_for_url(f"**/#/play/{game_id}")
    pages = [host, guest]
    for page in pages:
        expect(page.locator("#table")).to_have_attribute("data-status", "live")

    # A first move each, clicked on the page whose turn it is (a take of three).
    tokens = [seat_record(page, game_id)["token"] for page in pages]
    for _ in pages:
        seat = api.view(game_id)["turn"]["seat"]
        view = api.view(game_id, tokens[seat])
        move = next(a for a in view["legal"] if a["kind"] == "take_three")
        version = view["version"]
        click_action(pages[seat], move, view["players"][seat])
        expect(pages[seat].locator("#table")).not_to_have_attribute("data-version", str(version))
    host.click("#resign-game")
    host.click("#resign-confirm")
    for page in pages:
        expect(page.locator("#result-banner h2")).to_contain_text("resign")

    winner = rating_on_profile(guest, server.base, guest_name, 1)
    loser = rating_on_profile(host, server.base, host_name, 1)
    assert winner > 1500 > loser
    expect(host.locator(".profile-name")).to_have_text(host_name)
    expect(host.locator("#record")).to_have_text("1 game finished, 0 wins: 0% won")
    expect(host.locator('.rating-panel[data-variant="classic"] .rating-dot')).to_have_count(1)
    row = host.locator(f'#player-games [data-game="{game_id}"]')
    expect(row.locator(".outcome")).to_have_text("Lost")
    expect(row).to_contain_text(f"against {guest_name}")
    expect(row.locator('[data-key="replay"]')).to_have_attribute("href", f"#/replay/{game_id}")
    found = serious_violations(host, "profile")

    host.goto(f"{server.base}/#/leaderboard/classic")
    expect(host.locator(f'#leaderboard tr[data-player="{host_name}"]')).to_be_visible()
    found += serious_violations(host, "leaderboard")
    names = host.locator("#leaderboard tbody tr td:nth-child(2) a").all_inner_texts()
    assert names.index(guest_name) < names.index(host_name)
    for name, rating in ((guest_name, winner), (host_name, loser)):
        expect(host.locator(f'#leaderboard tr[data-player="{name}"] .rating')).to_have_text(
            str(rating)
        )
    host.locator(f'#leaderboard tr[data-player="{guest_name}"] a').click()
    host.wait_for_url(re.compile(r"#/player/" + guest_name + "$"))
    expect(host.locator(".profile-name")).to_have_text(guest_name)

    host.goto(f"{server.base}/#/")
    listed = host.locator(f'#finished-games [data-game="{game_id}"]')
    expect(listed).to_contain_text(f"{guest_name} ({winner})")
    expect(listed).to_contain_text(f"{host_name} ({loser})")

    phone = open_page(browser, contexts, console, "phone", PHONE)
    rating_on_profile(phone, server.base, guest_name, 1)
    graph = phone.locator('.rating-panel[data-variant="classic"] svg.rating-graph')
    expect(graph).to_be_visible()
    box = graph.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    found += serious_violations(phone, "profile at phone size")
    assert found == []
    assert console.unexpected(("401",)) == []
