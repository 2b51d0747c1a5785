"""Reserving: from the board or blind from a deck, gold when any is left, 3 at most."""

from __future__ import annotations

import random

import pytest

from events.classic.actions import Reserve
from events.classic.events import CardDealt, CardReserved
from events.classic.rules import decide, legal_actions
from events.classic.state import ClassicState, Reservation
from events.errors import RuleViolation
from tests.classic_helpers import CARDS, Table, deck_cards, kinds, level_ids, play


def refused(state: ClassicState, action: Reserve) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        decide(state, state.seat, action, random.Random(0))
    assert caught.value.code == "illegal_action"
    return caught.value


def test_reserve_from_the_board_takes_the_card_and_a_gold() -> None:
    """A board card goes to the reserve with 1 gold, and a card of its level refills the slot."""
    state = Table(2).state()
    events = play(state, 0, Reserve(card="2-03"))
    assert events[0] == CardReserved(0, 2, "2-03", False, 1)
    dealt = events[1]
    assert isinstance(dealt, CardDealt)
    assert (dealt.level, dealt.slot) == (2, 2)
    assert CARDS[dealt.card].level == 2
    assert state.board[1][2] == dealt.card
    assert dealt.card not in state.decks[1]
    assert state.players[0].reserved == [Reservation("2-03", False)]
    assert state.players[0].tokens[5] == 1
    assert state.bank[5] == 4


def test_reserve_blind_takes_a_deck_card_and_leaves_the_board() -> None:
    """A blind reserve draws a card from that level's deck; the board does not change."""
    state = Table(2).state()
    board = [list(row) for row in state.board]
    events = play(state, 0, Reserve(level=3))
    reserved = events[0]
    assert isinstance(reserved, CardReserved)
    assert reserved.blind and reserved.level == 3 and reserved.gold == 1
    assert reserved.card in level_ids(3)
    assert reserved.card not in {c for row in board for c in row}
    assert kinds(events) == ["CardReserved", "TurnEnded"]
    assert state.board == board
    assert len(state.decks[2]) == 15


def test_reserve_without_gold_left_still_reserves() -> None:
    """With no gold in the bank the reserve happens, without gold."""
    table = Table(3)
    for seat, card in zip((1, 2, 1, 2, 1), deck_cards(1, 5), strict=True):
        table.reserve(seat, card, gold=1)
    state = table.state()
    assert state.bank[5] == 0
    events = play(state, 0, Reserve(card="1-01"))
    assert events[0] == CardReserved(0, 1, "1-01", False, 0)
    assert state.players[0].tokens[5] == 0
    assert state.players[0].reserved == [Reservation("1-01", False)]


def test_at_most_three_reserved_cards() -> None:
    """A fourth reserve is refused and no longer listed."""
    table = Table(2)
    for card in deck_cards(1, 3):
        table.reserve(0, card)
    state = table.state()
    problem = refused(state, Reserve(card="1-01"))
    assert problem.message == "You already hold 3 reserved cards, the most allowed."
    refused(state, Reserve(level=2))
    assert not [a for a in legal_actions(state, 0) if isinstance(a, Reserve)]


def test_a_blind_reserve_from_an_empty_deck_is_refused() -> None:
    """An empty deck has nothing to reserve; the other decks still can be."""
    table = Table(2)
    for i, card in enumerate(deck_cards(3, 16)):
        table.own(i % 2, card)
    state = table.state()
    assert state.decks[2] == []
    problem = refused(state, Reserve(level=3))
    assert problem.message == "The level-3 deck is empty: there is nothing to reserve."
    listed = legal_actions(state, 0)
    assert Reserve(level=3) not in listed
    assert Reserve(level=2) in listed


def test_reserving_a_board_card_with_an_empty_deck_leaves_the_slot_empty() -> None:
    """When the level's deck is empty, the slot of a reserved board card stays empty."""
    table = Table(2)
    for i, card in enumerate(deck_cards(3, 16)):
        table.own(i % 2, card)
    state = table.state()
    events = play(state, 0, Reserve(card="3-02"))
    assert kinds(events) == ["CardReserved", "TurnEnded"]
    assert state.board[2] == ["3-01", None, "3-03", "3-04"]
    assert Reserve(card="3-02") not in legal_actions(state, 1)


def test_a_card_not_on_the_board_cannot_be_reserved_by_id() -> None:
    """Only face-up cards are reserved by id; deck cards only blind."""
    problem = refused(Table(2).state(), Reserve(card="1-30"))
    assert problem.message == "Card 1-30 is not on the board."


def test_a_reserve_names_a_card_or_a_level_not_both() -> None:
    """A reserve naming both a card and a level, or neither, or a bad level, is refused."""
    state = Table(2).state()
    assert "not both" in refused(state, Reserve(card="1-01", level=1)).message
    assert "1, 2 or 3" in refused(state, Reserve()).message
    assert "1, 2 or 3" in refused(state, Reserve(level=4)).message


def test_a_reserve_over_ten_tokens_calls_for_a_return() -> None:
    """The gold of a reserve counts: 11 tokens leave the turn open for a return."""
    state = Table(2).give(0, white=3, blue=3, green=2, red=1, black=1).state()
    events = play(state, 0, Reserve(level=1))
    assert kinds(events) == ["CardReserved"]
    assert sum(state.players[0].tokens) == 11
    assert state.seat == 0
