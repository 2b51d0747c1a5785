"""The live page survives its server: it shows that it is reconnecting, then catches up
on the moves made meanwhile (through another server process on the same Redis)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import DESKTOP, Console, ServerProcess
from tests.browser.pages import Api, give_seat, public_part, read_table, wait_version
from tests.browser.strategy import choose

# Chromium logs a failed websocket handshake (and fetches) while the server is down.
WHILE_DOWN = ("WebSocket connection to", "ERR_CONNECTION_REFUSED", "Failed to load resource")


def play_moves(
    api: Api, game_id: str, tokens: list[str], catalog: dict[str, Any], count: int
) -> None:
    """``count`` moves of whoever is to move, through ``api``."""
    used: set[str] = set()
    for _ in range(count):
        seat = api.view(game_id)["turn"]["seat"]
        view = api.view(game_id, tokens[seat])
        api.command(game_id, tokens[seat], choose(view, catalog, used))


def test_page_shows_reconnecting_then_the_moves_it_missed(
    browser: Browser,
    contexts: list[BrowserContext],
    redis_server: str,
    server_logs: Path,
    console: Console,
) -> None:
    """Killing the page's server shows "Reconnecting…"; moves made meanwhile on a second server appear once the first is back (since=<last version>)."""
    first = ServerProcess(redis_server, server_logs).start()
    second = ServerProcess(redis_server, server_logs).start()
    api = Api(first.base)
    other = Api(second.base)
    try:
        catalog = api.catalog()
        game_id = api.new_game(seed=5)
        tokens = [api.join(game_id, "Ana"), api.join(game_id, "Ben")]

        context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
        contexts.append(context)
        player = console.watch(context.new_page(), "player")
        spectator = console.watch(context.new_page(), "spectator")
        give_seat(player, first.base, game_id, 0, tokens[0], "Ana")
        player.goto(f"{first.base}/#/play/{game_id}")
        spectator.goto(f"{first.base}/#/watch/{game_id}")
        for page in (player, spectator):
            expect(page.locator("#connection")).to_have_attribute("data-state", "live")
        before = api.view(game_id)["version"]
        wait_version(player, before)

        first.stop(crash=True)
        for page in (player, spectator):
            expect(page.locator("#connection")).to_have_attribute("data-state", "reconnecting")
            expect(page.locator("#connection")).to_have_text("Reconnecting…")

        # Two moves while the page's server is down, made through the other one.
        play_moves(other, game_id, tokens, catalog, 2)
        after = other.view(game_id)["version"]
        assert after > before

        first.start()  # same port: the pages reconnect with since=<their version>
        for page in (player, spectator):
            expect(page.locator("#connection")).to_have_attribute(
                "data-state", "live", timeout=15_000
            )
            wait_version(page, after)
            for version in range(before + 1, after + 1):
                expect(page.locator(f'.log-line[data-version="{version}"]')).to_have_count(1)
        assert read_table(player) == public_part(api.view(game_id, tokens[0]))
        assert read_table(spectator) == public_part(api.view(game_id))
        assert console.unexpected(WHILE_DOWN) == []
    finally:
        api.close()
        other.close()
        first.stop()
        second.stop()


# Every close code the page's websockets get, in window.closeCodes.
RECORD_CLOSES = """
window.closeCodes = [];
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener("close", (e) => window.closeCodes.push(e.code));
  }
};
"""


def test_page_whose_server_restarts_reconnects_with_the_moves_made_meanwhile(
    browser: Browser,
    contexts: list[BrowserContext],
    redis_server: str,
    server_logs: Path,
    console: Console,
) -> None:
    """A `splendor serve` sent SIGTERM closes the page's socket with 1012 (a restart, not a problem); started again on the same port, the page is live again and shows the moves made meanwhile through another server."""
    first = ServerProcess(redis_server, server_logs, serve=True).start()
    second = ServerProcess(redis_server, server_logs).start()
    other = Api(second.base)
    try:
        catalog = other.catalog()
        game_id = other.new_game(seed=9)
        tokens = [other.join(game_id, "Ana"), other.join(game_id, "Ben")]
        context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
        contexts.append(context)
        context.add_init_script(RECORD_CLOSES)
        page = console.watch(context.new_page(), "spectator")
        page.goto(f"{first.base}/#/watch/{game_id}")
        expect(page.locator("#connection")).to_have_attribute("data-state", "live")
        before = other.view(game_id)["version"]
        wait_version(page, before)

        first.stop()  # SIGTERM: drained, the socket closed with 1012
        play_moves(other, game_id, tokens, catalog, 2)
        after = other.view(game_id)["version"]
        first.start()

        expect(page.locator("#connection")).to_have_attribute("data-state", "live")
        wait_version(page, after)
        for version in range(before + 1, after + 1):
            expect(page.locator(f'.log-line[data-version="{version}"]')).to_have_count(1)
        assert page.evaluate("window.closeCodes")[0] == 1012
        assert read_table(page) == public_part(other.view(game_id))
        assert console.unexpected(WHILE_DOWN) == []
    finally:
        other.close()
        first.stop()
        second.stop()
