"""The table is playable from the keyboard alone, with visible focus and named gems,
shortcuts listed in a help dialog, and focus put where the next choice starts."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, give_seat, wait_for_turn, wait_version


def seated_at_a_two_player_table(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    server: ServerProcess,
    api: Api,
) -> tuple[Page, str, list[str], int]:
    """A seeded game of two people, and a page showing the table to the one to move:
    (the page, the game's id, both seats' tokens, the page's seat)."""
    game_id = api.new_game(seed=21)
    tokens = [api.join(game_id, "Ana"), api.join(game_id, "Ben")]
    seat = api.view(game_id)["turn"]["seat"]
    page = open_page(browser, contexts, console, "keyboard")
    give_seat(page, server.base, game_id, seat, tokens[seat], ["Ana", "Ben"][seat])
    page.goto(f"{server.base}/#/play/{game_id}")
    wait_version(page, api.view(game_id)["version"])
    return page, game_id, tokens, seat


def test_a_move_made_with_tab_enter_and_space_and_escape_clears_a_choice(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """Tab, Enter and Space pick tokens and confirm a take; focus is visible; Escape drops a chosen card; every gem is named with its stone."""
    page, game_id, tokens, seat = seated_at_a_two_player_table(
        browser, contexts, console, server, api
    )
    start = api.view(game_id)["version"]

    for color, stone in [
        ("white", "diamond"),
        ("blue", "sapphire"),
        ("green", "emerald"),
        ("red", "ruby"),
        ("black", "onyx"),
    ]:
        expect(page.locator(f'button[data-bank="{color}"]')).to_have_attribute(
            "aria-label", f"4 {color} ({stone}) in the bank"
        )
    expect(page.locator('[data-bank="gold"]')).to_have_attribute(
        "aria-label", "5 gold (joker) in the bank"
    )

    # A card chosen with Enter, then dropped with Escape.
    page.locator(".slot[data-level] button.card").first.focus()
    page.keyboard.press("Enter")
    expect(page.locator('[data-key="buy"]')).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator('[data-key="buy"]')).to_have_count(0)

    # Three tokens picked with Enter and Space while tabbing along the bank.
    page.locator('button[data-bank="white"]').focus()
    page.keyboard.press("Enter")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none", "the focused token shows no focus ring"
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    for color in ("white", "blue", "green"):
        expect(page.locator(f'button[data-bank="{color}"]')).to_have_attribute(
            "aria-pressed", "true"
        )
    for _ in range(6):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.key") == "take":
            break
    expect(page.locator('[data-key="take"]')).to_be_focused()
    expect(page.locator('[data-key="take"]')).to_have_text("Take 1 white, 1 blue and 1 green")
    page.keyboard.press("Enter")
    wait_version(page, start + 1)
    mine = api.view(game_id, tokens[seat])["players"][seat]["tokens"]
    assert (mine["white"], mine["blue"], mine["green"]) == (1, 1, 1)
    assert console.unexpected() == []


def focused(page: Page) -> dict[str, str | None]:
    """What has focus: its id, data-key and data-bank (the body when nothing has)."""
    found: dict[str, str | None] = page.evaluate(
        """() => { const el = document.activeElement;
          return { tag: el.tagName.toLowerCase(), id: el.id || null,
                   key: el.dataset.key || null, bank: el.dataset.bank || null }; }"""
    )
    return found


def test_whole_turns_by_shortcuts_with_focus_where_the_next_choice_starts_and_the_help_dialog(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """On the seat's move focus is on the bank's first gem; ? lists the shortcuts; 1-3 and t take three; focus then waits on the action bar, never the body; after the opponent's move it is back on the bank and the title says "Your move ·"; c, Enter and b on a card too dear say what is missing; r reserves it."""
    page, game_id, tokens, seat = seated_at_a_two_player_table(
        browser, contexts, console, server, api
    )
    other = 1 - seat
    start = api.view(game_id)["version"]
    expect(page).to_have_title(re.compile(r"^Your move · "))
    page.wait_for_function("document.activeElement.dataset.bank === 'white'")

    page.keyboard.press("?")
    help_dialog = page.locator("#help-dialog")
    expect(help_dialog).to_be_visible()
    expect(help_dialog).to_contain_text("take the picked tokens")
    page.keyboard.press("Escape")
    expect(help_dialog).to_be_hidden()

    for key in ("1", "2", "3"):
        page.keyboard.press(key)
    expect(page.locator('[data-key="take"]')).to_have_text("Take 1 white, 1 blue and 1 green")
    page.keyboard.press("t")
    wait_version(page, start + 2)
    expect(page).not_to_have_title(re.compile(r"^Your move"))
    assert focused(page)["id"] == "prompt", focused(page)

    # The opponent's move: marked on the page, and focus back where a move starts.
    version = api.command(
        game_id, tokens[other], {"kind": "take_three", "colors": ["red", "black", "blue"]}
    )
    wait_version(page, version)
    expect(page).to_have_title(re.compile(r"^Your move · "))
    page.wait_for_function("document.activeElement.dataset.bank === 'white'")
    for colour in ("red", "black", "blue"):
        expect(
            page.locator(f'[data-player="{other}"] .gem-col-{colour} > .token')
        ).to_have_attribute("data-last-move", "")
        expect(page.locator(f'[data-bank="{colour}"]')).to_have_attribute("data-last-move", "")

    # A card too dear: b says what is missing; r reserves it.
    view = api.view(game_id, tokens[seat])
    dear = next(
        a["card"]
        for a in view["legal"]
        if a["kind"] == "reserve"
        and "card" in a
        and {"kind": "buy", "card": a["card"]} not in view["legal"]
    )
    page.keyboard.press("c")
    while page.evaluate("document.activeElement.dataset.card") != dear:
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.keyboard.press("b")
    expect(page.locator("#action-message")).to_contain_text("You need ")
    page.keyboard.press("r")
    wait_version(page, view["version"] + 3)
    assert focused(page)["id"] == "prompt", focused(page)
    mine = api.view(game_id, tokens[seat])["players"][seat]
    assert [r["card"] for r in mine["reserved"]] == [dear]
    assert console.unexpected() == []


def test_a_duel_turn_by_arrows_and_shortcuts_with_focus_back_on_the_board(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """A Duel against a greedy bot: on the seat's move focus is on the board; arrows move between its tokens, Enter picks one and t takes it; after the bot's answer focus is on the board again."""
    game_id = api.new_game(seed=3, variant="duel")
    token = api.join(game_id, "Ana")
    api.add_bot(game_id, "greedy")
    page = open_page(browser, contexts, console, "duel-keys")
    give_seat(page, server.base, game_id, 0, token, "Ana")
    page.goto(f"{server.base}/#/play/{game_id}")
    public = wait_for_turn(api, game_id, 0)
    wait_version(page, public["version"])
    page.wait_for_function("document.activeElement.matches('button.cell')")
    page.keyboard.press("?")
    expect(page.locator("#help-dialog")).to_contain_text("move between the board's tokens")
    page.keyboard.press("Escape")

    first = page.evaluate("document.activeElement.dataset.key")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.key") != first
    while page.evaluate("document.activeElement.dataset.token") in ("gold", "pearl"):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    page.keyboard.press("t")
    wait_version(page, public["version"] + 1)
    taken = api.events(game_id)[public["version"]]
    assert (taken["type"], taken["seat"], len(taken["cells"])) == ("TokensTaken", 0, 1), taken
    public = wait_for_turn(api, game_id, 0)
    wait_version(page, public["version"])
    page.wait_for_function("document.activeElement.matches('button.cell')")
    assert console.unexpected() == []
