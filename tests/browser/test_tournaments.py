"""The tournaments' pages (docs/tournaments.md "Pages"): an arena created with the form,
joined by two accounts who are taken to their seats, its standings changing live on a
spectator's page when the game ends; a Swiss round's pairings with its bye; a player's
tournament history on the profile; the tournament page in Persian on a 360 px phone;
pause, resume and leave, a refusal in words; a pause for a forfeit told apart from a
chosen one, and a finished arena without paused tags nor an empty games panel; a
finished Swiss's podium.

The module runs its own server on its own Redis: its tournaments run for minutes, and
the other browser tests' lists and tables never see them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from server.games.lobby import Lobby
from server.games.service import GameService
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore
from server.tournaments.director import Director
from server.tournaments.service import TournamentService
from tests.browser.conftest import DESKTOP, Console, ServerProcess
from tests.browser.pages import Api, seat_record
from tests.browser.strategy import choose, kind_of
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_accounts import PASSWORD, new_username

PHONE_360: ViewportSize = {"width": 360, "height": 740}
LIVE_MS = 20_000  # the longest wait for a change pushed by the server (a busy machine)
DASH = "\u2013"  # between the two players of a pairing
PERSIAN_DIGITS = "".join(chr(0x06F0 + d) for d in range(10))


def persian(n: int) -> str:
    """``n`` in Persian digits, as the page writes numbers in Persian."""
    return "".join(PERSIAN_DIGITS[int(d)] for d in str(n))


@pytest.fixture(scope="module")
def tserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server process of this module's own, on a Redis of its own."""
    redis = EmbeddedRedis(tmp_path_factory.mktemp("tournament-redis"))
    redis.start()
    process = ServerProcess(redis.url, tmp_path_factory.mktemp("tournament-logs"))
    try:
        yield process.start()
    finally:
        process.stop()
        redis.stop()


class Account:
    """An account signed up over HTTP, with its session for the test's own requests."""

    def __init__(self, base: str, prefix: str) -> None:
        self.base = base
        self.name = new_username(prefix)
        self.http = httpx.Client(base_url=base, timeout=10)
        r = self.http.post("/api/accounts", json={"username": self.name, "password": PASSWORD})
        assert r.status_code == 201, r.text

    def post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        r = self.http.post(path, json=body) if body is not None else self.http.post(path)
        assert r.status_code in (200, 201), r.text
        answer: dict[str, Any] = r.json()
        return answer

    def page(
        self,
        browser: Browser,
        contexts: list[BrowserContext],
        console: Console,
        viewport: ViewportSize = DESKTOP,
    ) -> Page:
        """A browser page logged in to this account (its session's cookies)."""
        context = browser.new_context(viewport=viewport, reduced_motion="reduce")
        contexts.append(context)
        context.add_cookies(
            [
                {"name": c.name, "value": c.value or "", "url": self.base}
                for c in self.http.cookies.jar
            ]
        )
        return console.watch(context.new_page(), self.name)

    def close(self) -> None:
        self.http.close()


def guest_page(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    name: str,
    viewport: ViewportSize = DESKTOP,
) -> Page:
    context = browser.new_context(viewport=viewport, reduced_motion="reduce")
    contexts.append(context)
    return console.watch(context.new_page(), name)


def tournament_of(base: str, tournament_id: str) -> dict[str, Any]:
    r = httpx.get(f"{base}/api/tournaments/{tournament_id}", timeout=10)
    assert r.status_code == 200, r.text
    found: dict[str, Any] = r.json()
    return found


def standing(page: Page, player: str) -> Any:
    return page.locator(f'#standings tr[data-player="{player}"]')


