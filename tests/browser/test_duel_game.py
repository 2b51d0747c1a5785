"""A whole Splendor Duel through the web page: a person starts it from the lobby against
a server bot and plays it to the end by clicking (cells for tokens, a gold then a card
or a deck to reserve, cards to buy, the dialogs of pending choices), while a spectator
watches and never sees a reserved card."""

from __future__ import annotations

import random
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
from tests.browser.duel_pages import click_duel_action, duel_public_part, read_duel_table
from tests.browser.duel_strategy import choose_duel, duel_kind
from tests.browser.pages import Api, give_seat, seat_record, wait_for_turn, wait_version

SEED = 7
MAX_MOVES = 160  # the person's moves; Duel games against greedy take ~40
MUST_USE = {"take_tokens", "reserve_pyramid", "reserve_blind", "buy", "use_privileges", "replenish"}
SCREENSHOT_FROM = 12  # the first take of 2-3 tokens from this move on is photographed


# While the game runs: the reserves of the given seats as the page holds them
# (data-reserved) and any card face drawn among them; null once it is over.
SHOWN_RESERVES = """(seats) => {
  if (document.querySelector('#table').dataset.status !== 'live') return null;
  return seats.map((seat) => {
    const player = document.querySelector(`[data-player="${seat}"]`);
    return [JSON.parse(player.dataset.reserved), player.querySelectorAll('.reserved [data-card]').length];
  });
}"""


def _no_reserved_card_shown(page: Page, seats: list[int]) -> None:
    """While the game runs, the page shows the reserves of ``seats`` by their level only."""
    shown = page.evaluate(SHOWN_RESERVES, seats)
    for reserved, faces in shown or []:
        assert all(set(r) == {"level"} for r in reserved) and faces == 0, reserved


def _take_screenshots(
    ana: Page,
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    base: str,
    game_id: str,
    record: dict[str, Any],
    action: dict[str, Any],
    screenshots: Path,
) -> None:
    """The table on a desktop with a line of tokens picked, and on a phone."""
    for r, c in action["cells"]:
        ana.click(f'button.cell[data-row="{r}"][data-col="{c}"]')
    expect(ana.locator('[data-key="take"]')).to_be_enabled()
    ana.screenshot(path=str(screenshots / "duel-desktop.png"))
    ana.click('[data-key="cancel"]')
    phone = open_page(browser, contexts, console, "phone", PHONE)
    give_seat(phone, base, game_id, record["seat"], record["token"], record["name"])
    phone.goto(f"{base}/#/play/{game_id}")
    expect(phone.locator("#table")).to_have_attribute("data-status", "live")
    wait_version(phone, int(ana.locator("#table").get_attribute("data-version") or 0))
    expect(phone.locator("#connection")).to_have_attribute("data-state", "live")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.screenshot(path=str(screenshots / "duel-phone.png"))
    contexts.remove(phone.context)
    phone.context.close()


