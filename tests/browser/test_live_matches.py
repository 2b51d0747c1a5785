"""Live matches on the page (issue 12 item 5): time-control presets in the lobby,
clocks that run out, resign with a confirmation, presence, rematch."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, give_seat
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_layout import inside, layout_problems, overlap


def test_the_lobby_offers_time_controls_and_shows_them_in_every_row(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """The time control defaults to 5+3 with another person and untimed against bots only; the game is created with the chosen one and its row says it, a seeded game's row and table say seeded."""
    timed = api.new_game(clock={"initial": 600, "increment": 5})
    seeded = api.new_game(seed=4)
    page = open_page(browser, contexts, console, "lobby")
    page.goto(f"{server.base}/#/")
    expect(page.locator("#time-control")).to_have_value("5+3")
    page.select_option("#seat-1", "bot:greedy")
    expect(page.locator("#time-control")).to_have_value("none")
    page.select_option("#seat-1", "open")
    expect(page.locator("#time-control")).to_have_value("5+3")
    expect(page.locator(f'#open-games [data-game="{timed}"] .tag-clock')).to_have_text("10+5")
    seeded_row = page.locator(f'#open-games [data-game="{seeded}"]')
    expect(seeded_row.locator(".tag-clock")).to_have_text("untimed")
    expect(seeded_row.locator(".tag-seeded")).to_have_text("seeded")
    page.goto(f"{server.base}/#/watch/{seeded}")
    expect(page.locator(".game-title .tag-seeded")).to_have_text("seeded")
    page.goto(f"{server.base}/#/")

    # A choice made by the player stays whatever the seats become.
    page.select_option("#time-control", "1d")
    page.select_option("#seat-1", "bot:random")
    expect(page.locator("#time-control")).to_have_value("1d")
    page.fill("#player-name", "Lea")
    page.click("#start-game")
    page.wait_for_url("**/#/play/*")
    game_id = page.url.rsplit("/", 1)[1]
    assert api.summary(game_id)["clock"] == {"initial": None, "increment": None, "per_move": 86400}
    assert console.unexpected() == []


def first_moves(api: Api, game_id: str, tokens: list[str]) -> None:
    """Each seat plays its first turn over HTTP (its first legal move), so that the clocks start (RULES.md part 3)."""
    for _ in tokens:
        public = api.view(game_id)
        seat = public["turn"]["seat"]
        view = api.view(game_id, tokens[seat])
        move = next(a for a in view["legal"] if a["kind"] not in ("abort", "claim_abandon"))
        api.command(game_id, tokens[seat], move)


def test_a_clock_runs_out_on_the_page_of_the_player_left_behind(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    screenshots: Path,
) -> None:
    """Two pages at an 8+0 game: after the first moves the mover's clock runs (red under 10 s, its low time in its tab's title after an hourglass); the mover closes its page and the other page sees that clock reach 0:00.0 and the result on time, with the ranks."""
    clock = {"initial": 8, "increment": 0}
    game_id, tokens, pages = two_players(browser, contexts, console, server, api, clock)
    for seat, page in enumerate(pages):
        expect(page.locator(f'[data-player="{1 - seat}"] .clock-time')).to_have_text("0:08.0")
    first_moves(api, game_id, tokens)
    mover = api.view(game_id)["turn"]["seat"]
    left, stays = pages[mover], pages[1 - mover]
    clock = stays.locator(f'[data-player="{mover}"] .clock')
    expect(clock).to_have_class(re.compile(r"\bclock-running\b.*\bclock-low\b"))
    expect(left).to_have_title(re.compile(r"^⌛ Your move · 0:0\d left · "))
    left.close()
    expect(clock.locator(".clock-time")).to_have_text("0:00.0", timeout=15_000)
    banner = stays.locator("#result-banner")
    loser, winner = ("Ana", "Ben")[mover], ("Ana", "Ben")[1 - mover]
    expect(banner.locator("h2")).to_have_text(f"{winner} wins on time: {loser} ran out of time.")
    expect(banner.locator(f'.ranks [data-seat="{mover}"]')).to_have_attribute("data-rank", "2")
    stays.locator("#end-dialog .btn-quiet").click()  # Close: the table behind it
    stays.screenshot(path=str(screenshots / "clock-out.png"))
    assert api.summary(game_id)["result"]["reason"] == "time"
    assert console.unexpected() == []


