"""The live page through a Redis outage under its running server: "Connection problem"
instead of "Live", at most one request a second while it lasts, and the move made
meanwhile sent again with its command id once the server is back, applied once."""

from __future__ import annotations

import json
import time
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Request, WebSocket, expect

from server.store.embedded_redis import EmbeddedRedis
from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, give_seat, public_part, read_table, wait_version

# Chromium logs the refused sockets while the server can't serve.
WHILE_DOWN = ("WebSocket connection to", "Failed to load resource")
DOWN_FOR_S = 7.0


def test_page_rides_out_a_redis_outage_and_sends_its_move_once_when_back(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    tmp_path: Path,
    server_logs: Path,
) -> None:
    """With Redis stopped under the server, the badge says "Connection problem", the page makes at most one request a second, and the move clicked meanwhile reaches the game exactly once, with one command id, sent once after Redis is back."""
    redis = EmbeddedRedis(tmp_path / "redis").start()
    redis_port = redis.port
    server = ServerProcess(redis.url, server_logs).start()
    api = Api(server.base)
    try:
        game_id = api.new_game(seed=11)
        tokens = [api.join(game_id, "Ana"), api.join(game_id, "Ben")]
        seat = api.view(game_id)["turn"]["seat"]
        take = next(
            a for a in api.view(game_id, tokens[seat])["legal"] if a["kind"] == "take_three"
        )

        page = open_page(browser, contexts, console, "player")
        requests: list[tuple[float, str]] = []
        commands: list[tuple[float, dict[str, object]]] = []

        def on_request(request: Request) -> None:
            requests.append((time.monotonic(), request.url))

        def on_socket(ws: WebSocket) -> None:
            requests.append((time.monotonic(), ws.url))

            def on_frame(payload: str | bytes) -> None:
                frame = json.loads(payload)
                if frame.get("type") == "command":
                    commands.append((time.monotonic(), frame))

            ws.on("framesent", on_frame)

        page.on("request", on_request)
        page.on("websocket", on_socket)
        give_seat(page, server.base, game_id, seat, tokens[seat], "Ana")
        page.goto(f"{server.base}/#/play/{game_id}")
        badge = page.locator("#connection")
        expect(badge).to_have_attribute("data-state", "live")
        # The back-off: doubling from 1 s to 15 s, stretched by up to half at random.
        delays = page.evaluate(
            """async () => {
              const { retryDelay } = await import('/js/live.js');
              return [0, 1, 2, 3, 4, 5, 9].map((n) => [retryDelay(n, () => 0), retryDelay(n, () => 1)]);
            }"""
        )
        assert delays == [[b, b * 1.5] for b in (1000, 2000, 4000, 8000, 15000, 15000, 15000)]
        before = api.view(game_id)["version"]
        wait_version(page, before)
        for color in take["colors"]:
            page.click(f'button[data-bank="{color}"]')

        redis.stop()
        page.wait_for_timeout(0)  # events so far are dispatched before the mark
        down_at = time.monotonic()
        page.click('[data-key="take"]')
        expect(badge).to_have_attribute("data-state", "problem", timeout=15_000)
        expect(badge).to_have_text("Connection problem")
        page.wait_for_timeout(max(0.0, DOWN_FOR_S - (time.monotonic() - down_at)) * 1000)
        up_at = time.monotonic()
        while_down = [url for at, url in requests if down_at <= at <= up_at]
        assert len(while_down) <= int(up_at - down_at) + 1, while_down
        assert len(while_down) >= 2, "the page kept trying"

        redis = EmbeddedRedis(tmp_path / "redis", port=redis_port).start()
        expect(badge).to_have_attribute("data-state", "live", timeout=30_000)
        wait_version(page, before + 1, timeout=15_000)
        page.wait_for_timeout(500)  # a second sending would show in the frames by now

        ids = {frame["command_id"] for _, frame in commands}
        assert len(ids) == 1, commands
        assert [frame["action"] for _, frame in commands] == [take] * len(commands)
        assert len([at for at, _ in commands if at > up_at]) == 1, commands
        assert len(commands) <= 2  # once before, unanswered (if the socket was still up)
        taken = [
            e for e in api.events(game_id) if e["type"] == "TokensTaken" and e["version"] > before
        ]
        assert len(taken) == 1 and taken[0]["seat"] == seat
        assert api.view(game_id)["turn"]["seat"] != seat
        assert read_table(page) == public_part(api.view(game_id, tokens[seat]))
        assert console.unexpected(WHILE_DOWN) == []
    finally:
        api.close()
        server.stop()
        redis.stop()
