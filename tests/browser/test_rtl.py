"""The page right to left (docs/web.md "Right to left"): in Persian it is
``<html lang="fa" dir="rtl">`` and its layout is mirrored by CSS logical properties,
while the printed drawings (cards, nobles, royal cards, the Duel board) keep their own
geometry; numbers, clocks and scores are in Persian digits; whole games against a bot
are played in Persian by clicking; nothing overlaps from 360 to 1920 px in Persian or
in Greek. The tests read no translated word: until the catalogs are filled, the page
shows English message ids in a right-to-left page, and the tests pass either way."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from catalogs.languages import text_direction
from tests.browser.conftest import DESKTOP, Console, ServerProcess, open_page
from tests.browser.duel_pages import click_duel_action, duel_public_part, read_duel_table
from tests.browser.duel_strategy import choose_duel, duel_kind
from tests.browser.pages import (
    Api,
    click_action,
    give_seat,
    public_part,
    read_table,
    seat_record,
    wait_for_turn,
    wait_version,
)
from tests.browser.strategy import choose, kind_of
from tests.browser.test_layout import SWEEP, bots_finish, layout_problems, seat_in_play

WIDTHS = (360, 390, 1280, 1920)
HEIGHTS = {360: 740, 390: 844}  # phones upright; else 800
LANGUAGES = ("fa", "el")
MAX_MOVES = 160  # the person's moves; classic and Duel games against greedy take ~30-40

# Elements the page fills with a number (or a clock) through i18n.js's formatters.
NUMBERS = ", ".join(
    (
        ".clock-time",
        ".player-points",
        ".token-count",
        ".bonus-count",
        ".card-points",
        ".back-count",
        ".noble-points",
        ".royal-points",
        ".meter-value",
        ".log-v",
        ".move-round",
        ".my-held",
        ".result-table tbody td",
        ".chance-axis span",
        ".rating",
    )
)

# The visible elements of `selectors` whose own text has a Latin digit or no Persian one.
LATIN_NUMBERS = """(selectors) => {
  const found = [];
  let seen = 0;
  for (const el of document.querySelectorAll(selectors)) {
    if (!el.getClientRects().length) continue;
    const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.data).join('').trim();
    if (!own) continue;
    seen += 1;
    if (/[0-9]/.test(own) || !/[\u06f0-\u06f9]/.test(own)) found.push(`${el.className}: ${own}`);
  }
  return { seen, found };
}"""

# Each drawing (by its data key) and where its parts sit in it: the share of its width
# from its left edge to the part's left edge, and from the part's right edge to its
# right edge, in whole percent.
PARTS = """([drawing, parts]) => [...document.querySelectorAll(drawing)].filter((el) => el.getClientRects().length).map((el) => {
  const o = el.getBoundingClientRect();
  const where = parts.map((sel) => {
    const part = el.querySelector(sel);
    if (!part || !part.getClientRects().length) return null;
    const r = part.getBoundingClientRect();
    return [Math.round(((r.left - o.left) / o.width) * 100), Math.round(((o.right - r.right) / o.width) * 100)];
  });
  return [el.dataset.card || el.dataset.noble || el.dataset.royal || '', where];
})"""

# The drawings whose parts must sit as printed: a part anchored on the drawing's left
# keeps its left offset, one anchored on its right its right offset (digits differ in
# width between languages, so the other side may move).
DRAWINGS = {
    "classic": [
        (
            ".slot .card[data-card]",
            [
                (".card-points", "left"),
                (".card-bonus", "right"),
                (".card-cost", "left"),
                (".card-level", "right"),
            ],
        ),
        (".nobles .noble[data-noble]", [(".noble-head", "left"), (".noble-req", "right")]),
    ],
    "duel": [
        (
            ".slot .card[data-card]",
            [(".card-points", "left"), (".card-bonus", "right"), (".card-cost", "left")],
        ),
        (".royals .royal[data-royal]", [(".royal-points", "left"), (".ability", "right")]),
    ],
}

# The Duel board's cells, row by row, as their left edges in the page.
CELLS_X = """() => [0, 1, 2, 3, 4].map((r) => [0, 1, 2, 3, 4].map((c) =>
  document.querySelector(`.cell[data-row="${r}"][data-col="${c}"]`).getBoundingClientRect().left))"""


def centre_x(page: Page, selector: str) -> float:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box["x"] + box["width"] / 2


def latin_numbers(page: Page) -> list[str]:
    """The numbers on the page written with Latin digits (each with its class); at
    least one number must be on screen."""
    result: dict[str, Any] = page.evaluate(LATIN_NUMBERS, NUMBERS)
    assert result["seen"] > 0, "no number on the page"
    found: list[str] = result["found"]
    return found


def drawing_parts(page: Page, variant: str) -> dict[str, list[int | None]]:
    """Per drawing on the page (keyed by its kind and id): the anchored offset of each
    of its parts, in percent of its width."""
    out: dict[str, list[int | None]] = {}
    for drawing, parts in DRAWINGS[variant]:
        rows = page.evaluate(PARTS, [drawing, [sel for sel, _ in parts]])
        for key, where in rows:
            out[f"{drawing} {key}"] = [
                None if at is None else at[0 if side == "left" else 1]
                for at, (_, side) in zip(where, parts, strict=True)
            ]
    return out


def assert_board_as_printed(page: Page) -> None:
    """The Duel board's columns run left to right, as printed, in any direction."""
    rows: list[list[float]] = page.evaluate(CELLS_X)
    for row in rows:
        assert row == sorted(row) and len(set(row)) == 5, rows


