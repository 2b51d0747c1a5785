"""A rematch as players expect it (docs/web.md "Rematch"): the one who offers stays at
the board with the end position shown, the other is offered it with a sound and
answers Accept or Decline, and a decline is shown to the one who offered."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, Page, expect

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


# A Rematch of seat 0 of a finished 3-seat game (seat 2 a bot), told `messages` in turn:
# what its banner says after each.
ANSWERS = """async (messages) => {
  const { Rematch } = await import('/js/rematch.js');
  const names = { of: (seat) => ['Ana', 'Bo', 'Greedy bot'][seat] };
  const view = { status: 'finished', players: [{ seat: 0 }, { seat: 1 }, { seat: 2, bot: 'greedy' }] };
  const gone = [];
  const rematch = new Rematch({ gameId: 'g', seat: { seat: 0, token: 't', name: 'Ana' }, names, go: (id) => gone.push(id) });
  rematch.seats(view);
  const said = [];
  for (const message of messages) {
    rematch.take(message);
    const root = document.createElement('div');
    root.append(...[rematch.actions(view, 'banner')].flat().filter(Boolean));
    said.push(root.querySelector('#rematch-status, #rematch-offer').textContent);
  }
  return { said, gone };
}"""


def test_the_offerer_sees_who_accepted_and_goes_to_the_rematch_when_all_have(
    module_page: Page,
) -> None:
    """In a three-seat game with a bot, Ana offered (she and the bot accepted): her page waits for Bo, says "Bo accepted." once he has, and goes to the rematch by itself then; a page told of an offer it has not answered says who offers it."""
    out = module_page.evaluate(
        ANSWERS,
        [
            {"id": "r1", "accepted": [0, 2], "declined": []},
            {"id": "r1", "accepted": [0, 1, 2], "declined": []},
        ],
    )
    assert out["said"] == [
        "Waiting for Bo to answer…",
        "Everyone accepted: the rematch has started.",
    ]
    assert out["gone"] == ["r1"]
    offered = module_page.evaluate(ANSWERS, [{"id": "r2", "accepted": [1, 2], "declined": []}])
    assert offered["said"] == [
        "Bo offers a rematch: same players and time control, seats moved round."
    ]
    assert offered["gone"] == []
