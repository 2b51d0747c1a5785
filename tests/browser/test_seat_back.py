"""Seats a session's end reaches, in the page (docs/accounts.md, "Seats of an
account"): a logged-in player is seated at their table in a second browser without
the link; the first is told its seat moved and takes it back only with a click; after
"log out everywhere" the pages' tokens are refused, and logging in again gives the
seat back; the table's "New link" revokes the link given out while the page plays on."""

from __future__ import annotations

import httpx
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import Console, ServerProcess, open_page
from tests.browser.pages import Api, click_action, give_seat, seat_record, wait_version
from tests.browser.test_accounts import PASSWORD, new_username, sign_up


def log_in(page: Page, username: str) -> None:
    """Log in with the top bar's dialog (or the one a page opened)."""
    if not page.locator("#account-dialog").is_visible():
        page.click("#login-open")
    page.fill("#account-username", username)
    page.fill("#account-password", PASSWORD)
    page.click("#account-submit")
    expect(page.locator("#account-name")).to_have_text(username)


def view_status(base: str, game_id: str, token: str) -> int:
    """What GET /view answers ``token`` now."""
    r = httpx.get(f"{base}/api/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"})
    return r.status_code


def expect_seated(page: Page, username: str) -> None:
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    expect(page.locator(".who-am-i")).to_have_text(f"Playing as {username}")
    expect(page.locator("#seat-moved")).to_have_count(0)


def test_a_logged_in_player_is_seated_in_a_second_browser_without_the_link(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    server: ServerProcess,
    api: Api,
) -> None:
    """Logged in on a second browser, the table's address seats the account (no link): the first browser is told its seat is played elsewhere and takes it back with a click; after "log out everywhere" both pages' tokens are refused (403), and the player, logged in again, is seated with a new token."""
    username = new_username("Sb")
    first = open_page(browser, contexts, console, "first")
    first.goto(f"{server.base}/#/")
    sign_up(first, username)
    game_id = api.new_game(seed=5)
    first.goto(f"{server.base}/#/join/{game_id}")
    expect(first.locator("#joining-as")).to_have_text(f"You join as {username}.")
    first.click("#join-game")
    first.wait_for_url(f"**/#/play/{game_id}")
    ben = api.join(game_id, "Ben")
    expect_seated(first, username)
    first_token = seat_record(first, game_id)["token"]

    second = open_page(browser, contexts, console, "second")
    second.goto(f"{server.base}/#/")
    log_in(second, username)
    second.goto(f"{server.base}/#/play/{game_id}")
    expect_seated(second, username)
    second_token = seat_record(second, game_id)["token"]
    assert second_token != first_token
    assert view_status(server.base, game_id, first_token) == 403

    # The first page is told, and does not take the seat back by itself.
    expect(first.locator("#seat-moved")).to_contain_text("played elsewhere now")
    expect(first.locator("#connection")).to_have_attribute("data-state", "closed")
    first.click("#seat-take-back")
    expect_seated(first, username)
    expect(second.locator("#seat-moved")).to_be_visible()
    assert view_status(server.base, game_id, second_token) == 403

    # "Log out everywhere" from the second browser revokes the first page's token too.
    taken_back = seat_record(first, game_id)["token"]
    second.click("#account-name")
    second.click("#logout-everywhere")
    expect(second.locator("#login-open")).to_be_visible()
    expect(first.locator("#seat-moved")).to_be_visible()
    assert view_status(server.base, game_id, taken_back) == 403
    expect(first.locator("#seat-log-in")).to_be_visible()  # its session ended too
    first.click("#seat-log-in")
    log_in(first, username)
    first.click("#seat-take-back")
    expect_seated(first, username)

    # A move with the new token, from the page (Ben's first, if his is the first turn).
    renewed = seat_record(first, game_id)["token"]
    assert renewed != taken_back
    view = api.view(game_id, renewed)
    if view["turn"]["seat"] != view["you"]:
        bens = api.view(game_id, ben)
        api.command(game_id, ben, next(a for a in bens["legal"] if a["kind"] == "take_three"))
        view = api.view(game_id, renewed)
    wait_version(first, view["version"])
    take = next(a for a in view["legal"] if a["kind"] == "take_three")
    me = next(p for p in view["players"] if p["seat"] == view["you"])
    click_action(first, take, me)
    wait_version(first, view["version"] + 1)
    assert console.unexpected(("401", "403")) == []


