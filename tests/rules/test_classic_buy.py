"""Buying: from the board or the own reserve; bonuses, gold, default and explicit payment."""

from __future__ import annotations

import random

import pytest

from events.classic.actions import Buy
from events.classic.events import CardBought, CardDealt
from events.classic.rules import decide, legal_actions
from events.classic.state import ClassicState
from events.errors import RuleViolation
from tests.classic_helpers import CARDS, Table, deck_cards, default_board, kinds, play

# On the default board: 1-01 is a white card costing 3 blue; 1-09 (in the deck) is a blue card.
BLUE_CARDS = ("1-09", "1-10", "1-11")


def refused(state: ClassicState, action: Buy) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        decide(state, state.seat, action, random.Random(0))
    assert caught.value.code == "illegal_action"
    return caught.value


def test_buy_from_the_board_pays_the_cost_and_refills_the_slot() -> None:
    """The card joins the buyer's cards, its tokens go back to the bank, the slot is refilled."""
    state = Table(2).give(0, blue=3).state()
    events = play(state, 0, Buy("1-01"))
    assert events[0] == CardBought(0, "1-01", {"blue": 3})
    dealt = events[1]
    assert isinstance(dealt, CardDealt) and (dealt.level, dealt.slot) == (1, 0)
    assert CARDS[dealt.card].level == 1
    assert state.board[0][0] == dealt.card
    player = state.players[0]
    assert player.cards == ["1-01"]
    assert player.bonuses == [1, 0, 0, 0, 0]
    assert player.tokens == [0] * 6
    assert state.bank[1] == 4


def test_bonuses_lower_the_cost() -> None:
    """Each owned card of a colour pays 1 of that colour."""
    state = Table(2).own(0, "1-09").give(0, blue=2).state()
    events = play(state, 0, Buy("1-01"))
    assert events[0] == CardBought(0, "1-01", {"blue": 2})


def test_bonuses_never_lower_a_cost_below_zero() -> None:
    """With more bonuses than the cost, the card is free and pays back nothing."""
    state = Table(2).own(0, *BLUE_CARDS, "1-12").state()
    assert state.players[0].bonuses[1] == 4
    events = play(state, 0, Buy("1-01"))
    assert events[0] == CardBought(0, "1-01", {})
    assert state.players[0].tokens == [0] * 6


def test_gold_pays_the_shortfall() -> None:
    """Gold stands in for any colour the buyer lacks."""
    state = Table(2).give(0, blue=1, gold=2).state()
    events = play(state, 0, Buy("1-01"))
    assert events[0] == CardBought(0, "1-01", {"blue": 1, "gold": 2})
    assert state.bank[5] == 5


def test_default_payment_uses_coloured_tokens_before_gold() -> None:
    """Decision: with no payment named, coloured tokens go first, gold only for the rest."""
    state = Table(2).give(0, blue=3, gold=2).state()
    events = play(state, 0, Buy("1-01"))
    assert events[0] == CardBought(0, "1-01", {"blue": 3})
    assert state.players[0].tokens[5] == 2


def test_an_explicit_payment_may_spend_gold_instead_of_colour() -> None:
    """Decision: the buyer may name the tokens, e.g. gold though he holds the colour."""
    state = Table(2).give(0, blue=3, gold=2).state()
    events = play(state, 0, Buy("1-01", {"blue": 1, "gold": 2}))
    assert events[0] == CardBought(0, "1-01", {"blue": 1, "gold": 2})
    assert state.players[0].tokens == [0, 2, 0, 0, 0, 0]


def test_an_explicit_payment_that_is_short_is_refused() -> None:
    """An explicit payment must cover the cost."""
    state = Table(2).give(0, blue=3, gold=2).state()
    problem = refused(state, Buy("1-01", {"blue": 2}))
    assert problem.message == "You can't buy 1-01 that way: this payment is 1 short."


