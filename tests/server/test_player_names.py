"""Players' names: normalized to NFC, and refused (``bad_request``, the seat left
free) when they hold control, bidirectional or invisible characters."""

from __future__ import annotations

import httpx
import pytest


async def open_game(http: httpx.AsyncClient) -> str:
    r = await http.post("/api/games", json={"variant": "classic", "players": 2})
    assert r.status_code == 201
    game_id: str = r.json()["id"]
    return game_id


@pytest.mark.parametrize(
    "name",
    [
        "Ana\x00",
        "Ana\r\nX-Admin: 1",
        "An\ta",
        "\x1b[31mAna",
        "Ana\u2028",
        "\u202eanA",
        "Ana\u202a",
        "Ana\u2066",
        "Ana\u2069",
        "A\u200bna",
        "A\u200cna",
        "A\u200dna",
        "\ufeffAna",
        "A\u2060na",
        "\u200f",
    ],
    ids=repr,
)
async def test_a_name_with_a_hidden_character_is_refused(
    http: httpx.AsyncClient, name: str
) -> None:
    """A name holding a control, bidi override/isolate or zero-width character gets 400 bad_request naming the character, and no seat is taken."""
    game_id = await open_game(http)
    r = await http.post(f"/api/games/{game_id}/seats", json={"name": name})
    assert r.status_code == 400, r.text
    assert r.json()["code"] == "bad_request"
    assert "U+" in r.json()["message"]
    summary = (await http.get(f"/api/games/{game_id}")).json()
    assert all(seat["name"] is None for seat in summary["seats"])


async def test_a_name_is_normalized_to_nfc(http: httpx.AsyncClient) -> None:
    """A name sent decomposed (e + combining acute) is kept composed, so two spellings of one name are one name."""
    game_id = await open_game(http)
    r = await http.post(f"/api/games/{game_id}/seats", json={"name": "Ame\u0301lie  Dupont"})
    assert r.status_code == 201, r.text
    summary = (await http.get(f"/api/games/{game_id}")).json()
    assert summary["seats"][0]["name"] == "Am\u00e9lie Dupont"


async def test_names_in_any_script_are_kept(http: httpx.AsyncClient) -> None:
    """Letters of any script, accents and emoji (without joiners) are names like any other."""
    game_id = await open_game(http)
    for name in ("Zoë 🎲", "عائشة"):
        r = await http.post(f"/api/games/{game_id}/seats", json={"name": name})
        assert r.status_code == 201, r.text
    names = [s["name"] for s in (await http.get(f"/api/games/{game_id}")).json()["seats"]]
    assert names == ["Zoë 🎲", "عائشة"]
