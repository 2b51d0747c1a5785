"""Whole games between bots, in-process through the rules engine, reach their end."""

from __future__ import annotations

import random
from functools import partial

import pytest

import bots
from bots.arena import new_game, play


@pytest.mark.parametrize(
    "levels",
    [
        ("mcts", "greedy", "random", "greedy"),
        ("greedy", "mcts", "greedy", "mcts"),
        ("random", "greedy", "mcts"),
        ("mcts", "greedy"),
    ],
)
def test_a_game_of_bots_runs_to_its_end(levels: tuple[str, ...]) -> None:
    """Each seat gets only its view and answers legally (the arena checks), up to GameEnded."""
    rng = random.Random(len(levels))
    state = new_game(levels, rng)
    choosers = [
        partial(bots.choose, level, rng=random.Random(seat), seconds=None, iterations=8)
        for seat, level in enumerate(levels)
    ]
    result = play(state, choosers, rng)
    assert state.status == "finished"
    assert result.winners
    assert max(result.points) >= 15