def test_an_arena_s_standings_change_live_when_its_game_ends(
    browser: Browser, contexts: list[BrowserContext], console: Console, tserver: ServerProcess
) -> None:
    """Ana creates an arena with the form (at once, 10 min, 10+5) and joins it; Ben joins
    on his page and both are taken to their seats at once; Ana's table names the
    tournament with a link and counts down to its end; a guest's tournament page lists
    the game to watch, and when Ana resigns after two moves each, both tables take their
    players to their next game (also a button away on the tournament's page), and the
    guest sees Ben with 2 points and both with one game, pushed over the socket (the
    page never reloads); axe finds no serious violation on the list nor on the arena's
    page."""
    ana, ben = Account(tserver.base, "Ana"), Account(tserver.base, "Ben")
    api = Api(tserver.base)
    try:
        host = ana.page(browser, contexts, console)
        host.goto(f"{tserver.base}/#/tournaments")
        expect(host.locator("#new-tournament")).to_be_visible()
        found = serious_violations(host, "the tournaments' list")
        host.fill("#tournament-name", "Evening arena")
        host.check("#kind-arena")
        host.select_option("#tournament-variant", "classic")
        host.select_option("#tournament-clock", "10+5")
        host.select_option("#tournament-duration", "10")
        host.select_option("#tournament-start", "0")
        host.click("#create-tournament")
        host.wait_for_url("**/#/tournament/*")
        tournament_id = host.url.rsplit("/", 1)[1]
        expect(host.locator("#tournament-title")).to_have_text("Evening arena")
        expect(host.locator("#tournament-kind")).to_have_text("Arena · Splendor · 10+5")
        expect(host.locator("#tournament-status")).to_have_text("Running", timeout=LIVE_MS)
        expect(host.locator("#tournament-countdown")).to_contain_text("Ends in")
        host.click("#tournament-join")
        expect(host.locator("#tournament-state")).to_have_text(
            "Waiting for an opponent: your next game starts as soon as one is free."
        )
        expect(standing(host, ana.name)).to_have_attribute("data-points", "0")

        guest = guest_page(browser, contexts, console, "guest")
        guest.goto(f"{tserver.base}/#/tournament/{tournament_id}")
        expect(guest.locator("#tournament-connection")).to_have_attribute("data-state", "live")
        expect(guest.locator("#tournament-log-in")).to_be_visible()
        guest.evaluate("window.stayed = true")

        rival = ben.page(browser, contexts, console)
        rival.goto(f"{tserver.base}/#/tournament/{tournament_id}")
        expect(rival.locator("#tournament-connection")).to_have_attribute("data-state", "live")
        rival.click("#tournament-join")
        # Paired at once: both go to their seats by themselves.
        host.wait_for_url("**/#/play/*", timeout=LIVE_MS)
        rival.wait_for_url("**/#/play/*", timeout=LIVE_MS)
        game_id = host.url.rsplit("/", 1)[1]
        assert rival.url.endswith(f"/#/play/{game_id}")
        watch = guest.locator(f'#games-in-play .game-row[data-game="{game_id}"]')
        expect(watch).to_be_visible(timeout=LIVE_MS)
        expect(watch.locator('a[data-key="watch"]')).to_have_attribute("href", f"#/watch/{game_id}")

        line = host.locator("#tournament-line")
        expect(line.locator("a")).to_have_text("Evening arena")
        expect(line.locator("a")).to_have_attribute("href", f"#/tournament/{tournament_id}")
        expect(line.locator("#tournament-countdown")).to_contain_text("Ends in")

        # Two moves each (over HTTP, with each page's own seat), then Ana resigns on her page.
        for page in (host, rival):
            expect(page.locator("#table")).to_have_attribute("data-status", "live")
        tokens = {
            seat_record(p, game_id)["seat"]: seat_record(p, game_id)["token"] for p in (host, rival)
        }
        catalog = api.catalog()
        used: set[str] = set()
        for _ in range(4):
            seat = api.view(game_id)["turn"]["seat"]
            action = choose(api.view(game_id, tokens[seat]), catalog, used)
            used.add(kind_of(action))
            api.command(game_id, tokens[seat], action)
        host.click("#resign-game")
        host.click("#resign-confirm")
        # Both wait again, the only two: paired again at once, each table takes its
        # player to the next game's seat.
        for page in (host, rival):
            page.wait_for_url(
                lambda url: "/#/play/" in url and not url.endswith(game_id), timeout=LIVE_MS
            )
        assert host.url == rival.url
        next_game = host.url.rsplit("/", 1)[1]
        # Back on the tournament's page, the game in play is a button away.
        rival.goto(f"{tserver.base}/#/tournament/{tournament_id}")
        expect(rival.locator("#your-game")).to_have_attribute(
            "data-game", next_game, timeout=LIVE_MS
        )
        expect(rival.locator("#tournament-state")).to_have_text(
            "Your game is in play.", timeout=LIVE_MS
        )
        rival.click("#your-game")
        rival.wait_for_url(f"**/#/play/{next_game}")
        expect(rival.locator(".who-am-i")).to_have_text(f"Playing as {ben.name}")
        expect(host.locator("#table")).to_have_attribute("data-status", "live")
        expect(host.locator(".who-am-i")).to_have_text(f"Playing as {ana.name}")

        expect(standing(guest, ben.name)).to_have_attribute("data-points", "2", timeout=LIVE_MS)
        expect(standing(guest, ben.name)).to_have_attribute("data-games", "1")
        expect(standing(guest, ben.name)).to_have_attribute("data-rank", "1")
        expect(standing(guest, ana.name)).to_have_attribute("data-points", "0")
        expect(standing(guest, ana.name)).to_have_attribute("data-games", "1")
        expect(guest.locator(f'#games-over .game-row[data-game="{game_id}"]')).to_contain_text(
            f"{ben.name} won"
        )
        assert guest.evaluate("window.stayed") is True, "the guest's page reloaded"
        found += serious_violations(guest, "an arena's page")
        assert found == []
        assert console.unexpected() == []
    finally:
        api.close()
        ana.close()
        ben.close()


