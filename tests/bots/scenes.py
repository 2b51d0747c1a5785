"""Positions for the bot tests, built by folding events (tests/classic_helpers.Table)
and, for whole games, seeded random play.

Every scene hands the move to seat 0 on turn 2 with seat 1 as the first seat, as a
real game would have it (seat = first seat + turns played): the view doesn't show
the first seat, and the MCTS bot infers it from that.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from events.classic.actions import TakeThree
from events.classic.state import ClassicState
from events.classic.view import view
from tests.classic_helpers import Table, play, random_game


def sampled_views(seeds: range, players: int, every: int) -> Iterator[dict[str, Any]]:
    """The mover's view at every ``every``-th step of seeded random games."""
    for seed in seeds:
        for step, (state, _seat, _action, _events) in enumerate(random_game(players, seed)):
            if state.status == "live" and step % every == 0:
                yield view(state, state.seat)


def winning_buy() -> ClassicState:
    """Seat 0 holds 13 points and can afford 2-03 (2 points, 5 red) with 4 red and a gold."""
    table = Table(2, first_seat=1).own(0, "3-06", "3-07", "3-08").give(0, red=4, gold=1)
    return table.state(mover=0)


def imminent_win() -> ClassicState:
    """Seat 1 holds 11 points and 7 black bonuses: 3-02 (4 points, 7 black) on the board
    wins it the game on its next turn; seat 0, to move, has nothing to buy."""
    black = [f"1-{k}" for k in range(33, 40)]
    table = Table(2, first_seat=1).own(1, "3-07", "3-08", "2-05", *black)
    return table.state(mover=0)


def two_nobles() -> ClassicState:
    """Seat 0 meets nobles n6 (3 white, blue, green) and n7 (3 white, blue, black) and
    has just taken tokens: it must choose one. Seat 1 is 1 bonus short of n7 and 4 of n6."""
    table = Table(2, first_seat=1, nobles=("n6", "n7", "n1"))
    table.own(0, "1-05", "1-06", "1-07", "1-09", "1-10", "1-11")  # 3 white, 3 blue
    table.own(0, "1-17", "1-18", "1-19", "1-33", "1-34", "1-35")  # 3 green, 3 black
    table.own(1, "1-08", "2-05", "1-12", "1-13", "1-14")  # 2 white, 3 blue
    table.own(1, "1-36", "1-37", "1-38")  # 3 black
    state = table.state(mover=0)
    play(state, 0, TakeThree(("blue", "green", "red")))
    return state


def return_three() -> ClassicState:
    """Seat 0 held 10 tokens (2 gold among them) and took 3 more: it must return 3."""
    table = Table(2, first_seat=1).give(0, white=3, blue=1, green=1, red=1, black=2, gold=2)
    state = table.state(mover=0)
    play(state, 0, TakeThree(("blue", "green", "red")))
    return state
