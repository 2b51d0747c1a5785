"""The replay page's Download button: a finished game's record (docs/export.md) saved
as <id>.json; no button while the game is not over."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, play_moves


def test_download_saves_the_games_record_and_only_once_it_is_finished(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    tmp_path: Path,
) -> None:
    """On a finished game's replay, Download saves <id>.json holding GET /api/games/{id}/export byte for byte; a live game's replay has no Download."""
    game_id = api.new_game(seed=44)
    tokens = [api.join(game_id, "Ada"), api.join(game_id, "Bo")]
    assert play_moves(api, game_id, tokens)["status"] == "finished"
    page = open_page(browser, contexts, console, "download")
    page.goto(f"{server.base}/#/replay/{game_id}")
    button = page.locator("#replay-download")
    expect(button).to_have_text("Download")
    expect(button).to_have_attribute("href", f"/api/games/{game_id}/export")
    with page.expect_download() as started:
        button.click()
    download = started.value
    assert download.suggested_filename == f"{game_id}.json"
    saved = tmp_path / "saved.json"
    download.save_as(saved)
    record = api.http.get(f"/api/games/{game_id}/export")
    assert record.status_code == 200
    assert saved.read_bytes() == record.content

    live = api.new_game()
    api.join(live, "Ada")
    api.join(live, "Bo")
    page.goto(f"{server.base}/#/replay/{live}")
    expect(page.locator("#replay-position")).to_be_visible()
    expect(page.locator("#replay-download")).to_have_count(0)
    assert console.errors == []
