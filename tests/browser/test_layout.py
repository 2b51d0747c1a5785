"""The table's layout at every width from a phone to a wide screen, and its words: one
live table (a seat of the test's, choosing) and one finished table per game, each
loaded once and only resized."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import Console, ServerProcess
from tests.browser.pages import Api, give_seat, wait_for_turn

WIDTHS = (360, 390, 768, 1280, 1366, 1920)
HEIGHTS = {360: 740, 390: 844, 768: 1024}  # phones and tablets upright; else 800
HUMAN_MOVES = 6  # the seat's moves before the table is looked at: a few cards bought or reserved


@dataclass
class Tables:
    """One game's live page (the test's seat, choosing) and finished page."""

    variant: str
    live: Page
    finished: Page
    live_id: str
    finished_id: str
    more_ends: list[Page]  # other finished tables looked at (classic: 4 players)
    rounds: int  # the round the live seat is in


def bots_finish(
    api: Api,
    variant: str,
    players: int,
    seed: int,
    levels: list[str],
    before_bots: Callable[[str], object] | None = None,
) -> str:
    """A seeded game between server bots, played to its end (``before_bots`` given its
    id once it is created, before any bot sits); returns its id."""
    game_id = api.new_game(players=players, seed=seed, variant=variant)
    if before_bots is not None:
        before_bots(game_id)
    for level in levels:
        api.add_bot(game_id, level)
    deadline = time.monotonic() + 90
    while api.summary(game_id)["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.2)
    return game_id


def seat_in_play(api: Api, variant: str, players: int, seed: int) -> tuple[str, str, int]:
    """A game with the test's seat (0) and server bots, the seat having made a few moves
    (two reserves, then its first listed action) and now to move in the main phase; returns the
    id, the seat's token and the seat's round (its turns begun, an extra turn not
    counted, read from the events)."""
    game_id = api.new_game(players=players, seed=seed, variant=variant)
    token = api.join(game_id, "Ana")
    for _ in range(players - 1):
        api.add_bot(game_id, "greedy")
    for moves in range(200):
        wait_for_turn(api, game_id, 0)
        mine = api.view(game_id, token)
        assert mine["status"] == "live"
        if moves >= HUMAN_MOVES and mine["turn"]["phase"] == "main":
            events = api.events(game_id)
            begun = [e for e in events if e["type"] == "TurnEnded" and e["next_seat"] == 0]
            first = next(e["first_seat"] for e in events if e["type"] == "GameStarted")
            rounds = (first == 0) + sum(e["seat"] != 0 for e in begun)
            return game_id, token, rounds
        legal = mine["legal"]
        # Two cards reserved from the board first (the phone's bar shows them), then the
        # first listed action.
        reserves = [a for a in legal if a["kind"] == "reserve" and "card" in a]
        held = len(mine["players"][0]["reserved"])
        api.command(game_id, token, reserves[0] if reserves and held < 2 else legal[0])
    raise AssertionError("the seat never came back to a main phase")


@pytest.fixture(scope="module", params=["classic", "duel"])
def tables(
    request: pytest.FixtureRequest, browser: Browser, server: ServerProcess
) -> Iterator[Tables]:
    """Per game: a live 4-player classic (or Duel) table at the test's move with a choice
    begun, a finished 2-player table of two greedy bots (and a classic one of four bots),
    each in a page of its own."""
    variant: str = request.param
    api = Api(server.base)
    console = Console()
    context = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    try:
        players = 4 if variant == "classic" else 2
        live_id, token, rounds = seat_in_play(api, variant, players, seed=21)
        finished_id = bots_finish(api, variant, 2, seed=8, levels=["greedy", "greedy"])
        live = console.watch(context.new_page(), "live")
        give_seat(live, server.base, live_id, 0, token, "Ana")
        live.goto(f"{server.base}/#/play/{live_id}")
        expect(live.locator("#table")).to_have_attribute("data-status", "live")
        # A choice begun: a gem picked from the bank (classic) or a cell of the board (Duel).
        live.locator("button[data-bank]:enabled, button.cell:enabled").first.click()
        expect(
            live.locator(".picked-token, .cell.picked, [aria-pressed='true']").first
        ).to_be_visible()
        finished = console.watch(context.new_page(), "finished")
        finished.goto(f"{server.base}/#/watch/{finished_id}")
        expect(finished.locator("#table")).to_have_attribute("data-status", "finished")
        more_ends = []
        if variant == "classic":  # 3-4 players sit two by two on wide screens
            four = bots_finish(
                api, variant, 4, seed=8, levels=["greedy", "random", "greedy", "random"]
            )
            more_ends.append(console.watch(context.new_page(), "finished 4"))
            more_ends[0].goto(f"{server.base}/#/watch/{four}")
            expect(more_ends[0].locator("#table")).to_have_attribute("data-status", "finished")
        yield Tables(variant, live, finished, live_id, finished_id, more_ends, rounds)
        assert console.unexpected() == []
    finally:
        context.close()
        api.close()


# The boxes of a table page, in page coordinates.
BOXES = """() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height, top: r.top, bottom: r.bottom };
  };
  const all = (sel) => [...document.querySelectorAll(sel)].filter((el) => el.getClientRects().length).map(box);
  const one = (sel) => { const el = document.querySelector(sel); return el && el.getClientRects().length ? box(el) : null; };
  return {
    viewport: { w: innerWidth, h: innerHeight },
    scrollWidth: document.documentElement.scrollWidth,
    players: all('.players-slot .player'),
    points: [...document.querySelectorAll('.players-slot .player')].map((p) => [box(p), box(p.querySelector('.player-points'))]),
    names: [...document.querySelectorAll('.players-slot .player-name')].map((el) => [el.scrollWidth, el.clientWidth, el.textContent]),
    log: one('.col-log .log'),
    board: one('.table-slot'),
    banner: one('.banner-slot .banner'),
    head: one('.game-head'),
    bar: one('.bar-slot .action-bar'),
    mine: one('#my-bar'),
  };
}"""


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Two boxes share more than a pixel each way."""
    return (
        min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) > 1
        and min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) > 1
    )


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["x"] >= outer["x"] - 1
        and inner["y"] >= outer["y"] - 1
        and inner["x"] + inner["w"] <= outer["x"] + outer["w"] + 1
        and inner["y"] + inner["h"] <= outer["y"] + outer["h"] + 1
    )


