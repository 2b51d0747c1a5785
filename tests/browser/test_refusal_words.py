"""Refusals in words: every kind of disabled control of both games says why, in a line
under the controls (visible without hovering, and what aria-describedby points to) and
in its tooltip, from the view and the catalog's rules' numbers. The page's controls
run in Chromium on real engine views, their clicks made as method calls."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from events.classic.view import view as classic_view
from events.duel.view import view as duel_view
from tests import classic_helpers, duel_helpers

# Drives a variant's controls like game.js does: clicks are method calls, then the
# table is drawn and decorated and the action bar drawn, both in the document;
# `why` reads an element's tooltip, aria-describedby, disabled and the line it names.
DRIVE = """async ([variant, view, script]) => {
  const duel = variant === 'duel';
  const controlsModule = await import(duel ? '/js/duel_controls.js' : '/js/controls.js');
  const tableModule = await import(duel ? '/js/duel_table.js' : '/js/table.js');
  const Controls = duel ? controlsModule.DuelControls : controlsModule.Controls;
  const renderTable = duel ? tableModule.renderDuelTable : tableModule.renderTable;
  const decorate = duel ? tableModule.decorateDuel : tableModule.decorate;
  const catalog = await (await fetch(`/api/catalog/${variant}`)).json();
  const root = document.createElement('div');
  document.body.replaceChildren(root);
  const controls = new Controls({
    send: async () => {},
    render: () => {},
    catalog,
    names: { of: (seat) => `Seat ${seat + 1}`, bySeat: new Map() },
  });
  controls.update(view);
  const draw = () => {
    const ui = controls.tableUi();
    root.replaceChildren(renderTable(view, catalog, ui), controls.actionBar());
    decorate(root, view, ui);
  };
  const out = [];
  for (const [op, ...args] of script) {
    if (op === 'call') controls[args[0]](...args.slice(1));
    draw();
    if (op === 'why') {
      const el = root.querySelector(args[0]);
      const line = el && el.getAttribute('aria-describedby');
      out.push(el ? {
        disabled: !!el.disabled,
        title: el.getAttribute('title'),
        line: line ? (document.getElementById(line) || {}).textContent : null,
      } : null);
    } else if (op === 'text') {
      const el = root.querySelector(args[0]);
      out.push(el ? el.textContent : null);
    }
  }
  controls.destroy();
  return out;
}"""


@pytest.fixture
def page(module_page: Page) -> Page:
    """A page where the page's modules can be imported (conftest's module_page)."""
    return module_page


def drive(page: Page, variant: str, seen: dict[str, Any], script: list[list[Any]]) -> list[Any]:
    out: list[Any] = page.evaluate(DRIVE, [variant, seen, script])
    return out


def says(result: dict[str, Any] | None, sentence: str) -> None:
    """A disabled control whose tooltip and described-by line both say ``sentence``."""
    assert result is not None and result["disabled"], result
    assert sentence in (result["title"] or ""), result
    assert sentence in (result["line"] or ""), result


def test_classic_refusals_say_the_colour_and_count_the_missing_tokens_and_the_reserve_limit(
    page: Page,
) -> None:
    """Classic: a take of two with 3 red in the bank (a refused second click says it once), a gem gone from the bank, a card not affordable (the tokens missing), a fourth reserve (the limit), each said in words."""
    level1 = classic_helpers.level_ids(1)
    state = (
        classic_helpers.Table()
        .give(1, red=1, black=4)
        .reserve(0, level1[4])
        .reserve(0, level1[5])
        .reserve(0, level1[6])
        .state(0)
    )
    seen = classic_view(state, 0)
    card = seen["board"]["1"][0]
    cost = classic_helpers.CARDS[card].cost
    gems = ("white", "blue", "green", "red", "black")
    parts = [f"{n} more {g}" for g, n in zip(gems, cost, strict=True) if n]
    missing = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    two_red = "Take two red needs 4 red in the bank, there are 3."
    out = drive(
        page,
        "classic",
        seen,
        [
            ["why", 'button[data-bank="black"]'],
            ["call", "onToken", "red"],
            ["text", "#why-action"],
            ["call", "onToken", "red"],
            ["text", "#action-message"],
            ["text", 'button[data-bank="red"] .picked'],
            ["text", "#why-action"],
            ["call", "cancel"],
            ["call", "onCard", card],
            ["why", '[data-key="buy"]'],
            ["why", '[data-key="reserve"]'],
            ["call", "onDeck", 2],
            ["why", '[data-key="reserve-blind"]'],
        ],
    )
    says(out[0], "No black left in the bank.")
    assert two_red in out[1]
    assert out[2] == two_red and out[3] == "+1", (
        "a refused second click keeps the pick and says why"
    )
    assert two_red not in out[4], "the refusal is said once, in the message line"
    says(out[5], f"You need {missing}.")
    says(out[6], "You already hold 3 reserved cards, the most allowed.")
    says(out[7], "You already hold 3 reserved cards, the most allowed.")


def test_duel_refusals_and_the_words_for_abilities_crowns_and_royals(page: Page) -> None:
    """Duel: a take with a gap, gold with privileges, a card not affordable, the reserve limit on a card and a deck; a card's ability and crowns in the selection line, a royal card's tooltip."""
    ids = duel_helpers.level_ids(1)
    full = duel_helpers.Table().reserve(0, ids[0]).reserve(0, ids[1]).reserve(0, ids[2]).state(0)
    seen = duel_view(full, 0)
    extra_turn = next(
        c for c in seen["pyramid"]["1"] if duel_helpers.CARDS[c].ability == "extra_turn"
    )
    limit = "You already hold 3 reserved cards, the most allowed."
    out = drive(
        page,
        "duel",
        seen,
        [
            ["call", "onCard", extra_turn],
            ["why", '[data-key="buy"]'],
            ["why", '[data-key="reserve"]'],
            ["text", "#card-help"],
            ["call", "cancel"],
            ["why", '[data-deck="1"] button'],
            ["call", "onCell", 0, 0],
            ["call", "onCell", 0, 2],
            ["why", '[data-key="take"]'],
            ["why", ".royals [data-royal]"],
        ],
    )
    says(out[0], "You need ")
    says(out[1], limit)
    assert out[2] and "another turn" in out[2]
    says(out[3], limit)
    says(out[4], "Complete the line: tokens must touch")
    assert out[5] is not None and "crown threshold" in (out[5]["title"] or "")

    crowned = next(c for c in seen["pyramid"]["1"] if duel_helpers.CARDS[c].crowns)
    privileged = duel_view(duel_helpers.Table().privilege(0, 1).state(0), 0)
    gold = next(
        (r, c)
        for r, row in enumerate(privileged["board"])
        for c, t in enumerate(row)
        if t == "gold"
    )
    out = drive(
        page,
        "duel",
        privileged,
        [
            ["call", "onCard", crowned],
            ["text", "#card-help"],
            ["call", "setMode", "privilege"],
            ["why", f'button.cell[data-row="{gold[0]}"][data-col="{gold[1]}"]'],
        ],
    )
    assert out[0] and "At 3 and 6 crowns a royal card joins you; 10 crowns win." in out[0]
    says(out[1], "Privileges never take gold.")