CLOCK_STATE = """async (steps) => {
  const { ClockState, clockText } = await import('/js/clocks.js');
  const state = new ClockState();
  const shown = [];
  for (const [view, at, seat, readAt] of steps) {
    if (view) state.take(view, at);
    shown.push(clockText(state.shown(seat, readAt)));
  }
  return shown;
}"""


def clock_view(version: int, remaining: list[int], running: int | None) -> dict[str, object]:
    """A live timed view reduced to what clocks.js reads."""
    clock = {"initial": 60, "increment": 2, "per_move": None, "remaining": remaining}
    clock |= {"running": running, "first_move": None, "now": f"2026-01-01T00:00:0{version}Z"}
    return {"version": version, "status": "live", "turn": {"seat": running}, "clock": clock}


def test_a_shown_clock_never_goes_up_without_a_new_event(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess
) -> None:
    """clocks.js: the running clock ticks from when its clock arrived (the page's own time); a resync at the same version with more time left changes nothing shown, one with less lowers it; a clock that comes with a new event (the turn's end and its increment) is taken as it is."""
    context = browser.new_context()
    contexts.append(context)
    page = context.new_page()
    page.goto(f"{server.base}/#/")
    steps = [
        [clock_view(5, [30_000, 40_000], 0), 1000, 0, 1000],  # arrives: 0:30
        [None, 0, 0, 3500],  # 2.5 s later: 0:27
        [None, 0, 1, 3500],  # the other seat's clock stands
        [clock_view(5, [29_000, 40_000], 0), 4000, 0, 4000],  # resync, more than shown: 0:27
        [clock_view(5, [20_000, 40_000], 0), 5000, 0, 5000],  # resync, less: 0:20
        [clock_view(6, [22_000, 40_000], 1), 6000, 0, 9000],  # the turn ended: 0:22 (increment)
        [None, 0, 1, 9000],  # and seat 1 runs: 0:37
    ]
    shown = ["0:30", "0:27", "0:40", "0:27", "0:20", "0:22", "0:37"]
    assert page.evaluate(CLOCK_STATE, steps) == shown


def two_players(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    server: ServerProcess,
    api: Api,
    clock: dict[str, int] | None = None,
) -> tuple[str, list[str], list[Page]]:
    """A two-player game (with ``clock``) between Ana (seat 0) and Ben (seat 1): its id,
    their tokens and their pages at their seats, loaded."""
    game_id = api.new_game(clock=clock)
    tokens = [api.join(game_id, "Ana"), api.join(game_id, "Ben")]
    pages = []
    for seat, name in enumerate(("Ana", "Ben")):
        page = open_page(browser, contexts, console, name)
        give_seat(page, server.base, game_id, seat, tokens[seat], name)
        page.goto(f"{server.base}/#/play/{game_id}")
        expect(page.locator("#table")).to_have_attribute("data-status", "live")
        pages.append(page)
    return game_id, tokens, pages