@pytest.fixture(scope="module")
def swiss(tserver: ServerProcess) -> Iterator[dict[str, Any]]:
    """A Swiss of 3 rounds joined by three accounts before it starts, once its first
    round is paired: {"id", "players": [names], "accounts": {name: Account}, "game":
    the round's game}."""
    players = [Account(tserver.base, p) for p in ("Cid", "Dot", "Eli")]
    try:
        made = players[0].post(
            "/api/tournaments",
            {
                "kind": "swiss",
                "variant": "duel",
                "clock": {"initial": 600, "increment": 5},
                "starts_in_s": 8,
                "rounds": 3,
                "name": "Swiss evening",
            },
        )
        summary = made["tournament"]
        for player in players:
            player.post(f"/api/tournaments/{summary['id']}/join")
        now_ms = time.time() * 1000
        assert now_ms < summary["starts_ms"], "the players joined after the start"
        deadline = time.monotonic() + 30
        while True:
            found = tournament_of(tserver.base, summary["id"])
            if found["tournament"]["round"] >= 1 and found["games"]:
                break
            assert time.monotonic() < deadline, f"round 1 was never paired: {found}"
            time.sleep(0.2)
        yield {
            "id": summary["id"],
            "players": [p.name for p in players],
            "accounts": {p.name: p for p in players},
            "game": found["games"][0],
        }
    finally:
        for player in players:
            player.close()


def test_a_swiss_round_s_pairings_and_its_bye_show(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    tserver: ServerProcess,
    swiss: dict[str, Any],
    screenshots: Path,
) -> None:
    """A guest's page of a Swiss of three shows "Round 1 of 3", the round's one game with
    its two players (first seat first) and Watch, the third player's bye as scored as a
    win (on their own page too), and the standings with their Buchholz and
    Sonneborn-Berger columns; axe finds no serious violation there."""
    page = guest_page(browser, contexts, console, "guest")
    page.goto(f"{tserver.base}/#/tournament/{swiss['id']}")
    expect(page.locator("#tournament-kind")).to_have_text("Swiss · Splendor Duel · 10+5 · 3 rounds")
    expect(page.locator("#tournament-round")).to_have_text("Round 1 of 3")
    pairings = page.locator("#pairings")
    expect(pairings.locator(".panel-title")).to_have_text("Pairings of round 1")
    game = swiss["game"]
    row = pairings.locator(f'.game-row[data-game="{game["game_id"]}"]')
    expect(row.locator(".pairing")).to_have_text(f"{game['first']} {DASH} {game['second']}")
    expect(row.locator('a[data-key="watch"]')).to_be_visible()
    (bye,) = [p for p in swiss["players"] if p not in (game["first"], game["second"])]
    expect(page.locator("#bye")).to_have_text(f"Bye, scored as a win: {bye}")
    expect(page.locator("#not-paired")).to_have_count(0)
    header = page.locator("#standings thead th")
    expect(header).to_have_count(6)
    expect(header.nth(4).locator("abbr")).to_have_attribute(
        "title", "Buchholz: the sum of the opponents' points"
    )
    expect(page.locator("#standings tbody tr")).to_have_count(3)
    assert serious_violations(page, "a Swiss's page") == []
    page.screenshot(path=str(screenshots / "tournament-swiss.png"), full_page=True)
    own = swiss["accounts"][bye].page(browser, contexts, console)
    own.goto(f"{tserver.base}/#/tournament/{swiss['id']}")
    expect(own.locator("#tournament-state")).to_have_text(
        "You have the bye this round: it scores as a win. Your next game comes with the next round."
    )
    assert console.unexpected() == []


