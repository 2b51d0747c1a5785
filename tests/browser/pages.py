"""Driving the web page like a person: clicks for each action, and the table as the
page shows it (read back from the data-attributes the page writes on its DOM)."""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import httpx
from playwright.sync_api import Page, expect

Action = dict[str, Any]
View = dict[str, Any]

_command_ids = itertools.count()

# The table as the DOM shows it, in the shape of a PROTOCOL.md view.
READ_TABLE = """() => {
  const table = document.querySelector('#table');
  if (!table) return null;
  const board = {}, decks = {};
  for (const level of ['1', '2', '3']) {
    const slots = [...document.querySelectorAll(`.slot[data-level="${level}"]`)];
    slots.sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index));
    board[level] = slots.map((s) => s.dataset.card || null);
    decks[level] = Number(document.querySelector(`[data-deck="${level}"]`).dataset.count);
  }
  const bank = {};
  for (const el of document.querySelectorAll('[data-bank]')) bank[el.dataset.bank] = Number(el.dataset.count);
  const players = [...document.querySelectorAll('[data-player]')].map((el) => ({
    seat: Number(el.dataset.player),
    points: Number(el.dataset.points),
    tokens: JSON.parse(el.dataset.tokens),
    bonuses: JSON.parse(el.dataset.bonuses),
    cards: JSON.parse(el.dataset.cards),
    reserved: JSON.parse(el.dataset.reserved),
    nobles: JSON.parse(el.dataset.nobles),
  }));
  return {
    version: Number(table.dataset.version),
    status: table.dataset.status,
    turn_seat: table.dataset.turnSeat === '' ? null : Number(table.dataset.turnSeat),
    phase: table.dataset.phase || null,
    board, decks, bank, players,
    nobles: [...document.querySelectorAll('.nobles [data-noble]')].map((el) => el.dataset.noble),
  };
}"""


def read_table(page: Page) -> dict[str, Any]:
    table: dict[str, Any] | None = page.evaluate(READ_TABLE)
    assert table is not None, "the page shows no table"
    return table


def turn_part(view: View) -> dict[str, Any]:
    """What both games' table reads say of the game itself: version, status, whose turn
    and its phase (the data-attributes of #table)."""
    turn = view["turn"] or {}
    return {
        "version": view["version"],
        "status": view["status"],
        "turn_seat": turn.get("seat"),
        "phase": turn.get("phase"),
    }


def public_part(view: View) -> dict[str, Any]:
    """What read_table reads, taken from a view."""
    return {
        **turn_part(view),
        "board": view["board"],
        "decks": view["decks"],
        "bank": view["bank"],
        "nobles": view["nobles"],
        "players": [
            {
                k: p[k]
                for k in ("seat", "points", "tokens", "bonuses", "cards", "reserved", "nobles")
            }
            for p in view["players"]
        ],
    }


def table_version(page: Page) -> int:
    return int(page.locator("#table").get_attribute("data-version") or 0)


def wait_version(page: Page, at_least: int, timeout: float = 10_000) -> None:
    page.wait_for_function(
        "(v) => { const t = document.querySelector('#table'); return t && Number(t.dataset.version) >= v; }",
        arg=at_least,
        timeout=timeout,
    )


def click_action(page: Page, action: Action, me: dict[str, Any]) -> None:
    """Perform ``action`` on the page by clicking, as a player would."""
    kind = action["kind"]
    if kind == "take_three":
        for color in action["colors"]:
            page.click(f'button[data-bank="{color}"]')
        page.click('[data-key="take"]')
    elif kind == "take_two":
        page.click(f'button[data-bank="{action["color"]}"]')
        page.click(f'button[data-bank="{action["color"]}"]')
        page.click('[data-key="take"]')
    elif kind == "reserve" and "level" in action:
        page.click(f'[data-deck="{action["level"]}"] button')
        page.click('[data-key="reserve-blind"]')
    elif kind == "reserve":
        page.click(f'.slot button.card[data-card="{action["card"]}"]')
        page.click('[data-key="reserve"]')
    elif kind == "buy":
        mine = {r.get("card") for r in me["reserved"]}
        where = ".reserved" if action["card"] in mine else ".slot"
        page.click(f'{where} button.card[data-card="{action["card"]}"]')
        page.click('[data-key="buy"]')
    elif kind == "return_tokens":
        dialog = page.locator("#return-dialog")
        expect(dialog).to_be_visible()
        for color, n in action["tokens"].items():
            for _ in range(n):
                dialog.locator(f'[data-key="more-{color}"]').click()
        dialog.locator('[data-key="confirm-return"]').click()
    elif kind == "choose_noble":
        dialog = page.locator("#noble-dialog")
        expect(dialog).to_be_visible()
        dialog.locator(f'button[data-noble="{action["noble"]}"]').click()
    elif kind == "pass":
        page.click('[data-key="pass"]')
    else:
        raise AssertionError(f"no click for {action}")


