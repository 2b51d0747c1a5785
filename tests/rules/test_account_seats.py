"""Seats of accounts and rated games in the rules (events/turns.py ``take_seat``): who
may sit, what ``PlayerJoined`` and the views record."""

from __future__ import annotations

import random

import msgspec
import pytest

from events.base import GameCreated, PlayerJoined, TimeControl
from events.errors import IllegalAction
from events.game import VARIANTS

BLITZ = TimeControl(initial=300, increment=3)


def test_player_joined_encodes_as_before_without_an_account() -> None:
    """A guest's or a bot's PlayerJoined is the bytes recorded logs hold ("bot": null, no account); an account's adds "account"."""
    assert msgspec.json.encode(PlayerJoined(0, "Ana", None)) == (
        b'{"type":"PlayerJoined","seat":0,"name":"Ana","bot":null}'
    )
    assert msgspec.json.encode(PlayerJoined(1, "Bo_7", None, "Bo_7")) == (
        b'{"type":"PlayerJoined","seat":1,"name":"Bo_7","bot":null,"account":"Bo_7"}'
    )
    old = msgspec.json.decode(
        b'{"type":"PlayerJoined","seat":0,"name":"Ana","bot":null}', type=PlayerJoined
    )
    assert old.account is None


def test_game_created_is_casual_unless_rated() -> None:
    """GameCreated omits rated when false (older streams decode as casual) and writes it when true."""
    assert b"rated" not in msgspec.json.encode(GameCreated("g", "classic", 2))
    rated = GameCreated("g", "classic", 2, BLITZ, rated=True)
    assert msgspec.json.decode(msgspec.json.encode(rated), type=GameCreated).rated is True


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_rated_game_seats_accounts_and_bots_not_guests(name: str) -> None:
    """In a rated game a guest is refused with the rule's reason, a bot and an account sit; the views say rated and show each seat's account."""
    variant = VARIANTS[name]
    rng = random.Random(1)
    state = variant.fold(variant.create("g", 2, BLITZ, rated=True))
    with pytest.raises(IllegalAction, match="only a player logged in") as refused:
        variant.join(state, "Guest", None, rng)
    assert refused.value.reason.key == "seat.rated_needs_account"
    for event in variant.join(state, "Ana_1", None, rng, "Ana_1"):
        variant.evolve(state, event)
    for event in variant.join(state, "Greedy bot", "greedy", rng, "ignored"):
        variant.evolve(state, event)
    seen = variant.view(state, None)
    assert seen["rated"] is True and seen["status"] == "live"
    assert [(p["name"], p["bot"], p["account"]) for p in seen["players"]] == [
        ("Ana_1", None, "Ana_1"),
        ("Greedy bot", "greedy", None),
    ]


def test_an_account_takes_one_seat_of_a_game_whatever_the_case() -> None:
    """The same account (its username in another case) can't take a second seat; a guest of the same name can."""
    variant = VARIANTS["classic"]
    rng = random.Random(2)
    state = variant.fold(variant.create("g", 3))
    for event in variant.join(state, "Ana_1", None, rng, "Ana_1"):
        variant.evolve(state, event)
    with pytest.raises(IllegalAction, match="one seat an account"):
        variant.join(state, "ana_1", None, rng, "ana_1")
    joined = variant.join(state, "Ana_1", None, rng)[0]
    assert (joined.name, joined.account) == ("Ana_1 2", None)
    assert not variant.view(state, None)["rated"]