def assert_language(page: Page, lang: str) -> None:
    """The page is written in ``lang``, in that language's direction."""
    expect(page.locator("html")).to_have_attribute("dir", text_direction(lang))
    expect(page.locator("html")).to_have_attribute("lang", lang)


def assert_right_to_left(page: Page) -> None:
    assert_language(page, "fa")


@dataclass
class LanguageTables:
    """One game's live table (the test's seat, choosing) and finished tables, each
    open in Persian, in Greek and (the live one) in English."""

    variant: str
    finished_id: str
    pages: dict[str, list[tuple[Page, str]]] = field(default_factory=dict)
    english: Page | None = None


@contextmanager
def language_tables(
    browser: Browser, server: ServerProcess, variant: str, languages: Sequence[str]
) -> Iterator[LanguageTables]:
    """A live 4-player classic (or 2-player Duel) table at the test's move with a
    choice begun, a finished 2-player table of two greedy bots (and a classic one of
    four bots), each open in every one of ``languages``; the live table also in
    English, not choosing."""
    api = Api(server.base)
    console = Console()
    context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    try:
        players = 4 if variant == "classic" else 2
        live_id, token, _ = seat_in_play(api, variant, players, seed=21)
        finished_id = bots_finish(api, variant, 2, seed=8, levels=["greedy", "greedy"])
        ends = [finished_id]
        if variant == "classic":  # 3-4 players sit two by two on wide screens
            ends.append(
                bots_finish(
                    api, variant, 4, seed=8, levels=["greedy", "random", "greedy", "random"]
                )
            )
        found = LanguageTables(variant, finished_id)
        first = context.new_page()
        give_seat(first, server.base, live_id, 0, token, "Ana")
        first.close()
        for lang in (*languages, "en"):
            live = console.watch(context.new_page(), f"live {lang}")
            live.goto(f"{server.base}/?lang={lang}#/play/{live_id}")
            expect(live.locator("#table")).to_have_attribute("data-status", "live")
            if lang == "en":
                found.english = live
                continue
            # A choice begun: a gem picked from the bank (classic) or a cell of the board (Duel).
            live.locator("button[data-bank]:enabled, button.cell:enabled").first.click()
            expect(
                live.locator(".picked-token, .cell.picked, [aria-pressed='true']").first
            ).to_be_visible()
            found.pages[lang] = [(live, f"{lang} in play")]
            for n, game_id in enumerate(ends):
                end = console.watch(context.new_page(), f"finished {lang} {n}")
                end.goto(f"{server.base}/?lang={lang}#/watch/{game_id}")
                expect(end.locator("#table")).to_have_attribute("data-status", "finished")
                found.pages[lang].append((end, f"{lang} at the end of a game of {n}"))
        yield found
        assert console.unexpected() == []
    finally:
        context.close()
        api.close()


