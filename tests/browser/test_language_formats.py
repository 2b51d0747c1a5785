"""Lists and dates in the page's language even where the browser lacks its locale data
(Debian's Chromium has no Icelandic for Intl.ListFormat and Intl.DateTimeFormat): the
catalog's "list" and "date" messages join and order them, while a language the browser
knows (English) is written by Intl as before. Persian numbers the how-to-play's
lists with Persian digits, and on its right-to-left page every value set into a
sentence is isolated (U+2068 … U+2069) so that it keeps its own order."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api
from tests.browser.test_layout import bots_finish

# The page's own formatters, as the page loaded them (the module is shared with it).
FORMATS = """async () => {
  const m = await import('/js/i18n.js');
  return {
    lang: m.lang,
    known: [Intl.ListFormat.supportedLocalesOf([m.lang]).length, Intl.DateTimeFormat.supportedLocalesOf([m.lang]).length],
    list: m.formatList(['a', 'b', 'c']),
    pair: m.formatList(['a', 'b']),
    one: m.formatList(['a']),
    units: m.formatList(['a', 'b', 'c'], { units: true }),
    date: m.formatDate(new Date(2025, 4, 3)),
    moment: m.formatDate(new Date(2025, 4, 3, 14, 4, 9), { time: true }),
  };
}"""


def formats(page: Page, base: str, lang: str) -> dict[str, Any]:
    """The page's list and date formatters' answers in `lang`."""
    page.goto(f"{base}/?lang={lang}#/")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    result: dict[str, Any] = page.evaluate(FORMATS)
    return result


def test_icelandic_lists_and_dates_come_from_the_catalog_when_intl_lacks_them(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """In Icelandic, which this Chromium's Intl lacks, lists join with "og" and dates
    read day.month.year; English is still written by Intl ("a, b and c", "5/3/2025")."""
    page = open_page(browser, contexts, console, "formats")
    icelandic = formats(page, server.base, "is")
    assert icelandic["known"] == [0, 0], "this browser has Icelandic: the test shows nothing"
    assert icelandic["list"] == "a, b og c"
    assert icelandic["pair"] == "a og b"
    assert icelandic["one"] == "a"
    assert icelandic["units"] == "a, b, c"
    assert icelandic["date"] == "3.5.2025"
    assert icelandic["moment"] == "3.5.2025, 14:04:09"

    english = formats(page, server.base, "en")
    assert english["list"] == "a, b and c"
    assert english["pair"] == "a and b"
    assert english["units"] == "a, b, c"
    assert english["date"] == "5/3/2025"
    assert re.fullmatch(r"5/3/2025, 2:04:09\sPM", english["moment"]), english["moment"]
    assert console.unexpected() == []


def test_a_profile_lists_opponents_and_dates_games_in_icelandic(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """A bot's profile in Icelandic names the opponents of a finished three-player game
    joined with "og" and dates it day.month.year; in English "and" and month/day/year."""
    game_id = bots_finish(api, "classic", 3, seed=31, levels=["greedy", "random", "random"])
    page = open_page(browser, contexts, console, "profile")
    rows = {}
    for lang in ("is", "en"):
        page.goto(f"{server.base}/?lang={lang}#/player/bot:greedy")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        row = page.locator(f'.game-row[data-game="{game_id}"]')
        expect(row).to_be_visible()
        rows[lang] = row.inner_text()
    assert re.search(r"\S og \S", rows["is"]), rows["is"]
    assert re.search(r"\b\d{1,2}\.\d{1,2}\.\d{4}\b", rows["is"]), rows["is"]
    assert " and " not in rows["is"] and "/" not in rows["is"], rows["is"]
    assert re.search(r"\S and \S", rows["en"]), rows["en"]
    assert re.search(r"\b\d{1,2}/\d{1,2}/\d{4}\b", rows["en"]), rows["en"]
    assert console.unexpected() == []


# Each visible numbered list of the how-to-play and the marker style it is drawn with.
LIST_MARKERS = """() => [...document.querySelectorAll('.howto ol')]
  .filter((ol) => ol.getClientRects().length)
  .map((ol) => getComputedStyle(ol).listStyleType)"""


def test_the_how_to_play_numbers_its_lists_in_persian_digits_in_persian(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """In Persian the how-to-play's numbered lists (its contents and the Duel's ordered
    steps) are drawn with Persian digits; in English with decimal ones."""
    page = open_page(browser, contexts, console, "howto-lists")
    for lang, style in (("fa", "persian"), ("en", "decimal")):
        page.goto(f"{server.base}/?lang={lang}#/howto/duel")
        expect(page.locator(".howto-section").first).to_be_visible()
        expect(page.locator("html")).to_have_attribute("lang", lang)
        markers = page.evaluate(LIST_MARKERS)
        assert len(markers) >= 2, markers
        assert set(markers) == {style}, markers
    assert console.unexpected() == []


# A sentence with a Latin name, an id, a time control and a number, filled by the page.
SENTENCE = """async () => {
  const m = await import('/js/i18n.js');
  return m.t('{who} plays {game} at {control}, move {n}', { who: 'Ana', game: '#ab12', control: '3+2', n: 12 });
}"""
FSI, PDI = "\u2068", "\u2069"


def test_values_in_a_persian_sentence_are_isolated_and_not_in_english(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """In Persian each placeholder's value is set between FIRST STRONG ISOLATE and POP
    DIRECTIONAL ISOLATE (numbers in Persian digits), on a real page too (a profile's
    opponents); in English and Greek (left to right) no isolate is added."""
    game_id = bots_finish(api, "classic", 3, seed=32, levels=["greedy", "random", "random"])
    page = open_page(browser, contexts, console, "isolates")
    page.goto(f"{server.base}/?lang=fa#/")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    assert page.evaluate(SENTENCE) == (
        f"{FSI}Ana{PDI} plays {FSI}#ab12{PDI} at {FSI}3+2{PDI}, move {FSI}۱۲{PDI}"
    )
    page.goto(f"{server.base}/?lang=fa#/player/bot:greedy")
    row = page.locator(f'.game-row[data-game="{game_id}"]')
    expect(row).to_be_visible()
    text = row.inner_text()
    assert text.count(FSI) >= 2 and text.count(FSI) == text.count(PDI), repr(text)

    for lang in ("en", "el"):
        page.goto(f"{server.base}/?lang={lang}#/player/bot:greedy")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator(f'.game-row[data-game="{game_id}"]')).to_be_visible()
        assert page.evaluate(SENTENCE) == "Ana plays #ab12 at 3+2, move 12"
        body = page.locator("body").inner_text()
        assert FSI not in body and PDI not in body
    assert console.unexpected() == []
