"""Play whole games between bots in-process, through the rules engine: each bot is
handed only its own seat's view, exactly as the server would send it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from bots.table import parse_legal
from events.base import GameCreated
from events.classic import rules
from events.classic.evolve import evolve
from events.classic.state import ClassicState, Result
from events.classic.view import view

Chooser = Callable[[dict[str, Any]], dict[str, Any]]

MAX_MOVES = 2000  # a bound no real game comes near (passes end a stuck game)


def new_game(names: Sequence[str], rng: random.Random) -> ClassicState:
    """A started game with one seat per name (seat order as given)."""
    state = ClassicState()
    evolve(state, GameCreated("arena", "classic", len(names)))
    for name in names:
        for event in rules.join(state, name, name, rng):
            evolve(state, event)
    return state


def play(
    state: ClassicState,
    choosers: Sequence[Chooser],
    rng: random.Random,
    on_move: Callable[[ClassicState, dict[str, Any]], None] | None = None,
) -> Result:
    """Play ``state`` to its end: each seat's chooser gets that seat's view and must
    answer one of its legal actions. Returns the result."""
    for _ in range(MAX_MOVES):
        if state.result is not None:
            return state.result
        seat = state.seat
        seen = view(state, seat)
        wire = choosers[seat](seen)
        if wire not in seen["legal"]:
            raise AssertionError(f"seat {seat} answered {wire}, which is not legal")
        if on_move is not None:
            on_move(state, wire)
        (action,) = parse_legal([wire])
        for event in rules.decide(state, seat, action, rng):
            evolve(state, event)
    raise AssertionError(f"no end after {MAX_MOVES} moves")
