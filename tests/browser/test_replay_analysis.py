"""The replay page's analysis: the chance-to-win graph, the mistakes in the move list
and the bot's move (client/web/js/chancegraph.js)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api
from tests.browser.test_replay import play_to_the_end

# The graph's geometry (chancegraph.js): its viewBox's width, the lines from edge to edge.
WIDTH, LEFT, RIGHT = 600, 0, 0


def analysis_done(api: Api, game_id: str) -> dict[str, Any]:
    """The game's analysis, asked for, once the server's bots runner has done it."""
    assert api.http.post(f"/api/games/{game_id}/analysis").is_success
    for _ in range(1200):
        body: dict[str, Any] = api.http.get(f"/api/games/{game_id}/analysis").json()
        if body["status"] == "done":
            return body
        time.sleep(0.1)
    raise AssertionError(f"{game_id} was not analysed")


def test_a_finished_games_replay_draws_the_chance_graph_and_a_click_moves_the_replay(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    screenshots: Path,
) -> None:
    """A finished game's replay draws one dashed, coloured line per seat, marks the
    analysis's mistakes in the move list, jumps to the version under a click on the
    graph, shows the bot's move on B, and fits a phone's width."""
    game_id = play_to_the_end(api, seed=31)
    analysis = analysis_done(api, game_id)
    versions = len(analysis["seats"][0]) - 1
    page = open_page(browser, contexts, console, "replay-analysis")
    page.goto(f"{server.base}/#/replay/{game_id}")
    graph = page.locator("#chance-graph")
    expect(graph).to_be_visible()
    lines = page.locator("#chance-graph .chance-line")
    expect(lines).to_have_count(2)
    dashes = {lines.nth(s).get_attribute("stroke-dasharray") for s in range(2)}
    colours = {lines.nth(s).get_attribute("stroke") for s in range(2)}
    assert len(dashes) == 2 and len(colours) == 2
    expect(page.locator(".chance-legend li")).to_have_count(2)
    expect(page.locator(".move.mistake")).to_have_count(len(analysis["mistakes"]))

    box = graph.bounding_box()
    assert box is not None
    share = 0.7
    page.mouse.click(box["x"] + box["width"] * share, box["y"] + box["height"] / 2)
    expected = round((share * WIDTH - LEFT) / (WIDTH - LEFT - RIGHT) * versions)
    expect(page.locator("#table")).to_have_attribute("data-version", str(expected))
    expect(page.locator("#chance-cursor")).to_have_attribute("data-version", str(expected))
    page.screenshot(path=str(screenshots / "replay-analysis.png"))

    page.locator("body").press("b")
    expect(page.locator("#replay-best")).to_be_visible()
    expect(page.locator("#replay-best")).to_contain_text("would play")
    expect(page.locator("#replay-best-toggle")).to_have_attribute("aria-pressed", "true")

    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the graph fits
    box = graph.bounding_box()
    assert box is not None and 0 < box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def bots_duel_to_the_end(api: Api) -> str:
    """A Duel between two greedy bots played by the server to its end; returns its id."""
    game_id = api.new_game(variant="duel")
    api.add_bot(game_id, "greedy")
    api.add_bot(game_id, "greedy")
    for _ in range(1200):
        if api.view(game_id)["status"] == "finished":
            return game_id
        time.sleep(0.1)
    raise AssertionError(f"{game_id} did not end")


# The bot's moves whose pieces the test knows how to find on the table: per kind, the
# selectors of the pieces marked, and words the sentence must hold.
def suggested_pieces(action: dict[str, Any]) -> list[str]:
    kind = action["kind"]
    if kind == "take_three":
        return [f'[data-bank="{c}"]' for c in action["colors"]]
    if kind == "take_two":
        return [f'[data-bank="{action["color"]}"]']
    if kind in ("reserve", "buy") and "card" in action:
        return [f'[data-card="{action["card"]}"]']
    if kind in ("take_tokens", "use_privileges"):
        return [f'.cell[data-row="{r}"][data-col="{c}"]' for r, c in action["cells"]]
    return []


WORDS = {
    "take_three": "take ",
    "take_two": "take 2 ",
    "reserve": "reserve",
    "buy": "buy a level-",
    "take_tokens": "from the board",
    "use_privileges": "privilege",
}


@pytest.mark.parametrize("variant", ["classic", "duel"])
def test_the_bots_move_is_drawn_on_the_table_and_written_in_words_with_each_moves_time(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
    variant: str,
) -> None:
    """At a turn's start, B rings the pieces of the analysis's move on the table (its
    tokens, card or cells get data-suggested) and writes it with the log's words for
    cards and tokens, never the game's ids; B again takes the rings off. The move list
    shows each turn's time (m:ss), the time from its first event to its last."""
    game_id = play_to_the_end(api, seed=31) if variant == "classic" else bots_duel_to_the_end(api)
    analysis = analysis_done(api, game_id)
    version, action = next(
        (int(v), a)
        for v, a in sorted(analysis["best"].items(), key=lambda va: int(va[0]))
        if suggested_pieces(a)
    )
    page = open_page(browser, contexts, console, f"replay-best-{variant}")
    page.goto(f"{server.base}/#/replay/{game_id}/{version}")
    expect(page.locator("#table")).to_have_attribute("data-version", str(version))
    expect(page.locator("#chance-graph")).to_be_visible()
    page.locator("body").press("b")
    best = page.locator("#replay-best")
    expect(best).to_contain_text("would play")
    expect(best).to_have_attribute("data-kind", action["kind"])
    expect(best).to_contain_text(WORDS[action["kind"]])
    text = best.inner_text()
    internals = ["·", "gold cell", "cells", "[", *([action["card"]] if "card" in action else [])]
    for internal in internals:
        assert internal not in text, (internal, text)
    for selector in suggested_pieces(action):
        expect(page.locator(f"{selector}[data-suggested]").first).to_be_visible()
    page.locator("body").press("b")
    expect(page.locator("[data-suggested]")).to_have_count(0)

    events = {e["version"]: e for e in api.events(game_id)}
    lines = page.locator("#move-list .move")
    first = lines.nth(0)  # the first turn: from the game's start to its end
    times = page.locator("#move-list .move-time")
    expect(times.first).to_be_visible()
    turns = lines.count()
    assert times.count() == turns  # every turn of a finished game is over
    began = int(first.get_attribute("data-start") or 0)
    ended = int(first.get_attribute("data-version") or 0)
    spent = _ms(events[ended]["at"]) - _ms(events[began]["at"])
    expect(times.first).to_have_attribute("data-ms", str(spent))
    for text in times.all_inner_texts():
        assert re.fullmatch(r"\d+:\d\d", text), text


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


