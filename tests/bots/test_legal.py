"""Every bot answers one of its view's legal actions, in any position and phase."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import bots
from events.classic.view import view
from tests.bots import scenes

LEVELS = sorted(bots.BOTS)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_answer_legal_actions_in_random_positions(players: int) -> None:
    """Over positions of seeded random games, each bot's answer is in the view's legal list."""
    phases: Counter[str] = Counter()
    rng = random.Random(players)
    for seen in scenes.sampled_views(range(players * 10, players * 10 + 4), players, every=9):
        phases[seen["turn"]["phase"]] += 1
        for level in LEVELS:
            answer = bots.choose(level, seen, rng, seconds=None, iterations=12)
            assert answer in seen["legal"], (level, answer)
    assert phases["main"] > 10


@pytest.mark.parametrize(
    "scene", [scenes.return_three, scenes.two_nobles, scenes.winning_buy, scenes.imminent_win]
)
def test_bots_answer_legal_actions_in_every_phase(scene: object) -> None:
    """In a token return, a noble choice and main-phase scenes, each bot answers legally."""
    assert callable(scene)
    state = scene()
    seen = view(state, state.seat)
    for level in LEVELS:
        for seed in range(3):
            answer = bots.choose(level, seen, random.Random(seed), seconds=None, iterations=20)
            assert answer in seen["legal"], (level, answer)


def test_unknown_level_is_refused() -> None:
    """Asking for a bot level that doesn't exist is a ValueError naming the levels."""
    state = scenes.winning_buy()
    with pytest.raises(ValueError, match="greedy"):
        bots.choose("genius", view(state, 0))


def test_a_view_without_legal_actions_is_refused() -> None:
    """A bot asked to move when it is not its turn says so instead of inventing a move."""
    state = scenes.winning_buy()
    for level in LEVELS:
        with pytest.raises(ValueError, match="not this seat's move"):
            bots.choose(level, view(state, 1), seconds=None, iterations=5)
