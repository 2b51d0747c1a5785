"""The end of the game: 15 prestige finishes the round; ties go to fewest cards, then shared."""

from __future__ import annotations

import random

import pytest

from events.classic.actions import Buy, TakeThree
from events.classic.events import GameEnded, NobleVisited, TurnEnded
from events.classic.rules import decide, legal_actions
from events.classic.view import view
from events.errors import RuleViolation
from tests.classic_helpers import Table, default_board, kinds, play

# 3-06, 3-07, 3-08 (blue, 4 + 4 + 5) and 1-08 (white, 1): 14 points, no noble.
FOURTEEN = ("3-06", "3-07", "3-08", "1-08")
# 2-09 (blue, 2 points) costs 5 blue: 2 blue after the three blue bonuses above.
BOARD = [default_board()[0], ("2-09", "2-18", "2-02", "2-03"), default_board()[2]]
# 3-10, 3-11, 3-12 (green, 4 + 4 + 5): 13 points.
THIRTEEN = ("3-10", "3-11", "3-12")
TAKE = TakeThree(("white", "green", "red"))


def near_the_end(players: int, scorer: int, first_seat: int = 0) -> Table:
    """``scorer`` has 14 points and 2 blue: buying 2-09 takes him to 16."""
    return (
        Table(players, first_seat=first_seat, board=BOARD)
        .own(scorer, *FOURTEEN)
        .give(scorer, blue=2)
    )


def test_reaching_fifteen_finishes_the_round_first() -> None:
    """The round is played out: the game ends after the seat before the first seat."""
    state = near_the_end(3, scorer=0).state(mover=0)
    events = play(state, 0, Buy("2-09"))
    assert state.players[0].points == 16
    assert "GameEnded" not in kinds(events)
    assert view(state, None)["turn"]["final_round"] is True
    assert "GameEnded" not in kinds(play(state, 1, TAKE))
    events = play(state, 2, TAKE)
    assert events[-2:] == [
        TurnEnded(2, 0),
        GameEnded((0,), (16, 0, 0), (5, 0, 0), "points", (1, 2, 2)),
    ]
    assert state.status == "finished"


def test_reaching_fifteen_on_the_last_seat_of_the_round_ends_at_once() -> None:
    """When the seat before the first seat reaches 15, the game ends with that turn."""
    state = near_the_end(3, scorer=2).state(mover=2)
    events = play(state, 2, Buy("2-09"))
    assert events[-1] == GameEnded((2,), (0, 0, 16), (0, 0, 5), "points", (2, 2, 1))


def test_the_round_ends_before_the_first_seat_whoever_it_is() -> None:
    """With seat 1 first, the round ends after seat 0's turn."""
    state = near_the_end(3, scorer=2, first_seat=1).state(mover=2)
    assert "GameEnded" not in kinds(play(state, 2, Buy("2-09")))
    events = play(state, 0, TAKE)
    assert events[-2:] == [
        TurnEnded(0, 1),
        GameEnded((2,), (0, 0, 16), (0, 0, 5), "points", (2, 2, 1)),
    ]


def test_the_game_does_not_end_below_fifteen() -> None:
    """A round ending with no one at 15 goes on."""
    state = Table(2).own(0, *FOURTEEN).state(mover=1)
    events = play(state, 1, TAKE)
    assert events[-1] == TurnEnded(1, 0)
    assert state.status == "live"


def test_highest_prestige_wins_nobles_included() -> None:
    """Nobles' points count: 13 on cards + a noble beats 15 on cards."""
    table = near_the_end(2, scorer=1).own(0, *THIRTEEN).add(NobleVisited(0, "n1"))
    state = table.state(mover=1)
    events = play(state, 1, Buy("2-09"))
    assert events[-1] == GameEnded((0,), (16, 16), (3, 5), "points", (1, 2))


def test_a_tie_goes_to_the_fewest_cards() -> None:
    """Equal prestige: the player with fewer development cards wins."""
    table = near_the_end(2, scorer=1).own(0, *THIRTEEN, "1-24", "1-16", "1-32")
    state = table.state(mover=1)
    assert state.players[0].points == 16
    events = play(state, 1, Buy("2-09"))
    assert events[-1] == GameEnded((1,), (16, 16), (6, 5), "points", (2, 1))


def test_a_tie_in_prestige_and_cards_is_a_shared_victory() -> None:
    """Equal prestige and equal card counts: every tied player wins."""
    table = near_the_end(2, scorer=1).own(0, *THIRTEEN, "1-24", "2-15")
    state = table.state(mover=1)
    events = play(state, 1, Buy("2-09"))
    assert events[-1] == GameEnded((0, 1), (16, 16), (5, 5), "points", (1, 1))
    assert view(state, None)["result"] == {
        "winners": [0, 1],
        "points": [16, 16],
        "cards": [5, 5],
        "reason": "points",
        "ranks": [1, 1],
    }


def test_no_action_after_the_end() -> None:
    """A finished game refuses every action with game_over and lists none."""
    state = near_the_end(2, scorer=1).state(mover=1)
    play(state, 1, Buy("2-09"))
    assert state.status == "finished"
    with pytest.raises(RuleViolation) as refused:
        decide(state, state.seat, TAKE, random.Random(0))
    assert refused.value.code == "game_over"
    assert refused.value.message == "The game is over."
    assert legal_actions(state, state.seat) == []
