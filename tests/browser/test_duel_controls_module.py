"""The page's Duel controls (client/web/js/duel_controls.js) on real engine views, run in
Chromium: with three privileges on a full board ``legal`` lists ~1,800 uses of
privileges, and clicks are matched against it through the index by sorted cells; the
discard dialog asks for what the listed discards give back."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from events.duel.actions import TakeTokens
from events.duel.view import view
from tests.duel_helpers import Table, find, play

# Drives DuelControls like the page does: clicks are method calls, buttons are read
# from the action bar it draws or from a dialog it opened, sent actions are recorded.
DRIVE = """async ([view, script]) => {
  const { DuelControls } = await import('/js/duel_controls.js');
  const catalog = await (await fetch('/api/catalog/duel')).json();
  const sent = [];
  const controls = new DuelControls({
    send: async (action) => { sent.push(action); },
    render: () => {},
    catalog,
    names: { of: (seat) => `Seat ${seat + 1}`, bySeat: new Map() },
  });
  controls.update(view);
  const out = [];
  for (const [op, ...args] of script) {
    if (op === 'cell') controls.onCell(...args);
    else if (op === 'card') controls.onCard(...args);
    else if (op === 'reserved') controls.onReserved(...args);
    else if (op === 'mode') controls.setMode(...args);
    else if (op === 'cancel') controls.cancel();
    else if (op === 'state') out.push(controls.cellState(...args));
    else if (op === 'button') {
      const button = controls.actionBar().querySelector(`[data-key="${args[0]}"]`);
      out.push(button ? !button.disabled : null);
    } else if (op === 'press') {
      const button = controls.actionBar().querySelector(`[data-key="${args[0]}"]`);
      button.click();
      await new Promise((r) => setTimeout(r, 0));
    } else if (op === 'dialog') {
      const dialog = document.querySelector(`#${args[0]}`);
      out.push({ open: dialog.open, text: dialog.querySelector('p').textContent });
    } else if (op === 'dialog-button') {
      const button = document.querySelector(`#${args[0]} [data-key="${args[1]}"]`);
      out.push(button ? !button.disabled : null);
    } else if (op === 'dialog-press') {
      document.querySelector(`#${args[0]} [data-key="${args[1]}"]`).click();
      await new Promise((r) => setTimeout(r, 0));
    }
  }
  controls.destroy();
  return { out, sent };
}"""


@pytest.fixture
def page(module_page: Page) -> Page:
    """A page where the page's modules can be imported (conftest's module_page)."""
    return module_page


def _drive(page: Page, seat_view: dict[str, Any], script: list[list[Any]]) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(DRIVE, [seat_view, script])
    return result


def test_duel_controls_match_clicks_against_a_huge_legal_list(page: Page) -> None:
    """Three privileges on a full board (~1,800 listed uses): cells are picked in any order, gold cannot be, only listed sets confirm; a take in a line needs its middle cell; a reserve needs one of several golds."""
    state = Table(setup_privilege=False).privilege(0, 3).state()
    seen = view(state, 0)
    kinds = [a["kind"] for a in seen["legal"]]
    assert kinds.count("use_privileges") > 1500

    # Privileges: any three gem or pearl cells, never gold ((1, 0) is gold).
    result = _drive(
        page,
        seen,
        [
            ["mode", "privilege"],
            ["state", 1, 0],
            ["cell", 4, 4],
            ["cell", 0, 0],
            ["button", "use-privileges"],
            ["cell", 2, 1],
            ["button", "use-privileges"],
            ["press", "use-privileges"],
        ],
    )
    assert result["out"][0]["enabled"] is False
    assert result["out"][1:] == [True, True]
    assert result["sent"] == [{"kind": "use_privileges", "cells": [[0, 0], [2, 1], [4, 4]]}]

    # A take: both ends of the top row's first three cells, then the middle.
    result = _drive(
        page,
        seen,
        [
            ["cell", 0, 2],
            ["cell", 0, 0],
            ["button", "take"],
            ["state", 0, 1],
            ["cell", 0, 1],
            ["button", "take"],
            ["press", "take"],
        ],
    )
    assert result["out"][0] is False
    assert result["out"][1]["enabled"] and result["out"][1]["hint"]
    assert result["out"][2] is True
    assert result["sent"] == [{"kind": "take_tokens", "cells": [[0, 0], [0, 1], [0, 2]]}]

    # A reserve with three golds on the board: the card, then the gold to take.
    card = seen["pyramid"]["2"][0]
    result = _drive(
        page,
        seen,
        [
            ["card", card],
            ["button", "reserve"],
            ["state", 3, 4],
            ["cell", 3, 4],
            ["button", "reserve"],
            ["press", "reserve"],
        ],
    )
    assert result["out"][0] is False
    assert result["out"][1]["hint"] is True
    assert result["out"][2] is True
    assert result["sent"] == [{"kind": "reserve", "gold_cell": [3, 4], "card": card}]


def test_duel_controls_offer_one_buy_per_card_a_wild_card_may_go_on(page: Page) -> None:
    """A reserved wild card with two bonus cards owned: one Buy button per listed wild_on, each sending that action."""
    blue = find(level=1, color="blue", ability="none")
    red = find(level=1, color="red", ability="none")
    wild = "d1-26"  # 4 white and 1 pearl
    table = Table().own(0, blue, red).reserve(0, wild).give(0, white=4, pearl=1)
    seen = view(table.state(), 0)
    buys = [a for a in seen["legal"] if a["kind"] == "buy" and a["card"] == wild]
    assert {a["wild_on"] for a in buys} == {blue, red}

    result = _drive(
        page,
        seen,
        [
            ["reserved", wild],
            ["button", "buy"],
            ["button", f"buy-on-{blue}"],
            ["button", f"buy-on-{red}"],
            ["press", f"buy-on-{red}"],
        ],
    )
    assert result["out"] == [None, True, True]
    assert result["sent"] == [next(a for a in buys if a["wild_on"] == red)]


def test_duel_discard_dialog_asks_for_the_count_the_listed_discards_give_back(page: Page) -> None:
    """12 tokens after a take: the dialog asks for 2 (the count of every listed discard), stops the + buttons at 2 and sends the listed discard of 2 white."""
    state = Table().give(0, white=3, blue=3, green=3).state()
    play(state, 0, TakeTokens(((0, 4), (1, 4), (2, 4))))
    seen = view(state, 0)
    assert seen["turn"]["phase"] == "discard_tokens"
    two_white = next(
        a for a in seen["legal"] if a["kind"] == "discard_tokens" and a["tokens"] == {"white": 2}
    )

    result = _drive(
        page,
        seen,
        [
            ["dialog", "discard-dialog"],
            ["dialog-button", "discard-dialog", "confirm-discard"],
            ["dialog-press", "discard-dialog", "more-white"],
            ["dialog-press", "discard-dialog", "more-white"],
            ["dialog-button", "discard-dialog", "more-blue"],
            ["dialog-button", "discard-dialog", "confirm-discard"],
            ["dialog-press", "discard-dialog", "confirm-discard"],
        ],
    )
    opened = result["out"][0]
    assert opened["open"] is True
    assert "You hold 12 tokens: put 2 back into the bag to keep 10." in opened["text"]
    assert result["out"][1:] == [False, False, True]
    assert result["sent"] == [two_white]
