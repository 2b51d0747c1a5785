"""The last move, shown: what a bot's move changed carries ``data-last-move`` on the
player's page, and so does what a replay step changed; the title says "Your move ·"."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import (
    Api,
    click_action,
    give_seat,
    wait_for_turn,
    wait_version,
)
from tests.browser.strategy import choose, kind_of
from tests.browser.test_duel_replay import bots_play_a_duel

SEED = 5
MAX_TURNS = 25

Event = dict[str, Any]

MARKED = "[data-last-move]"


def bots_move(events: list[Event], bot: int) -> list[Event]:
    """The events of the bot's latest move: those after the turn was handed to it."""
    start = max(
        (
            i
            for i, e in enumerate(events)
            if (e["type"] == "TurnEnded" and e["next_seat"] == bot) or e["type"] == "GameStarted"
        ),
        default=0,
    )
    return events[start + 1 :]


def marked(page: Page, selector: str) -> None:
    """The piece ``selector`` names is marked as changed by the last move."""
    expect(page.locator(f"{selector}{MARKED}").first).to_be_attached(timeout=2000)


def check_marks(page: Page, move: list[Event], catalog: dict[str, Any]) -> set[str]:
    """Each change of ``move`` (a bot's events) is marked on the page; returns what it did."""
    did: set[str] = set()
    for e in move:
        kind = e["type"]
        if kind == "TokensTaken":
            for colour in e["tokens"]:
                marked(page, f'[data-player="{e["seat"]}"] .gem-col-{colour} > .token')
                marked(page, f'[data-bank="{colour}"]')
            did.add("take")
        elif kind == "CardReserved":
            marked(page, f'[data-player="{e["seat"]}"] .reserved-item')
            did.add("reserve")
        elif kind == "CardBought":
            colour = catalog["cards"][e["card"]]["color"]
            marked(page, f'[data-player="{e["seat"]}"] .gem-col-{colour} > .bonus')
            did.add("buy")
        elif kind == "CardDealt":
            marked(page, f'.slot[data-level="{e["level"]}"][data-index="{e["slot"]}"]')
            did.add("deal")
    return did


def test_a_bots_move_is_marked_on_the_players_page_and_the_title_says_your_move(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    screenshots: Path,
) -> None:
    """After each move of a greedy bot the player's and a spectator's pages mark its tokens, the bank, the card it bought or reserved and the slot dealt, and nothing of the person's, without motion under reduced motion; the title starts with "Your move ·"; the sound, on by default, is turned off and remembered."""
    catalog = api.catalog()
    game_id = api.new_game(seed=SEED)
    token = api.join(game_id, "Ana")
    api.add_bot(game_id, "greedy")
    page = open_page(browser, contexts, console, "player")
    give_seat(page, server.base, game_id, 0, token, "Ana")
    page.goto(f"{server.base}/#/play/{game_id}")
    expect(page.locator("#sound-toggle")).to_have_attribute("aria-pressed", "true")
    page.click("#sound-toggle")
    expect(page.locator("#sound-toggle")).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("localStorage.getItem('splendor.sound')") == "off"
    spectator = open_page(browser, contexts, console, "spectator")
    spectator.goto(f"{server.base}/#/watch/{game_id}")

    seen: set[str] = set()
    used: set[str] = set()
    for _ in range(MAX_TURNS):
        public = wait_for_turn(api, game_id, 0)
        assert public["status"] == "live"
        wait_version(page, public["version"])
        expect(page).to_have_title(re.compile(r"^Your move · "))
        move = bots_move(api.events(game_id), 1)
        if move:
            seen |= check_marks(page, move, catalog)
            expect(page.locator(f'[data-player="0"] {MARKED}')).to_have_count(0)
            # Under prefers-reduced-motion the pieces are marked, never moved.
            assert page.evaluate("document.getAnimations().length") == 0
            wait_version(spectator, public["version"])
            check_marks(spectator, move, catalog)
        if {"take", "deal"} <= seen and seen & {"buy", "reserve"}:
            page.screenshot(path=str(screenshots / "last-move.png"))
            break
        view = api.view(game_id, token)
        action = choose(view, catalog, used)
        used.add(kind_of(action))
        click_action(page, action, view["players"][0])
        wait_version(page, view["version"] + 1)
    assert {"take", "deal"} <= seen and seen & {"buy", "reserve"}, seen
    assert console.unexpected() == []


def step_forward_to(page: Page, version: int) -> None:
    """Press the right arrow until the replay shows ``version`` or a later move."""
    for _ in range(20):
        if int(page.locator("#table").get_attribute("data-version") or 0) >= version:
            return
        page.keyboard.press("ArrowRight")
        time.sleep(0.05)
    wait_version(page, version)


def test_a_replay_step_marks_what_it_changed_in_both_games(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """Stepping forward in a replay marks the move's changes (the buyer's bonus, the slot dealt; a Duel's cells and the taker's tokens); stepping back marks nothing; ? lists the replay's keys."""
    catalog = api.catalog()
    game_id = api.new_game(seed=SEED)
    api.add_bot(game_id, "greedy")
    api.add_bot(game_id, "greedy")
    deadline = time.monotonic() + 60
    while api.summary(game_id)["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.2)
    events = api.events(game_id)
    buy = next(
        (i, e)
        for i, e in enumerate(events)
        if e["type"] == "CardBought" and not e.get("from_reserve")
    )
    dealt = next(e for e in events[buy[0] :] if e["type"] == "CardDealt")
    page = open_page(browser, contexts, console, "replay")
    page.goto(f"{server.base}/#/replay/{game_id}/{buy[1]['version'] - 1}")
    wait_version(page, buy[1]["version"] - 1)
    page.locator("#replay-caption").click()
    step_forward_to(page, buy[1]["version"])
    colour = catalog["cards"][buy[1]["card"]]["color"]
    slot = f'.slot[data-level="{dealt["level"]}"][data-index="{dealt["slot"]}"]'
    marked(page, f'[data-player="{buy[1]["seat"]}"] .gem-col-{colour} > .bonus')
    marked(page, slot)
    step_forward_to(page, dealt["version"])
    marked(page, slot)
    page.keyboard.press("ArrowLeft")
    expect(page.locator(MARKED)).to_have_count(0)
    # The replay's keys, listed with ?.
    page.keyboard.press("?")
    expect(page.locator("#help-dialog")).to_contain_text("one turn back / forward")
    page.keyboard.press("Escape")

    duel_id = bots_play_a_duel(api, seed=4)
    duel_events = api.events(duel_id)
    take = next(e for e in duel_events if e["type"] == "TokensTaken")
    page.goto(f"{server.base}/#/replay/{duel_id}/{take['version'] - 1}")
    wait_version(page, take["version"] - 1)
    page.locator("#replay-caption").click()
    step_forward_to(page, take["version"])
    for (row, col), kind in zip(take["cells"], take["tokens"], strict=True):
        marked(page, f'.cell[data-row="{row}"][data-col="{col}"]')
        marked(page, f'[data-player="{take["seat"]}"] .gem-col-{kind} > .token')
    assert console.unexpected() == []
