"""Passing: only with no legal action; the game ends when every player passes in a row.

A stuck position: no gem left in the supply (the players hold all 20 of a 2-player
game, 10 each), 3 reserved cards (so no reserve), and nothing affordable.
"""

from __future__ import annotations

import random

import pytest

from events.classic.actions import Buy, ChooseNoble, Pass
from events.classic.events import CardBought, GameEnded, TurnEnded, TurnPassed
from events.classic.rules import decide, legal_actions, phase
from events.errors import RuleViolation
from events.payment import can_afford, needs
from tests.classic_helpers import CARDS, Table, kinds, level_ids, play

SEAT0 = {"white": 4, "blue": 4, "green": 2}
SEAT1 = {"green": 2, "red": 4, "black": 4}
NO_BONUS = [0] * 5


def unaffordable(
    level: int, count: int, *holders: dict[str, int], skip: frozenset[str] | set[str] = frozenset()
) -> list[str]:
    """``count`` cards of ``level`` none of these token holders (without bonuses) can buy."""
    vectors = [
        [h.get(name, 0) for name in ("white", "blue", "green", "red", "black", "gold")]
        for h in holders
    ]
    out = [
        c
        for c in level_ids(level)
        if c not in skip and not any(can_afford(needs(CARDS[c].cost, NO_BONUS), v) for v in vectors)
    ]
    assert len(out) >= count
    return out[:count]


def test_pass_is_refused_while_any_action_is_possible() -> None:
    """A player who can do anything else may not pass; pass is not listed."""
    state = Table(2).state()
    with pytest.raises(RuleViolation) as refused:
        decide(state, 0, Pass(), random.Random(0))
    assert refused.value.code == "illegal_action"
    assert refused.value.message == "You may pass only when no other action is possible."
    assert Pass() not in legal_actions(state, 0)


def everyone_stuck() -> Table:
    board = [unaffordable(level, 4, SEAT0, SEAT1) for level in (1, 2, 3)]
    on_board = {c for row in board for c in row}
    reserves = unaffordable(2, 6, SEAT0, SEAT1, skip=on_board)
    table = Table(2, board=board).give(0, **SEAT0).give(1, **SEAT1)
    for i, card in enumerate(reserves):
        table.reserve(i % 2, card)
    return table


def test_pass_is_the_only_action_when_nothing_else_is_possible() -> None:
    """In a stuck position legal_actions is exactly [pass], and pass is accepted."""
    state = everyone_stuck().state()
    assert legal_actions(state, 0) == [Pass()]
    events = play(state, 0, Pass())
    assert events == [TurnPassed(0), TurnEnded(0, 1)]
    assert state.status == "live"


def test_the_game_ends_when_every_player_passes_in_a_row() -> None:
    """Decision: when all players pass one after another, no one can act: the game ends."""
    state = everyone_stuck().state()
    play(state, 0, Pass())
    events = play(state, 1, Pass())
    assert kinds(events) == ["TurnPassed", "TurnEnded", "GameEnded"]
    assert events[-1] == GameEnded((0, 1), (0, 0), (0, 0), "points", (1, 1))
    assert state.status == "finished"


def test_an_action_between_passes_keeps_the_game_going() -> None:
    """Passes must be in a row: a player who acts in between resets the count."""
    # Seat 1 owns every other level-1 card, so it can buy a board card for nothing.
    row1 = unaffordable(1, 4, SEAT0)
    board = [row1, unaffordable(2, 4, SEAT0), unaffordable(3, 4, SEAT0)]
    on_board = {c for row in board for c in row}
    table = Table(2, board=board).give(0, **SEAT0).give(1, **SEAT1)
    table.own(1, *(c for c in level_ids(1) if c not in on_board))
    for card in unaffordable(2, 3, SEAT0, skip=on_board):
        table.reserve(0, card)
    state = table.state()
    play(state, 0, Pass())
    assert Buy(row1[0]) in legal_actions(state, 1)
    events = play(state, 1, Buy(row1[0]))
    assert events[0] == CardBought(1, row1[0], {})
    assert phase(state) == "choose_noble"  # its bonuses meet every noble: it picks one
    play(state, 1, ChooseNoble(state.nobles[0]))
    assert legal_actions(state, 0) == [Pass()]
    events = play(state, 0, Pass())
    assert events == [TurnPassed(0), TurnEnded(0, 1)]
    assert state.status == "live"
