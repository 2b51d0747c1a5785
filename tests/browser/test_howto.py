"""How to play: each game's page (`#/howto/classic`, `#/howto/duel`) drawn with the
table's own pieces, reached from the lobby, the waiting room, the table's `?` dialog,
a Duel ability's "What's this?" and the replay; axe-clean and no wider than a 360 px
phone."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from events.duel.actions import Buy
from events.duel.view import view as duel_view
from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, give_seat
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_layout import bots_finish, seat_in_play
from tests.duel_helpers import Table, play

# What each page draws, counted in its figures: the drawn pieces of the table.
DRAWN = {
    "classic": {
        # aim 1; decks 3; reserve 1 face + 1 back; buy 1 + 2 owned
        ".card": 9,
        ".card-back": 4,
        # bank 6; take three 3; take two 1 + 2; reserve 2 gold; buy 3
        ".token": 17,
        ".noble": 1,
    },
    "duel": {
        # aim 1; reserve 1 face + 1 back; double and no bonus 2; the 5 abilities; crowns 1
        ".card": 11,
        ".card-back": 1,
        ".token-board": 3,
        ".token-board .cell": 75,
        # the boards' 25 + 18 + 18; the 7 kinds named; a gold to reserve; the bag 3
        ".token": 72,
        ".royal": 8,
        ".scrolls": 2,
        ".howto-pick": 5,
        ".howto-gap": 1,
    },
}

SECTIONS = {
    "classic": [
        "aim",
        "setup",
        "turn",
        "take-three",
        "take-two",
        "reserve",
        "buy",
        "limit",
        "nobles",
        "end",
        "words",
    ],
    "duel": [
        "aim",
        "setup",
        "turn",
        "optional",
        "mandatory",
        "line",
        "privileges",
        "replenish",
        "abilities",
        "ability-extra_turn",
        "ability-take_token",
        "ability-take_privilege",
        "ability-steal_token",
        "ability-wild",
        "crowns",
        "limit",
        "end",
        "words",
    ],
}

TITLES = {"classic": "How to play Splendor", "duel": "How to play Splendor Duel"}

PHONE_NARROW = {"width": 360, "height": 740}


def read_howto(page: Page) -> dict[str, Any]:
    """The drawn pieces counted, the sections, and every drawing's text alternative."""
    result: dict[str, Any] = page.evaluate(
        """(selectors) => {
          const figures = [...document.querySelectorAll('#howto .howto-figure, #howto .howto-ability')];
          const count = (sel) => figures.reduce((n, f) => n + f.querySelectorAll(sel).length + (f.matches(sel) ? 1 : 0), 0);
          const images = [...document.querySelectorAll('#howto [role=img]')];
          return {
            counts: Object.fromEntries(selectors.map((s) => [s, count(s)])),
            sections: [...document.querySelectorAll('#howto [data-section]')].map((s) => s.dataset.section),
            unlabelled: images.filter((el) => !(el.getAttribute('aria-label') || '').trim()).length,
            images: images.length,
            uncaptioned: [...document.querySelectorAll('#howto .howto-figure')].filter((f) => !f.querySelector('figcaption')?.textContent.trim()).length,
            contents: [...document.querySelectorAll('.howto-contents a')].map((a) => a.getAttribute('href')),
          };
        }""",
        sorted({s for counts in DRAWN.values() for s in counts}),
    )
    return result


def overflow(page: Page) -> list[str]:
    """Elements that stick out past the window's right edge, and the page's own overflow."""
    found: list[str] = page.evaluate(
        """() => {
          const width = document.documentElement.clientWidth;
          const out = [];
          if (document.documentElement.scrollWidth > width) out.push(`page ${document.documentElement.scrollWidth} > ${width}`);
          for (const el of document.querySelectorAll('#howto *')) {
            const box = el.getBoundingClientRect();
            if (box.width && (box.right > width + 0.5 || box.left < -0.5)) out.push(`${el.tagName}.${el.className.baseVal ?? el.className} ${Math.round(box.left)}-${Math.round(box.right)}`);
          }
          return out.slice(0, 10);
        }"""
    )
    return found