def test_the_profile_lists_the_player_s_tournaments(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    tserver: ServerProcess,
    swiss: dict[str, Any],
) -> None:
    """A player's profile lists the Swiss they play in: its name linking to it, their
    place among the three "so far" while it runs, their points, and what it is."""
    player = swiss["players"][0]
    page = guest_page(browser, contexts, console, "guest")
    page.goto(f"{tserver.base}/#/player/{player}")
    row = page.locator(f'#player-tournaments .game-row[data-tournament="{swiss["id"]}"]')
    expect(row).to_be_visible()
    found = tournament_of(tserver.base, swiss["id"])
    mine = next(s for s in found["standings"] if s["player"] == player)
    rank_words = {1: "1st", 2: "2nd", 3: "3rd"}[mine["rank"]]
    expect(row.locator(".outcome")).to_have_text(f"{rank_words} of 3 so far")
    expect(row).to_have_attribute("data-points", str(mine["points"]))
    expect(row.locator("a.tournament-name")).to_have_text("Swiss evening")
    expect(row.locator("a.tournament-name")).to_have_attribute(
        "href", f"#/tournament/{swiss['id']}"
    )
    expect(row).to_contain_text("Swiss · Splendor Duel · 10+5 · 3 rounds")
    assert console.unexpected() == []


