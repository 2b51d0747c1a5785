"""The same refusal over HTTP and the websocket in every language: a reason key with
its arguments, and the message made from that language's catalog (English where the
catalog lacks the sentence, so the tests hold as translators fill the catalogs)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from catalogs import LANGUAGES, PSEUDO
from events.reasons import Reason, english
from server.common.sentences import sentence
from server.common.settings import Settings
from tests.server.ws_helpers import connect, http_view, live_server, new_table, receive

LANGS = [*LANGUAGES, PSEUDO]


@pytest.fixture
def settings(redis_server: str) -> Settings:
    """No rate limit: the tests send fast."""
    return Settings(redis_url=redis_server).without_rate_limits()


def the_reason(body: dict[str, Any]) -> Reason:
    return Reason(body["reason"]["key"], body["reason"]["args"])


async def test_a_refusal_of_the_rules_in_every_language(
    redis_client: Any, settings: Settings
) -> None:
    """Buying a card nobody can afford yet is refused over HTTP (?lang=) and over the
    websocket (?lang= on its URL) with the key buy.cant_afford, its card, cost by colour
    and tokens short, and a message equal to the language's rendering of that reason
    (with Content-Language); English is the rules' own sentence; en-XA is bracketed."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=3)
        view = await http_view(http, table.id, None)
        token = table.tokens[view["turn"]["seat"]]  # the seat to move: only the rule refuses
        card = next(c for row in view["board"].values() for c in row if c)
        action = {"kind": "buy", "card": card}
        auth = {"Authorization": f"Bearer {token}"}
        for n, lang in enumerate(LANGS):
            body = {"command_id": f"h-{n}", "action": action}
            r = await http.post(
                f"/api/games/{table.id}/commands", params={"lang": lang}, json=body, headers=auth
            )
            assert r.status_code == 422 and r.headers["content-language"] == lang, r.text
            refused = r.json()
            reason = the_reason(refused)
            assert reason.key == "buy.cant_afford" and set(reason.args) == {"card", "cost", "short"}
            assert reason.args["card"] == card and reason.args["short"] > 0
            assert refused["message"] == sentence(reason, lang), lang

            url = f"{server.ws_url(table.id, token)}&lang={lang}"
            conn = await connect(url)
            assert (await receive(conn))["type"] == "snapshot"
            await conn.send(json.dumps({"type": "command", "command_id": f"w-{n}", **body}))
            answer = await receive(conn)
            await conn.close()
            assert answer["type"] == "error" and answer["code"] == "illegal_action"
            assert answer["reason"] == refused["reason"], lang
            assert answer["message"] == refused["message"], lang

            if lang == "en":
                assert refused["message"] == english(reason)
                assert refused["message"].startswith(f"You can't afford {card}: after your")
            if lang == PSEUDO:
                assert refused["message"].startswith("⟦") and refused["message"].endswith("⟧")


async def test_a_refusal_of_the_server_in_every_language(http: httpx.AsyncClient) -> None:
    """A bad limit on the lobby's list is refused with request.limit and its numbers,
    in each language's words; a spectator's websocket refusal (token.spectator) too."""
    for lang in LANGS:
        r = await http.get("/api/games", params={"limit": 0, "lang": lang})
        assert r.status_code == 400 and r.headers["content-language"] == lang
        reason = the_reason(r.json())
        assert reason == Reason("request.limit", {"most": 200, "value": 0})
        assert r.json()["message"] == sentence(reason, lang)
    r = await http.get("/api/games", params={"limit": 0})
    assert r.json()["message"] == "limit must be 1 to 200, not 0."


async def test_the_pseudo_locale_keeps_the_arguments_readable(http: httpx.AsyncClient) -> None:
    """In en-XA the sentence is made strange but the values it names (a number, a
    name) stay as sent, inside the brackets."""
    r = await http.get("/api/games", params={"limit": 0, "lang": PSEUDO})
    message = r.json()["message"]
    assert message.startswith("⟦ļīɱīŧ ɱůšŧ ƀę 1 ŧø 200") and message.endswith("⟧")


@pytest.mark.parametrize(
    ("params", "headers", "lang"),
    [
        ({}, {}, "en"),
        ({"lang": "tlh"}, {}, "en"),
        ({}, {"Accept-Language": "de-DE, de;q=0.9"}, "en"),
        ({}, {"Accept-Language": "pl-PL,pl;q=0.9,en;q=0.5"}, "pl"),
        ({}, {"Accept-Language": "de, fa;q=0.5"}, "fa"),
        ({"lang": "el"}, {"Accept-Language": "pl"}, "el"),
        ({"lang": "ES"}, {}, "es"),
    ],
)
async def test_errors_say_their_language(
    http: httpx.AsyncClient, params: dict[str, str], headers: dict[str, str], lang: str
) -> None:
    """Every error names its language in Content-Language: ?lang= (any case), else
    Accept-Language, else English; an unknown language is English."""
    r = await http.get("/api/games/nope-nope", params=params, headers=headers)
    assert r.status_code == 404 and r.headers["content-language"] == lang
    assert r.json()["reason"] == {"key": "game.not_found", "args": {"game": "nope-nope"}}


async def test_the_cookie_beats_accept_language_and_lang_beats_the_cookie(
    http: httpx.AsyncClient,
) -> None:
    """The lang cookie (the page's menu) wins over Accept-Language; ?lang= over both."""
    http.cookies.set("lang", "is")
    r = await http.get("/api/games/nope", headers={"Accept-Language": "fa"})
    assert r.headers["content-language"] == "is"
    r = await http.get("/api/games/nope", params={"lang": "pl"}, headers={"Accept-Language": "fa"})
    assert r.headers["content-language"] == "pl"
    http.cookies.set("lang", "klingon")  # not one of ours: passed over
    r = await http.get("/api/games/nope", headers={"Accept-Language": "fa"})
    assert r.headers["content-language"] == "fa"


async def test_starlettes_own_refusals_have_reasons_too(http: httpx.AsyncClient) -> None:
    """A wrong method (405), a websocket path over HTTP (426) and a missing file (404)
    carry a reason and Content-Language like every other error."""
    r = await http.delete("/api/games", params={"lang": "es"})
    assert r.status_code == 405 and r.headers["content-language"] == "es"
    assert r.json()["reason"]["key"] == "route.method" and "GET" in r.headers["allow"]
    r = await http.get("/ws/games/abc")
    assert r.status_code == 426 and r.json()["reason"]["key"] == "route.websocket_only"
    r = await http.get("/no-such-file.js")
    assert r.status_code == 404 and r.json()["reason"] == {
        "key": "route.nothing_here",
        "args": {"path": "/no-such-file.js"},
    }
