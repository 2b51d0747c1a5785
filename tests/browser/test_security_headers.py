"""The page under its Content-Security-Policy in Chromium (server/web/security_headers.py):
another site's page can't frame a player's table, and what the policy forbids (inline
script, inline style) is refused and seen by the suite's watch (tests/browser/conftest.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import POLICY, Console, ServerProcess, open_page
from tests.browser.pages import Api, give_seat


class Framer:
    """A page of another origin (same host, another port: the same site) whose one
    job is to frame an address of the game server."""

    def __init__(self, target: str) -> None:
        page = (
            "<!doctype html><title>framer</title>"
            f'<iframe id="victim" src="{target}" width="800" height="600"></iframe>'
        ).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, format: str, *args: object) -> None:
                return  # no access lines in the test's output

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/"

    def __enter__(self) -> Framer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.shutdown()
        self.http.server_close()
        self.thread.join(5)


@pytest.fixture
def table(api: Api) -> Iterator[tuple[str, str]]:
    """A live two-player game and its first seat's token."""
    game_id = api.new_game(players=2, seed=3)
    token = api.join(game_id, "Ada")
    api.join(game_id, "Bea")
    yield game_id, token


@pytest.mark.csp_refusals("frame-ancestors")
def test_another_site_cannot_frame_a_players_table(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    console: Console,
    table: tuple[str, str],
) -> None:
    """A page of another origin on the same host frames a seated player's live table: Chromium refuses to show it (frame-ancestors 'none'), so its controls can't be clicked through a disguise."""
    game_id, token = table
    page = open_page(browser, contexts, console, "framer")
    give_seat(page, server.base, game_id, 0, token, "Ada")
    page.goto(f"{server.base}/#/play/{game_id}")
    expect(page.locator("#table")).to_be_visible()  # the table itself, top level: shown
    target = f"{server.base}/#/play/{game_id}"
    with Framer(target) as framer:
        page.goto(framer.url)
        expect(page.locator("#victim")).to_be_attached()
        page.wait_for_load_state("load")
        framed = page.frame_locator("#victim")
        # Nothing of the server's page is in the frame: not its table, not its main.
        expect(framed.locator("#main")).to_have_count(0)
        frame = next(f for f in page.frames if f != page.main_frame)
        assert not frame.url.startswith(server.base)
    assert any("frame-ancestors" in e for e in console.errors + POLICY.violations), (
        console.errors,
        POLICY.violations,
    )


def test_inline_script_and_style_are_refused_and_seen(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """On the served page an injected inline script does not run and an inline style attribute is not applied, and the suite's watch records both refusals (so any test whose page breaks the policy fails)."""
    page = open_page(browser, contexts, console, "page")
    page.goto(f"{server.base}/#/")
    expect(page.locator("#main")).to_be_visible()
    ran = page.evaluate(
        """() => {
            const script = document.createElement('script');
            script.textContent = 'window.injected = true';
            document.body.append(script);
            const p = document.createElement('p');
            p.setAttribute('style', 'color: rgb(1, 2, 3)');
            document.body.append(p);
            return [window.injected === true, getComputedStyle(p).color];
        }"""
    )
    assert ran[0] is False and ran[1] != "rgb(1, 2, 3)"
    POLICY.settle()
    seen = " ".join(POLICY.violations)
    assert "script-src" in seen and "style-src" in seen, POLICY.violations
    POLICY.violations.clear()  # expected here: the watch, not the page, is under test
    console.errors.clear()
