"""The page's words all come from its catalog: in the pseudo-locale (`?lang=en-XA`,
every message accented and bracketed by the server) the lobby, a classic and a Duel
table in play, the end of a game, its replay, a profile, the leaderboard and how to
play show no visible text outside the brackets but names, numbers and a short list;
and the language menu, its cookie and `?lang=` choose the page's language."""

from __future__ import annotations

import json
import secrets
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, give_seat, wait_for_turn
from tests.browser.test_layout import bots_finish, seat_in_play

PSEUDO = "en-XA"

# Words the page shows that no catalog holds, by design: the cards' levels in Roman
# numerals, the language menu's code of the page's language, the word Intl's lists
# join with in English (the pseudo-locale is English underneath).
ALLOWED = {"I", "II", "III", "EN", "and"}
# The language menu names each language in itself.
LANGUAGE_NAMES = {"English", "Español", "Polski", "Ελληνικά", "Íslenska", "فارسی"}

# Every visible text of the page and the texts it gives a reader otherwise (labels,
# tooltips, placeholders, alternatives, the tab's title), each with what is left of
# it once every bracketed message, every allowed name, game id and number is taken out.
LEFTOVERS = """
(names) => {
  const bare = (text) => {
    let s = text;
    for (let before = null; before !== s; ) {
      before = s;
      s = s.replace(/⟦[^⟦⟧]*⟧/g, " ");
    }
    for (const name of names) s = s.split(name).join(" ");
    return s.replace(/#[A-Za-z0-9_-]+/g, " ");
  };
  const seen = (el) => !!el && el.checkVisibility({ visibilityProperty: true });
  const texts = [["title", document.title]];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest("script, style, noscript, option")) continue;
    const inSvg = el.closest("svg");
    if (inSvg ? seen(inSvg) : seen(el)) texts.push([el.tagName.toLowerCase(), node.data]);
  }
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
    if (!seen(el.closest("svg") || el)) continue;
    for (const name of ["aria-label", "title", "placeholder", "alt"]) {
      if (el.hasAttribute(name)) texts.push([`@${name}`, el.getAttribute(name)]);
    }
  }
  for (const option of document.querySelectorAll("select option")) {
    if (seen(option.closest("select"))) texts.push(["option", option.textContent]);
  }
  return texts.map(([where, text]) => [where, text, bare(text)]);
}
"""


def escaped(page: Page, names: set[str]) -> list[str]:
    """The visible texts of `page` with a word outside the pseudo-locale's brackets
    that is not one of `names`, a number or an allowed word."""
    found: list[list[str]] = page.evaluate(LEFTOVERS, sorted(names, key=len, reverse=True))
    problems = []
    for where, text, left in found:
        if where == "kbd" and len(text.strip()) == 1:
            continue  # a shortcut's key is the same letter in every language
        words = [w for w in left.replace("\u00a0", " ").split() if any(c.isalpha() for c in w)]
        stray = [w for w in words if w.strip(".,:;!?()[]·") not in ALLOWED]
        if stray:
            problems.append(f"{where}: {text!r} ({' '.join(stray)})")
    return problems


def seat_names(api: Api) -> set[str]:
    """Every name a person's seat of a listed game has (the lobby shows them), and
    every username of the leaderboards."""
    names: set[str] = set()
    for status in ("open", "live", "finished"):
        for game in api.http.get("/api/games", params={"status": status, "limit": 20}).json()[
            "games"
        ]:
            names |= names_of(game.get("seats") or [])
    for variant in ("classic", "duel"):
        board = api.http.get(f"/api/leaderboard/{variant}", params={"limit": 100}).json()
        names |= {p["username"] for p in board["players"] if not p.get("bot")}
    return names


def names_of(seats: list[dict[str, Any]]) -> set[str]:
    """The names of the seats of people (a bot seat's name is the page's to write)."""
    return {s[key] for s in seats if not s.get("bot") for key in ("name", "account") if s.get(key)}