def test_a_duel_against_a_server_bot_played_by_clicking_while_a_spectator_watches(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    screenshots: Path,
) -> None:
    """A person starts a Duel against the greedy bot from the lobby and clicks it to the end (takes by cells, reserves with a gold cell, buys, privileges, replenish, pending choices); the spectator's table equals the public view and never shows a reserved card."""
    ana = open_page(browser, contexts, console, "ana", DESKTOP)
    cy = open_page(browser, contexts, console, "spectator", DESKTOP)
    frames = received_frames(cy)

    # The lobby: Splendor Duel is for two; the second seat is the greedy bot.
    ana.goto(f"{server.base}/?seed={SEED}#/")
    ana.fill("#player-name", "Ana")
    ana.select_option("#variant", "duel")
    expect(ana.locator('input[name="players"][value="3"]')).to_be_disabled()
    expect(ana.locator("#seat-2")).to_have_count(0)
    ana.select_option("#seat-1", "bot:greedy")
    ana.click("#start-game")
    ana.wait_for_url(re.compile(r"#/play/"))
    game_id = ana.url.rsplit("/", 1)[1]
    record = seat_record(ana, game_id)
    seat, token = record["seat"], record["token"]
    bot = 1 - seat
    expect(ana.locator("#table")).to_have_attribute("data-variant", "duel")
    cy.goto(f"{server.base}/#/watch/{game_id}")
    expect(cy.locator("#connection")).to_have_attribute("data-state", "live")

    rng = random.Random(SEED)
    used: set[str] = set()
    blind: dict[str, Any] = {}
    moves = 0
    photographed = False
    while moves < MAX_MOVES:
        public = wait_for_turn(api, game_id, seat)
        if public["status"] == "finished":
            break
        view = api.view(game_id, token)
        wait_version(ana, view["version"])
        me = next(p for p in view["players"] if p["seat"] == seat)
        action = choose_duel(view, used, rng)
        kind = duel_kind(action, {r["card"] for r in me["reserved"]})
        if blind and kind == "buy_reserve" and action["card"] == blind["card"]:
            blind["secret_frames"] = len(frames)  # bought: public from now on
        if (
            not photographed
            and moves >= SCREENSHOT_FROM
            and action["kind"] == "take_tokens"
            and len(action["cells"]) >= 2
        ):
            photographed = True
            _take_screenshots(
                ana, browser, contexts, console, server.base, game_id, record, action, screenshots
            )
        click_duel_action(ana, action, me)
        wait_version(ana, view["version"] + 1)
        used.add(kind)
        used.add(action["kind"])
        moves += 1
        if kind == "reserve_blind" and not blind:
            after = api.view(game_id, token)
            mine = next(p for p in after["players"] if p["seat"] == seat)
            known = {r["card"] for r in me["reserved"]}
            blind = {"card": next(r["card"] for r in mine["reserved"] if r["card"] not in known)}
        # Neither the spectator nor the person ever sees a reserve that isn't theirs.
        _no_reserved_card_shown(cy, [0, 1])
        _no_reserved_card_shown(ana, [bot])
        if moves in (10, 30):
            now = api.view(game_id)
            wait_version(cy, now["version"])
            assert read_duel_table(cy) == duel_public_part(now)

    final = api.view(game_id)
    assert final["status"] == "finished", f"no end after {moves} moves"
    assert photographed, "no take of 2-3 tokens to photograph"
    assert used >= MUST_USE, f"actions never clicked: {MUST_USE - used}"
    phases = {e["type"] for e in api.events(game_id)}

    # The end: the winner and how, on both pages; every reserve now face up.
    winner = final["players"][final["result"]["winners"][0]]
    reason = final["result"]["reason"]
    for page in (ana, cy):
        wait_version(page, final["version"])
        expect(page.locator("#result-banner")).to_contain_text(winner["name"])
        expect(page.locator("#result-banner")).to_contain_text(f"by {reason}")
    expect(ana.locator("#end-dialog")).to_be_visible()
    expect(ana.locator("#end-dialog .result-table")).to_have_attribute("data-reason", reason)
    assert read_duel_table(cy) == duel_public_part(final)

    # The log tells the game in sentences.
    log = ana.locator(".log-list").inner_text()
    for phrase in (
        "from the board.",
        "took a gold and reserved a level-",
        "from the deck",
        "bought a level-",
        "used 1 privilege to take",
        "replenished the board with",
        "The game ended:",
    ):
        assert phrase in log, f"no {phrase!r} in the log"
    if "RoyalTaken" in phases:
        assert "A royal card joined" in log

    # The spectator never received the blind card while it was secret.
    assert blind, "no blind reserve happened"
    secret = frames[: blind.get("secret_frames", len(frames))]
    ended = next((i for i, f in enumerate(secret) if '"GameEnded"' in f), len(secret))
    leaks = [f for f in secret[:ended] if f'"{blind["card"]}"' in f]
    assert not leaks, f"the spectator received the blind card {blind['card']}: {leaks[:1]}"
    assert console.unexpected() == []
