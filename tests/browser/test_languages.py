"""The page in each of its languages (issue 24): the lobby of en, es, pl, el, is and fa
is written in that language, as its catalog says, and nothing in it overlaps or runs
past the screen from a phone to a wide screen; the table in Icelandic (long words) the
same, in play and at the end; a whole classic game is played in Greek; every chat
preset reads in every language; and the Persian replay's tooltips name the arrow key
that steps the way they say.

The expected words are read from the catalogs through the server's own loader
(``catalogs.translations``), never written here: a translator's change of a word
changes what the tests expect."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from catalogs.languages import LANGUAGES, SOURCE
from catalogs.translations import translations
from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api
from tests.browser.test_layout import bots_finish, layout_problems
from tests.browser.test_rtl import (
    HEIGHTS,
    WIDTHS,
    LanguageTables,
    assert_language,
    language_tables,
    play_classic_to_the_end,
    start_from_the_lobby,
)

# Lobby elements and the message (context, msgid) each shows as its text.
LOBBY_WORDS: list[tuple[str, str | None, str]] = [
    ("#pairing-title", None, "Quick pairing"),
    ("#new-title", None, "Start a game"),
    ('label[for="player-name"]', None, "Your name"),
    ("#players-label", None, "Players"),
    ("#start-game", None, "Start the game"),
    ("#open-title", None, "Open games: join one"),
    ("#live-title", None, "Live games: watch"),
    ("#finished-title", None, "Finished games: replay"),
    ('#open-games [data-key="join"]', None, "Join"),
    ('#finished-games [data-key="replay"]', None, "Replay"),
    ('.topnav a[href^="#/leaderboard"]', None, "Leaderboard"),
    ('#live-games [data-key="watch"]', None, "Watch"),
]

# What overlaps or runs past the screen in the lobby: every visible part that shows
# something (a control, a link, a drawing, a panel, an element with its own text) of
# the top bar and the lobby, taken a line box at a time (an inline element's vertical
# padding left out: it only lights up on hover), checked against every other part
# that neither holds it nor is held by it; against the screen's edges and its panel's
# or the top bar's; and a button, link, label or heading whose text is wider than it.
LOBBY_PROBLEMS = """(width) => {
  const problems = [];
  const page = document.documentElement;
  if (page.scrollWidth > width) problems.push(`the page is ${page.scrollWidth}px wide`);
  const shown = (el) =>
    el.getClientRects().length &&
    el.checkVisibility({ visibilityProperty: true, opacityProperty: true }) &&
    !el.closest(".sr-only, .skip-link, details:not([open]) > :not(summary)");
  const ownText = (el) => [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.data.trim());
  const name = (el) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""} ${JSON.stringify((el.textContent || el.value || "").trim().slice(0, 40))}`;
  const parts = [...document.querySelectorAll(".topbar *, .lobby *")].filter(
    (el) => shown(el) && !el.closest("svg *") && (el.matches("input, select, button, a, summary, svg, .btn, .segment, .panel") || ownText(el)),
  );
  const lines = parts.map((el) => {
    const style = getComputedStyle(el);
    const inline = style.display === "inline";
    const top = inline ? parseFloat(style.paddingTop) + parseFloat(style.borderTopWidth) : 0;
    const bottom = inline ? parseFloat(style.paddingBottom) + parseFloat(style.borderBottomWidth) : 0;
    return [...el.getClientRects()]
      .filter((r) => r.width > 1 && r.height > 1)
      .map((r) => ({ left: r.left, right: r.right, top: r.top + top, bottom: r.bottom - bottom }));
  });
  parts.forEach((el, i) => {
    const frame = el.parentElement.closest(".panel, .topbar");
    const f = frame && frame.getBoundingClientRect();
    for (const r of lines[i]) {
      if (r.left < -0.5 || r.right > width + 0.5) problems.push(`${name(el)} runs past the screen (${Math.round(r.left)} to ${Math.round(r.right)})`);
      else if (f && (r.left < f.left - 0.5 || r.right > f.right + 0.5)) problems.push(`${name(el)} leaves its ${frame.className}`);
    }
    if (el.matches("button, a, label, h1, h2, summary, .btn, .segment") && el.clientWidth && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${name(el)} is cut (${el.scrollWidth} > ${el.clientWidth})`);
    }
    for (let j = i + 1; j < parts.length; j++) {
      if (el.contains(parts[j]) || parts[j].contains(el)) continue;
      const hit = lines[i].some((a) => lines[j].some((b) =>
        Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1));
      if (hit) problems.push(`${name(el)} overlaps ${name(parts[j])}`);
    }
  });
  return [...new Set(problems)];
}"""

# PROTOCOL.md's chat presets ("Table talk") and their English labels (the msgids).
CHAT_PRESETS = {
    "hello": "Hello!",
    "good_luck": "Good luck!",
    "well_played": "Well played!",
    "thanks": "Thanks!",
    "good_game": "Good game!",
    "rematch?": "Rematch?",
}

# The Persian names of the arrows' directions, as the replay's tooltips write them.
PERSIAN_ARROWS = {"چپ": "ArrowLeft", "راست": "ArrowRight"}


def said(lang: str, context: str | None, msgid: str) -> str:
    """What the page catalog of ``lang`` makes of a message (its msgid when untranslated)."""
    return translations(lang, "page").pgettext(context, msgid)


@dataclass
class LobbyGames:
    """Games of each list of the lobby: open, live and finished."""

    open_id: str
    live_id: str
    finished_id: str


@pytest.fixture(scope="module")
def lobby_games(server: ServerProcess) -> Iterator[LobbyGames]:
    """An open 3-player game with one long-named player seated, a live Duel between a
    person and a bot, and a finished classic game of two bots."""
    api = Api(server.base)
    try:
        open_id = api.new_game(players=3, seed=3, variant="classic")
        api.join(open_id, "Þórhildur Guðmundsdóttir")
        live_id = api.new_game(players=2, seed=3, variant="duel")
        api.join(live_id, "Ana")
        api.add_bot(live_id, "greedy")
        finished_id = bots_finish(api, "classic", 2, seed=8, levels=["greedy", "greedy"])
        yield LobbyGames(open_id, live_id, finished_id)
    finally:
        api.close()


def lobby_problems(page: Page, width: int) -> list[str]:
    """Every overlap, overflow and cut text of the lobby at ``width``."""
    found: list[str] = page.evaluate(LOBBY_PROBLEMS, width)
    return [f"at {width}px: {problem}" for problem in found]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_lobby_is_written_in_each_language_and_fits_every_screen(
    lang: str,
    lobby_games: LobbyGames,
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    console: Console,
) -> None:
    """The lobby at ?lang= of each language is <html lang dir> of that language and shows its catalog's words (titles, labels, buttons, the lists' links, the top bar), and at 360, 390, 1280 and 1920 px no part of it overlaps another, leaves its panel or the screen, or is cut."""
    page = open_page(browser, contexts, console, f"lobby {lang}")
    page.goto(f"{server.base}/?lang={lang}#/")
    assert_language(page, lang)
    expect(page.locator(f'#finished-games [data-game="{lobby_games.finished_id}"]')).to_be_visible()
    expect(page.locator(f'#open-games [data-game="{lobby_games.open_id}"]')).to_be_visible()
    expect(page.locator(f'#live-games [data-game="{lobby_games.live_id}"]')).to_be_visible()
    translated = 0
    for selector, context, msgid in LOBBY_WORDS:
        words = said(lang, context, msgid)
        translated += words != msgid
        expect(page.locator(selector).first).to_have_text(words)
    expect(page.locator("#player-name")).to_have_attribute(
        "placeholder", said(lang, None, "Your name")
    )
    if lang != SOURCE:  # a few words may be the same as English's ("Lobby" in Polish)
        assert translated >= len(LOBBY_WORDS) - 2, f"{lang}: only {translated} words translated"
    problems = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": HEIGHTS.get(width, 800)})
        page.wait_for_timeout(100)  # a layout pass after the resize
        problems += lobby_problems(page, width)
    assert problems == [], problems
    assert console.unexpected() == []


@pytest.fixture(scope="module", params=["classic", "duel"])
def icelandic_tables(
    request: pytest.FixtureRequest, browser: Browser, server: ServerProcess
) -> Iterator[LanguageTables]:
    """Per game: a live table at the test's move with a choice begun, and finished
    tables, in Icelandic (test_rtl.py's tables)."""
    with language_tables(browser, server, request.param, ("is",)) as found:
        yield found


@pytest.mark.parametrize("width", WIDTHS)
def test_no_part_of_the_table_overlaps_another_in_icelandic(
    icelandic_tables: LanguageTables, width: int
) -> None:
    """At 360, 390, 1280 and 1920 px, in Icelandic (long words), in play (choosing) and at the end of a 2- and a 4-player game: the players, the log, the board, the banner and the head never overlap, point totals stay in their panels, names are whole, nothing is wider than the screen."""
    problems = []
    for page, where in icelandic_tables.pages["is"]:
        assert_language(page, "is")
        page.set_viewport_size({"width": width, "height": HEIGHTS.get(width, 800)})
        page.wait_for_timeout(100)
        problems += layout_problems(page, width, where)
    assert problems == [], problems


def test_a_classic_game_against_a_bot_played_in_greek_to_its_end(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """A timed classic game against the greedy bot is started from the Greek lobby and clicked to its end: the page stays <html lang="el" dir="ltr">, names the bank in the catalog's Greek, shows each position as the server does, and ends with its result table under the catalog's Greek title."""
    page = open_page(browser, contexts, console, "person")
    game_id, seat, token = start_from_the_lobby(page, server.base, "classic", seed=12, lang="el")
    bank = said("el", "term", "Bank")
    assert bank != "Bank"

    def in_greek(page: Page) -> None:
        assert_language(page, "el")
        expect(page.locator(".bank-title")).to_have_text(bank)

    final = play_classic_to_the_end(page, api, game_id, seat, token, in_greek)
    expect(page.locator("#end-title")).to_have_text(said("el", None, "Game over"))
    assert final["players"][1]["name"]
    assert_language(page, "el")
    assert console.unexpected() == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_chat_preset_reads_in_each_language(
    lang: str, browser: Browser, contexts: list[BrowserContext], server: ServerProcess
) -> None:
    """chat_presets.js gives each of PROTOCOL.md's six presets in the page's language, as the catalog has it, never the English words in another language, and nothing for a key it does not know."""
    context = browser.new_context()
    contexts.append(context)
    page = context.new_page()
    page.goto(f"{server.base}/?lang={lang}#/")
    labels: dict[str, Any] = page.evaluate(
        """async () => {
          const { PRESETS, presetLabel } = await import('/js/chat_presets.js');
          return { presets: PRESETS, labels: PRESETS.map(presetLabel), unknown: presetLabel('shrug') };
        }"""
    )
    assert labels["presets"] == list(CHAT_PRESETS)
    assert labels["unknown"] is None
    for key, label in zip(labels["presets"], labels["labels"], strict=True):
        msgid = CHAT_PRESETS[key]
        assert label == said(lang, "chat", msgid), (lang, key, label)
        if lang != SOURCE:
            assert label != msgid, (lang, key, label)


def test_the_persian_replays_tooltips_name_the_keys_that_step(
    lobby_games: LobbyGames,
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    console: Console,
) -> None:
    """In a Persian replay each step button's tooltip names one arrow (left or right), and that arrow key (with Shift for a single event) steps the way the button does: the next turn and event forward, the previous ones back."""
    page = open_page(browser, contexts, console, "replay fa")
    # Well inside the game, so that every button has somewhere to step to.
    page.goto(f"{server.base}/?lang=fa#/replay/{lobby_games.finished_id}/20")
    expect(page.locator("#replay-position")).not_to_be_empty()

    def position() -> int:
        return int(page.url.rsplit("/", 1)[1])

    for button, shift, forward in (
        ("next-turn", False, True),
        ("next-event", True, True),
        ("prev-turn", False, False),
        ("prev-event", True, False),
    ):
        title = page.locator(f"#replay-{button}").get_attribute("title") or ""
        named = [key for word, key in PERSIAN_ARROWS.items() if re.search(rf"\b{word}\b", title)]
        assert len(named) == 1, (button, title)
        before = position()
        page.keyboard.press(f"Shift+{named[0]}" if shift else named[0])
        expect(page).not_to_have_url(re.compile(rf"/{before}$"))
        assert (position() > before) == forward, (button, title, before, position())
    assert console.unexpected() == []