def clean(page: Page, names: set[str], ready: str) -> None:
    """Wait for `ready`, then no text escaped the catalog."""
    expect(page.locator(ready).first).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", PSEUDO)
    problems = escaped(page, names)
    assert problems == [], "\n".join(problems)


def play_to_the_end(api: Api, game_id: str, token: str) -> None:
    """The test's seat (0) buys a card whenever it can, else plays its first listed
    action, until the game ends (taking tokens alone, it could stall the bots for ever)."""
    for _ in range(400):
        view = wait_for_turn(api, game_id, 0, timeout=60)
        if view["status"] == "finished":
            return
        legal = api.view(game_id, token)["legal"]
        buys = [a for a in legal if a["kind"] == "buy"]
        api.command(game_id, token, buys[0] if buys else legal[0])
    raise AssertionError("the game did not end")


def test_no_words_escape_the_catalog_on_any_page(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """With ?lang=en-XA every visible text of the lobby, a classic table in play and at its end (the end dialog), its replay, a Duel table in play, a profile, both leaderboards and both how-to-play pages is bracketed, a name, a number or an allowed word."""
    base = f"{server.base}/?lang={PSEUDO}"
    username = f"Pia_{secrets.token_hex(3)}"
    r = api.http.post(
        "/api/accounts", json={"username": username, "password": "a-long-enough-password"}
    )
    assert r.status_code == 201, r.text
    classic, classic_token, _ = seat_in_play(api, "classic", 2, seed=11)
    duel, duel_token, _ = seat_in_play(api, "duel", 2, seed=12)
    finished = bots_finish(api, "classic", 2, seed=13, levels=["greedy", "random"])
    names = seat_names(api) | {username, "Ana"}

    page = open_page(browser, contexts, console, "pseudo")
    page.goto(f"{base}#/")
    expect(page.locator("#finished-games .game-row").first).to_be_visible()
    clean(page, names, "#start-game")

    give_seat(page, server.base, classic, 0, classic_token, "Ana")
    page.goto(f"{base}#/play/{classic}")
    clean(page, names, "#prompt")

    give_seat(page, server.base, duel, 0, duel_token, "Ana")
    page.goto(f"{base}#/play/{duel}")
    clean(page, names, "#token-board")

    page.goto(f"{base}#/play/{classic}")
    expect(page.locator("#prompt")).to_be_visible()
    play_to_the_end(api, classic, classic_token)
    clean(page, names, "#end-dialog")
    page.keyboard.press("Escape")
    clean(page, names, "#result-banner")

    for address, ready in [
        (f"#/replay/{finished}", "#move-list .move"),
        (f"#/replay/{classic}", "#move-list .move"),
        (f"#/player/{username}", "#record"),
        ("#/player/bot:greedy", "#record"),
        ("#/leaderboard/classic", ".leaderboard-body table, .leaderboard-body .empty"),
        ("#/leaderboard/duel", ".leaderboard-body table, .leaderboard-body .empty"),
        ("#/howto/classic", ".howto-section"),
        ("#/howto/duel", ".howto-section"),
    ]:
        page.goto(f"{base}{address}")
        clean(page, names, ready)
    assert console.unexpected() == []


def test_no_words_escape_the_catalog_in_dialogs_and_menus(
    browser: Browser,
    contexts: list[BrowserContext],
    server: ServerProcess,
    api: Api,
    console: Console,
) -> None:
    """With ?lang=en-XA the waiting room, the join page, the sign-up dialog, the language menu, and a table's keyboard help, resign dialog, share menu and other-device menu say nothing outside the brackets but names, numbers and allowed words."""
    base = f"{server.base}/?lang={PSEUDO}"
    waiting = api.new_game(players=3)
    token = api.join(waiting, "Ana")
    classic, classic_token, _ = seat_in_play(api, "classic", 2, seed=21)
    names = seat_names(api) | {"Ana"} | LANGUAGE_NAMES

    page = open_page(browser, contexts, console, "pseudo")
    page.goto(f"{base}#/")
    page.click("#signup-open")
    clean(page, names, "#account-dialog")
    page.keyboard.press("Escape")
    page.click("#language-open")
    clean(page, names, "#language-menu .lang-list")
    page.keyboard.press("Escape")

    page.goto(f"{base}#/join/{waiting}")
    clean(page, names, "#join-game")

    give_seat(page, server.base, waiting, 0, token, "Ana")
    page.goto(f"{base}#/play/{waiting}")
    page.click("#cancel-game")
    clean(page, names, "#waiting-room #cancel-confirm")

    give_seat(page, server.base, classic, 0, classic_token, "Ana")
    page.goto(f"{base}#/play/{classic}")
    expect(page.locator("#prompt")).to_be_visible()
    page.click("#help-open")
    clean(page, names, "#help-dialog")
    page.keyboard.press("Escape")
    page.click("#resign-game")
    clean(page, names, "#resign-dialog")
    page.click("#resign-cancel")
    page.locator(".share-menu:not(#device-menu) summary").click()
    clean(page, names, ".share-menu .share-panel")
    page.locator("#device-menu summary").click()
    expect(page.locator("#device-menu figure img")).to_be_visible()
    clean(page, names, "#device-menu .device-panel")
    assert console.unexpected() == []


def cookie(page: Page, name: str) -> str | None:
    for c in page.context.cookies():
        if c["name"] == name:
            return c["value"]
    return None


def test_the_language_menu_chooses_remembers_and_gives_way_to_the_address(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """The top bar's menu lists the six languages in their own words; choosing Español sets the lang cookie and reloads the page in Spanish (and a new visit stays so); ?lang=pl shows Polish over the cookie, and the menu's next choice drops ?lang= from the address."""
    page = open_page(browser, contexts, console, "menu")
    page.goto(f"{server.base}/#/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#start-game")).to_have_text("Start the game")
    page.click("#language-open")
    menu = page.locator("#language-menu .lang-list button")
    expect(menu).to_have_text(["English", "Español", "Polski", "Ελληνικά", "Íslenska", "فارسی"])
    expect(page.locator('#language-menu [aria-current="true"]')).to_have_text("English")
    with page.expect_navigation():
        page.click('#language-menu button[data-lang="es"]')
    expect(page.locator("html")).to_have_attribute("lang", "es")
    assert cookie(page, "lang") == "es"
    expect(page.locator("#language-open")).to_contain_text("ES")

    again = page.context.new_page()
    again.goto(f"{server.base}/#/")
    expect(again.locator("html")).to_have_attribute("lang", "es")
    again.close()

    page.goto(f"{server.base}/?lang=pl#/")
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.locator("#language-open")).to_contain_text("PL")
    page.click("#language-open")
    with page.expect_navigation():
        page.click('#language-menu button[data-lang="en"]')
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert "lang=" not in page.url
    assert cookie(page, "lang") == "en"
    expect(page.locator("#start-game")).to_have_text("Start the game")

    page.goto(f"{server.base}/?lang=fa#/")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    assert console.unexpected() == []


def test_a_logged_in_player_s_choice_goes_to_the_account(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess, console: Console
) -> None:
    """Logged in, choosing a language also sends PUT /api/me/language with it (a server without it answers 404: the cookie still holds the choice)."""
    page = open_page(browser, contexts, console, "account")
    page.goto(f"{server.base}/#/")
    username = f"Lia_{secrets.token_hex(3)}"
    status = page.evaluate(
        """(username) => fetch('/api/accounts', {method: 'POST', headers: {'Content-Type': 'application/json'},
           body: JSON.stringify({username, password: 'a-long-enough-password'})}).then((r) => r.status)""",
        username,
    )
    assert status == 201
    page.reload()
    expect(page.locator("#account-name")).to_have_text(username)
    page.click("#language-open")
    with (
        page.expect_request(lambda r: r.url.endswith("/api/me/language")) as sent,
        page.expect_navigation(),
    ):
        page.click('#language-menu button[data-lang="is"]')
    assert sent.value.method == "PUT"
    assert json.loads(sent.value.post_data or "{}") == {"language": "is"}
    expect(page.locator("html")).to_have_attribute("lang", "is")
    assert console.unexpected(("404",)) == []
