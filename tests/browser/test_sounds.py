"""Sounds and low time at the table (docs/web.md "Sounds", "Clocks"): every sound goes
through sound.js's `sounds.play`, whose calls the tests count; sound is on by default,
its toggle and volume are remembered; a clock under its warning is outlined with an
hourglass, the title starts with one, and the last ten seconds tick. The page's time
is Playwright's clock, moved on by the test."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, give_seat, wait_version
from tests.browser.strategy import choose, kind_of

# Counts the page's sounds: sound.js's one object, shared by every module of the page
# (a module is loaded once per page), has its `play` wrapped.
HEAR = """async () => {
  const { sounds } = await import('/js/sound.js');
  window.heard = [];
  const play = sounds.play.bind(sounds);
  sounds.play = (name) => {
    window.heard.push(name);
    return play(name);
  };
}"""


def has_class(name: str) -> re.Pattern[str]:
    """A class attribute that holds ``name`` among others."""
    return re.compile(rf"(^|\s){re.escape(name)}(\s|$)")


def starts_with(start: str) -> re.Pattern[str]:
    return re.compile("^" + re.escape(start))


def until_clocks_run(api: Api, game_id: str, tokens: list[str]) -> None:
    """The seats move over HTTP (a first legal move each time) until a clock runs:
    each seat's first turn over (a Duel turn may take several actions)."""
    for _ in range(20):
        public = api.view(game_id)
        if public["clock"]["running"] is not None:
            return
        seat = public["turn"]["seat"]
        view = api.view(game_id, tokens[seat])
        move = next(a for a in view["legal"] if a["kind"] not in ("abort", "claim_abandon"))
        api.command(game_id, tokens[seat], move)
    raise AssertionError("no clock runs")


def heard_after(page: Page, count: int) -> list[str]:
    """The sounds heard, once there are at least ``count`` of them."""
    page.wait_for_function("(n) => window.heard.length >= n", arg=count)
    return heard(page)


def heard(page: Page) -> list[str]:
    names: list[str] = page.evaluate("window.heard")
    return names


def play_one(api: Api, game_id: str, tokens: list[str], used: set[str]) -> int:
    """The seat to move plays one turn over HTTP; the version after it."""
    catalog = api.catalog()
    seat = api.view(game_id)["turn"]["seat"]
    action: dict[str, Any] = choose(api.view(game_id, tokens[seat]), catalog, used)
    used.add(kind_of(action))
    return api.command(game_id, tokens[seat], action)


