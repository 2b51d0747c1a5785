"""Reserving: a gold from the board and a pyramid card or a deck's top card, hidden
from the opponent.

FULL_BOARD has gold at [1, 0], [2, 2] and [3, 4]; the pyramid is d1-01..05,
d2-01..04, d3-01..03.
"""

from __future__ import annotations

from events.duel.actions import Reserve, TakeTokens
from events.duel.events import CardDealt, CardReserved, TurnEnded
from events.duel.legal import legal_actions
from events.duel.view import redact, view
from tests.duel_helpers import Table, at, play, refused


def test_reserve_a_pyramid_card_with_a_gold() -> None:
    """The gold leaves its cell for the player; the card goes to the reserve; the slot is refilled."""
    state = Table().state()
    events = play(state, 0, Reserve((1, 0), card="d2-03"), seed=3)
    assert events[0] == CardReserved(0, 2, "d2-03", (1, 0), 2)
    assert isinstance(events[1], CardDealt) and events[1].level == 2 and events[1].slot == 2
    assert events[2] == TurnEnded(0, 1)
    assert state.players[0].reserved == ["d2-03"]
    assert state.players[0].tokens[5] == 1 and at(state, 1, 0) is None
    assert state.pyramid[1][2] == events[1].card and len(state.decks[1]) == 19


def test_reserve_the_top_of_a_deck() -> None:
    """A blind reserve draws from the level's deck at that moment; no card is dealt."""
    state = Table().state()
    events = play(state, 0, Reserve((2, 2), level=3), seed=5)
    reserved = events[0]
    assert isinstance(reserved, CardReserved) and reserved.slot is None
    assert reserved.card is not None and reserved.card.startswith("d3-")
    assert [type(e).__name__ for e in events] == ["CardReserved", "TurnEnded"]
    assert len(state.decks[2]) == 9 and state.players[0].reserved == [reserved.card]


def test_no_gold_on_the_board_no_reserve() -> None:
    """Reserving needs a gold on the board."""
    state = Table().give(1, gold=3).state()
    problem = refused(state, 0, Reserve((1, 0), card="d1-01"))
    assert problem.message == "There is no gold on the board: you can't reserve a card."
    assert not any(isinstance(a, Reserve) for a in legal_actions(state, 0))


def test_the_gold_cell_must_hold_gold() -> None:
    """gold_cell names a cell with a gold token."""
    problem = refused(Table().state(), 0, Reserve((0, 0), card="d1-01"))
    assert problem.message == "Cell [0, 0] holds no gold: name a cell with a gold token."


def test_at_most_three_reserved_cards() -> None:
    """A fourth reserve is refused."""
    table = Table()
    for card in ("d1-20", "d1-21", "d1-22"):
        table.reserve(0, card).discard(0, gold=1).lay(((1, 0), "gold"))
    state = table.state()
    problem = refused(state, 0, Reserve((1, 0), card="d1-01"))
    assert problem.message == "You already hold 3 reserved cards, the most allowed."
    assert not any(isinstance(a, Reserve) for a in legal_actions(state, 0))


def test_card_or_level_not_both() -> None:
    """A reserve names a pyramid card or a level, not both, and a real one."""
    state = Table().state()
    assert "not both" in refused(state, 0, Reserve((1, 0), card="d1-01", level=1)).message
    assert "level of 1, 2 or 3" in refused(state, 0, Reserve((1, 0))).message
    assert "not in the pyramid" in refused(state, 0, Reserve((1, 0), card="d1-30")).message


def test_legal_reserves_pair_every_gold_with_every_card_and_deck() -> None:
    """3 gold cells x (12 pyramid cards + 3 decks)."""
    reserves = [a for a in legal_actions(Table().state(), 0) if isinstance(a, Reserve)]
    assert len(reserves) == 3 * 15
    assert Reserve((3, 4), level=2) in reserves and Reserve((2, 2), card="d3-03") in reserves


def test_reserved_cards_are_hidden_from_the_opponent_and_spectators() -> None:
    """Owner sees the card; the opponent and spectators see its level only, also in events."""
    state = Table().state()
    event = play(state, 0, Reserve((1, 0), card="d2-03"))[0]
    assert view(state, 0)["players"][0]["reserved"] == [{"card": "d2-03"}]
    assert view(state, 1)["players"][0]["reserved"] == [{"level": 2}]
    assert view(state, None)["players"][0]["reserved"] == [{"level": 2}]
    assert redact(event, 0, False) == event
    assert redact(event, 1, False).card is None  # type: ignore[union-attr]
    assert redact(event, None, False).card is None  # type: ignore[union-attr]
    assert redact(event, None, True) == event


def test_reserved_cards_show_once_the_game_is_finished() -> None:
    """A finished game is public: every reserve shows its card."""
    table = Table().reserve(1, "d3-09")
    from events.duel.events import GameEnded

    state = table.add(GameEnded((0,), "prestige")).now()
    assert view(state, None)["players"][1]["reserved"] == [{"card": "d3-09"}]


def test_a_take_after_a_reserve_is_not_possible() -> None:
    """One mandatory action a turn: after the reserve the turn has passed."""
    state = Table().state()
    play(state, 0, Reserve((1, 0), level=1))
    problem = refused(state, 0, TakeTokens(((0, 0),)))
    assert problem.code == "not_your_turn"


def test_an_empty_deck_leaves_the_slot_empty_and_cannot_be_reserved_from() -> None:
    """With the level-3 deck used up, a reserved pyramid card is not replaced, and a blind reserve from that level is refused."""
    table = Table()
    table.own(1, *(f"d3-{n:02d}" for n in range(4, 14)))
    state = table.state()
    assert state.decks[2] == []
    events = play(state, 0, Reserve((1, 0), card="d3-01"))
    assert [type(e).__name__ for e in events] == ["CardReserved", "TurnEnded"]
    assert state.pyramid[2] == [None, "d3-02", "d3-03"]
    assert view(state, None)["decks"]["3"] == 0
    state = table.state()
    problem = refused(state, 0, Reserve((1, 0), level=3))
    assert problem.message == "The level-3 deck is empty: there is nothing to reserve."
    assert Reserve((1, 0), level=3) not in legal_actions(state, 0)