@pytest.fixture(scope="module", params=["classic", "duel"])
def tables(
    request: pytest.FixtureRequest, browser: Browser, server: ServerProcess
) -> Iterator[LanguageTables]:
    """Per game: a live 4-player classic (or Duel) table at the test's move with a
    choice begun, a finished 2-player table of two greedy bots (and a classic one of
    four bots), in Persian and in Greek; the live table also in English."""
    with language_tables(browser, server, request.param, LANGUAGES) as found:
        yield found


def test_persian_is_written_right_to_left_and_greek_left_to_right(
    tables: LanguageTables, server: ServerProcess
) -> None:
    """The server serves the page as <html lang="fa" dir="rtl"> for ?lang=fa (and lang="el" dir="ltr" for Greek), and the page keeps it."""
    for lang, direction in (("fa", "rtl"), ("el", "ltr")):
        served = Api(server.base)
        try:
            html = served.http.get("/", params={"lang": lang}).text
        finally:
            served.close()
        assert f'<html lang="{lang}" dir="{direction}">' in html
        for page, _ in tables.pages[lang]:
            expect(page.locator("html")).to_have_attribute("dir", direction)
            expect(page.locator("html")).to_have_attribute("lang", lang)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_part_of_the_table_overlaps_another_in_persian_or_greek(
    tables: LanguageTables, width: int, screenshots: Path
) -> None:
    """At 360, 390, 1280 and 1920 px, in Persian and in Greek, in play (choosing) and at the end: the players, the log, the board, the banner and the head never overlap, point totals stay in their panels, names are whole, nothing is wider than the screen; the tables are photographed at 1280 and 390 px."""
    height = HEIGHTS.get(width, 800)
    problems = []
    for lang in LANGUAGES:
        for page, where in tables.pages[lang]:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(100)  # a layout pass after the resize
            problems += layout_problems(page, width, where)
    assert problems == [], problems
    shots = {1280: "desktop", 390: "phone"}
    name = "table" if tables.variant == "classic" else "duel"
    for lang in LANGUAGES if tables.variant == "classic" else ("fa",):
        if width in shots:
            live = tables.pages[lang][0][0]
            live.evaluate("() => window.scrollTo(0, 0)")
            live.screenshot(path=str(screenshots / f"{name}-{lang}-{shots[width]}.png"))


def test_no_part_of_the_table_overlaps_another_between_those_widths_either(
    tables: LanguageTables,
) -> None:
    """The same checks every 80 px from 360 to 1920 px and on each side of every breakpoint, in Persian and in Greek, in play and at the end."""
    problems = []
    for width in SWEEP:
        for lang in LANGUAGES:
            for page, where in tables.pages[lang]:
                page.set_viewport_size({"width": width, "height": 800})
                page.wait_for_timeout(50)
                problems += layout_problems(page, width, f"{where} at {width}px")
    assert problems == [], problems


@pytest.mark.parametrize("width", (390, 1280))
def test_the_drawings_are_printed_as_in_english_while_the_layout_flips(
    tables: LanguageTables, width: int
) -> None:
    """In Persian every card, noble and royal card has its parts where English draws them (points at the top left, the bonus gem at the top right, the cost at the bottom left) and the Duel board's columns run left to right, while the layout around them is mirrored: a row's deck and the board sit on the other side."""
    persian, english = tables.pages["fa"][0][0], tables.english
    assert english is not None
    size: ViewportSize = {"width": width, "height": HEIGHTS.get(width, 800)}
    for page in (persian, english):
        page.set_viewport_size(size)
        page.wait_for_timeout(100)
    fa_parts, en_parts = (
        drawing_parts(persian, tables.variant),
        drawing_parts(english, tables.variant),
    )
    assert len(fa_parts) >= 10 and fa_parts.keys() == en_parts.keys()
    for key, where in fa_parts.items():
        assert all(
            a is None or b is None or abs(a - b) <= 1
            for a, b in zip(where, en_parts[key], strict=True)
        ), (key, where, en_parts[key])
    points, bonus = ".slot .card[data-card] .card-points", ".slot .card[data-card] .card-bonus"
    assert centre_x(persian, points) < centre_x(persian, bonus)
    # The layout flips: the level-1 deck beside its first card, on the other side.
    deck, slot = '[data-deck="1"]', '.slot[data-level="1"][data-index="0"]'
    assert centre_x(persian, deck) > centre_x(persian, slot)
    assert centre_x(english, deck) < centre_x(english, slot)
    if tables.variant == "duel":
        assert_board_as_printed(persian)
    if width == 1280:  # the board beside the players: on the right in Persian
        assert centre_x(persian, ".col-board") > centre_x(persian, ".col-players")
        assert centre_x(english, ".col-board") < centre_x(english, ".col-players")


