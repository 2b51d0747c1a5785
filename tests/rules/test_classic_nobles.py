"""Noble visits: automatic, chosen among several, one per turn, earned by bonuses only.

The default table's nobles: n1 needs 4 white + 4 blue, n2 4 white + 4 black, n3 4 blue +
4 green bonuses.
"""

from __future__ import annotations

import random

import pytest

from events.classic.actions import Buy, ChooseNoble, ClassicAction, ReturnTokens, TakeThree
from events.classic.events import NobleVisited, TurnEnded
from events.classic.rules import decide, legal_actions, phase
from events.classic.state import ClassicState
from events.errors import RuleViolation
from tests.classic_helpers import Table, default_board, kinds, play

WHITE = ("1-05", "1-06", "1-07", "1-08")
BLUE = ("1-09", "1-10", "1-11", "1-12")
GREEN = ("1-17", "1-18", "1-19")
BLACK = ("1-33", "1-34", "1-35", "1-36")


def refused(state: ClassicState, action: ClassicAction) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        decide(state, state.seat, action, random.Random(0))
    assert caught.value.code == "illegal_action"
    return caught.value


def two_nobles_eligible() -> Table:
    """Seat 0 has 4 white, 4 blue and 4 black bonuses: n1 and n2 both want to visit."""
    return Table(2).own(0, *WHITE, *BLUE, *BLACK)


def test_a_single_eligible_noble_visits_automatically() -> None:
    """Buying the 4th green bonus brings n3 at once, within the same turn, for 3 points."""
    board = [("1-21", "1-01", "1-02", "1-03"), default_board()[1], default_board()[2]]
    state = Table(2, board=board).own(0, *BLUE, *GREEN).give(0, white=1).state()
    points = state.players[0].points
    events = play(state, 0, Buy("1-21"))  # costs 1 white, 3 blue, 1 green
    assert kinds(events) == ["CardBought", "CardDealt", "NobleVisited", "TurnEnded"]
    assert events[2] == NobleVisited(0, "n3")
    assert state.players[0].nobles == ["n3"]
    assert state.players[0].points == points + 3
    assert "n3" not in state.nobles


def test_several_eligible_nobles_are_chosen_by_the_player() -> None:
    """With two nobles eligible the turn waits for choose_noble, which lists just those."""
    state = two_nobles_eligible().state()
    events = play(state, 0, TakeThree(("red", "green", "blue")))
    assert kinds(events) == ["TokensTaken"]
    assert phase(state) == "choose_noble"
    assert set(legal_actions(state, 0)) == {ChooseNoble("n1"), ChooseNoble("n2")}
    events = play(state, 0, ChooseNoble("n2"))
    assert events == [NobleVisited(0, "n2"), TurnEnded(0, 1)]
    assert state.players[0].nobles == ["n2"]


def test_a_noble_that_cannot_visit_cannot_be_chosen() -> None:
    """choose_noble refuses a noble the bonuses don't meet."""
    state = two_nobles_eligible().state()
    play(state, 0, TakeThree(("red", "green", "blue")))
    problem = refused(state, ChooseNoble("n3"))
    assert problem.message == "Noble n3 can't visit you: your bonuses don't meet it."


def test_choose_noble_outside_its_phase_is_refused() -> None:
    """choose_noble is refused when no choice is pending."""
    problem = refused(Table(2).state(), ChooseNoble("n1"))
    assert problem.message == "You choose a noble only when several can visit you at once."


def test_other_actions_wait_for_the_noble_choice() -> None:
    """While a noble choice is pending, the main actions are refused."""
    state = two_nobles_eligible().state()
    play(state, 0, TakeThree(("red", "green", "blue")))
    problem = refused(state, TakeThree(("white", "green", "blue")))
    assert problem.message == "Several nobles want to visit you: choose one first."


def test_at_most_one_noble_per_turn() -> None:
    """The noble not chosen stays; it visits at the player's next turn, automatically."""
    state = two_nobles_eligible().state()
    play(state, 0, TakeThree(("red", "green", "blue")))
    play(state, 0, ChooseNoble("n1"))
    assert state.nobles == ["n2", "n3"]
    play(state, 1, TakeThree(("red", "green", "blue")))
    events = play(state, 0, TakeThree(("red", "green", "white")))
    assert kinds(events) == ["TokensTaken", "NobleVisited", "TurnEnded"]
    assert events[1] == NobleVisited(0, "n2")
    assert state.players[0].nobles == ["n1", "n2"]
    assert state.players[0].points == 1 + 6  # 1-08 is worth 1


def test_nobles_look_at_bonuses_never_tokens() -> None:
    """Tokens that would meet a noble's requirement don't bring it."""
    state = Table(2).give(0, white=4, blue=4).state()
    events = play(state, 0, TakeThree(("red", "green", "black")))
    assert "NobleVisited" not in kinds(events)
    assert state.players[0].nobles == []


def test_the_token_return_comes_before_the_noble() -> None:
    """Over 10 tokens with a noble due: first the return, then the noble, then the next seat."""
    state = Table(2).own(0, *BLUE, *GREEN, "1-20").give(0, white=3, red=4, black=3).state()
    events = play(state, 0, TakeThree(("white", "blue", "green")))
    assert kinds(events) == ["TokensTaken"]
    assert phase(state) == "return_tokens"
    events = play(state, 0, ReturnTokens({"red": 3}))
    assert kinds(events) == ["TokensReturned", "NobleVisited", "TurnEnded"]