# Every visible element of the page's <main> that reaches past the screen's sides.
OUT_OF_SCREEN = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('main *')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || el.closest('.table-scroll')) continue;
    if (r.left < -0.5 || r.right > width + 0.5) out.push(`${el.tagName}.${el.className}: ${r.left}-${r.right}`);
  }
  const scroll = document.querySelector('.table-scroll');
  if (scroll && scroll.scrollWidth > scroll.clientWidth + 0.5) out.push('the standings scroll sideways');
  return out;
}"""


def test_the_tournament_page_fits_a_360_px_phone_in_persian(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    tserver: ServerProcess,
    swiss: dict[str, Any],
    screenshots: Path,
) -> None:
    """In Persian on a 360 px phone the Swiss's page is right to left, nothing reaches
    past the screen's sides (the six columns of the standings included), the head's
    round and the standings' numbers are in Persian digits, and a guest is offered to
    log in to join."""
    page = guest_page(browser, contexts, console, "guest", PHONE_360)
    page.goto(f"{tserver.base}/?lang=fa#/tournament/{swiss['id']}")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("#standings tbody tr")).to_have_count(3)
    expect(page.locator("#pairings .game-row")).to_have_count(1)
    assert page.evaluate(OUT_OF_SCREEN) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    expect(page.locator("#tournament-round")).to_contain_text(persian(1))
    expect(page.locator("#tournament-round")).to_contain_text(persian(3))
    points = page.locator("#standings tbody .standing-points").all_inner_texts()
    assert all(p and all(c in PERSIAN_DIGITS for c in p) for p in points), points
    head = page.locator("#tournament-head").bounding_box()
    title = page.locator("#tournament-title").bounding_box()
    assert head and title and title["x"] + title["width"] > head["x"] + head["width"] - 40, (
        "the title does not start at the right"
    )
    expect(page.locator("#tournament-log-in")).to_be_visible()
    page.screenshot(path=str(screenshots / "tournament-phone-fa.png"))
    assert console.unexpected() == []


def test_a_player_pauses_resumes_and_leaves_and_refusals_are_in_words(
    browser: Browser, contexts: list[BrowserContext], console: Console, tserver: ServerProcess
) -> None:
    """An account that already has two tournaments of its own planned is told so in words
    by the form; on one of them it joins, pauses (its row marked paused, Resume
    offered), resumes, and leaves after confirming (its row marked left, no button left)."""
    fay = Account(tserver.base, "Fay")
    try:
        made = [
            fay.post(
                "/api/tournaments",
                {
                    "kind": "arena",
                    "variant": "duel",
                    "clock": {"initial": 180, "increment": 2},
                    "starts_in_s": 3600,
                    "duration_min": 30,
                },
            )["tournament"]
            for _ in range(2)
        ]
        page = fay.page(browser, contexts, console)
        page.goto(f"{tserver.base}/#/tournaments")
        expect(
            page.locator(f'#upcoming-tournaments [data-tournament="{made[0]["id"]}"]')
        ).to_be_visible()
        page.click("#create-tournament")
        expect(page.locator("#create-tournament-error")).to_have_text(
            "You may have at most 2 tournaments of yours planned or running."
        )
        page.click(f'#upcoming-tournaments [data-tournament="{made[0]["id"]}"] a[data-key="open"]')
        expect(page.locator("#tournament-countdown")).to_contain_text("Starts in")
        page.click("#tournament-join")
        expect(page.locator("#tournament-state")).to_have_text(
            "You are in: your first game comes when the tournament starts."
        )
        page.click("#tournament-pause")
        expect(standing(page, fay.name)).to_have_attribute("data-paused", "true")
        expect(standing(page, fay.name).locator(".tag-paused")).to_have_text("paused")
        expect(page.locator("#tournament-state")).to_have_text(
            "Paused: you are not paired until you resume."
        )
        page.click("#tournament-join")  # Resume
        expect(standing(page, fay.name)).to_have_attribute("data-paused", "false")
        page.click("#tournament-leave")
        expect(page.locator("#tournament-leave-confirm")).to_be_visible()
        page.click("#tournament-leave-yes")
        expect(standing(page, fay.name)).to_have_attribute("data-left", "true")
        expect(standing(page, fay.name).locator(".tag-left")).to_have_text("left")
        expect(page.locator("#tournament-state")).to_have_text(
            "You left this tournament: your points stay in the standings."
        )
        expect(page.locator("#tournament-you button")).to_have_count(0)
        assert console.unexpected(("409",)) == []
    finally:
        fay.close()


def test_a_finished_swiss_shows_its_podium(
    browser: Browser, contexts: list[BrowserContext], console: Console, tserver: ServerProcess
) -> None:
    """A Swiss of two ends after its one possible round (no rematch): once the game is
    resigned after two moves each, a guest's page, open since the round began, shows
    it finished with the winner on the podium's first place and the loser second."""
    gil, hal = Account(tserver.base, "Gil"), Account(tserver.base, "Hal")
    api = Api(tserver.base)
    try:
        summary = gil.post(
            "/api/tournaments",
            {
                "kind": "swiss",
                "variant": "classic",
                "clock": {"initial": 600, "increment": 5},
                "starts_in_s": 5,
                "rounds": 3,
            },
        )["tournament"]
        for player in (gil, hal):
            player.post(f"/api/tournaments/{summary['id']}/join")
        assert time.time() * 1000 < summary["starts_ms"], "the players joined after the start"
        page = guest_page(browser, contexts, console, "guest")
        page.goto(f"{tserver.base}/#/tournament/{summary['id']}")
        row = page.locator("#pairings .game-row")
        expect(row).to_have_count(1, timeout=LIVE_MS)
        game_id = row.get_attribute("data-game")
        assert game_id
        tokens: dict[int, str] = {}
        for player in (gil, hal):
            seat = player.post(f"/api/games/{game_id}/seat-token")
            tokens[seat["seat"]] = seat["token"]
        catalog = api.catalog()
        used: set[str] = set()
        for _ in range(4):
            turn = api.view(game_id)["turn"]["seat"]
            action = choose(api.view(game_id, tokens[turn]), catalog, used)
            used.add(kind_of(action))
            api.command(game_id, tokens[turn], action)
        first = api.view(game_id)["turn"]["seat"]
        api.command(game_id, tokens[first], {"kind": "resign"})
        names = {s["seat"]: s["account"] for s in api.summary(game_id)["seats"]}
        expect(page.locator("#tournament-status")).to_have_text("Finished", timeout=LIVE_MS)
        podium = page.locator("#podium li")
        expect(podium).to_have_count(2)
        expect(podium.nth(0)).to_have_attribute("data-player", names[1 - first])
        expect(podium.nth(0).locator(".podium-place")).to_have_text("1st place")
        expect(podium.nth(1)).to_have_attribute("data-player", names[first])
        assert console.unexpected() == []
    finally:
        api.close()
        gil.close()
        hal.close()


