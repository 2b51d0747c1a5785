"""The end screen (docs/web.md "The end of a game"): the seats in rank order with
their clocks as the game left them, and no rating in a casual game."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api


def test_a_casual_games_end_lists_the_seats_by_rank_with_their_clocks_and_no_rating(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """A casual 3-player 5+3 game watched on a page: seat 1 resigns, then seat 0, so
    seat 2 wins: the end screen lists seats 2, 0, 1 (ranks 1, 2, 3: the last to go out
    ranks best among those out), each with its clock as the finished view gives it,
    and shows no rating anywhere."""
    game_id = api.new_game(players=3, clock={"initial": 300, "increment": 3})
    tokens = [api.join(game_id, name) for name in ("Ana", "Bo", "Cy")]
    page = open_page(browser, contexts, console, "end-screen")
    page.goto(f"{server.base}/#/watch/{game_id}")
    expect(page.locator("#table")).to_have_attribute("data-status", "live")
    api.command(game_id, tokens[1], {"kind": "resign"})
    api.command(game_id, tokens[0], {"kind": "resign"})
    final = api.view(game_id)
    assert final["status"] == "finished" and final["result"]["ranks"] == [2, 3, 1]
    rows = page.locator("#end-dialog .result-table tbody tr")
    expect(rows).to_have_count(3)
    for at, (seat, rank) in enumerate(((2, 1), (0, 2), (1, 3))):
        expect(rows.nth(at)).to_have_attribute("data-seat", str(seat))
        expect(rows.nth(at)).to_have_attribute("data-rank", str(rank))
        expect(rows.nth(at).locator(".col-rank")).to_have_text(f"{rank}.")
        clock = rows.nth(at).locator(".col-clock")
        expect(clock).to_have_attribute("data-clock", str(final["clock"]["remaining"][seat]))
    expect(page.locator("#end-dialog .col-rating")).to_have_count(0)
    expect(page.locator(".seat-rating, .rating-change")).to_have_count(0)
    ranks = page.locator("#result-banner .ranks li")
    expect(ranks).to_have_count(3)
    expect(ranks.nth(0)).to_have_attribute("data-seat", "2")
    assert console.unexpected() == []
