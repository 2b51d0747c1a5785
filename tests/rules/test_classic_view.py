"""Views and redaction: what each viewer may see of a classic table and of its events."""

from __future__ import annotations

from typing import Any

import msgspec

from events.catalog import classic_cards
from events.classic.actions import Reserve, TakeThree
from events.classic.events import CardDealt, CardReserved, TokensTaken
from events.classic.rules import legal_actions
from events.classic.view import action_to_wire, redact, view
from events.colors import GEMS, TOKENS
from tests.classic_helpers import Table, play

HIDDEN = "1-30"  # reserved blind by seat 0 below
SHOWN = "2-03"  # reserved from the board by seat 1 below


def with_reserves() -> Table:
    """Seat 0 holds a blind reserve (1-30), seat 1 a board reserve (2-03, refilled by 2-05)."""
    return (
        Table(3)
        .reserve(0, HIDDEN, blind=True, gold=1)
        .reserve(1, SHOWN, blind=False, gold=1)
        .add(CardDealt(2, 2, "2-05"))
    )


def card_ids(value: Any) -> set[str]:
    """Every card id anywhere in a JSON-like value."""
    ids = set(classic_cards())
    if isinstance(value, str):
        return {value} & ids
    if isinstance(value, dict):
        return set().union(*(card_ids(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(card_ids(v) for v in value)) if value else set()
    return set()


def test_a_view_has_protocols_shape() -> None:
    """The classic view has PROTOCOL.md's fields, every colour named in tokens and bonuses."""
    state = with_reserves().state()
    seen = view(state, 0)
    assert set(seen) == {
        "game",
        "variant",
        "version",
        "status",
        "you",
        "bank",
        "board",
        "decks",
        "seeded",
        "rated",
        "clock",
        "nobles",
        "players",
        "turn",
        "legal",
        "result",
    }
    assert (seen["game"], seen["variant"], seen["status"], seen["you"]) == (
        "g1",
        "classic",
        "live",
        0,
    )
    assert seen["version"] == state.version == len(with_reserves().events) + 1
    assert list(seen["bank"]) == list(TOKENS)
    assert set(seen["board"]) == {"1", "2", "3"} and all(
        len(r) == 4 for r in seen["board"].values()
    )
    assert seen["decks"] == {"1": 35, "2": 25, "3": 16}
    player = seen["players"][0]
    assert set(player) == {
        "seat",
        "name",
        "bot",
        "account",
        "out",
        "tokens",
        "bonuses",
        "points",
        "cards",
        "nobles",
        "reserved",
    }
    assert list(player["tokens"]) == list(TOKENS) and list(player["bonuses"]) == list(GEMS)
    assert seen["turn"] == {
        "seat": 0,
        "phase": "main",
        "number": 2,
        "round": 2,  # the table begins with the first seat's second turn
        "final_round": False,
    }
    assert seen["result"] is None


def test_the_owner_sees_his_blind_reserve() -> None:
    """A blind reserve shows {"card": id} to its owner."""
    assert view(with_reserves().state(), 0)["players"][0]["reserved"] == [{"card": HIDDEN}]


def test_other_players_and_spectators_see_only_the_level_of_a_blind_reserve() -> None:
    """Others and spectators see {"level": n} for a blind reserve, nothing of the card."""
    state = with_reserves().state()
    for viewer in (1, 2, None):
        seen = view(state, viewer)
        assert seen["players"][0]["reserved"] == [{"level": 1}]
        assert HIDDEN not in card_ids(seen)


def test_a_reserve_from_the_board_stays_public() -> None:
    """A card reserved from the board was seen by all: everyone still sees it."""
    state = with_reserves().state()
    for viewer in (0, 1, 2, None):
        assert view(state, viewer)["players"][1]["reserved"] == [{"card": SHOWN}]


def test_everyone_sees_every_reserve_once_the_game_is_finished() -> None:
    """A finished game is public: blind reserves show their card to everyone."""
    table = with_reserves().own(2, "3-09", "3-10", "3-11", "3-12")  # 16 points
    state = table.state(mover=2)
    play(state, 2, TakeThree(("white", "blue", "green")))
    assert state.status == "finished"
    for viewer in (0, 1, 2, None):
        assert view(state, viewer)["players"][0]["reserved"] == [{"card": HIDDEN}]


def test_no_undealt_card_is_ever_in_a_view() -> None:
    """Decks appear as counts only: a view names no card still in a deck."""
    state = with_reserves().state()
    undealt = {c for deck in state.decks for c in deck}
    assert len(undealt) == 76
    for viewer in (0, 1, 2, None):
        assert not card_ids(view(state, viewer)) & undealt


def test_only_the_mover_gets_legal_actions() -> None:
    """legal lists the mover's actions as wire dicts; other seats get only abort (before every first turn is done) and spectators []."""
    state = with_reserves().state()
    abort = {"kind": "abort"}
    assert view(state, 0)["legal"] == [action_to_wire(a) for a in legal_actions(state, 0)] + [abort]
    assert {"kind": "take_two", "color": "white"} in view(state, 0)["legal"]
    assert view(state, 1)["legal"] == [abort]
    assert view(state, None)["legal"] == []


def test_a_spectator_is_you_null() -> None:
    """A spectator's view has you = null."""
    assert view(with_reserves().state(), None)["you"] is None


def test_actions_on_the_wire_look_like_protocol() -> None:
    """Actions are written as PROTOCOL.md writes them."""
    assert action_to_wire(Reserve(level=2)) == {"kind": "reserve", "level": 2}
    assert action_to_wire(Reserve(card="1-07")) == {"kind": "reserve", "card": "1-07"}
    assert action_to_wire(TakeThree(("white", "blue", "red"))) == {
        "kind": "take_three",
        "colors": ["white", "blue", "red"],
    }


def test_redact_hides_a_blind_reserve_from_others_until_the_end() -> None:
    """A blind CardReserved loses its card for other seats and spectators, while live."""
    event = CardReserved(0, 1, HIDDEN, True, 1)
    hidden = CardReserved(0, 1, None, True, 1)
    assert redact(event, 0, finished=False) == event
    assert redact(event, 1, finished=False) == hidden
    assert redact(event, None, finished=False) == hidden
    assert redact(event, 1, finished=True) == event
    assert redact(event, None, finished=True) == event


def test_redact_leaves_public_events_alone() -> None:
    """A board reserve and every other event are the same for everyone."""
    board_reserve = CardReserved(1, 2, SHOWN, False, 1)
    taken = TokensTaken(0, {"red": 1})
    for viewer in (0, 1, None):
        assert redact(board_reserve, viewer, finished=False) == board_reserve
        assert redact(taken, viewer, finished=False) == taken


def test_a_live_blind_reserve_is_hidden_in_the_view_after_decide() -> None:
    """Reserving blind through decide: the card reaches only its owner's view."""
    state = Table(2).state()
    events = play(state, 0, Reserve(level=3))
    reserved = events[0]
    assert isinstance(reserved, CardReserved) and reserved.card is not None
    assert view(state, 0)["players"][0]["reserved"] == [{"card": reserved.card}]
    assert view(state, 1)["players"][0]["reserved"] == [{"level": 3}]
    assert reserved.card not in card_ids(view(state, None))


def test_a_view_is_plain_json() -> None:
    """A view survives a JSON round trip unchanged: only JSON types, so diffs are exact."""
    state = with_reserves().state()
    for viewer in (0, 1, None):
        seen = view(state, viewer)
        assert msgspec.json.decode(msgspec.json.encode(seen)) == seen
