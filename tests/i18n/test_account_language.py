"""The account's language (``PUT /api/me/language``): kept on the account, and the
language of its answers wherever it logs in, below ``?lang=`` and the cookie."""

from __future__ import annotations

import httpx

PASSWORD = "a-long-enough-password"


async def signed_up(http: httpx.AsyncClient, username: str) -> None:
    r = await http.post("/api/accounts", json={"username": username, "password": PASSWORD})
    assert r.status_code == 201, r.text


async def test_the_account_keeps_its_language(http: httpx.AsyncClient) -> None:
    """PUT /api/me/language answers the language, GET /api/me shows it, and it stays
    after logging out and in again."""
    await signed_up(http, "Lena")
    assert (await http.get("/api/me")).json()["language"] is None
    r = await http.put("/api/me/language", json={"language": "pl"})
    assert r.status_code == 200 and r.json() == {"language": "pl"}
    assert (await http.get("/api/me")).json()["language"] == "pl"
    await http.delete("/api/session")
    r = await http.post("/api/session", json={"username": "Lena", "password": PASSWORD})
    assert r.status_code == 200
    assert (await http.get("/api/me")).json()["language"] == "pl"


async def test_an_accounts_answers_are_in_its_language(http: httpx.AsyncClient) -> None:
    """With no ?lang= and no lang cookie, a logged-in player's errors and page come in
    the account's language, whatever Accept-Language says; the cookie and ?lang= still
    come first."""
    await signed_up(http, "Mani")
    await http.put("/api/me/language", json={"language": "fa"})
    wanted = {"Accept-Language": "es"}
    r = await http.get("/api/games/nope", headers=wanted)
    assert r.status_code == 404 and r.headers["content-language"] == "fa"
    page = await http.get("/", headers=wanted)
    assert '<html lang="fa" dir="rtl">' in page.text
    http.cookies.set("lang", "el")
    assert (await http.get("/api/games/nope", headers=wanted)).headers["content-language"] == "el"
    r = await http.get("/api/games/nope", params={"lang": "is"}, headers=wanted)
    assert r.headers["content-language"] == "is"
    http.cookies.delete("lang")
    await http.delete("/api/session")
    r = await http.get("/api/games/nope", headers=wanted)
    assert r.headers["content-language"] == "es"  # a guest again: Accept-Language


async def test_bad_language_choices_are_refused(http: httpx.AsyncClient) -> None:
    """An unknown language is 400 (account.language) and changes nothing; without a
    session 401; from another site's page 403."""
    r = await http.put("/api/me/language", json={"language": "pl"})
    assert r.status_code == 401 and r.json()["reason"]["key"] == "account.not_logged_in"
    await signed_up(http, "Olek")
    for body in ({"language": "tlh"}, {"language": "en-XA"}, {"lang": "pl"}, {}):
        r = await http.put("/api/me/language", json=body)
        assert r.status_code == 400 and r.json()["code"] == "bad_request", body
    refused = await http.put("/api/me/language", json={"language": "tlh"})
    assert refused.json()["reason"] == {
        "key": "account.language",
        "args": {"known": "en, es, pl, el, is, fa", "value": "tlh"},
    }
    r = await http.put(
        "/api/me/language", json={"language": "pl"}, headers={"Origin": "http://evil.example"}
    )
    assert r.status_code == 403 and r.json()["reason"]["key"] == "account.other_site"
    assert (await http.get("/api/me")).json()["language"] is None