def seat_record(page: Page, game_id: str) -> dict[str, Any]:
    """The seat the page keeps in localStorage for a game."""
    raw = page.evaluate("(id) => localStorage.getItem('splendor.seat.' + id)", game_id)
    assert raw, f"no seat stored for {game_id}"
    record: dict[str, Any] = json.loads(raw)
    return record


def give_seat(page: Page, base: str, game_id: str, seat: int, token: str, name: str) -> None:
    """Open the origin and store a seat as the page itself would after joining."""
    page.goto(f"{base}/#/")
    page.evaluate(
        "([id, rec]) => localStorage.setItem('splendor.seat.' + id, JSON.stringify(rec))",
        [game_id, {"seat": seat, "token": token, "name": name, "joined": 1}],
    )


class Api:
    """The HTTP API for the test's own reads and moves."""

    def __init__(self, base: str) -> None:
        self.http = httpx.Client(base_url=base, timeout=10)

    def close(self) -> None:
        self.http.close()

    def new_game(
        self,
        players: int = 2,
        seed: int | None = None,
        variant: str = "classic",
        clock: dict[str, int] | None = None,
    ) -> str:
        body: dict[str, Any] = {"variant": variant, "players": players}
        if seed is not None:
            body["seed"] = seed
        if clock is not None:
            body["clock"] = clock
        r = self.http.post("/api/games", json=body)
        assert r.status_code == 201, r.text
        game_id: str = r.json()["id"]
        return game_id

    def add_bot(self, game_id: str, level: str) -> None:
        r = self.http.post(f"/api/games/{game_id}/seats", json={"bot": level})
        assert r.status_code == 201, r.text

    def summary(self, game_id: str) -> dict[str, Any]:
        r = self.http.get(f"/api/games/{game_id}")
        assert r.status_code == 200, r.text
        summary: dict[str, Any] = r.json()
        return summary

    def events(self, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.http.get(f"/api/games/{game_id}/events", params={"after": 0}, headers=headers)
        assert r.status_code == 200, r.text
        events: list[dict[str, Any]] = r.json()["events"]
        return events

    def join(self, game_id: str, name: str) -> str:
        r = self.http.post(f"/api/games/{game_id}/seats", json={"name": name})
        assert r.status_code == 201, r.text
        token: str = r.json()["token"]
        return token

    def view(self, game_id: str, token: str | None = None, version: int | None = None) -> View:
        params = {} if version is None else {"version": version}
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.http.get(f"/api/games/{game_id}/view", params=params, headers=headers)
        assert r.status_code == 200, r.text
        view: View = r.json()["view"]
        return view

    def command(self, game_id: str, token: str, action: Action) -> int:
        body = {"command_id": f"test-{next(_command_ids)}", "action": action}
        r = self.http.post(
            f"/api/games/{game_id}/commands",
            json=body,
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status_code == 200, r.text
        version: int = r.json()["version"]
        return version

    def catalog(self, variant: str = "classic") -> dict[str, Any]:
        r = self.http.get(f"/api/catalog/{variant}")
        assert r.status_code == 200
        catalog: dict[str, Any] = r.json()
        return catalog


def play_moves(api: Api, game_id: str, tokens: list[str], moves: int = 10_000) -> View:
    """Play up to ``moves`` turns over HTTP with the scripted strategy, stopping at the
    end of the game; returns the final public view."""
    from tests.browser.strategy import choose, kind_of

    catalog = api.catalog()
    used: set[str] = set()
    for _ in range(moves):
        public = api.view(game_id)
        if public["status"] == "finished":
            return public
        seat = public["turn"]["seat"]
        view = api.view(game_id, tokens[seat])
        action = choose(view, catalog, used)
        used.add(kind_of(action))
        api.command(game_id, tokens[seat], action)
    return api.view(game_id)


def wait_for_turn(api: Api, game_id: str, seat: int, timeout: float = 20.0) -> View:
    """Poll the public view until it is ``seat``'s move or the game is over (bot seats
    move on the server by themselves); returns that view."""
    deadline = time.monotonic() + timeout
    while True:
        public = api.view(game_id)
        if public["status"] == "finished" or (
            public["status"] == "live" and public["turn"]["seat"] == seat
        ):
            return public
        assert time.monotonic() < deadline, f"seat {seat} never got the move: {public['turn']}"
        time.sleep(0.05)
