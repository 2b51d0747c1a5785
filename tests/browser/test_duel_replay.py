"""The replay of a Splendor Duel: each move shown equals the server's view at that
version (board, bag, pyramid, privileges, royals, players)."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.duel_pages import duel_public_part, read_duel_table
from tests.browser.pages import Api, wait_version
from tests.browser.replay_turns import shows_turn, turn_ends


def bots_play_a_duel(api: Api, seed: int, timeout: float = 60.0) -> str:
    """A Duel between two server bots, played to its end; returns its id."""
    game_id = api.new_game(seed=seed, variant="duel")
    api.add_bot(game_id, "greedy")
    api.add_bot(game_id, "random")
    deadline = time.monotonic() + timeout
    while api.summary(game_id)["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish their Duel"
        time.sleep(0.2)
    return game_id


def shows_version(page: Page, api: Api, game_id: str, version: int) -> None:
    """The page shows version ``version``, equal to GET view?version=N."""
    wait_version(page, version)
    expect(page.locator("#table")).to_have_attribute("data-version", str(version))
    assert read_duel_table(page) == duel_public_part(api.view(game_id, version=version))
    expect(page.locator(".log-line.current")).to_have_attribute("data-version", str(version))


def test_duel_replay_steps_by_turn_showing_the_servers_view_at_each_move(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    screenshots: Path,
) -> None:
    """A finished Duel replayed by turn (an extra turn counted in its round), by event on demand, from the move list and at its end shows exactly GET view?version=N, the log in Duel sentences."""
    game_id = bots_play_a_duel(api, seed=4)
    events = api.events(game_id)
    ends = turn_ends(events)
    turns = len(ends)
    last = api.view(game_id)["version"]
    page = open_page(browser, contexts, console, "replay")

    page.goto(f"{server.base}/#/replay/{game_id}")
    expect(page.locator("#replay-slider")).to_have_attribute("max", str(turns))
    started = int(page.locator("#table").get_attribute("data-version") or 0)
    shows_version(page, api, game_id, started)

    middle = turns // 2
    page.fill("#replay-goto", str(middle))
    page.press("#replay-goto", "Enter")
    shows_turn(page, middle, turns, ends[middle - 1])
    shows_version(page, api, game_id, ends[middle - 1])
    page.click("#replay-next-turn")
    shows_turn(page, middle + 1, turns, ends[middle])
    shows_version(page, api, game_id, ends[middle])
    page.locator(".replay-caption").click()
    page.keyboard.press("Shift+ArrowLeft")
    shows_version(page, api, game_id, ends[middle] - 1)
    page.click(f'.move[data-turn="{middle + 5}"] .move-jump')
    shows_turn(page, middle + 5, turns, ends[middle + 4])
    shows_version(page, api, game_id, ends[middle + 4])
    # A round counts each seat's turns; an extra turn is marked in the round it came from.
    # A turn that ends the game leads to no extra turn, even when it earned one.
    turn_ends_in_log = [e for e in events if e["type"] == "TurnEnded"]
    extra = [e for e in turn_ends_in_log[:-1] if e["seat"] == e["next_seat"]]
    expect(page.locator(".move-round", has_text="+")).to_have_count(len(extra))

    # The end: the winner and how; a finished game shows every reserve.
    page.keyboard.press("End")
    shows_turn(page, turns, turns, last)
    shows_version(page, api, game_id, last)
    final = api.view(game_id)
    expect(page.locator("#replay-result")).to_contain_text(f"by {final['result']['reason']}")
    assert page.locator("[data-hidden-level]").count() == 0
    log = page.locator(".log-list").inner_text()
    assert "from the board." in log and "The game ended:" in log
    page.fill("#replay-goto", str(middle))
    page.press("#replay-goto", "Enter")
    shows_turn(page, middle, turns, ends[middle - 1])
    page.screenshot(path=str(screenshots / "duel-replay.png"))
    assert console.unexpected() == []
