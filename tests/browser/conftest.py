"""Browser test fixtures: real server processes on loopback, a real Chromium.

The server runs as a subprocess (uvicorn with ``server.web.app:create_app``) on the
session's Redis, so a test can kill it and start it again on the same port. The
browser is Debian's Chromium driven by Playwright's sync API.

The page runs under the server's Content-Security-Policy (server/web/security_headers.py):
every browser context is watched (``PolicyWatch``), and a test any of whose pages
breaks the policy fails, unless it names the refusals it expects with
``@pytest.mark.csp_refusals("frame-ancestors", ...)``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Error,
    Page,
    ViewportSize,
    WebSocket,
    sync_playwright,
)

from tests.browser.pages import Api

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProcess:
    """One server process on 127.0.0.1:port, on the given Redis; restartable."""

    def __init__(
        self,
        redis_url: str,
        log_dir: Path,
        port: int | None = None,
        *,
        serve: bool = False,
        env: dict[str, str] | None = None,
    ) -> None:
        self.redis_url = redis_url
        self.env = env or {}  # settings of this server beside the tests' own
        self.serve = serve  # run as `splendor serve` (drains on SIGTERM) rather than uvicorn
        self.port = port or free_port()
        self.log_path = log_dir / f"server-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        # Bot seats answer at once: the tests wait for them, not a person.
        env = {
            **os.environ,
            "REDIS_URL": self.redis_url,
            "SPLENDOR_COMMAND_RATE": "0",
            "SPLENDOR_CREATE_RATE": "0",
            "SPLENDOR_JOIN_RATE": "0",
            "SPLENDOR_LOGIN_RATE": "0",
            "SPLENDOR_ACCOUNT_LOGIN_RATE": "0",
            "SPLENDOR_BOT_DELAY": "0",
            # Every finished game analysed, with a tiny budget: the pages' plumbing, not
            # figures (the replay's request button has a server of its own).
            "SPLENDOR_ANALYSIS": "every",
            "SPLENDOR_ANALYSIS_BUDGET": "2",
            **self.env,
        }
        program = ["server.cli", "serve"] if self.serve else ["uvicorn", "--factory"]
        app = [] if self.serve else ["server.web.app:create_app"]
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    *program,
                    *app,
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--log-level",
                    "warning",
                ],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()}")
            try:
                if httpx.get(f"{self.base}/api/catalog/classic", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not start: {self.log_path.read_text()}")

    def stop(self, crash: bool = False) -> None:
        """Stop the process: SIGKILL when ``crash`` (sockets just drop), else SIGTERM."""
        if self.proc is None:
            return
        if crash:
            self.proc.kill()
        else:
            self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None


@pytest.fixture(scope="session")
def server_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for the server processes' output."""
    return tmp_path_factory.mktemp("server-logs")


@pytest.fixture(scope="session")
def server(redis_server: str, server_logs: Path) -> Iterator[ServerProcess]:
    """A server process shared by the browser tests that don't stop it."""
    process = ServerProcess(redis_server, server_logs).start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
def api(server: ServerProcess) -> Iterator[Api]:
    """The HTTP API of the shared server, for the test's own reads and moves."""
    client = Api(server.base)
    try:
        yield client
    finally:
        client.close()


VIOLATION = "[csp violation]"
# Every document of a watched context reports the policy's refusals on its console
# (Chromium also logs its own "Refused to..." line; this one does not depend on its words).
REPORT_VIOLATIONS = (
    'document.addEventListener("securitypolicyviolation", (e) => console.debug('
    f"`{VIOLATION} "
    '${e.effectiveDirective}: ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));'
)


