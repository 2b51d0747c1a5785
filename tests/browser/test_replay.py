"""The replay page: a finished game shown move by move, equal to the server's views."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, play_moves, public_part, read_table, wait_version
from tests.browser.replay_turns import shows_turn, turn_ends


def play_to_the_end(api: Api, seed: int) -> str:
    """A 2-player game played over HTTP by the scripted strategy; returns its id."""
    game_id = api.new_game(seed=seed)
    tokens = [api.join(game_id, "Ada"), api.join(game_id, "Bo")]
    assert play_moves(api, game_id, tokens)["status"] == "finished"
    return game_id


def shows_version(page: Page, api: Api, game_id: str, version: int) -> None:
    """The page shows version ``version``, and its table equals GET view?version=N."""
    wait_version(page, version)
    expect(page.locator("#table")).to_have_attribute("data-version", str(version))
    assert read_table(page) == public_part(api.view(game_id, version=version))
    expect(page.locator(".log-line.current")).to_have_attribute("data-version", str(version))


def test_replay_steps_jumps_and_plays_by_turn_showing_the_servers_view(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    screenshots: Path,
) -> None:
    """The replay counts the game's turns, steps, jumps (number, slider, move list) and plays by whole turns, steps by single events on demand, and each place shows exactly GET view?version=N."""
    game_id = play_to_the_end(api, seed=30)
    events = api.events(game_id)
    ends = turn_ends(events)
    turns = len(ends)
    final = api.view(game_id)
    assert turns == final["turn"]["number"] - 1  # the view counts the turn it never began
    last = final["version"]
    page = open_page(browser, contexts, console, "replay")

    page.goto(f"{server.base}/#/replay/{game_id}")
    expect(page.locator("#replay-slider")).to_have_attribute("max", str(turns))
    expect(page.locator("#replay-position")).to_have_text(f"Start · {turns} turns")
    expect(page.locator(".move")).to_have_count(turns)
    started = next(e["version"] for e in events if e["type"] == "GameStarted")
    shows_version(page, api, game_id, started)
    # Play and the steps have icons of their own.
    icons = [
        page.locator(f"#replay-{k} svg").inner_html() for k in ("play", "next-turn", "next-event")
    ]
    assert len(set(icons)) == 3

    # Jump to a turn by number: the table after its last consequence.
    page.fill("#replay-goto", "30")
    page.press("#replay-goto", "Enter")
    shows_turn(page, 30, turns, ends[29])
    shows_version(page, api, game_id, ends[29])

    # Arrows and buttons step whole turns.
    page.locator(".replay-caption").click()
    page.keyboard.press("ArrowRight")
    shows_turn(page, 31, turns, ends[30])
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    shows_turn(page, 29, turns, ends[28])
    page.click("#replay-next-turn")
    shows_turn(page, 30, turns, ends[29])

    # Single events on demand: Shift+arrow and the small step buttons.
    page.keyboard.press("Shift+ArrowRight")
    shows_version(page, api, game_id, ends[29] + 1)
    expect(page.locator("#replay-position")).to_contain_text(f"Turn 31 of {turns} · event 1 of")
    page.click("#replay-next-event")
    shows_version(page, api, game_id, ends[29] + 2)
    page.click("#replay-prev-turn")
    shows_turn(page, 30, turns, ends[29])

    # The slider goes by turn; the move list jumps to the turn clicked.
    page.fill("#replay-slider", str(turns - 5))
    shows_turn(page, turns - 5, turns, ends[turns - 6])
    page.click('.move[data-turn="40"] .move-jump')
    shows_turn(page, 40, turns, ends[39])
    shows_version(page, api, game_id, ends[39])

    # The events, one line each, jump too.
    page.click("#replay-list-events")
    expect(page.locator("#move-list")).to_be_hidden()
    page.click('.log-line[data-version="100"] .log-jump')
    shows_version(page, api, game_id, 100)
    page.click("#replay-list-moves")

    # Play runs forward turn by turn; pause stops it on a turn's end.
    page.fill("#replay-goto", "10")
    page.press("#replay-goto", "Enter")
    shows_turn(page, 10, turns, ends[9])
    page.select_option("#replay-speed", label="Very fast")
    page.click("#replay-play")
    wait_version(page, ends[12])  # far from the end, which would stop it by itself
    page.click("#replay-play")
    # Where it stopped is in the address at once; a step on its way may still draw.
    stopped = int(page.url.rsplit("/", 1)[1])
    shows_version(page, api, game_id, stopped)
    page.wait_for_timeout(600)
    assert int(page.locator("#table").get_attribute("data-version") or 0) == stopped
    assert stopped in ends

    # The end: the last turn, the result, every hidden card shown.
    page.keyboard.press("End")
    shows_turn(page, turns, turns, last)
    shows_version(page, api, game_id, last)
    expect(page.locator("#replay-result")).not_to_be_empty()
    assert page.locator("[data-hidden-level]").count() == 0

    page.fill("#replay-goto", "35")
    page.press("#replay-goto", "Enter")
    shows_turn(page, 35, turns, ends[34])
    page.screenshot(path=str(screenshots / "replay.png"))
    assert console.unexpected() == []
