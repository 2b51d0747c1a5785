"""The table is playable from the keyboard alone, with visible focus and named gems."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, give_seat, wait_version


def test_a_move_made_with_tab_enter_and_space_and_escape_clears_a_choice(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """Tab, Enter and Space pick tokens and confirm a take; focus is visible; Escape drops a chosen card; every gem is named with its stone."""
    game_id = api.new_game(seed=21)
    tokens = [api.join(game_id, "Ana"), api.join(game_id, "Ben")]
    seat = api.view(game_id)["turn"]["seat"]
    page = open_page(browser, contexts, console, "keyboard")
    give_seat(page, server.base, game_id, seat, tokens[seat], ["Ana", "Ben"][seat])
    page.goto(f"{server.base}/#/play/{game_id}")
    start = api.view(game_id)["version"]
    wait_version(page, start)

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