def test_the_table_sounds_the_start_each_move_your_move_and_the_end(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """With sound on by default, Ana's page plays "start" when the last seat is taken, "your_move" when the move comes to her, "move" for a move that leaves the turn elsewhere (hers or Bo's), and "end" when Bo resigns: one sound a change, each through sounds.play."""
    game_id = api.new_game()
    ana = api.join(game_id, "Ana")
    page = open_page(browser, contexts, console, "ana")
    give_seat(page, server.base, game_id, 0, ana, "Ana")
    page.goto(f"{server.base}/#/play/{game_id}")
    expect(page.locator("#table")).to_have_attribute("data-status", "open")
    expect(page.locator("#sound-toggle")).to_have_attribute("aria-pressed", "true")
    page.evaluate(HEAR)
    page.mouse.click(5, 300)  # a gesture: the browser lets the page's audio start
    bo = api.join(game_id, "Bo")
    tokens = [ana, bo]
    expect(page.locator("#table")).to_have_attribute("data-status", "live")
    assert heard_after(page, 1) == ["start"]

    used: set[str] = set()
    expected = ["start"]
    for _ in range(4):
        mover = api.view(game_id)["turn"]["seat"]
        version = play_one(api, game_id, tokens, used)
        wait_version(page, version)
        expected.append("move" if mover == 0 else "your_move")
        assert heard_after(page, len(expected)) == expected
    api.command(game_id, bo, {"kind": "resign"})
    expect(page.locator("#table")).to_have_attribute("data-status", "finished")
    assert heard_after(page, len(expected) + 1) == [*expected, "end"]
    assert page.evaluate("import('/js/sound.js').then((m) => m.sounds.play('move'))") is True
    assert console.unexpected() == []


def test_the_sound_toggle_and_volume_are_remembered_across_a_reload(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """Sound is on by default (a spectator's page has the controls too); turned off and set to 30 it stays so after a reload, and nothing is made while it is off; turned on again, the volume is still 30."""
    game_id = api.new_game()
    page = open_page(browser, contexts, console, "watcher")
    page.goto(f"{server.base}/#/watch/{game_id}")
    toggle = page.locator("#sound-toggle")
    volume = page.locator("#sound-volume")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(toggle).to_have_text("Sound on")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(volume).to_be_disabled()
    toggle.click()
    volume.fill("30")
    toggle.click()
    expect(toggle).to_have_text("Sound off")
    page.reload()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(volume).to_have_value("30")
    page.mouse.click(5, 300)
    assert page.evaluate("import('/js/sound.js').then((m) => m.sounds.play('move'))") is False
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(volume).to_have_value("30")
    assert page.evaluate("localStorage.getItem('splendor.volume')") == "30"
    assert console.unexpected() == []


@pytest.mark.parametrize("variant", ["classic", "duel"])
def test_low_time_outlines_the_clock_prefixes_the_title_and_ticks(
    variant: str,
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """In a 0:40+0 game of either variant (the warning under 30 s, the larger of 20% and 30 s) the mover's clock is plain at first; 11 s later it is outlined with an hourglass, the title starts with "⌛" and the low-time sound plays once; under 10 s it is red and each second ticks."""
    game_id = api.new_game(variant=variant, clock={"initial": 40, "increment": 0})
    tokens = [api.join(game_id, "Ana"), api.join(game_id, "Bo")]
    until_clocks_run(api, game_id, tokens)
    mover = api.view(game_id)["turn"]["seat"]
    name = ("Ana", "Bo")[mover]
    page = open_page(browser, contexts, console, name)
    page.clock.install()
    give_seat(page, server.base, game_id, mover, tokens[mover], name)
    page.goto(f"{server.base}/#/play/{game_id}")
    clock = page.locator(f'.players-slot .clock[data-clock-seat="{mover}"]')
    expect(clock).to_have_class(has_class("clock-running"))
    assert "clock-warn" not in (clock.get_attribute("class") or "")
    expect(clock.locator(".clock-flag")).to_be_hidden()
    assert not page.title().startswith("⌛")
    page.evaluate(HEAR)

    page.clock.run_for(11_000)
    expect(clock).to_have_class(has_class("clock-warn"))
    expect(clock.locator(".clock-flag")).to_be_visible()
    assert "clock-low" not in (clock.get_attribute("class") or "")
    expect(page).to_have_title(starts_with("⌛ Your move · "))
    assert heard(page) == ["low_time"]

    page.clock.run_for(21_000)  # under 10 s left
    expect(clock).to_have_class(has_class("clock-low"))
    ticks = heard(page).count("tick")
    page.clock.run_for(3_000)
    assert heard(page).count("tick") >= ticks + 2
    assert heard(page).count("low_time") == 1
    assert console.unexpected() == []


def test_the_warning_threshold_and_the_sound_of_each_change(module_page: Page) -> None:
    """The warning is the larger of a fifth of the bank and 30 s (10+5: 2 minutes; 1+0: 30 s; a day a move: 4.8 hours); a view sounds the end, the start, your move, or a move, and a first view or a view that ends no turn sounds nothing."""
    out = module_page.evaluate(
        """async () => {
      const { lowTimeMs } = await import('/js/clocks.js');
      const { tableSound } = await import('/js/game.js');
      const live = (version, seat, number, you = 0) => ({ version, status: 'live', you, turn: { seat, number } });
      return {
        warn: [lowTimeMs({ initial: 600, increment: 5 }), lowTimeMs({ initial: 60, increment: 0 }), lowTimeMs({ per_move: 86400 })],
        sounds: [
          tableSound(null, live(5, 0, 1)),
          tableSound({ version: 4, status: 'open', you: 0 }, live(5, 0, 1)),
          tableSound(live(5, 1, 1), live(6, 0, 2)),
          tableSound(live(6, 0, 2), live(7, 1, 3)),
          tableSound(live(7, 1, 3), live(8, 1, 3)),
          tableSound(live(8, 1, 3), { version: 9, status: 'finished', you: 0 }),
          tableSound(live(8, 1, 3), live(8, 0, 4)),
        ],
      };
    }"""
    )
    assert out["warn"] == [120_000, 30_000, 17_280_000]
    assert out["sounds"] == [None, "start", "your_move", "move", None, "end", None]