def layout_problems(page: Page, width: int, where: str) -> list[str]:
    """Every overlap between the players, the log, the board, the banner and the head;
    a point total outside its panel; a page wider than the screen."""
    boxes: dict[str, Any] = page.evaluate(BOXES)
    found = []
    if boxes["scrollWidth"] > width:
        found.append(f"{where}: the page is {boxes['scrollWidth']}px wide")
    parts = [(f"player {i}", b) for i, b in enumerate(boxes["players"])]
    parts += [(k, boxes[k]) for k in ("log", "board", "banner", "head") if boxes[k]]
    for i, (name_a, a) in enumerate(parts):
        for name_b, b in parts[i + 1 :]:
            if overlap(a, b):
                found.append(f"{where}: {name_a} overlaps {name_b}")
    for i, (panel, points) in enumerate(boxes["points"]):
        if not inside(points, panel) or points["x"] + points["w"] > width:
            found.append(f"{where}: player {i}'s points are outside its panel")
    for scroll_width, client_width, name in boxes["names"]:
        if scroll_width > client_width + 1:
            found.append(f"{where}: the name {name!r} is cut")
    return found


@pytest.mark.parametrize("width", WIDTHS)
def test_no_part_of_the_table_overlaps_another_at_any_width(
    tables: Tables, width: int, screenshots: Path
) -> None:
    """At 360 to 1920 px, in play (choosing) and at the end, the players, the log, the board, the banner and the head never overlap, point totals stay in their panels, names are whole, nothing is wider than the screen; on a phone the action bar takes at most 20% of the screen and the seat's own tokens and reserves stay in view."""
    height = HEIGHTS.get(width, 800)
    problems = []
    pages = [(tables.live, "in play"), (tables.finished, "at the end")]
    pages += [(page, "at the end of a larger game") for page in tables.more_ends]
    for page, where in pages:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(100)  # a layout pass after the resize
        problems += layout_problems(page, width, where)
    assert problems == [], problems
    if width <= 760:
        # Scrolled to the board's middle while choosing: the bar and the seat's own
        # tokens and reserves are on screen, the bar small.
        page = tables.live
        page.evaluate(
            "() => document.querySelector('.table-slot').scrollIntoView({ block: 'center' })"
        )
        boxes = page.evaluate(BOXES)
        bar, mine = boxes["bar"], boxes["mine"]
        assert bar is not None and mine is not None
        parts = page.evaluate(
            "() => [...document.querySelector('.action-bar').children].map((c) => [c.className, c.getBoundingClientRect().height, c.textContent])"
        )
        assert bar["h"] + mine["h"] <= 0.2 * height, (bar["h"], mine["h"], height, parts)
        assert mine["top"] >= 0 and mine["bottom"] <= height and bar["bottom"] <= height + 1
        expect(page.locator("#my-bar .my-reserve")).to_have_count(2)
        if width == 390:
            name = "table" if tables.variant == "classic" else "duel"
            page.screenshot(path=str(screenshots / f"{name}-phone-choosing.png"))
    if width == 1366 and tables.variant == "classic":
        tables.finished.evaluate("() => window.scrollTo(0, 0)")
        tables.finished.screenshot(path=str(screenshots / "table-end.png"))