@pytest.mark.parametrize("variant", ["classic", "duel"])
def test_each_game_has_a_how_to_play_drawn_with_the_tables_pieces(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    console: Console,
    variant: str,
) -> None:
    """The how-to-play of each game shows its sections in order, listed in its contents, with the table's cards, tokens, nobles or boards and royals drawn in captioned figures, each piece labelled."""
    page = open_page(browser, contexts, console, variant)
    page.goto(f"{server.base}/#/howto/{variant}")
    expect(page.locator("h1")).to_have_text(TITLES[variant])
    expect(page).to_have_title(f"{TITLES[variant]} · Splendor Live")
    seen = read_howto(page)
    assert seen["sections"] == SECTIONS[variant]
    wanted = DRAWN[variant]
    assert {s: seen["counts"][s] for s in wanted} == wanted
    assert seen["images"] > 20 and seen["unlabelled"] == 0
    assert seen["uncaptioned"] == 0
    top = [
        s
        for s in SECTIONS[variant]
        if page.locator(f'section.howto-section[data-section="{s}"]').count()
    ]
    assert seen["contents"] == [f"#/howto/{variant}/{s}" for s in top]
    # The other game is one click away.
    other = "duel" if variant == "classic" else "classic"
    page.click(f'.howto-head a[href="#/howto/{other}"]')
    expect(page.locator("h1")).to_have_text(TITLES[other])
    assert console.unexpected() == []


