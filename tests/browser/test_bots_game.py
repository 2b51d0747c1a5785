"""A classic 4-player game through the web page: a person and three server bots chosen
in the lobby; the person plays every turn by clicking, the bots by themselves."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import (
    Api,
    click_action,
    public_part,
    read_table,
    seat_record,
    wait_for_turn,
    wait_version,
)
from tests.browser.strategy import choose, kind_of

SEED = 12
MAX_MOVES = 120  # the person's moves; such games take ~30


def test_a_person_and_three_server_bots_play_a_classic_game_to_the_end(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """The lobby seats a person and three bots in a 4-player game; the person clicks every move, the bots answer on the server, and the page shows each position and the end as the server does."""
    catalog = api.catalog()
    page = open_page(browser, contexts, console, "person")
    page.goto(f"{server.base}/?seed={SEED}#/")
    page.fill("#player-name", "Ana")
    page.check('input[name="players"][value="4"]')
    for seat, level in ((1, "greedy"), (2, "random"), (3, "greedy")):
        page.select_option(f"#seat-{seat}", f"bot:{level}")
    page.click("#start-game")
    page.wait_for_url(re.compile(r"#/play/"))
    game_id = page.url.rsplit("/", 1)[1]
    record = seat_record(page, game_id)
    seat, token = record["seat"], record["token"]
    summary = api.summary(game_id)
    assert [s["bot"] for s in summary["seats"]] == [None, "greedy", "random", "greedy"]
    expect(page.locator("#table")).to_have_attribute("data-status", "live")
    expect(page.locator("[data-player]")).to_have_count(4)

    used: set[str] = set()
    moves = 0
    while moves < MAX_MOVES:
        public = wait_for_turn(api, game_id, seat)
        if public["status"] == "finished":
            break
        view = api.view(game_id, token)
        wait_version(page, view["version"])
        if moves % 10 == 0:
            # What the page shows is the seat's view, bots' moves included.
            assert read_table(page) == public_part(view)
        me = next(p for p in view["players"] if p["seat"] == seat)
        action = choose(view, catalog, used)
        click_action(page, action, me)
        wait_version(page, view["version"] + 1)
        used.add(kind_of(action))
        moves += 1

    final = api.view(game_id)
    assert final["status"] == "finished", f"no end after {moves} moves"
    wait_version(page, final["version"])
    assert read_table(page) == public_part(api.view(game_id, token))
    winners = [final["players"][s]["name"] for s in final["result"]["winners"]]
    expect(page.locator("#result-banner")).to_contain_text(winners[0])
    expect(page.locator("#end-dialog")).to_be_visible()
    expect(page.locator("#end-dialog .result-table tbody tr")).to_have_count(4)
    # Every bot moved: the log names each of them taking or buying.
    log = page.locator(".log-list").inner_text()
    for p in final["players"][1:]:
        # Two bots of one level share a name: the page adds their seat.
        who = rf"{re.escape(p['name'])}( \(seat {p['seat'] + 1}\))?"
        assert re.search(rf"{who} (took|bought|reserved)", log), p["name"]
    assert console.unexpected() == []
