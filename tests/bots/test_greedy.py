"""The greedy heuristic makes the obvious good moves."""

from __future__ import annotations

import random

from bots import greedy
from events.catalog import classic_cards
from events.classic.view import view
from events.colors import GEMS
from tests.bots import scenes
from tests.classic_helpers import Table

CARDS = classic_cards()


def test_greedy_buys_the_card_that_reaches_15() -> None:
    """With 13 points and a 2-point card affordable, greedy buys a card worth 2+ points."""
    state = scenes.winning_buy()
    answer = greedy.choose(view(state, 0), random.Random(0))
    assert answer["kind"] == "buy"
    assert CARDS[answer["card"]].points >= 2


def test_greedy_blocks_a_winning_purchase() -> None:
    """An opponent who can buy 3-02 next turn and reach 15: greedy reserves 3-02."""
    state = scenes.imminent_win()
    answer = greedy.choose(view(state, 0), random.Random(0))
    assert answer == {"kind": "reserve", "card": "3-02"}


def test_greedy_takes_the_noble_the_opponent_is_closest_to() -> None:
    """Nobles n6 and n7 both want seat 0; the opponent is 1 short of n7: greedy takes n7."""
    state = scenes.two_nobles()
    answer = greedy.choose(view(state, 0), random.Random(0))
    assert answer == {"kind": "choose_noble", "noble": "n7"}


def test_greedy_keeps_its_gold_when_returning_tokens() -> None:
    """Holding 13 tokens with 2 gold, greedy returns 3 coloured tokens and keeps the gold."""
    state = scenes.return_three()
    answer = greedy.choose(view(state, 0), random.Random(0))
    assert answer["kind"] == "return_tokens"
    assert "gold" not in answer["tokens"]
    assert sum(answer["tokens"].values()) == 3


def test_greedy_heads_for_a_target_card() -> None:
    """At a game's start greedy takes tokens that all count toward one board card."""
    fresh = Table(2, first_seat=0).state()
    answer = greedy.choose(view(fresh, 0), random.Random(0))
    assert answer["kind"] in ("take_three", "take_two")
    taken = set(answer.get("colors") or [answer["color"]])
    board = [c for row in fresh.board for c in row if c is not None]
    wanted = [{g for g, n in zip(GEMS, CARDS[c].cost, strict=True) if n} for c in board]
    assert any(taken <= colours for colours in wanted)