def test_resign_asks_first_then_a_rematch_is_offered_and_accepted_from_the_other_page(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """Abort is offered until both first moves are made, then Resign; Resign asks first (Keep playing changes nothing), and once confirmed both pages say Ben won by resignation. Ben offers a rematch from the end dialog and stays at the board, waiting for Ana; Ana's page offers it (Accept / Decline); Ana accepts with one click and both pages go to the rematch, seats moved round, same time control, and the spectator is pointed to it (Watch it); Abort there cancels it."""
    clock = {"initial": 600, "increment": 5}
    game_id, tokens, (ana, ben) = two_players(browser, contexts, console, server, api, clock)
    cy = open_page(browser, contexts, console, "spectator")
    cy.goto(f"{server.base}/#/watch/{game_id}")
    expect(ana.locator("#abort-game")).to_be_visible()
    expect(ana.locator("#resign-game")).to_have_count(0)
    expect(ana.locator('[data-player="1"] .presence')).to_have_attribute("data-present", "true")
    found = serious_violations(ana, "timed table: clocks, presence, abort")
    first_moves(api, game_id, tokens)
    expect(ana.locator("#abort-game")).to_have_count(0)
    ana.click("#resign-game")
    expect(ana.locator("#resign-dialog")).to_be_visible()
    expect(ana.locator("#resign-cancel")).to_be_focused()
    ana.keyboard.press("Enter")  # Keep playing
    expect(ana.locator("#resign-dialog")).to_be_hidden()
    assert api.view(game_id)["status"] == "live"
    ana.click("#resign-game")
    found += serious_violations(ana, "the resign dialog")
    ana.click("#resign-confirm")
    for page in (ana, ben):
        expect(page.locator("#result-banner h2")).to_have_text(
            "Ben wins by resignation: Ana resigned."
        )
    expect(ana.locator("#resign-game")).to_have_count(0)
    assert api.view(game_id)["result"]["reason"] == "resign"

    # Ben offers a rematch and stays at the board; Ana's page (its end dialog open) is
    # offered it; the spectator is pointed to it once it has started.
    expect(ben.locator("#end-dialog")).to_be_visible()
    ben.click("#end-rematch")
    expect(ben.locator("#end-rematch-status")).to_have_text("Waiting for Ana to answer…")
    assert ben.url.endswith(f"#/play/{game_id}")
    expect(ana.locator("#end-rematch-offer")).to_have_text(
        "Ben offers a rematch: same players and time control, seats moved round."
    )
    expect(ana.locator("#end-rematch")).to_have_text("Accept")
    expect(ana.locator("#end-rematch-decline")).to_have_text("Decline")
    expect(cy.locator("#watch-rematch")).to_have_count(0)
    found += serious_violations(ana, "the end with a rematch offered")
    assert found == [], "\n".join(found)
    rematch_id = api.summary(game_id)["rematch"]
    ana.click("#end-rematch")
    ana.wait_for_url(f"**/#/play/{rematch_id}")
    ben.wait_for_url(f"**/#/play/{rematch_id}")
    expect(cy.locator("#watch-rematch")).to_have_attribute("href", f"#/watch/{rematch_id}")
    assert serious_violations(cy, "a spectator told of the rematch") == []
    for page, seat in ((ana, 1), (ben, 0)):
        expect(page.locator("#table")).to_have_attribute("data-status", "live")
        expect(page.locator("#table")).to_have_attribute("data-you", str(seat))
    summary = api.summary(rematch_id)
    assert summary["clock"]["initial"] == 600 and summary["rematch_of"] == game_id
    expect(ana.locator(".banner-actions #rematch-game")).to_have_count(0)
    # In the rematch's first moves Abort is offered: it cancels the game for both.
    ana.click("#abort-game")
    for page in (ana, ben):
        expect(page.locator("#aborted-banner")).to_be_visible()
    assert api.summary(rematch_id)["status"] == "aborted"
    assert console.unexpected() == []


def test_a_player_who_leaves_an_untimed_game_goes_grey_and_can_be_claimed_against(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """Untimed: both presence dots are green; the mover closes its page, its dot goes grey on the other page, which counts down 'you can claim the game in 0:5x' from the server's away_since, then (the server's GET /view listing claim_abandon after the minute) offers Claim the game, which wins by abandonment."""
    game_id, tokens, pages = two_players(browser, contexts, console, server, api)
    first_moves(api, game_id, tokens)
    mover = api.view(game_id)["turn"]["seat"]
    left, stays = pages[mover], pages[1 - mover]
    dot = stays.locator(f'[data-player="{mover}"] .presence')
    expect(dot).to_have_attribute("data-present", "true")
    expect(stays.locator(f'[data-player="{1 - mover}"] .presence')).to_have_attribute(
        "data-present", "true"
    )
    left.close()
    expect(dot).to_have_attribute("data-present", "false")
    name = ("Ana", "Ben")[mover]
    expect(dot).to_have_attribute("aria-label", f"{name} is away")
    expect(stays.locator("#claim-slot .claim-words")).to_have_text(
        re.compile(rf"^{name} left — you can claim the game in 0:[0-5]\d\.$")
    )
    expect(stays.locator("#claim-game")).to_have_count(0)
    # The rule's minute (RULES.md part 3) has to pass: the one slow test of this file.
    stays.locator("#claim-game").click(timeout=75_000)
    winner = ("Ana", "Ben")[1 - mover]
    expect(stays.locator("#result-banner h2")).to_have_text(
        f"{winner} wins by abandonment: {name} left the game."
    )
    expect(stays.locator("#claim-slot")).to_be_empty()
    assert console.unexpected() == []


def test_a_player_who_leaves_a_real_time_game_is_claimed_against_after_30_seconds(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """Real-time 3+2: the mover closes its page with most of its 3 minutes left; the other page counts down 'you can claim the game in 0:2x' from the server's away_since, and after 30 s (not the clock's 3 minutes) offers Claim the game, which wins by abandonment."""
    game_id, tokens, pages = two_players(
        browser, contexts, console, server, api, {"initial": 180, "increment": 2}
    )
    first_moves(api, game_id, tokens)
    mover = api.view(game_id)["turn"]["seat"]
    left, stays = pages[mover], pages[1 - mover]
    dot = stays.locator(f'[data-player="{mover}"] .presence')
    expect(dot).to_have_attribute("data-present", "true")
    left.close()
    expect(dot).to_have_attribute("data-present", "false")
    name = ("Ana", "Ben")[mover]
    expect(stays.locator("#claim-slot .claim-words")).to_have_text(
        re.compile(rf"^{name} left — you can claim the game in 0:(30|[0-2]\d)\.$")
    )
    expect(stays.locator("#claim-game")).to_have_count(0)
    # RULES.md part 3's 30 s have to pass on the server's clock (a subprocess's own).
    stays.locator("#claim-game").click(timeout=45_000)
    winner = ("Ana", "Ben")[1 - mover]
    expect(stays.locator("#result-banner h2")).to_have_text(
        f"{winner} wins by abandonment: {name} left the game."
    )
    summary = api.summary(game_id)
    assert summary["result"]["reason"] == "abandon" and summary["clock"]["initial"] == 180
    assert console.unexpected() == []


HEAD_BOXES = """() => [...document.querySelectorAll('.players-slot .player')].map((p) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; };
  const clock = p.querySelector('.clock');
  return {
    panel: box(p),
    clock: clock ? box(clock) : null,
    parts: [...p.querySelectorAll('.player-head > *')].filter((el) => el.getClientRects().length).map((el) => [el.className, box(el)]),
  };
})"""


@pytest.mark.parametrize("width", [360, 390])
def test_clocks_are_visible_and_overlap_nothing_on_a_phone(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    screenshots: Path,
    width: int,
) -> None:
    """A 4-player 10+5 game with long names on a phone: every seat's clock is shown inside its player's panel, overlapping nothing else in the head; the bar stuck to the bottom shows the mover's clock and the seat's own on screen, within the bars' 20% of the screen; the table still passes the layout checks, also once a seat that resigned is marked out."""
    game_id = api.new_game(players=4, clock={"initial": 600, "increment": 5})
    names = ["Anastasia", "Bartholomew", "Cy", "Dorothea"]
    tokens = [api.join(game_id, name) for name in names]
    first_moves(api, game_id, tokens)
    page = open_page(browser, contexts, console, "phone", {"width": width, "height": 740})
    give_seat(page, server.base, game_id, 0, tokens[0], names[0])
    page.goto(f"{server.base}/#/play/{game_id}")
    expect(page.locator(".players-slot .clock")).to_have_count(4)
    for clock in page.locator(".players-slot .clock").all():
        expect(clock).to_be_visible()
    expect(page.locator(".players-slot .clock-running")).to_have_count(1)
    players = page.evaluate(HEAD_BOXES)
    for i, p in enumerate(players):
        assert p["clock"] and inside(p["clock"], p["panel"]), (
            f"seat {i}'s clock is outside its panel"
        )
        for a, (name_a, box_a) in enumerate(p["parts"]):
            for name_b, box_b in p["parts"][a + 1 :]:
                assert not overlap(box_a, box_b), f"seat {i}: {name_a} overlaps {name_b}"
    assert layout_problems(page, width, f"{width}px") == []
    mover = api.view(game_id)["turn"]["seat"]
    bar_clocks = page.locator("#my-bar .clock")
    expect(bar_clocks).to_have_count(1 if mover == 0 else 2)
    expect(page.locator('#my-bar .clock[data-clock-seat="0"]')).to_have_attribute(
        "aria-label", "Your clock"
    )
    page.evaluate("() => window.scrollTo(0, 300)")
    for clock in bar_clocks.all():
        expect(clock).to_be_in_viewport()
    bars = page.evaluate(
        "() => ['.bar-slot .action-bar', '#my-bar'].map((s) => document.querySelector(s).getBoundingClientRect().height)"
    )
    assert sum(bars) <= 0.2 * 740, bars
    # Dorothea resigns: out, her turns skipped, the game goes on among the others.
    api.command(game_id, tokens[3], {"kind": "resign"})
    out = page.locator('[data-player="3"] .tag-out')
    expect(out).to_have_text("out: resigned")
    assert api.view(game_id)["status"] == "live"
    assert layout_problems(page, width, f"{width}px, a seat out") == []
    if width == 360:
        page.screenshot(path=str(screenshots / "clocks-phone.png"))
    assert console.unexpected() == []