def test_an_explicit_payment_with_gold_to_spare_is_refused() -> None:
    """Decision: an explicit payment must be exact; extra gold is refused, not kept."""
    state = Table(2).give(0, blue=3, gold=2).state()
    problem = refused(state, Buy("1-01", {"blue": 2, "gold": 2}))
    assert problem.message == "You can't buy 1-01 that way: this payment has 1 gold too many."


def test_an_explicit_payment_with_a_colour_to_spare_is_refused() -> None:
    """An explicit payment can't offer more of a colour than the cost after bonuses."""
    state = Table(2).own(0, "1-09").give(0, blue=3, red=1).state()
    problem = refused(state, Buy("1-01", {"blue": 3}))
    assert problem.message == (
        "You can't buy 1-01 that way: the card needs only 2 blue after your bonuses, you offer 3."
    )
    problem = refused(state, Buy("1-01", {"blue": 2, "red": 1}))
    assert "needs only 0 red" in problem.message


def test_an_explicit_payment_with_tokens_not_held_is_refused() -> None:
    """A buyer can't pay with tokens he does not hold."""
    state = Table(2).give(0, blue=2).state()
    problem = refused(state, Buy("1-01", {"blue": 2, "gold": 1}))
    assert problem.message == "You can't buy 1-01 that way: you pay 1 gold but hold only 0."


def test_an_explicit_payment_with_a_negative_count_is_refused() -> None:
    """Negative numbers of tokens are refused."""
    state = Table(2).give(0, blue=4).state()
    problem = refused(state, Buy("1-01", {"blue": 4, "gold": -1}))
    assert "negative" in problem.message


def test_a_card_the_buyer_cannot_afford_is_refused() -> None:
    """Without enough tokens and gold the buy is refused, saying how many are missing."""
    state = Table(2).give(0, blue=1).state()
    problem = refused(state, Buy("1-01"))
    assert problem.message == (
        "You can't afford 1-01: after your bonuses it costs 3 blue, and you are 2 tokens short."
    )
    assert Buy("1-01") not in legal_actions(state, 0)


def test_buy_a_reserved_card() -> None:
    """A player buys his own reserved card; it leaves the reserve and nothing is dealt."""
    state = Table(2).reserve(0, "1-10").give(0, black=3).state()
    assert Buy("1-10") in legal_actions(state, 0)
    events = play(state, 0, Buy("1-10"))
    assert events[0] == CardBought(0, "1-10", {"black": 3}, from_reserve=True)
    assert kinds(events) == ["CardBought", "TurnEnded"]
    assert state.players[0].reserved == []
    assert state.players[0].cards == ["1-10"]


def test_a_reserved_card_bought_with_gold() -> None:
    """Gold from the reserve itself can pay for the reserved card."""
    state = Table(2).reserve(0, "1-01", blind=False, gold=1).give(0, blue=2).state()
    events = play(state, 0, Buy("1-01"))
    assert events[0] == CardBought(0, "1-01", {"blue": 2, "gold": 1}, from_reserve=True)


def test_another_players_reserved_card_cannot_be_bought() -> None:
    """Only the owner of a reserved card may buy it."""
    state = Table(2).reserve(1, "1-10").give(0, black=3).state()
    problem = refused(state, Buy("1-10"))
    assert problem.message == "Card 1-10 is neither on the board nor in your reserve."


def test_buying_with_an_empty_deck_leaves_the_slot_empty() -> None:
    """When the level's deck is empty, the bought card's slot stays empty."""
    table = Table(2).own(1, *deck_cards(1, 36)).give(0, blue=3)
    state = table.state()
    assert state.decks[0] == []
    events = play(state, 0, Buy("1-01"))
    assert kinds(events) == ["CardBought", "TurnEnded"]
    assert state.board[0][0] is None


def test_points_of_a_bought_card_count() -> None:
    """A card's prestige points are added to the buyer's (1-08 is worth 1 and costs 4 green)."""
    board = [("1-08", "1-01", "1-02", "1-03"), default_board()[1], default_board()[2]]
    state = Table(2, board=board).give(0, green=4).state()
    play(state, 0, Buy("1-08"))
    assert state.players[0].points == 1
