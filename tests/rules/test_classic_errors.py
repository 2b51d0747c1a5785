"""Refusals: PROTOCOL.md's codes, sentences a player understands, and nothing changed."""

from __future__ import annotations

import random

import msgspec
import pytest

from events.classic.actions import Buy, ClassicAction, Pass, Reserve, TakeThree, TakeTwo
from events.classic.rules import decide
from events.classic.state import ClassicState
from events.errors import RuleViolation
from tests.classic_helpers import Table, play


def violation(state: ClassicState, seat: int, action: ClassicAction) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        decide(state, seat, action, random.Random(0))
    return caught.value


def test_acting_out_of_turn_is_not_your_turn() -> None:
    """Another seat's action gets not_your_turn, naming whose turn it is."""
    state = Table(3, first_seat=1).state()
    problem = violation(state, 0, TakeThree(("white", "blue", "green")))
    assert problem.code == "not_your_turn"
    assert problem.message == "It is Bo's turn, not yours."


def test_an_unknown_seat_is_not_your_turn() -> None:
    """A seat that does not exist is never the mover."""
    problem = violation(Table(2).state(), 7, TakeTwo("red"))
    assert problem.code == "not_your_turn"


def test_a_finished_game_answers_game_over() -> None:
    """Every action, from any seat, gets game_over once the game has ended."""
    table = Table(2).own(0, "3-10", "3-11", "3-12", "3-09")  # 16 points
    state = table.state(mover=1)
    play(state, 1, TakeTwo("red"))
    assert state.status == "finished"
    for seat in (0, 1):
        problem = violation(state, seat, Pass())
        assert problem.code == "game_over"


def test_a_broken_rule_is_illegal_action_with_a_sentence() -> None:
    """illegal_action's message says which rule, as PROTOCOL.md's example does."""
    state = Table(2).give(1, red=1).state()
    problem = violation(state, 0, TakeTwo("red"))
    assert problem.code == "illegal_action"
    assert problem.message == "take_two needs at least 4 red tokens in the supply, there are 3"


@pytest.mark.parametrize(
    "action",
    [
        TakeThree(("white", "white", "blue")),
        TakeTwo("red"),
        Reserve(level=4),
        Buy("3-01"),
        Buy("1-01", {"blue": 3}),
        Pass(),
    ],
)
def test_a_refused_action_changes_nothing(action: ClassicAction) -> None:
    """decide is pure: a refused action leaves the state exactly as it was."""
    state = Table(2).give(0, blue=1).give(1, red=1).state()
    before = state.copy()
    violation(state, 0, action)
    assert state == before


def test_decide_does_not_change_the_state_it_is_given() -> None:
    """decide only returns events; evolve alone changes a state."""
    state = Table(2).give(0, blue=3).state()
    before = state.copy()
    decide(state, 0, Buy("1-01"), random.Random(0))
    decide(state, 0, Reserve(level=2), random.Random(0))
    assert state == before


def test_malformed_actions_are_refused_when_read() -> None:
    """Unknown kinds, unknown fields and wrong types never reach decide."""
    decoder = msgspec.json.Decoder(ClassicAction)
    for raw in (
        b'{"kind": "steal", "card": "1-01"}',
        b'{"kind": "take_two", "color": "red", "extra": 1}',
        b'{"kind": "buy", "card": 7}',
        b'{"kind": "reserve", "level": "two"}',
    ):
        with pytest.raises(msgspec.ValidationError):
            decoder.decode(raw)
    assert decoder.decode(b'{"kind": "reserve", "level": 2}') == Reserve(level=2)
