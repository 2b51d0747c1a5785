"""The Python client in a language: its refusals carry the reason's key and arguments,
its messages come in the language it asks for, and the terminal draws the table in it."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis

from catalogs import PSEUDO
from catalogs.pseudo import CLOSE, OPEN
from client.http import ProtocolError, SplendorHTTP
from client.live import LiveGame
from client.terminal import environment_language, render
from events.reasons import Reason, english
from server.common.settings import Settings
from tests.server.ws_helpers import live_server


@pytest.fixture
def settings(redis_client: aioredis.Redis, redis_server: str) -> Settings:
    """Settings on the session's Redis (emptied by redis_client), with no rate limit."""
    return Settings(redis_url=redis_server).without_rate_limits()


async def test_refusals_carry_their_key_and_arguments(settings: Settings) -> None:
    """Over HTTP and the websocket, a refusal is a ProtocolError whose reason is the
    server's key and arguments; its message is in the client's lang (en-XA here)."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game = await http.create_game("classic", 2, seed=3)
        seats = [await http.join(game["id"], name) for name in ("Ana", "Ben")]
        view = await http.view(game["id"])
        waiting = seats[1 - view["turn"]["seat"]]
        mover_name = view["players"][view["turn"]["seat"]]["name"]
        with pytest.raises(ProtocolError) as refused:
            await http.command(waiting, {"kind": "pass"})
        assert refused.value.key == "turn.not_yours"
        assert refused.value.reason == Reason("turn.not_yours", {"player": mover_name})
        assert refused.value.message == english(refused.value.reason)
        async with LiveGame(server.http_url, game["id"], token=waiting.token, lang=PSEUDO) as live:
            with pytest.raises(ProtocolError) as on_socket:
                await live.send({"kind": "pass"})
        assert on_socket.value.reason == refused.value.reason
        assert on_socket.value.message.startswith(OPEN) and mover_name in on_socket.value.message
    async with live_server(settings) as server, SplendorHTTP(server.http_url, lang="pl") as http:
        with pytest.raises(ProtocolError) as missing:
            await http.game("nope")
        assert missing.value.key == "game.not_found" and missing.value.status == 404


async def test_the_account_language_from_the_client(settings: Settings) -> None:
    """set_language keeps the language on the account; me() shows it."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        await http.sign_up("Zofia", "a-long-enough-password")
        assert await http.set_language("pl") == "pl"
        me = await http.me()
        assert me is not None and me["language"] == "pl"
        with pytest.raises(ProtocolError) as refused:
            await http.set_language("xx")
        assert refused.value.key == "account.language"


def terminal_view() -> tuple[dict[str, Any], dict[str, Any]]:
    view = {
        "game": "g1",
        "variant": "classic",
        "version": 9,
        "status": "live",
        "turn": {"seat": 0, "number": 3, "phase": "main", "final_round": True},
        "bank": {"white": 4, "blue": 4, "green": 4, "red": 4, "black": 4, "gold": 5},
        "nobles": [],
        "board": {"1": [None]},
        "decks": {"1": 30},
        "players": [
            {
                "seat": 0,
                "name": "Ana",
                "points": 1,
                "tokens": {"red": 1},
                "bonuses": {},
                "reserved": [{"level": 2}],
            }
        ],
        "you": 0,
        "result": {"winners": [0]},
        "rematch": "g2",
    }
    return view, {"cards": {}, "nobles": {}}


def test_the_terminal_draws_every_word_through_the_catalog() -> None:
    """In en-XA every word the terminal writes is bracketed; what stays outside the
    brackets is names, ids, numbers and the symbols of the tokens."""
    view, catalog = terminal_view()
    english_text = render(view, catalog, [True], lang="en")
    assert "final round" in english_text and "1 point" in english_text
    text = render(view, catalog, [True], lang=PSEUDO)
    outside = text
    while OPEN in outside:
        start = outside.index(OPEN)
        end = outside.index(CLOSE, start)
        outside = outside[:start] + " " + outside[end + 1 :]
    leftovers = {word for word in outside.split() if any(c.isalpha() for c in word)}
    assert leftovers <= {"g1", "g2", "(classic)", "Ana", "L1", "[", "(●", "♥R1", "★$5"} | {
        f"{symbol}4" for symbol in ("◇W", "●U", "♣G", "♥R", "■K")
    }, leftovers


def test_the_terminal_language_comes_from_the_locale() -> None:
    """LC_ALL, then LC_MESSAGES, then LANG name the language; others are English."""
    assert environment_language({"LANG": "pl_PL.UTF-8"}) == "pl"
    assert environment_language({"LC_ALL": "fa_IR", "LANG": "pl_PL.UTF-8"}) == "fa"
    assert environment_language({"LC_MESSAGES": "el_GR.utf8@euro"}) == "el"
    assert environment_language({"LANG": "de_DE.UTF-8"}) == "en"
    assert environment_language({}) == "en"
