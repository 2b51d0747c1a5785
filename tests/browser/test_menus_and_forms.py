"""The page's small parts that a player meets on the way to a table: the start form
kept under the keyboard, the top bar's menus that close, the join page's time
control, the lobby's results in words, and the table's prompt for a mover who left."""

from __future__ import annotations

import secrets
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

from events.classic.view import view as classic_view
from tests import classic_helpers
from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api

PASSWORD = "a-long-enough-password"


def focused_id(page: Page) -> str:
    """The id of the element that has focus ("" for none: the body)."""
    found: str = page.evaluate("document.activeElement ? document.activeElement.id : ''")
    return found


def test_arrow_keys_in_the_start_form_keep_focus_inside_it(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """In the lobby's start form an arrow key on the player count moves the choice and focus to the next count, and on a seat's select changes the seat while focus stays on that select; Splendor Duel's MCTS bot is offered as MCTS, as in Splendor."""
    page = open_page(browser, contexts, console, "lobby")
    page.goto(f"{server.base}/#/")
    page.focus("#players-2")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#players-3")).to_be_checked()
    assert focused_id(page) == "players-3"
    expect(page.locator("#seat-2")).to_be_visible()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#players-2")).to_be_checked()
    assert focused_id(page) == "players-2"
    page.focus("#seat-1")
    before = page.input_value("#seat-1")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#seat-1")).not_to_have_value(before)
    assert focused_id(page) == "seat-1"
    page.keyboard.press("ArrowDown")
    assert focused_id(page) == "seat-1"
    page.select_option("#variant", "duel")
    options = page.locator("#seat-1 option[value='bot:mcts']")
    expect(options).to_have_text("Bot: MCTS (strongest)")
    assert console.unexpected() == []


def test_the_account_menu_closes_on_an_outside_click_escape_and_a_new_page(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """The account's menu in the top bar closes on a click outside it, on Escape (focus back on its button) and when the page changes (its profile link, or any other route), so it never stays over the page's buttons."""
    page = open_page(browser, contexts, console, "account")
    page.goto(f"{server.base}/#/")
    username = f"Mia_{secrets.token_hex(3)}"
    page.click("#signup-open")
    page.fill("#account-username", username)
    page.fill("#account-password", PASSWORD)
    page.click("#account-submit")
    expect(page.locator("#account-name")).to_have_text(username)
    menu = page.locator("#logout")

    page.click("#account-name")
    expect(menu).to_be_visible()
    page.mouse.click(5, 400)  # the page, outside the menu
    expect(menu).to_be_hidden()

    page.click("#account-name")
    expect(menu).to_be_visible()
    page.focus("#logout")
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    assert focused_id(page) == "account-name"

    page.click("#account-name")
    expect(menu).to_be_visible()
    page.evaluate("window.location.hash = '#/howto/classic'")
    expect(menu).to_be_hidden()
    assert console.unexpected(("401",)) == []


def test_the_join_page_says_the_time_control(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """The page a shared link opens says the game's time control before the player sits down: "5+3", or untimed."""
    timed = api.new_game(clock={"initial": 300, "increment": 3})
    untimed = api.new_game()
    page = open_page(browser, contexts, console, "join")
    page.goto(f"{server.base}/#/join/{timed}")
    expect(page.locator("#join-clock")).to_have_text("Time control: 5+3")
    page.goto(f"{server.base}/#/join/{untimed}")
    expect(page.locator("#join-clock")).to_have_text("Time control: untimed")
    assert console.unexpected() == []


def test_the_lobby_says_a_resignation_without_a_score(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """A game won by resignation is listed as "Bo won by resignation against Ana", with no score (a 0 to 0)."""
    ana_name, bo_name = f"Ana{secrets.token_hex(2)}", f"Bo{secrets.token_hex(2)}"
    game_id = api.new_game()
    ana = api.join(game_id, ana_name)
    api.join(game_id, bo_name)
    api.command(game_id, ana, {"kind": "resign"})
    page = open_page(browser, contexts, console, "lobby")
    page.goto(f"{server.base}/#/")
    row = page.locator(f"[data-game='{game_id}']")
    expect(row).to_contain_text(f"{bo_name} won by resignation against {ana_name}")
    expect(row).not_to_contain_text("0\u20130")
    assert console.unexpected() == []


# The classic controls over a view where seat 1 is to move, seen by seat 0, with seat
# 1's person away or not: the action bar's prompt.
PROMPT = """async ([view, away]) => {
  const { Controls } = await import('/js/controls.js');
  const catalog = await (await fetch('/api/catalog/classic')).json();
  const controls = new Controls({
    send: async () => {}, render: () => {}, catalog,
    names: { of: (seat) => ['Ana', 'Hal'][seat], bySeat: new Map() },
    away: (seat) => away.includes(seat),
  });
  controls.update(view);
  const text = controls.prompt();
  controls.destroy();
  return text;
}"""


def test_the_prompt_says_a_mover_who_left_is_away_not_playing(module_page: Page) -> None:
    """While the mover's page is closed, the other player's action bar says "Waiting for Hal, who is away…", not "Hal is playing…"."""
    seen: dict[str, Any] = classic_view(classic_helpers.Table().state(1), 0)
    assert module_page.evaluate(PROMPT, [seen, []]) == "Hal is playing…"
    assert module_page.evaluate(PROMPT, [seen, [1]]) == "Waiting for Hal, who is away…"