def test_a_made_up_name_is_shown_in_the_reader_s_words(
    browser: Browser, contexts: list[BrowserContext], console: Console, tserver: ServerProcess
) -> None:
    """A tournament created without a name (as every scheduled one is) has none (its
    summary's name is ""), and the list and its page name it in the reader's words:
    "Arena Splendor Duel 3+2" in Spanish; its socket's badge is "En directo", the
    page's updates, not the "En juego" of a game in play."""
    ada = Account(tserver.base, "Ada")
    try:
        body = {"kind": "arena", "variant": "duel", "clock": {"initial": 180, "increment": 2}}
        made = ada.post("/api/tournaments", {**body, "starts_in_s": 3600, "duration_min": 30})
        summary = made["tournament"]
        assert summary["name"] == ""
        page = guest_page(browser, contexts, console, "guest")
        page.goto(f"{tserver.base}/?lang=es#/tournaments")
        row = page.locator(f'#upcoming-tournaments [data-tournament="{summary["id"]}"]')
        expect(row.locator(".tournament-name")).to_have_text("Arena Splendor Duel 3+2")
        page.goto(f"{tserver.base}/?lang=es#/tournament/{summary['id']}")
        expect(page.locator("#tournament-title")).to_have_text("Arena Splendor Duel 3+2")
        # The socket's badge says the page is up to date, not that a game is in play.
        expect(page.locator("#tournament-connection")).to_have_text("En directo")
        assert console.unexpected() == []
    finally:
        ada.close()


def test_a_tournament_game_s_end_leads_back_to_the_tournament(
    browser: Browser, contexts: list[BrowserContext], console: Console, tserver: ServerProcess
) -> None:
    """In an arena's game Abort asks first, saying that an aborted game is lost and
    pauses; at the game's end the result banner and the end dialog offer the way back
    to the tournament, not a rematch outside it (here Ivo won and waits alone: Jon
    paused during the game); Ivo's profile counts his one game in agreeing words."""
    ivo, jon = Account(tserver.base, "Ivo"), Account(tserver.base, "Jon")
    api = Api(tserver.base)
    try:
        body = {"kind": "arena", "variant": "classic", "clock": {"initial": 600, "increment": 5}}
        made = jon.post("/api/tournaments", {**body, "starts_in_s": 0, "duration_min": 10})
        tournament_id = made["tournament"]["id"]
        page = ivo.page(browser, contexts, console)
        page.goto(f"{tserver.base}/#/tournament/{tournament_id}")
        expect(page.locator("#tournament-status")).to_have_text("Running", timeout=LIVE_MS)
        expect(page.locator("#tournament-connection")).to_have_attribute("data-state", "live")
        page.click("#tournament-join")
        expect(page.locator("#tournament-state")).to_contain_text("Waiting for an opponent")
        jon.post(f"/api/tournaments/{tournament_id}/join")
        page.wait_for_url("**/#/play/*", timeout=LIVE_MS)
        expect(page.locator("#tournament-line")).to_be_visible()
        page.click("#abort-game")
        expect(page.locator("#resign-dialog")).to_contain_text("Abort this tournament game?")
        expect(page.locator("#resign-dialog")).to_contain_text("counts as a loss for you")
        page.click("#resign-cancel")
        expect(page.locator("#table")).to_have_attribute("data-status", "live")
        jon.post(f"/api/tournaments/{tournament_id}/pause")
        game_id = page.url.rsplit("/", 1)[1]
        seat = jon.post(f"/api/games/{game_id}/seat-token")
        api.command(game_id, seat["token"], {"kind": "resign"})
        expect(page.locator("#result-banner")).to_be_visible(timeout=LIVE_MS)
        back = f"#/tournament/{tournament_id}"
        expect(page.locator("#back-to-tournament-banner")).to_have_attribute("href", back)
        expect(page.locator("#back-to-tournament-end")).to_have_attribute("href", back)
        expect(page.locator("#rematch-game, #end-rematch")).to_have_count(0)
        # The profile counts the game in words that agree with one game (Spanish).
        page.goto(f"{tserver.base}/?lang=es#/player/{ivo.name}")
        expect(page.locator("#record")).to_contain_text("1 partida en total, 1 victoria")
        assert console.unexpected() == []
    finally:
        api.close()
        ivo.close()
        jon.close()


