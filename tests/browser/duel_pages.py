"""Driving a Splendor Duel table in the web page like a person: clicks for each action,
and the table as the page shows it (read back from the data-attributes it writes)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.pages import Action, View, turn_part

# The Duel table as the DOM shows it, in the shape of a Duel view.
READ_DUEL_TABLE = """() => {
  const table = document.querySelector('#table');
  if (!table) return null;
  const board = [0, 1, 2, 3, 4].map((r) => [0, 1, 2, 3, 4].map((c) => {
    const cell = document.querySelector(`.cell[data-row="${r}"][data-col="${c}"]`);
    return cell && cell.dataset.token ? cell.dataset.token : null;
  }));
  const pyramid = {}, decks = {};
  for (const level of ['1', '2', '3']) {
    const slots = [...document.querySelectorAll(`.slot[data-level="${level}"]`)];
    slots.sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index));
    pyramid[level] = slots.map((s) => s.dataset.card || null);
    decks[level] = Number(document.querySelector(`[data-deck="${level}"]`).dataset.count);
  }
  const bag = {};
  for (const el of document.querySelectorAll('[data-bag]')) bag[el.dataset.bag] = Number(el.dataset.count);
  const players = [...document.querySelectorAll('[data-player]')].map((el) => ({
    seat: Number(el.dataset.player),
    points: Number(el.dataset.points),
    crowns: Number(el.dataset.crowns),
    privileges: Number(el.dataset.privileges),
    tokens: JSON.parse(el.dataset.tokens),
    bonuses: JSON.parse(el.dataset.bonuses),
    colour_points: JSON.parse(el.dataset.colourPoints),
    cards: JSON.parse(el.dataset.cards),
    reserved: JSON.parse(el.dataset.reserved),
    royals: JSON.parse(el.dataset.royals),
  }));
  return {
    version: Number(table.dataset.version),
    status: table.dataset.status,
    turn_seat: table.dataset.turnSeat === '' ? null : Number(table.dataset.turnSeat),
    phase: table.dataset.phase || null,
    board, bag, pyramid, decks, players,
    privileges: Number(document.querySelector('#privilege-supply').dataset.count),
    royals: [...document.querySelectorAll('.royals [data-royal]')].map((el) => el.dataset.royal),
  };
}"""

PLAYER_FIELDS = (
    "seat",
    "points",
    "crowns",
    "privileges",
    "tokens",
    "bonuses",
    "colour_points",
    "cards",
    "reserved",
    "royals",
)


def read_duel_table(page: Page) -> dict[str, Any]:
    table: dict[str, Any] | None = page.evaluate(READ_DUEL_TABLE)
    assert table is not None, "the page shows no table"
    return table


def duel_public_part(view: View) -> dict[str, Any]:
    """What read_duel_table reads, taken from a Duel view."""
    return {
        **turn_part(view),
        "board": view["board"],
        "bag": view["bag"],
        "pyramid": view["pyramid"],
        "decks": view["decks"],
        "privileges": view["privileges"],
        "royals": view["royals"],
        "players": [{k: p[k] for k in PLAYER_FIELDS} for p in view["players"]],
    }


def _cell(page: Page, cell: list[int]) -> None:
    page.click(f'button.cell[data-row="{cell[0]}"][data-col="{cell[1]}"]')


def click_duel_action(page: Page, action: Action, me: dict[str, Any]) -> None:
    """Perform a Duel ``action`` on the page by clicking, as a player would."""
    kind = action["kind"]
    if kind == "take_tokens":
        for cell in action["cells"]:
            _cell(page, cell)
        page.click('[data-key="take"]')
    elif kind == "use_privileges":
        page.click('[data-key="privileges"]')
        for cell in action["cells"]:
            _cell(page, cell)
        page.click('[data-key="use-privileges"]')
    elif kind == "replenish":
        page.click('[data-key="replenish"]')
    elif kind == "reserve":
        # The gold first, then the card or the deck: the order a player reads the rule in.
        _cell(page, action["gold_cell"])
        if "level" in action:
            page.click(f'[data-deck="{action["level"]}"] button')
            page.click('[data-key="reserve-blind"]')
        else:
            page.click(f'.slot button.card[data-card="{action["card"]}"]')
            page.click('[data-key="reserve"]')
    elif kind == "buy":
        mine = {r.get("card") for r in me["reserved"]}
        where = ".reserved" if action["card"] in mine else ".slot"
        page.click(f'{where} button.card[data-card="{action["card"]}"]')
        if action.get("wild_on"):
            page.click(f'[data-key="buy-on-{action["wild_on"]}"]')
        else:
            page.click('[data-key="buy"]')
    elif kind == "take_bonus_token":
        _cell(page, action["cell"])
        page.click('[data-key="take-bonus"]')
    elif kind == "steal_token":
        dialog = page.locator("#steal-dialog")
        expect(dialog).to_be_visible()
        dialog.locator(f'[data-key="steal-{action["color"]}"]').click()
    elif kind == "choose_royal":
        dialog = page.locator("#royal-dialog")
        expect(dialog).to_be_visible()
        dialog.locator(f'button[data-royal="{action["royal"]}"]').click()
    elif kind == "discard_tokens":
        dialog = page.locator("#discard-dialog")
        expect(dialog).to_be_visible()
        for color, n in action["tokens"].items():
            for _ in range(n):
                dialog.locator(f'[data-key="more-{color}"]').click()
        dialog.locator('[data-key="confirm-discard"]').click()
    else:
        raise AssertionError(f"no click for {action}")