def test_a_section_address_lands_on_its_heading(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """`#/howto/duel/line` (and a link of the contents) scrolls to that section and puts focus on its heading, below the sticky top bar."""
    page = open_page(browser, contexts, console, "section")
    page.goto(f"{server.base}/#/howto/duel/line")
    heading = page.locator("#howto-line-title")
    expect(heading).to_be_focused()
    expect(heading).to_be_in_viewport()
    bar = page.locator(".topbar").bounding_box()
    box = heading.bounding_box()
    assert bar is not None and box is not None and box["y"] >= bar["y"] + bar["height"] - 1
    page.click('.howto-contents a[href="#/howto/duel/crowns"]')
    expect(page.locator("#howto-crowns-title")).to_be_focused()
    expect(page.locator("#howto-crowns-title")).to_be_in_viewport()
    assert console.unexpected() == []


@pytest.mark.parametrize("variant", ["classic", "duel"])
def test_the_how_to_play_passes_axe_and_fits_a_360px_phone(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    console: Console,
    variant: str,
) -> None:
    """axe finds no serious or critical violation on the how-to-play, at 1280 px and at 360 px, where nothing sticks out sideways."""
    page = open_page(browser, contexts, console, variant)
    page.goto(f"{server.base}/#/howto/{variant}")
    expect(page.locator("h1")).to_have_text(TITLES[variant])
    found = serious_violations(page, f"{variant} how to play")
    page.set_viewport_size(PHONE_NARROW)
    page.goto(f"{server.base}/#/howto/{variant}/words")
    expect(page.locator("#howto-words-title")).to_be_focused()
    assert overflow(page) == []
    found += serious_violations(page, f"{variant} how to play at 360 px")
    assert found == [], "\n".join(found)
    assert console.unexpected() == []


def opened_howto(page: Page, link: str) -> Page:
    """Click a link that opens the how-to-play in a new tab; that tab, loaded."""
    with page.context.expect_page() as info:
        page.click(link)
    tab = info.value
    tab.wait_for_load_state()
    expect(tab.locator("#howto h1")).to_be_visible()
    return tab


def test_the_how_to_play_is_reached_from_the_lobby_waiting_room_table_and_replay(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """The lobby links both games' how-to-play; the waiting room, the table's `?` dialog and the replay (its head and `?` dialog) open the game's own in a new tab; a Duel card's ability says "What's this?", which lands on that ability's section."""
    page = open_page(browser, contexts, console, "player")
    page.goto(f"{server.base}/#/")
    page.click('#howto-links a[data-howto="duel"]')
    expect(page).to_have_url(f"{server.base}/#/howto/duel")
    expect(page.locator("h1")).to_have_text(TITLES["duel"])
    page.go_back()
    page.click('#howto-links a[data-howto="classic"]')
    expect(page.locator("h1")).to_have_text(TITLES["classic"])

    # The waiting room of an open Duel: the table stays, the rules open beside it.
    open_id = api.new_game(players=2, variant="duel")
    give_seat(page, server.base, open_id, 0, api.join(open_id, "Ana"), "Ana")
    page.goto(f"{server.base}/#/play/{open_id}")
    link = "#waiting-room a[data-howto]"
    expect(page.locator(link)).to_have_attribute("href", "#/howto/duel")
    expect(page.locator(link)).to_have_attribute("target", "_blank")
    tab = opened_howto(page, link)
    expect(tab).to_have_url(f"{server.base}/#/howto/duel")
    tab.close()
    expect(page.locator("#waiting-room")).to_be_visible()

    # A live Duel at the seat's move: the `?` dialog, then a card's ability.
    game_id, token, _ = seat_in_play(api, "duel", 2, seed=5)
    give_seat(page, server.base, game_id, 0, token, "Ana")
    page.goto(f"{server.base}/#/play/{game_id}")
    expect(page.locator("#table")).to_have_attribute("data-status", "live")
    page.keyboard.press("?")
    expect(page.locator("#help-dialog")).to_be_visible()
    tab = opened_howto(page, "#help-dialog a[data-howto]")
    expect(tab).to_have_url(f"{server.base}/#/howto/duel")
    tab.close()
    page.keyboard.press("Escape")
    expect(page.locator("#help-dialog")).to_be_hidden()

    catalog = api.catalog("duel")
    view = api.view(game_id, token)
    able = [
        c
        for level in ("1", "2", "3")
        for c in view["pyramid"][level]
        if c
        and (catalog["cards"][c]["ability"] != "none" or catalog["cards"][c]["color"] == "wild")
    ]
    assert able, "the pyramid has a card with an ability"
    card = catalog["cards"][able[0]]
    ability = "wild" if card["color"] == "wild" else card["ability"]
    page.click(f'.pyramid button.card[data-card="{able[0]}"]')
    whats_this = "#card-help a.whats-this"
    expect(page.locator(whats_this)).to_have_attribute("href", f"#/howto/duel/ability-{ability}")
    tab = opened_howto(page, whats_this)
    expect(tab).to_have_url(f"{server.base}/#/howto/duel/ability-{ability}")
    heading = tab.locator(f"#howto-ability-{ability}-title")
    expect(heading).to_be_focused()
    expect(heading).to_be_in_viewport()
    tab.close()

    # The replay of a finished classic game: a link in its head and in its `?` dialog.
    finished = bots_finish(api, "classic", 2, seed=3, levels=["greedy", "random"])
    page.goto(f"{server.base}/#/replay/{finished}")
    expect(page.locator(".move")).not_to_have_count(0)
    expect(page.locator(".replay-howto")).to_have_attribute("href", "#/howto/classic")
    page.keyboard.press("?")
    tab = opened_howto(page, "#help-dialog a[data-howto]")
    expect(tab).to_have_url(f"{server.base}/#/howto/classic")
    expect(tab.locator("h1")).to_have_text(TITLES["classic"])
    tab.close()
    page.keyboard.press("Escape")
    tab = opened_howto(page, ".replay-howto")
    expect(tab).to_have_url(f"{server.base}/#/howto/classic")
    assert console.unexpected() == []


# The Duel's controls on an engine view in a pending choice, as game.js drives them:
# the "What's this?" links of the dialog that opens.
PENDING_DIALOG = """async ([view, dialog]) => {
  const { DuelControls } = await import('/js/duel_controls.js');
  const catalog = await (await fetch('/api/catalog/duel')).json();
  const controls = new DuelControls({
    send: async () => {},
    render: () => {},
    catalog,
    names: { of: (seat) => `Seat ${seat + 1}`, bySeat: new Map() },
  });
  controls.update(view);
  const links = [...document.querySelectorAll(`#${dialog}[open] a.whats-this`)].map((a) => [a.getAttribute('href'), a.getAttribute('target'), a.textContent]);
  controls.destroy();
  return links;
}"""


def test_a_royal_and_a_steal_say_whats_this(module_page: Page) -> None:
    """The dialog offering royal cards links each royal's ability to its section (none for the royal without one), and the steal dialog links the steal ability's."""
    crowned = Table().own(0, "d3-05").give(0, blue=3).state()
    play(crowned, 0, Buy("d1-04"))  # the 3rd crown: a royal to choose
    links = module_page.evaluate(PENDING_DIALOG, [duel_view(crowned, 0), "royal-dialog"])
    assert [href for href, _, _ in links] == [
        "#/howto/duel/ability-extra_turn",
        "#/howto/duel/ability-take_privilege",
        "#/howto/duel/ability-steal_token",
    ]
    assert all(target == "_blank" and text.startswith("What's this?") for _, target, text in links)

    stealing = Table().give(0, blue=4, red=3).give(1, red=1, green=1, gold=1).state()
    play(stealing, 0, Buy("d2-02"))  # a steal with two kinds to choose from
    links = module_page.evaluate(PENDING_DIALOG, [duel_view(stealing, 0), "steal-dialog"])
    assert [href for href, _, _ in links] == ["#/howto/duel/ability-steal_token"]