def test_a_game_in_play_at_an_arena_s_end_is_told_it_no_longer_counts(
    browser: Browser, contexts: list[BrowserContext], console: Console, tserver: ServerProcess
) -> None:
    """The table of an arena's game counts down to the arena's end; when the countdown
    runs out with the game still in play (the page's clock moved past the end), the line
    says the game no longer counts instead of "Ending…" for good."""
    kit, lou = Account(tserver.base, "Kit"), Account(tserver.base, "Lou")
    try:
        body = {"kind": "arena", "variant": "classic", "clock": {"initial": 600, "increment": 5}}
        made = lou.post("/api/tournaments", {**body, "starts_in_s": 0, "duration_min": 10})
        tournament_id = made["tournament"]["id"]
        page = kit.page(browser, contexts, console)
        page.clock.install()
        page.goto(f"{tserver.base}/#/tournament/{tournament_id}")
        expect(page.locator("#tournament-status")).to_have_text("Running", timeout=LIVE_MS)
        expect(page.locator("#tournament-connection")).to_have_attribute("data-state", "live")
        page.click("#tournament-join")
        expect(page.locator("#tournament-state")).to_contain_text("Waiting for an opponent")
        lou.post(f"/api/tournaments/{tournament_id}/join")
        page.wait_for_url("**/#/play/*", timeout=LIVE_MS)
        expect(page.locator("#tournament-countdown")).to_contain_text("Ends in")
        # Past the arena's end by the page's clock, with room for the page's idea of the
        # server's time (taken from answers' Date headers: up to seconds behind on a busy
        # machine) and for the time the setup took since the arena was created.
        ends_ms = made["tournament"]["ends_ms"]
        page.clock.fast_forward(ends_ms - page.evaluate("Date.now()") + 15_000)
        expect(page.locator("#tournament-time-up")).to_have_text(
            "The arena's time is up: this game no longer counts in it.", timeout=LIVE_MS
        )
        expect(page.locator("#tournament-countdown")).to_have_count(0)
    finally:
        kit.close()
        lou.close()


def end_arena_elsewhere(redis_url: str, tournament_id: str, ends_ms: int) -> None:
    """A second server process's director, its clock at the arena's end, ends it on the
    same Redis (waiting its turn while the page's server holds the tournament's lease)."""

    async def run() -> None:
        client = aioredis.from_url(redis_url)
        try:
            tournaments = TournamentService(client, clock_ms=lambda: ends_ms)
            games = GameService(EventStore(client), Lobby(client))
            keeper = Director(client, tournaments, games, clock_ms=lambda: ends_ms)
            for _ in range(200):
                if await keeper.advance(tournament_id):
                    return
                await asyncio.sleep(0.05)
            raise AssertionError("the tournament's lease was never free")
        finally:
            await client.aclose()

    with ThreadPoolExecutor(1) as pool:  # the page's own event loop runs in this thread
        pool.submit(asyncio.run, run()).result()


