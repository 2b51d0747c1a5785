"""The table chat on the page (docs/chat.md): two players and a spectator in their
own browsers, presets in each reader's language, text shown as text, the unread
mark, a room turned off and remembered, refusals in words, the seats reading the
spectators once the game is over; and the drawer of a phone-sized Duel table in
Persian."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, BrowserContext, Page, expect

from catalogs.translations import translations
from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, give_seat


def said(lang: str, msgid: str) -> str:
    """A preset's label in ``lang`` (the page catalog's context "chat")."""
    return translations(lang, "page").pgettext("chat", msgid)


def seated(
    page: Page, base: str, game_id: str, seat: int, token: str, name: str, lang: str = "en"
) -> None:
    """Open the seat's table in ``lang``, its chat panel shown."""
    give_seat(page, base, game_id, seat, token, name)
    page.goto(f"{base}/?lang={lang}#/play/{game_id}")
    expect(page.locator(".chat")).to_be_visible()


def lines(page: Page) -> list[str]:
    return [text.strip() for text in page.locator(".chat-list .chat-text").all_inner_texts()]


def test_players_and_a_spectator_chat_in_their_rooms(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """Ana (English) writes "<b>hi</b> Bo" and a preset: Bo (Spanish) reads the text literally (no <b> element) and the preset in Spanish; the spectator reads neither, and its own message reaches no seat; Bo's collapsed panel marks 1 unread; Bo turns the players' room off, which holds across a reload; a zero-width character is refused in words and the input kept; after the end Ana's panel gets a Spectators tab with the spectator's message."""
    game_id = api.new_game(seed=41)
    tokens = [api.join(game_id, "Ana"), api.join(game_id, "Bo")]
    ana = open_page(browser, contexts, console, "ana")
    bo = open_page(browser, contexts, console, "bo")
    watcher = open_page(browser, contexts, console, "watcher")
    seated(ana, server.base, game_id, 0, tokens[0], "Ana")
    seated(bo, server.base, game_id, 1, tokens[1], "Bo", lang="es")
    watcher.goto(f"{server.base}/#/watch/{game_id}")
    expect(watcher.locator(".chat")).to_be_visible()

    ana.fill(".chat-input", "<b>hi</b> Bo")
    ana.press(".chat-input", "Enter")
    expect(bo.locator(".chat-list .chat-text")).to_have_text(["<b>hi</b> Bo"])
    assert bo.locator(".chat-list b").count() == 0
    expect(ana.locator(".chat-input")).to_have_value("")
    ana.click('.chat-preset[data-preset="good_luck"]')
    expect(bo.locator(".chat-list .chat-text").nth(1)).to_have_text(said("es", "Good luck!"))
    expect(ana.locator(".chat-list .chat-text").nth(1)).to_have_text("Good luck!")
    assert said("es", "Good luck!") != "Good luck!"
    expect(bo.locator(".chat-list .chat-name").first).to_have_text("Ana")

    watcher.fill(".chat-input", "go Ana go")
    watcher.click(".chat-form button[type=submit]")
    expect(watcher.locator(".chat-list .chat-text")).to_have_text(["go Ana go"])
    expect(watcher.locator(".chat-list .chat-name")).to_have_text([re.compile(r"^Guest \d{4}$")])
    # Ana's next message is seen by Bo after the spectator's went out: by then the
    # spectator's would have reached the seats, and Ana's would have reached it.
    bo.click(".chat-head-button")  # collapsed
    expect(bo.locator(".chat-list")).to_be_hidden()
    ana.fill(".chat-input", "still there?")
    ana.press(".chat-input", "Enter")
    expect(bo.locator(".chat-head-button .chat-unread")).to_have_text("1")
    bo.click(".chat-head-button")
    expect(bo.locator(".chat-unread")).to_have_count(0)
    assert lines(bo) == ["<b>hi</b> Bo", said("es", "Good luck!"), "still there?"]
    assert lines(ana) == ["<b>hi</b> Bo", "Good luck!", "still there?"]
    assert lines(watcher) == ["go Ana go"]

    ana.fill(".chat-input", "a\u200bb")
    ana.press(".chat-input", "Enter")
    expect(ana.locator(".chat-input")).to_have_value("a\u200bb")
    expect(ana.locator(".chat-error")).to_have_text(
        "A message can't hold control, direction or invisible characters (U+200B)."
    )

    bo.uncheck(".chat-switch")
    expect(bo.locator(".chat-list")).to_have_count(0)
    expect(bo.locator(".chat-note")).to_be_visible()
    bo.reload()
    expect(bo.locator(".chat")).to_be_visible()
    expect(bo.locator(".chat-switch")).not_to_be_checked()
    expect(bo.locator(".chat-list")).to_have_count(0)
    ana.click('.chat-preset[data-preset="thanks"]')
    expect(ana.locator(".chat-list .chat-text")).to_have_count(4)
    expect(bo.locator(".chat-unread")).to_have_count(0)  # a room turned off marks nothing
    bo.check(".chat-switch")
    expect(bo.locator(".chat-list .chat-text")).to_have_count(4)

    api.command(game_id, tokens[1], {"kind": "resign"})
    tab = ana.locator('.chat-tab[data-room="spectators"]')
    expect(tab).to_be_visible()
    ana.click("#end-dialog .dialog-actions .btn-quiet")  # the end's dialog closed
    tab.click()
    expect(ana.locator(".chat-list .chat-text")).to_have_text(["go Ana go"])
    expect(ana.locator(".chat-form")).to_have_count(0)  # the spectators' room is theirs to write
    ana.click('.chat-tab[data-room="players"]')
    expect(ana.locator(".chat-list .chat-text")).to_have_count(4)
    assert console.unexpected() == []


def test_a_phone_opens_the_chat_as_a_drawer_in_persian(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """A 360 px Duel table in Persian: the chat is a button, not a panel; a message that comes meanwhile puts 1 on the button; opened, the drawer lies within the screen, right to left, with the presets in Persian, and the seat's preset reaches the other seat in English; a Persian word's zero-width non-joiner is left out rather than the line refused; scrolled to its foot, nothing of the page lies under the button."""
    game_id = api.new_game(seed=42, variant="duel")
    tokens = [api.join(game_id, "Sara"), api.join(game_id, "Ben")]
    phone = {"width": 360, "height": 740}
    sara = open_page(browser, contexts, console, "sara", viewport=phone)
    ben = open_page(browser, contexts, console, "ben")
    give_seat(sara, server.base, game_id, 0, tokens[0], "Sara")
    sara.goto(f"{server.base}/?lang=fa#/play/{game_id}")
    seated(ben, server.base, game_id, 1, tokens[1], "Ben")
    toggle = sara.locator(".chat-toggle")
    expect(toggle).to_be_visible()
    expect(sara.locator(".chat")).to_be_hidden()
    assert sara.evaluate("document.documentElement.dir") == "rtl"

    ben.click('.chat-preset[data-preset="hello"]')
    expect(toggle.locator(".chat-unread")).to_have_text("\u06f1")  # 1 in Persian digits
    toggle.click()
    drawer = sara.locator(".chat")
    expect(drawer).to_be_visible()
    expect(sara.locator(".chat-list .chat-text")).to_have_text([said("fa", "Hello!")])
    box = drawer.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
    assert box["y"] + box["height"] <= 740 + 1
    preset = sara.locator('.chat-preset[data-preset="good_game"]')
    expect(preset).to_have_text(said("fa", "Good game!"))
    pbox = preset.bounding_box()
    assert pbox is not None and pbox["x"] >= 0 and pbox["x"] + pbox["width"] <= 360
    preset.click()
    expect(ben.locator(".chat-list .chat-text")).to_have_text(["Hello!", "Good game!"])
    sara.fill(".chat-input", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645")  # with a ZWNJ
    sara.press(".chat-input", "Enter")
    expect(ben.locator(".chat-list .chat-text")).to_have_text(
        ["Hello!", "Good game!", "\u0645\u06cc\u062e\u0648\u0627\u0647\u0645"]
    )
    sara.click(".chat-head-button")  # closes the drawer
    expect(drawer).to_be_hidden()
    # Scrolled to its foot, the page's last line lies above the floating button.
    sara.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    last = sara.evaluate(
        "Math.max(...[...document.querySelectorAll('#main *')]"
        ".filter(e => e.offsetParent && !e.closest('.chat-toggle, .chat'))"
        ".map(e => e.getBoundingClientRect().bottom))"
    )
    tbox = toggle.bounding_box()
    assert tbox is not None and last <= tbox["y"], (last, tbox)
    assert console.unexpected() == []