def test_the_tables_numbers_are_in_persian_digits(tables: LanguageTables) -> None:
    """In Persian every point total, token and bonus count, card and noble value, deck count, meter and the log's numbers are written in Persian digits, in play and at the end (the result table too)."""
    for page, where in tables.pages["fa"]:
        page.set_viewport_size(DESKTOP)
        assert latin_numbers(page) == [], where


def test_the_replay_steps_the_way_persian_reads(
    tables: LanguageTables,
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    console: Console,
) -> None:
    """In a Persian replay the next-turn button and its arrow point left and sit left of the previous-turn one, the left arrow key steps forwards and the right one back (the way the slider's own keys go, and so the keyboard help says), the chance graph runs from right to left with its percentages in Persian digits, and the page is never wider than the screen from 360 to 1920 px; in English all stay as they were."""
    for lang, forward, backward in (
        ("fa", "ArrowLeft", "ArrowRight"),
        ("en", "ArrowRight", "ArrowLeft"),
    ):
        page = open_page(browser, contexts, console, f"replay {lang}")
        page.goto(f"{server.base}/?lang={lang}#/replay/{tables.finished_id}/1")
        expect(page.locator("#replay-position")).not_to_be_empty()
        expect(page.locator("#chance-cursor")).to_be_attached(timeout=30_000)
        start = int(page.url.rsplit("/", 1)[1])
        cursor = float(page.locator("#chance-cursor").get_attribute("x1") or "nan")
        page.keyboard.press(forward)
        page.keyboard.press(forward)
        expect(page).not_to_have_url(re.compile(rf"/{start}$"))
        later = int(page.url.rsplit("/", 1)[1])
        assert later > start
        moved = float(page.locator("#chance-cursor").get_attribute("x1") or "nan")
        page.keyboard.press(backward)
        expect(page).not_to_have_url(re.compile(rf"/{later}$"))
        assert int(page.url.rsplit("/", 1)[1]) < later
        flipped = page.evaluate(
            "() => getComputedStyle(document.querySelector('#replay-next-turn svg')).transform"
        )
        next_x, prev_x = centre_x(page, "#replay-next-turn"), centre_x(page, "#replay-prev-turn")
        # The keyboard help names the arrows the way they step.
        page.click("#help-open")
        arrows = page.locator("#help-dialog kbd").first
        expect(arrows).to_have_text("→ / ←" if lang == "fa" else "← / →")
        page.locator('#help-dialog [data-key="help-close"]').click()
        if lang == "fa":
            assert_right_to_left(page)
            assert next_x < prev_x and flipped == "matrix(-1, 0, 0, 1, 0, 0)"
            assert moved < cursor  # forwards is leftwards on the graph
            assert latin_numbers(page) == []
            assert not re.search(r"[0-9]", page.locator("#replay-position").inner_text())
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": HEIGHTS.get(width, 800)})
                page.wait_for_timeout(50)
                wide = page.evaluate("() => document.documentElement.scrollWidth")
                assert wide <= width, f"the replay is {wide}px wide at {width}px"
        else:
            assert next_x > prev_x and flipped == "none"
            assert moved > cursor


def _persian_numbers_and_board(page: Page, variant: str) -> None:
    """What each few moves of a Persian game check: Persian digits, the Duel board as printed."""
    assert latin_numbers(page) == []
    if variant == "duel":
        assert_board_as_printed(page)


def start_from_the_lobby(
    page: Page, base: str, variant: str, seed: int, lang: str = "fa"
) -> tuple[str, int, str]:
    """Start a game against the greedy bot from the lobby in ``lang``, timed 10+5
    (choices named by their values, not their words); returns its id, the seat and its
    token."""
    page.goto(f"{base}/?lang={lang}&seed={seed}#/")
    assert_language(page, lang)
    page.fill("#player-name", "Ana")
    page.select_option("#variant", variant)
    page.check('input[name="players"][value="2"]')
    page.select_option("#seat-1", "bot:greedy")
    page.select_option("#time-control", "10+5")
    page.click("#start-game")
    page.wait_for_url(re.compile(r"#/play/"))
    game_id = page.url.rsplit("/", 1)[1]
    record = seat_record(page, game_id)
    expect(page.locator("#table")).to_have_attribute("data-status", "live")
    assert_language(page, lang)
    return game_id, record["seat"], record["token"]


