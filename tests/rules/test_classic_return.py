"""The token return at a turn's end: exactly down to 10, any tokens, just-taken and gold too."""

from __future__ import annotations

import itertools
import random

import pytest

from events.classic.actions import ClassicAction, ReturnTokens, TakeThree, TakeTwo
from events.classic.events import TokensReturned, TurnEnded
from events.classic.rules import decide, legal_actions, phase
from events.classic.state import ClassicState
from events.colors import TOKENS
from events.errors import RuleViolation
from tests.classic_helpers import Table, kinds, play


def over_ten() -> ClassicState:
    """Seat 0 held 9 (3 white, 3 blue, 2 green, 1 gold) and took red, black, white: 12."""
    state = Table(2).give(0, white=3, blue=3, green=2, gold=1).state()
    events = play(state, 0, TakeThree(("white", "red", "black")))
    assert kinds(events) == ["TokensTaken"]
    return state


def refused(state: ClassicState, action: ClassicAction) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        decide(state, state.seat, action, random.Random(0))
    assert caught.value.code == "illegal_action"
    return caught.value


def test_more_than_ten_tokens_opens_the_return_phase() -> None:
    """Holding 11+ tokens after the action, the turn stays open in phase return_tokens."""
    state = over_ten()
    assert sum(state.players[0].tokens) == 12
    assert phase(state) == "return_tokens"
    assert state.seat == 0


def test_nothing_else_is_allowed_before_the_return() -> None:
    """In the return phase any other action is refused."""
    problem = refused(over_ten(), TakeTwo("blue"))
    assert problem.message == "You hold more than 10 tokens: return tokens before anything else."


def test_the_return_must_leave_exactly_ten() -> None:
    """Returning too few or too many is refused; exactly down to 10 is accepted."""
    state = over_ten()
    assert refused(state, ReturnTokens({"blue": 1})).message == (
        "You hold 12 tokens: return exactly 2 to keep 10, not 1."
    )
    assert "not 3" in refused(state, ReturnTokens({"blue": 3})).message
    events = play(state, 0, ReturnTokens({"blue": 2}))
    assert events == [TokensReturned(0, {"blue": 2}), TurnEnded(0, 1)]
    assert sum(state.players[0].tokens) == 10
    assert state.bank[1] == 3


def test_just_taken_tokens_may_be_returned() -> None:
    """The tokens taken this very turn may go straight back."""
    state = over_ten()
    events = play(state, 0, ReturnTokens({"red": 1, "black": 1}))
    assert events[0] == TokensReturned(0, {"red": 1, "black": 1})
    assert state.bank[3] == state.bank[4] == 4


def test_gold_may_be_returned() -> None:
    """Gold counts toward the 10 and may be returned."""
    state = over_ten()
    events = play(state, 0, ReturnTokens({"gold": 1, "white": 1}))
    assert events[0] == TokensReturned(0, {"gold": 1, "white": 1})
    assert state.bank[5] == 5


def test_tokens_not_held_cannot_be_returned() -> None:
    """A return can't hand back more of a colour than the player holds."""
    problem = refused(over_ten(), ReturnTokens({"red": 2}))
    assert problem.message == "You return 2 red but hold only 1."


def test_a_negative_return_is_refused() -> None:
    """Negative counts are refused."""
    problem = refused(over_ten(), ReturnTokens({"blue": 3, "red": -1}))
    assert problem.message == "You can't return a negative number of tokens."


def test_no_return_at_ten_or_fewer() -> None:
    """return_tokens is refused outside the return phase."""
    problem = refused(Table(2).give(0, white=2).state(), ReturnTokens({"white": 1}))
    assert problem.message == ("You return tokens only when you hold more than 10 at a turn's end.")


def test_legal_returns_are_every_way_to_give_back_the_excess() -> None:
    """legal_actions lists each way of returning exactly the excess, once."""
    state = over_ten()
    held = state.players[0].tokens
    expected = {
        tuple(counts)
        for counts in itertools.product(*(range(n + 1) for n in held))
        if sum(counts) == 2
    }
    listed = legal_actions(state, 0)
    assert all(isinstance(a, ReturnTokens) for a in listed)
    as_vectors = [
        tuple(a.tokens.get(name, 0) for name in TOKENS)
        for a in listed
        if isinstance(a, ReturnTokens)
    ]
    assert len(as_vectors) == len(set(as_vectors))
    assert set(as_vectors) == expected