# Every 80 px, and each side of the layout's breakpoints (760, 840, 960, 1180 px).
SWEEP = sorted({*range(360, 1921, 80), 760, 761, 840, 841, 960, 961, 1180, 1181})


def test_no_part_of_the_table_overlaps_another_between_those_widths_either(tables: Tables) -> None:
    """The same checks (overlaps, points, names, width) every 80 px from 360 to 1920 px and on each side of every breakpoint, in play and at the end."""
    pages = [(tables.live, "in play"), (tables.finished, "at the end")]
    pages += [(page, "at the end of a larger game") for page in tables.more_ends]
    problems = []
    for width in SWEEP:
        for page, where in pages:
            page.set_viewport_size({"width": width, "height": 800})
            page.wait_for_timeout(50)
            problems += layout_problems(page, width, f"{where} at {width}px")
    assert problems == [], problems


def test_the_table_counts_rounds_names_every_seat_and_says_when_it_is_over(
    tables: Tables, server: ServerProcess, api: Api
) -> None:
    """Rounds are counted per player ("Round 7 · your move" on the seat's 7th move), the badge says Finished after the end, two bots of a level have names of their own, "MCTS bot" is spelt so, and the lobby dates a finished game by its end."""
    live, finished = tables.live, tables.finished
    expect(live.locator("#turn-line")).to_contain_text(f"Round {tables.rounds} · your move")
    expect(live.locator("#connection")).to_have_text("Live")
    expect(finished.locator("#connection")).to_have_text("Finished")
    expect(finished.locator("#turn-line")).to_contain_text(
        re.compile(r"^Finished after \d+ rounds$")
    )
    expect(finished.locator(".players-slot .player-name")).to_have_text(
        ["Greedy bot", "Greedy bot 2"]
    )
    if tables.variant != "classic":
        return
    waiting = api.new_game(players=3)
    api.add_bot(waiting, "mcts")
    lobby = live.context.new_page()
    try:
        lobby.goto(f"{server.base}/#/")
        expect(lobby.locator(f'[data-game="{waiting}"]')).to_contain_text("MCTS bot")
        ended = lobby.locator(f'[data-game="{tables.finished_id}"]')
        expect(ended).to_contain_text(re.compile(r"ended (just now|\d+ min ago)"))
        expect(ended).to_contain_text("Greedy bot 2")
    finally:
        lobby.close()
