"""Ratings in the page (docs/ratings.md): two accounts play a rated game on two pages,
and both ratings change on the profile pages, on the leaderboard and in the lobby."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor

import redis.asyncio as aioredis
from playwright.sync_api import Browser, BrowserContext, Page, expect

from events.base import Resign
from server.games.lobby import Lobby
from server.games.service import GameService
from server.players.profiles import Profiles
from server.store.event_store import EventStore
from tests.browser.conftest import PHONE, Console, ServerProcess, open_page
from tests.browser.pages import Api, click_action, seat_record
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_accounts import new_username, sign_up
from tests.ratings.helpers import act, counted_game, new_game

LISTED_WORDS = "A player is listed after 10 rated games against 5 different opponents."


def play_elsewhere(redis_url: str, counted: list[tuple[str, str]], early: tuple[str, str]) -> None:
    """Rated classic games played by a second server process on the same Redis (this
    test's own game service): each of ``counted`` played two turns a seat and won by
    its first player; ``early`` resigned by its first player before any move."""

    async def run() -> None:
        client = aioredis.from_url(redis_url)
        try:
            service = GameService(EventStore(client), Lobby(client))
            service.hooks.on_finished = Profiles(client).game_finished
            for winner, loser in counted:
                await counted_game(service, "classic", [winner, loser])
            game_id = await new_game(service, "classic", list(early))
            await act(service, game_id, 0, Resign())
        finally:
            await client.aclose()

    with ThreadPoolExecutor(1) as pool:  # the page's own event loop runs in this thread
        pool.submit(asyncio.run, run()).result()


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
    """Two accounts sign up on two pages and each wins 9 counted rated games against
    the same 4 others (played by another process); the host also resigns one before
    any move: the host's profile shows 9 rated games, provisional, the resigned game
    as not counted, and the leaderboard does not list the host. They play a rated 5+3
    game (two moves each by clicking), and the host resigns: the winner's profile
    shows a higher rating than before and the loser's a lower one, each with a
    ten-point graph, the game with its result and replay link, no longer provisional;
    the leaderboard lists the winner above the loser with those ratings; the lobby
    shows them beside the names; the profile fits a phone; axe finds no serious
    violation on the profile and the leaderboard."""
    host_name, guest_name = new_username("Host"), new_username("Gus")
    host = open_page(browser, contexts, console, "host")
    host.goto(f"{server.base}/#/")
    sign_up(host, host_name)
    rivals = [new_username("Riv") for _ in range(4)]
    opponents = [*rivals, *rivals, rivals[0]]
    counted = [(player, rival) for player in (host_name, guest_name) for rival in opponents]
    play_elsewhere(server.redis_url, counted, (host_name, rivals[1]))
    host_before = rating_on_profile(host, server.base, host_name, 9)
    panel = host.locator('.rating-panel[data-variant="classic"]')
    expect(panel).to_have_attribute("data-provisional", "true")
    expect(panel.locator(".provisional-note")).to_contain_text("so far 9 games against 4 opponents")
    expect(host.locator("#record")).to_have_text("10 games finished, 9 wins: 90% won")
    early = host.locator('#player-games .not-counted[data-reason="early_end"]')
    expect(early).to_have_count(1)
    expect(early).to_have_text(
        "Did not count for ratings: it ended before every player had made two moves."
    )
    found = serious_violations(host, "provisional profile")
    host.goto(f"{server.base}/#/leaderboard/classic")
    expect(host.locator(".leaderboard-body")).to_contain_text(LISTED_WORDS)
    expect(host.locator(f'tr[data-player="{host_name}"]')).to_have_count(0)
    host.goto(f"{server.base}/#/")
    host.select_option("#seat-1", "open")
    host.select_option("#time-control", "5+3")
    host.check("#rated")
    host.click("#start-game")
    host.wait_for_url("**/#/play/*")
    game_id = host.url.rsplit("/", 1)[1]

    guest = open_page(browser, contexts, console, "guest")
    guest.goto(f"{server.base}/#/")
    sign_up(guest, guest_name)
    guest_before = rating_on_profile(guest, server.base, guest_name, 9)
    guest.goto(f"{server.base}/#/join/{game_id}")
    expect(guest.locator("#joining-as")).to_have_text(f"You join as {guest_name}.")
    guest.click("#join-game")
    guest.wait_for_url(f"**/#/play/{game_id}")
    pages = [host, guest]
    for page in pages:
        expect(page.locator("#table")).to_have_attribute("data-status", "live")

    # Two moves each, clicked on the page whose turn it is (a take of three): a rated
    # game moves ratings only once every seat has completed two turns.
    tokens = [seat_record(page, game_id)["token"] for page in pages]
    for _ in range(2 * len(pages)):
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

    winner = rating_on_profile(guest, server.base, guest_name, 10)
    loser = rating_on_profile(host, server.base, host_name, 10)
    assert winner > guest_before and loser < host_before
    expect(host.locator(".profile-name")).to_have_text(host_name)
    expect(host.locator("#record")).to_have_text("11 games finished, 9 wins: 82% won")
    expect(host.locator('.rating-panel[data-variant="classic"] .rating-dot')).to_have_count(10)
    expect(panel).to_have_attribute("data-provisional", "false")
    expect(panel.locator(".provisional-note")).to_have_count(0)
    row = host.locator(f'#player-games [data-game="{game_id}"]')
    expect(row.locator(".outcome")).to_have_text("Lost")
    expect(row).to_contain_text(f"against {guest_name}")
    expect(row.locator(".not-counted")).to_have_count(0)
    expect(row.locator('[data-key="replay"]')).to_have_attribute("href", f"#/replay/{game_id}")
    found += serious_violations(host, "profile")

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
    # A counted game's names carry the rating after it and its change.
    expect(listed).to_contain_text(
        f"{guest_name} ({winner}, {change_words(winner - guest_before)})"
    )
    expect(listed).to_contain_text(f"{host_name} ({loser}, {change_words(loser - host_before)})")

    phone = open_page(browser, contexts, console, "phone", PHONE)
    rating_on_profile(phone, server.base, guest_name, 10)
    graph = phone.locator('.rating-panel[data-variant="classic"] svg.rating-graph')
    expect(graph).to_be_visible()
    box = graph.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    found += serious_violations(phone, "profile at phone size")
    assert found == []
    assert console.unexpected(("401",)) == []


def change_words(delta: int) -> str:
    """A change as the page writes it: "+12", or a real minus sign (U+2212) and 8."""
    return f"+{delta}" if delta > 0 else f"\u2212{-delta}" if delta < 0 else "0"


def test_the_table_and_the_end_screen_show_ratings_changes_ranks_and_clocks(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """Two new accounts play a rated 5+3 classic game on two pages: each name at the
    table has "1500?" beside it (provisional); after two moves each the seat to move
    resigns: both end screens list the winner first and the resigner second, each
    with its change ("+N", or N after a real minus sign; the profile history's), and
    each seat's clock as the finished view gives it; the banner's ranks, the lobby's
    results and both profiles show the same changes; the end screen fits 360 px."""
    host_name, guest_name = new_username("Hal"), new_username("Gil")
    host = open_page(browser, contexts, console, "end-host")
    host.goto(f"{server.base}/#/")
    sign_up(host, host_name)
    host.select_option("#seat-1", "open")
    host.select_option("#time-control", "5+3")
    host.check("#rated")
    host.click("#start-game")
    host.wait_for_url("**/#/play/*")
    game_id = host.url.rsplit("/", 1)[1]
    guest = open_page(browser, contexts, console, "end-guest")
    guest.goto(f"{server.base}/#/")
    sign_up(guest, guest_name)
    guest.goto(f"{server.base}/#/join/{game_id}")
    guest.click("#join-game")
    guest.wait_for_url(f"**/#/play/{game_id}")
    pages = [host, guest]
    for page in pages:
        expect(page.locator("#table")).to_have_attribute("data-status", "live")
        for seat in (0, 1):
            rating = page.locator(f'[data-player="{seat}"] .player-head .seat-rating')
            expect(rating).to_have_text("1500?")
            expect(rating).to_have_attribute("data-provisional", "true")

    tokens = [seat_record(page, game_id)["token"] for page in pages]
    for _ in range(2 * len(pages)):
        seat = api.view(game_id)["turn"]["seat"]
        view = api.view(game_id, tokens[seat])
        move = next(a for a in view["legal"] if a["kind"] == "take_three")
        version = view["version"]
        click_action(pages[seat], move, view["players"][seat])
        expect(pages[seat].locator("#table")).not_to_have_attribute("data-version", str(version))
    resigner = api.view(game_id)["turn"]["seat"]
    winner = 1 - resigner
    pages[resigner].click("#resign-game")
    pages[resigner].click("#resign-confirm")
    names = [host_name, guest_name]
    deltas = {}
    for seat, name in enumerate(names):
        profile = api.http.get(f"/api/players/{name.lower()}").json()
        deltas[seat] = profile["history"]["classic"][-1]["delta"]
    assert deltas[winner] > 0 > deltas[resigner]
    finished = api.view(game_id)
    assert finished["status"] == "finished"
    remaining = finished["clock"]["remaining"]
    for page in pages:
        rows = page.locator("#end-dialog .result-table tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_have_attribute("data-seat", str(winner))
        expect(rows.nth(0)).to_have_attribute("data-rank", "1")
        expect(rows.nth(1)).to_have_attribute("data-seat", str(resigner))
        expect(rows.nth(1)).to_have_attribute("data-rank", "2")
        for row, seat in ((rows.nth(0), winner), (rows.nth(1), resigner)):
            expect(row.locator(".rating-change")).to_have_text(change_words(deltas[seat]))
            expect(row.locator(".col-clock")).to_have_attribute("data-clock", str(remaining[seat]))
        banner = page.locator(f'#result-banner .ranks li[data-seat="{resigner}"] .rating-change')
        expect(banner).to_have_text(change_words(deltas[resigner]))
    host.set_viewport_size({"width": 360, "height": 740})
    expect(host.locator("#end-dialog")).to_be_visible()
    box = host.locator("#end-dialog").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
    assert host.evaluate("document.documentElement.scrollWidth") <= 360
    table = host.locator("#end-dialog .result-table").bounding_box()
    assert table is not None and table["x"] + table["width"] <= 360

    host.goto(f"{server.base}/#/")
    result = host.locator(f'#finished-games [data-game="{game_id}"]')
    for seat in (0, 1):
        expect(result).to_contain_text(change_words(deltas[seat]))
    for seat, name in enumerate(names):
        host.goto(f"{server.base}/#/player/{name}")
        change = host.locator(f'#player-games [data-game="{game_id}"] .rating-change')
        expect(change).to_have_text(change_words(deltas[seat]))
    assert console.unexpected(("401",)) == []
