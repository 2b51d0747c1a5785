"""Play whole Splendor Duel games between bots in-process, through the rules engine:
each bot is handed only its own seat's view, exactly as the server would send it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from events.base import GameCreated
from events.duel.actions import DuelAction
from events.duel.evolve import evolve
from events.duel.rules import decide
from events.duel.setup import join
from events.duel.state import DuelState, Result
from events.duel.view import view

Chooser = Callable[[dict[str, Any]], dict[str, Any]]

MAX_MOVES = 3000  # far beyond any game seen; a game that reaches it is reported unfinished


def new_game(names: Sequence[str], rng: random.Random) -> DuelState:
    """A started two-player game, seats in the order of ``names`` (the first seat to
    move is drawn by the opening, see ``state.first_seat``)."""
    state = DuelState()
    evolve(state, GameCreated("arena", "duel", 2))
    for name in names:
        for event in join(state, name, name, rng):
            evolve(state, event)
    return state


def to_action(wire: dict[str, Any]) -> DuelAction:
    """A wire action (a view's ``legal`` entry) as the engine's action value."""
    action: DuelAction = msgspec.convert(wire, DuelAction)
    return action


def play(
    state: DuelState,
    choosers: Sequence[Chooser],
    rng: random.Random,
    max_moves: int = MAX_MOVES,
    on_move: Callable[[DuelState, dict[str, Any]], None] | None = None,
) -> Result | None:
    """Play ``state`` on: each seat's chooser gets that seat's view and must answer one
    of its legal actions. Returns the result, or None if ``max_moves`` ran out first.
    ``on_move(state, action)`` is called before each move is played."""
    for _ in range(max_moves):
        if state.result is not None:
            return state.result
        seat = state.seat
        seen = view(state, seat)
        wire = choosers[seat](seen)
        if wire not in seen["legal"]:
            raise AssertionError(f"seat {seat} answered {wire}, which is not legal")
        if on_move is not None:
            on_move(state, wire)
        for event in decide(state, seat, to_action(wire), rng):
            evolve(state, event)
    return state.result
