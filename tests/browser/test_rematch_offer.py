"""A rematch as players expect it (docs/web.md "Rematch"): the one who offers stays at
the board with the end position shown, the other is offered it with a sound and
answers Accept or Decline, and a decline is shown to the one who offered."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import Console, ServerProcess
from tests.browser.pages import Api
from tests.browser.test_live_matches import first_moves, two_players
from tests.browser.test_sounds import HEAR, heard_after


def test_a_rematch_offered_and_declined_between_two_pages(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """Ana resigns; Ben offers a rematch from the result banner and his table stays (the end position, "Waiting for Ana to answer…"); Ana's page plays the rematch sound and says "Ben offers a rematch" with Accept and Decline; she declines, and both pages say so ("Ana declined the rematch." on Ben's, "You declined the rematch." on hers), with no button left to answer; the server has Ana's decline."""
    game_id, tokens, (ana, ben) = two_players(browser, contexts, console, server, api)
    first_moves(api, game_id, tokens)
    ana.evaluate(HEAR)
    api.command(game_id, tokens[0], {"kind": "resign"})
    for page in (ana, ben):
        expect(page.locator("#end-dialog")).to_be_visible()
        page.locator("#end-dialog .btn-quiet").click()  # Close: the board behind it
    version = ben.locator("#table").get_attribute("data-version")
    ben.click("#rematch-game")
    expect(ben.locator("#rematch-status")).to_have_text("Waiting for Ana to answer…")
    expect(ben.locator("#table")).to_have_attribute("data-status", "finished")
    expect(ben.locator("#table")).to_have_attribute("data-version", version or "")
    assert ben.url.endswith(f"#/play/{game_id}")

    expect(ana.locator("#rematch-offer")).to_have_text(
        "Ben offers a rematch: same players and time control, seats moved round."
    )
    assert "rematch" in heard_after(ana, 2)[1:]
    ana.click("#rematch-decline")
    expect(ana.locator("#rematch-status")).to_have_text("You declined the rematch.")
    expect(ben.locator("#rematch-status")).to_have_text("Ana declined the rematch.")
    for page in (ana, ben):
        expect(page.locator("#rematch-game")).to_have_count(0)
        expect(page.locator("#rematch-decline")).to_have_count(0)
    assert ana.url.endswith(f"#/play/{game_id}")
    rematch_id = api.summary(game_id)["rematch"]
    assert api.summary(rematch_id)["status"] == "open"
    assert console.unexpected() == []
