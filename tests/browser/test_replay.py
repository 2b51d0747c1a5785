"""The replay page: a finished game shown move by move, equal to the server's views."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, play_moves, public_part, read_table, wait_version


def play_to_the_end(api: Api, seed: int) -> str:
    """A 2-player game played over HTTP by the scripted strategy; returns its id."""
    game_id = api.new_game(seed=seed)
    tokens = [api.join(game_id, "Ada"), api.join(game_id, "Bo")]
    assert play_moves(api, game_id, tokens)["status"] == "finished"
    return game_id


def shows_version(page: Page, api: Api, game_id: str, version: int) -> None:
    """The page shows move ``version``, and its table equals GET view?version=N."""
    wait_version(page, version)
    expect(page.locator("#table")).to_have_attribute("data-version", str(version))
    assert read_table(page) == public_part(api.view(game_id, version=version))
    expect(page.locator(".log-line.current")).to_have_attribute("data-version", str(version))
    expect(page.locator("#replay-position")).to_contain_text(f"Move {version} of")


def test_replay_jumps_steps_and_plays_showing_the_servers_view_at_each_move(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    screenshots: Path,
) -> None:
    """Jumping to a move, stepping with the keyboard and buttons, the slider and play/pause all show exactly GET view?version=N."""
    game_id = play_to_the_end(api, seed=30)
    last = api.view(game_id)["version"]
    page = open_page(browser, contexts, console, "replay")

    page.goto(f"{server.base}/#/replay/{game_id}")
    expect(page.locator("#replay-slider")).to_have_attribute("max", str(last))
    started = int(page.locator("#table").get_attribute("data-version") or 0)
    shows_version(page, api, game_id, started)

    # Jump to a move by number.
    page.fill("#replay-goto", "60")
    page.press("#replay-goto", "Enter")
    shows_version(page, api, game_id, 60)
    assert page.url.endswith(f"#/replay/{game_id}/60")

    # Arrow keys step (focus on the page, not on a field).
    page.locator(".replay-caption").click()
    page.keyboard.press("ArrowRight")
    shows_version(page, api, game_id, 61)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    shows_version(page, api, game_id, 59)
    page.click("#replay-next")
    shows_version(page, api, game_id, 60)

    # The slider jumps anywhere.
    page.fill("#replay-slider", str(last - 5))
    shows_version(page, api, game_id, last - 5)

    # A line of the log jumps to its move.
    page.click('.log-line[data-version="100"] .log-jump')
    shows_version(page, api, game_id, 100)

    # Play runs forward by itself; pause stops it.
    page.click("#replay-play")
    wait_version(page, 102)
    page.click("#replay-play")
    stopped = int(page.locator("#table").get_attribute("data-version") or 0)
    page.wait_for_timeout(1200)
    assert int(page.locator("#table").get_attribute("data-version") or 0) == stopped
    shows_version(page, api, game_id, stopped)

    # The end: the result, every hidden card shown.
    page.keyboard.press("End")
    shows_version(page, api, game_id, last)
    expect(page.locator("#replay-result")).not_to_be_empty()
    assert page.locator("[data-hidden-level]").count() == 0

    page.fill("#replay-goto", "70")
    page.press("#replay-goto", "Enter")
    shows_version(page, api, game_id, 70)
    page.screenshot(path=str(screenshots / "replay.png"))
    assert console.unexpected() == []