@pytest.fixture
def lone_server(redis_server: str, server_logs: Path) -> Iterator[ServerProcess]:
    """A server of its own, on a Redis database no other test's server uses, that
    analyses nothing itself (SPLENDOR_ANALYSERS=0): analysis on request, by a
    ``splendor analyse`` worker."""
    parts = urlsplit(redis_server)
    url = urlunsplit(parts._replace(path="/7"))
    with redis.Redis.from_url(url) as client:
        client.flushdb()
    process = ServerProcess(
        url, server_logs, env={"SPLENDOR_ANALYSERS": "0", "SPLENDOR_ANALYSIS": "request"}
    ).start()
    try:
        yield process
    finally:
        process.stop()


def test_the_replays_button_asks_for_the_analysis_shows_the_queue_then_the_graph(
    browser: Browser, contexts: list[BrowserContext], lone_server: ServerProcess, console: Console
) -> None:
    """A finished game not analysed: the replay says so beside a button; pressed, it
    asks for the analysis and shows the queue (no game ahead, no analyser running);
    once a `splendor analyse` worker starts on the Redis, the graph replaces it."""
    api = Api(lone_server.base)
    try:
        game_id = play_to_the_end(api, seed=32)
    finally:
        api.close()
    page = open_page(browser, contexts, console, "replay-request")
    page.goto(f"{lone_server.base}/#/replay/{game_id}")
    status = page.locator("#chance-status")
    expect(status).to_have_text("This game has not been analysed.")
    button = page.locator("#chance-request")
    expect(button).to_be_visible()
    button.click()
    expect(status).to_have_text("Queued: 0 games ahead; no analyser is running at the moment.")
    expect(button).to_be_hidden()
    env = {**os.environ, "REDIS_URL": lone_server.redis_url, "SPLENDOR_ANALYSIS_BUDGET": "2"}
    worker = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "analyse", "--workers", "1"],
        env=env,
        stdout=subprocess.DEVNULL,
    )
    try:
        expect(page.locator("#chance-graph")).to_be_visible(timeout=60_000)
        expect(page.locator("#chance-graph .chance-line")).to_have_count(2)
        expect(status).to_be_empty()
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(30)
