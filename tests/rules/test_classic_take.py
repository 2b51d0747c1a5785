"""Taking tokens: take_three (with our Decision for fewer colours) and take_two."""

from __future__ import annotations

import random

import msgspec
import pytest

from events.classic.actions import ClassicAction, TakeThree, TakeTwo
from events.classic.events import TokensTaken
from events.classic.rules import decide, legal_actions
from events.errors import RuleViolation
from tests.classic_helpers import Table, kinds, play


def refused(state: object, seat: int, action: ClassicAction) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        decide(state, seat, action, random.Random(0))  # type: ignore[arg-type]
    return caught.value


def test_take_three_takes_one_token_of_three_colours() -> None:
    """take_three moves one token of each named colour from the bank to the player."""
    state = Table(2).state()
    events = play(state, 0, TakeThree(("white", "green", "black")))
    assert events[0] == TokensTaken(0, {"white": 1, "green": 1, "black": 1})
    assert kinds(events) == ["TokensTaken", "TurnEnded"]
    assert state.players[0].tokens == [1, 0, 1, 0, 1, 0]
    assert state.bank == [3, 4, 3, 4, 3, 5]
    assert state.seat == 1


def test_take_three_refuses_a_repeated_colour() -> None:
    """take_three needs different colours: two of one colour is take_two's job."""
    problem = refused(Table(2).state(), 0, TakeThree(("red", "red", "blue")))
    assert problem.code == "illegal_action"
    assert "different colours" in problem.message


def test_take_three_refuses_more_than_three_colours() -> None:
    """take_three takes at most 3 tokens."""
    problem = refused(Table(2).state(), 0, TakeThree(("white", "blue", "green", "red")))
    assert "3 tokens" in problem.message


def test_take_three_refuses_an_empty_colour() -> None:
    """A colour with no token left in the supply can't be taken."""
    state = Table(2).give(1, red=4).state()
    problem = refused(state, 0, TakeThree(("white", "blue", "red")))
    assert problem.message == "there is no red token left in the supply"


def test_fewer_than_three_colours_are_refused_while_three_remain() -> None:
    """take_three with 1 or 2 colours is refused when 3 or more colours are in the supply."""
    state = Table(2).give(1, red=4, black=4).state()  # white, blue, green remain
    for colors in (("white", "blue"), ("green",)):
        problem = refused(state, 0, TakeThree(colors))
        assert "fewer only when fewer than 3 colours are left" in problem.message
        assert "3 are" in problem.message


def test_fewer_colours_are_allowed_when_fewer_than_three_remain() -> None:
    """Decision: with fewer than 3 colours left, any non-empty set of them may be taken."""
    table = Table(2).give(1, white=4, blue=4, green=4)  # red and black remain
    for colors in (("red", "black"), ("red",), ("black",)):
        state = table.state()
        events = play(state, 0, TakeThree(colors))
        assert events[0] == TokensTaken(0, dict.fromkeys(colors, 1))
    listed = {a for a in legal_actions(table.state(), 0) if isinstance(a, TakeThree)}
    assert listed == {
        TakeThree(("red", "black")),
        TakeThree(("red",)),
        TakeThree(("black",)),
    }


def test_take_three_is_not_listed_when_no_colour_remains() -> None:
    """With every gem colour gone from the supply there is nothing to take."""
    state = Table(2).give(0, white=4, blue=4, green=2).give(1, green=2, red=4, black=4).state()
    assert not [a for a in legal_actions(state, 0) if isinstance(a, TakeThree | TakeTwo)]
    assert refused(state, 0, TakeThree(("white",))).message == (
        "there is no white token left in the supply"
    )


def test_take_three_in_any_order_is_the_same_action() -> None:
    """The order of the colours named does not matter."""
    state = Table(2).state()
    events = play(state, 0, TakeThree(("black", "white", "green")))
    assert events[0] == TokensTaken(0, {"black": 1, "white": 1, "green": 1})


def test_gold_can_never_be_taken() -> None:
    """Gold is no gem: a take naming gold is refused when the action is read from the wire."""
    decoder = msgspec.json.Decoder(ClassicAction)
    with pytest.raises(msgspec.ValidationError):
        decoder.decode(b'{"kind": "take_three", "colors": ["gold", "red", "blue"]}')
    with pytest.raises(msgspec.ValidationError):
        decoder.decode(b'{"kind": "take_two", "color": "gold"}')


def test_take_two_with_four_in_the_supply() -> None:
    """take_two takes 2 tokens of one colour when the supply holds 4 of it."""
    state = Table(2).state()
    events = play(state, 0, TakeTwo("green"))
    assert events[0] == TokensTaken(0, {"green": 2})
    assert state.players[0].tokens[2] == 2
    assert state.bank[2] == 2


def test_take_two_is_refused_with_three_in_the_supply() -> None:
    """take_two needs at least 4 tokens of the colour before taking; 3 is not enough."""
    state = Table(2).give(1, red=1).state()
    problem = refused(state, 0, TakeTwo("red"))
    assert problem.code == "illegal_action"
    assert problem.message == "take_two needs at least 4 red tokens in the supply, there are 3"
    assert TakeTwo("red") not in legal_actions(state, 0)
    assert TakeTwo("blue") in legal_actions(state, 0)