class PolicyWatch:
    """The Content-Security-Policy violations of every page of every browser context
    made by the ``browser`` fixture, during the test that runs."""

    def __init__(self) -> None:
        self.violations: list[str] = []
        self.contexts: list[BrowserContext] = []

    def watch(self, context: BrowserContext) -> BrowserContext:
        context.add_init_script(REPORT_VIOLATIONS)
        context.on("console", self._on_console)
        context.on("close", self._forget)
        self.contexts.append(context)
        return context

    def _forget(self, context: BrowserContext) -> None:
        self.contexts.remove(context)

    def _on_console(self, message: ConsoleMessage) -> None:
        text = message.text
        if text.startswith(VIOLATION) or (
            message.type == "error" and "Content Security Policy" in text
        ):
            where = message.page.url if message.page is not None else "?"
            self.violations.append(f"{where}: {text}")

    def start(self) -> None:
        self.violations.clear()

    def settle(self) -> None:
        """Take in the console messages the pages sent before now: a round trip to
        each page delivers those queued ahead of its answer."""
        for context in list(self.contexts):
            for page in context.pages:
                # A page closed or navigating has nothing more to deliver.
                with contextlib.suppress(Error):
                    page.evaluate("0")


POLICY = PolicyWatch()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "csp_refusals(*words): Content-Security-Policy refusals the test expects "
        "(a violation whose message holds one of the words does not fail it)",
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    POLICY.start()  # fixtures open pages too: watched from their setup on
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """The test fails if a page broke the Content-Security-Policy."""
    result = yield
    POLICY.settle()
    marker = item.get_closest_marker("csp_refusals")
    expected: tuple[str, ...] = marker.args if marker is not None else ()
    unexpected = [v for v in POLICY.violations if not any(w in v for w in expected)]
    if unexpected:
        pytest.fail("the page broke its Content-Security-Policy:\n" + "\n".join(unexpected))
    return result


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless; every context it makes is watched by ``POLICY``."""
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        new_context = chromium.new_context

        def watched_context(*args: Any, **kwargs: Any) -> BrowserContext:
            return POLICY.watch(new_context(*args, **kwargs))

        chromium.new_context = watched_context  # type: ignore[method-assign]
        try:
            yield chromium
        finally:
            chromium.close()


class Console:
    """Console errors and page errors of every page it watches."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page: Page, name: str) -> Page:
        def on_console(message: ConsoleMessage) -> None:
            if message.type == "error":
                self.errors.append(f"{name}: {message.text}")

        page.on("console", on_console)
        page.on("pageerror", lambda error: self.errors.append(f"{name}: {error}"))
        return page

    def unexpected(self, allowed: tuple[str, ...] = ()) -> list[str]:
        return [e for e in self.errors if not any(a in e for a in allowed)]


def open_page(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    name: str,
    viewport: ViewportSize = DESKTOP,
) -> Page:
    """A page in a context of its own (closed with the ``contexts`` fixture), its
    errors collected by ``console`` under ``name``."""
    context = browser.new_context(viewport=viewport, reduced_motion="reduce")
    contexts.append(context)
    return console.watch(context.new_page(), name)


def received_frames(page: Page) -> list[str]:
    """A list that gathers, as text, every websocket frame ``page`` receives from now on."""
    frames: list[str] = []

    def on_socket(ws: WebSocket) -> None:
        ws.on(
            "framereceived",
            lambda payload: frames.append(
                payload if isinstance(payload, str) else payload.decode()
            ),
        )

    page.on("websocket", on_socket)
    return frames


@pytest.fixture
def console() -> Console:
    """Collects console errors; tests assert there are none."""
    return Console()


@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:
    """A list the test appends browser contexts to; all closed at the end."""
    opened: list[BrowserContext] = []
    try:
        yield opened
    finally:
        for context in opened:
            context.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """docs/screenshots/, where the test run writes the page's pictures."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture
def module_page(browser: Browser, contexts: list[BrowserContext], server: ServerProcess) -> Page:
    """A page of the served site, where the page's modules can be imported."""
    context = browser.new_context()
    contexts.append(context)
    page = context.new_page()
    page.goto(f"{server.base}/#/")
    return page