def the_end(page: Page, api: Api, game_id: str) -> dict[str, Any]:
    """The finished game's view once the page shows it, with its end dialog."""
    final = api.view(game_id)
    assert final["status"] == "finished"
    wait_version(page, final["version"])
    expect(page.locator("#end-dialog")).to_be_visible()
    expect(page.locator("#end-dialog .result-table tbody tr")).to_have_count(2)
    return final


def play_classic_to_the_end(
    page: Page, api: Api, game_id: str, seat: int, token: str, check: Callable[[Page], None]
) -> dict[str, Any]:
    """Click the seat's moves of a classic game to its end, the page showing each
    position as the server does (and passing ``check``) every few moves; returns the
    finished view once the page shows its end."""
    catalog = api.catalog()
    used: set[str] = set()
    moves = 0
    while moves < MAX_MOVES:
        public = wait_for_turn(api, game_id, seat)
        if public["status"] == "finished":
            break
        view = api.view(game_id, token)
        wait_version(page, view["version"])
        if moves % 5 == 0:
            assert read_table(page) == public_part(view)
            check(page)
        me = next(p for p in view["players"] if p["seat"] == seat)
        action = choose(view, catalog, used)
        click_action(page, action, me)
        wait_version(page, view["version"] + 1)
        used.add(kind_of(action))
        moves += 1
    final = the_end(page, api, game_id)
    assert read_table(page) == public_part(api.view(game_id, token))
    return final


def test_a_classic_game_against_a_bot_played_in_persian_to_its_end(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """A timed classic game against the greedy bot is started from the Persian lobby and clicked to its end: the page is right to left throughout, shows each position as the server does, its clocks, scores and counts in Persian digits, and the end with its result table."""
    page = open_page(browser, contexts, console, "person")
    game_id, seat, token = start_from_the_lobby(page, server.base, "classic", seed=12)
    expect(page.locator(".clock-time").first).to_have_text(re.compile("^[\u06f0-\u06f9:\u066b]+$"))
    final = play_classic_to_the_end(
        page, api, game_id, seat, token, lambda p: _persian_numbers_and_board(p, "classic")
    )
    assert latin_numbers(page) == []
    assert final["players"][1]["name"]
    assert_right_to_left(page)
    assert console.unexpected() == []


def test_a_duel_against_a_bot_played_in_persian_to_its_end(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """A timed Duel against the greedy bot is started from the Persian lobby and clicked to its end (cells, gold then card to reserve, buys, privileges, pending choices): the board's columns stay as printed, the page shows each position as the server does, clocks, scores, meters and counts in Persian digits, and the end."""
    page = open_page(browser, contexts, console, "person")
    game_id, seat, token = start_from_the_lobby(page, server.base, "duel", seed=7)
    rng = random.Random(7)
    used: set[str] = set()
    moves = 0
    while moves < MAX_MOVES:
        public = wait_for_turn(api, game_id, seat)
        if public["status"] == "finished":
            break
        view = api.view(game_id, token)
        wait_version(page, view["version"])
        if moves % 5 == 0:
            assert read_duel_table(page) == duel_public_part(view)
            _persian_numbers_and_board(page, "duel")
        me = next(p for p in view["players"] if p["seat"] == seat)
        action = choose_duel(view, used, rng)
        click_duel_action(page, action, me)
        wait_version(page, view["version"] + 1)
        used.add(duel_kind(action, {r["card"] for r in me["reserved"]}))
        used.add(action["kind"])
        moves += 1
    the_end(page, api, game_id)
    assert latin_numbers(page) == []
    assert read_duel_table(page) == duel_public_part(api.view(game_id, token))
    assert {"take_tokens", "reserve_pyramid", "buy"} <= used
    assert_right_to_left(page)
    assert console.unexpected() == []
