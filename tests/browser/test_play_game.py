"""A whole game through the web page: two players start, join and play it to the end
by clicking, every kind of action used, while a spectator watches the same table and
never sees a blind-reserved card."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    Console,
    ServerProcess,
    open_page,
    received_frames,
)
from tests.browser.pages import (
    Api,
    click_action,
    public_part,
    read_table,
    seat_record,
    wait_version,
)
from tests.browser.strategy import choose, kind_of

# A seed whose game, with the scripted strategy, uses every action (including a
# choice between two nobles). tests/browser/strategy.py says how it plays.
SEED = 189
MAX_TURNS = 200
EVERY_ACTION = {
    "take_three",
    "take_two",
    "reserve_board",
    "reserve_blind",
    "buy_board",
    "buy_reserve",
    "return_tokens",
    "noble",
}


def _same_public_table(page: Page, api: Api, game_id: str) -> None:
    """The spectator's DOM shows exactly the spectator view of the server."""
    view = api.view(game_id)
    wait_version(page, view["version"])
    assert read_table(page) == public_part(view)


def test_two_players_play_a_whole_game_by_clicking_while_a_spectator_watches(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    screenshots: Path,
) -> None:
    """Two pages start, join and finish a seeded game by clicks only, using every action; a third page watches the same public table and never receives a blind-reserved card."""
    catalog = api.catalog()
    ana = open_page(browser, contexts, console, "ana", DESKTOP)
    ben = open_page(browser, contexts, console, "ben", PHONE)
    cy = open_page(browser, contexts, console, "spectator", DESKTOP)
    frames = received_frames(cy)

    # Ana starts a 2-player game from the lobby; the seed comes from the address.
    ana.goto(f"{server.base}/?seed={SEED}#/")
    ana.fill("#player-name", "Ana")
    expect(ana.locator("#seat-1")).to_have_value("open")
    # A game between people is timed by default: this one plays by clicks at its own pace.
    ana.select_option("#time-control", "none")
    ana.click("#start-game")
    ana.wait_for_url(re.compile(r"#/play/"))
    expect(ana.locator(".banner-open")).to_be_visible()
    join_url = ana.locator('[data-share="join"]').input_value()
    watch_url = ana.locator('[data-share="watch"]').input_value()
    game_id = join_url.rsplit("/", 1)[1]
    ana.click('[data-key="copy-join"]')
    expect(ana.locator(".banner-open .copy-status").first).to_have_text(
        re.compile(r"Copied|Ctrl\+C")
    )
    assert watch_url.endswith(f"#/watch/{game_id}")

    cy.goto(watch_url)
    expect(cy.locator("#connection")).to_have_attribute("data-state", "live")

    # Ben follows the join address on his phone.
    ben.goto(join_url)
    ben.fill("#join-name", "Ben")
    ben.click("#join-game")
    ben.wait_for_url(re.compile(r"#/play/"))
    pages = {0: ana, 1: ben}
    tokens = {
        seat_record(p, game_id)["seat"]: seat_record(p, game_id)["token"] for p in pages.values()
    }
    pages = {seat_record(p, game_id)["seat"]: p for p in pages.values()}
    assert sorted(tokens) == [0, 1]
    expect(ana.locator("#table")).to_have_attribute("data-status", "live")

    used: set[str] = set()
    blind: dict[str, Any] = {}  # the blind-reserved card and how many frames it stayed secret
    turns = 0
    while turns < MAX_TURNS:
        public = api.view(game_id)
        if public["status"] == "finished":
            break
        seat = public["turn"]["seat"]
        view = api.view(game_id, tokens[seat])
        page = pages[seat]
        wait_version(page, view["version"])
        me = next(p for p in view["players"] if p["seat"] == seat)
        action = choose(view, catalog, used)
        kind = kind_of(action, {r.get("card") for r in me["reserved"]})
        if blind and kind == "buy_reserve" and action["card"] == blind["card"]:
            blind["secret_frames"] = len(frames)  # bought: public from now on
        click_action(page, action, me)
        wait_version(page, view["version"] + 1)
        used.add(kind)
        turns += 1
        if kind == "reserve_blind" and not blind:
            after = api.view(game_id, tokens[seat])
            card = next(r["card"] for r in after["players"][seat]["reserved"] if r.get("card"))
            blind = {"card": card, "level": action["level"]}
            # The spectator sees it face down, by its level only.
            wait_version(cy, after["version"])
            hidden = cy.locator(f'[data-player="{seat}"] [data-hidden-level="{action["level"]}"]')
            expect(hidden).to_have_count(1)
            assert cy.locator(f'[data-card="{card}"]').count() == 0
        if turns in (12, 40):
            _same_public_table(cy, api, game_id)
        if turns == 24:
            wait_version(ana, api.view(game_id)["version"])
            wait_version(ben, api.view(game_id)["version"])
            ana.screenshot(path=str(screenshots / "table-desktop.png"))
            ben.screenshot(path=str(screenshots / "table-phone.png"))

    final = api.view(game_id)
    assert final["status"] == "finished", f"no end after {turns} turns"
    log_types = {e["type"] for e in api.http.get(f"/api/games/{game_id}/events").json()["events"]}
    if "NobleVisited" in log_types:
        used.add("noble")
    assert used >= EVERY_ACTION, f"actions never used: {EVERY_ACTION - used}"
    assert "choose_noble" in used, "the seeded game should offer a choice of nobles"

    # The end screen, on both players' pages and the spectator's.
    winners = [final["players"][s]["name"] for s in final["result"]["winners"]]
    for page in (ana, ben, cy):
        wait_version(page, final["version"])
        expect(page.locator("#result-banner")).to_contain_text(winners[0])
    expect(ana.locator("#end-dialog")).to_be_visible()
    expect(ana.locator("#end-dialog .result-table tbody tr")).to_have_count(2)
    _same_public_table(cy, api, game_id)
    # The log tells the game in sentences.
    log = ana.locator(".log-list").inner_text()
    for phrase in (
        "took 1 ",
        "took 2 ",
        "reserved a level-",
        "card from the deck",
        "bought a level-",
        "from their reserve",
        "to keep 10 tokens",
        "A noble visited",
        "The game ended:",
    ):
        assert phrase in log, f"no {phrase!r} in the log"

    # The spectator never received the blind card while it was secret.
    assert blind, "no blind reserve happened"
    secret = frames[: blind.get("secret_frames", len(frames))]
    ended = next((i for i, f in enumerate(secret) if '"GameEnded"' in f), len(secret))
    leaks = [f for f in secret[:ended] if f'"{blind["card"]}"' in f]
    assert not leaks, f"the spectator received the blind card {blind['card']}: {leaks[:1]}"
    assert any(json.loads(f).get("type") == "diff" for f in frames)

    # The lobby now lists the finished game for replay.
    ana.click("#end-dialog a[href='#/']")
    expect(ana.locator(f'#finished-games [data-game="{game_id}"]')).to_be_visible()
    assert console.unexpected() == []