def test_a_forfeits_pause_is_told_apart_and_a_finished_arena_shows_no_pauses(
    browser: Browser, contexts: list[BrowserContext], console: Console, tserver: ServerProcess
) -> None:
    """Pia aborts her first arena game and Quin then pauses by choice: Pia's part says
    she missed a game and her row is tagged so, Quin's row is tagged plain "paused";
    once the arena ends, no row is tagged paused and the empty "Games in progress"
    panel of the running arena is gone."""
    pia, quin = Account(tserver.base, "Pia"), Account(tserver.base, "Quin")
    api = Api(tserver.base)
    try:
        body = {"kind": "arena", "variant": "classic", "clock": {"initial": 600, "increment": 5}}
        made = quin.post("/api/tournaments", {**body, "starts_in_s": 0, "duration_min": 10})
        summary = made["tournament"]
        url = f"/api/tournaments/{summary['id']}"
        for player in (pia, quin):
            player.post(f"{url}/join")
        game_id = None
        for _ in range(200):  # the server's director pairs them within its next turns
            game_id = pia.http.get(url).json()["you"]["game_id"]
            if game_id:
                break
            time.sleep(0.1)
        assert game_id, "the arena never paired its two players"
        seat = pia.post(f"/api/games/{game_id}/seat-token")
        api.command(game_id, seat["token"], {"kind": "abort"})
        quin.post(f"{url}/pause")
        page = pia.page(browser, contexts, console)
        page.goto(f"{tserver.base}/#/tournament/{summary['id']}")
        expect(page.locator("#tournament-state")).to_have_text(
            "Paused: you missed a game. Resume to play on.", timeout=LIVE_MS
        )
        expect(standing(page, pia.name).locator(".tag-paused")).to_have_text(
            "paused: missed a game"
        )
        expect(standing(page, quin.name).locator(".tag-paused")).to_have_text("paused")
        expect(page.locator("#games-in-play")).to_contain_text("No game in progress.")
        end_arena_elsewhere(tserver.redis_url, summary["id"], summary["ends_ms"])
        expect(page.locator("#tournament-status")).to_have_text("Finished", timeout=LIVE_MS)
        expect(page.locator("#tournament-state")).to_have_text("The tournament is over.")
        expect(page.locator("#standings .tag-paused")).to_have_count(0)
        expect(page.locator("#games-in-play")).to_have_count(0)
        expect(page.locator("#games-over .game-row")).to_have_count(1)
        assert console.unexpected() == []
    finally:
        api.close()
        pia.close()
        quin.close()


def test_a_change_that_is_not_yours_leaves_your_buttons_in_place(
    browser: Browser, contexts: list[BrowserContext], console: Console, tserver: ServerProcess
) -> None:
    """On an upcoming arena's page, Hana's Join button has the focus; when Ivo joins (the
    standings change, pushed over the socket), her part of the page is not drawn again:
    the same button keeps the focus, so a click or a key press on it is never lost."""
    hana, ivo = Account(tserver.base, "Hana"), Account(tserver.base, "Ivo")
    try:
        body = {"kind": "arena", "variant": "duel", "clock": {"initial": 180, "increment": 2}}
        made = ivo.post("/api/tournaments", {**body, "starts_in_s": 3600, "duration_min": 30})
        tournament_id = made["tournament"]["id"]
        page = hana.page(browser, contexts, console)
        page.goto(f"{tserver.base}/#/tournament/{tournament_id}")
        expect(page.locator("#tournament-connection")).to_have_attribute("data-state", "live")
        page.focus("#tournament-join")
        page.evaluate("window.joinButton = document.querySelector('#tournament-join')")
        ivo.post(f"/api/tournaments/{tournament_id}/join")
        expect(standing(page, ivo.name)).to_be_visible(timeout=LIVE_MS)
        assert page.evaluate(
            "window.joinButton.isConnected && document.activeElement === window.joinButton"
        ), "Hana's part of the page was drawn again"
        assert console.unexpected() == []
    finally:
        hana.close()
        ivo.close()