def test_a_revoked_token_is_taken_back_at_the_next_log_in(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    server: ServerProcess,
    api: Api,
) -> None:
    """A page's token revoked while it was away ("log out everywhere" elsewhere): once logged in again, opening the table takes the seat back by itself, with a new token."""
    username = new_username("Sr")
    page = open_page(browser, contexts, console, "page")
    page.goto(f"{server.base}/#/")
    sign_up(page, username)
    game_id = api.new_game(seed=6)
    page.goto(f"{server.base}/#/join/{game_id}")
    page.click("#join-game")
    page.wait_for_url(f"**/#/play/{game_id}")
    api.join(game_id, "Cy")
    expect_seated(page, username)
    old = seat_record(page, game_id)["token"]
    page.goto(f"{server.base}/#/")
    with httpx.Client(base_url=server.base) as other:
        r = other.post("/api/session", json={"username": username, "password": PASSWORD})
        assert r.status_code == 200
        assert other.delete("/api/sessions").status_code == 200
    assert view_status(server.base, game_id, old) == 403
    page.reload()
    expect(page.locator("#login-open")).to_be_visible()
    log_in(page, username)
    page.goto(f"{server.base}/#/play/{game_id}")
    expect_seated(page, username)
    assert seat_record(page, game_id)["token"] != old
    assert console.unexpected(("401", "403")) == []


def test_a_new_link_revokes_the_other_devices_link(
    browser: Browser,
    contexts: list[BrowserContext],
    console: Console,
    server: ServerProcess,
    api: Api,
) -> None:
    """ "New link" in the table's "Other device" menu gives the seat a new token: the link given out before is refused (403, and a browser opening it is told it holds no seat), while this page plays on with the new token, kept in its storage, and shows the new link."""
    game_id = api.new_game(seed=21)
    names = ["Ana", "Ben"]
    tokens = [api.join(game_id, name) for name in names]
    seat = api.view(game_id)["turn"]["seat"]
    page = open_page(browser, contexts, console, "page")
    give_seat(page, server.base, game_id, seat, tokens[seat], names[seat])
    page.goto(f"{server.base}/#/play/{game_id}")
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    page.locator("#device-menu summary").click()
    old_link = page.locator('[data-share="device"]').input_value()
    page.click("#device-new-link")
    expect(page.locator("#device-replace-note")).to_contain_text("new link")
    expect(page.locator("#connection")).to_have_attribute("data-state", "live")
    new_token = seat_record(page, game_id)["token"]
    assert new_token != tokens[seat]
    new_link = page.locator('[data-share="device"]').input_value()
    assert new_token in new_link and tokens[seat] not in new_link
    assert view_status(server.base, game_id, tokens[seat]) == 403

    phone = open_page(browser, contexts, console, "phone")
    phone.goto(old_link)
    expect(phone.locator("#seat-link-notice")).to_contain_text("This link holds no seat")

    view = api.view(game_id, new_token)
    take = next(a for a in view["legal"] if a["kind"] == "take_three")
    me = next(p for p in view["players"] if p["seat"] == seat)
    click_action(page, take, me)
    wait_version(page, view["version"] + 1)
    assert console.unexpected(("403",)) == []


def test_a_started_game_opened_logged_out_offers_to_log_in_to_a_seat(
    browser: Browser, contexts: list[BrowserContext], console: Console, server: ServerProcess
) -> None:
    """A started game of accounts opened where nobody is logged in (the link of a "your move" e-mail on another device) asks whether a seat is yours and offers Log in; logging in there seats the account at its table."""
    names = [new_username("Ml"), new_username("Mo")]
    players = [httpx.Client(base_url=server.base, headers={"Origin": server.base}) for _ in names]
    try:
        for player, name in zip(players, names, strict=True):
            r = player.post("/api/accounts", json={"username": name, "password": PASSWORD})
            assert r.status_code == 201, r.text
        body = {"variant": "classic", "players": 2, "clock": {"per_move": 86400}, "rated": True}
        r = players[0].post("/api/games", json=body)
        assert r.status_code == 201, r.text
        game_id = r.json()["id"]
        for player in players:
            assert player.post(f"/api/games/{game_id}/seats", json={}).status_code == 201
        page = open_page(browser, contexts, console, "mail link")
        page.goto(f"{server.base}/#/play/{game_id}")
        page.wait_for_url(f"**/#/join/{game_id}")
        expect(page.locator("#started-log-in")).to_be_visible()
        page.click("#started-log-in")
        log_in(page, names[1])
        page.wait_for_url(f"**/#/play/{game_id}")
        expect_seated(page, names[1])
        assert console.unexpected() == []
    finally:
        for player in players:
            player.close()
