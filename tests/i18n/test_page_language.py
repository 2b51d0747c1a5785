"""The web page in the request's language: ``<html lang dir>`` as served, and each
language's page catalog at ``GET /i18n/{lang}.json``."""

from __future__ import annotations

import re

import httpx
import pytest

from catalogs import LANGUAGES, PSEUDO, plural_categories, translations


def html_tag(page: str) -> str:
    found = re.search(r"<html\b[^>]*>", page)
    assert found is not None
    return found.group()


@pytest.mark.parametrize(
    ("params", "headers", "cookies", "lang", "direction"),
    [
        ({}, {}, {}, "en", "ltr"),
        ({}, {"Accept-Language": "pl-PL,pl;q=0.9,en;q=0.5"}, {}, "pl", "ltr"),
        ({}, {"Accept-Language": "fa-IR"}, {}, "fa", "rtl"),
        ({}, {"Accept-Language": "de, fr;q=0.8"}, {}, "en", "ltr"),
        ({"lang": "el"}, {"Accept-Language": "fa"}, {"lang": "is"}, "el", "ltr"),
        ({}, {"Accept-Language": "fa"}, {"lang": "is"}, "is", "ltr"),
        ({"lang": "tlh"}, {}, {}, "en", "ltr"),
        ({"lang": "en-XA"}, {}, {}, PSEUDO, "ltr"),
    ],
)
async def test_the_page_is_served_in_the_negotiated_language(
    http: httpx.AsyncClient,
    params: dict[str, str],
    headers: dict[str, str],
    cookies: dict[str, str],
    lang: str,
    direction: str,
) -> None:
    """GET / writes the negotiated language and its direction into <html>
    (?lang= > cookie > Accept-Language > en) and says it in Content-Language."""
    http.cookies.clear()
    for name, value in cookies.items():
        http.cookies.set(name, value)
    r = await http.get("/", params=params, headers=headers)
    assert r.status_code == 200
    assert html_tag(r.text) == f'<html lang="{lang}" dir="{direction}">'
    assert r.headers["content-language"] == lang
    assert "Accept-Language" in r.headers["vary"]
    assert (await http.get("/index.html", params=params, headers=headers)).text == r.text


async def test_the_page_is_revalidated_by_its_etag(http: httpx.AsyncClient) -> None:
    """The page's ETag depends on its language: the same one gets 304, another 200."""
    first = await http.get("/", headers={"Accept-Language": "pl"})
    etag = first.headers["etag"]
    again = await http.get("/", headers={"Accept-Language": "pl", "If-None-Match": etag})
    assert again.status_code == 304
    other = await http.get("/", headers={"Accept-Language": "es", "If-None-Match": etag})
    assert other.status_code == 200 and 'lang="es"' in other.text


@pytest.mark.parametrize("lang", [*LANGUAGES, PSEUDO])
async def test_each_language_has_a_page_catalog(http: httpx.AsyncClient, lang: str) -> None:
    """/i18n/{lang}.json: the language, its direction, its plural categories and the
    translated messages of page.po (untranslated ones left out), cacheable by ETag."""
    r = await http.get(f"/i18n/{lang}.json")
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"lang", "dir", "plural_categories", "messages"}
    assert body["lang"] == lang and r.headers["content-language"] == lang
    assert body["dir"] == ("rtl" if lang == "fa" else "ltr")
    assert body["plural_categories"] == list(plural_categories(lang))
    entries = translations(lang, "page").entries
    for key, value in body["messages"].items():
        assert entries[key] == (tuple(value) if isinstance(value, list) else value)
    assert "no-store" not in r.headers["cache-control"]
    revalidated = await http.get(f"/i18n/{lang}.json", headers={"If-None-Match": r.headers["etag"]})
    assert revalidated.status_code == 304


async def test_the_pseudo_catalog_brackets_every_message(http: httpx.AsyncClient) -> None:
    """en-XA's catalog has every page msgid, each made strange and bracketed."""
    body = (await http.get(f"/i18n/{PSEUDO}.json")).json()
    english = translations("en", "page").entries
    assert set(body["messages"]) >= set(english)
    for value in body["messages"].values():
        forms = value if isinstance(value, list) else [value]
        assert all(form.startswith("⟦") and form.endswith("⟧") for form in forms)


async def test_an_unknown_language_has_no_catalog(http: httpx.AsyncClient) -> None:
    """/i18n/de.json is a 404 in the protocol's error shape."""
    r = await http.get("/i18n/de.json")
    assert r.status_code == 404 and r.json()["code"] == "not_found"
