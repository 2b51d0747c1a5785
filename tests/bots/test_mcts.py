"""The MCTS bot: reproducible for a seed, and it finds the moves that matter."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from bots import mcts
from events.classic.view import view
from tests.bots import scenes
from tests.classic_helpers import Table

SEARCH = """
import json, random, sys
from bots import mcts
view = json.loads(sys.stdin.read())
print(json.dumps(mcts.search(view, random.Random(11), seconds=None, iterations=40)))
"""


def test_search_with_an_iteration_cap_is_deterministic_for_a_seed() -> None:
    """Same view, same seed, same iteration cap: the same action and the same work done."""
    state = Table(3, first_seat=2).state(mover=0)
    seen = view(state, 0)
    runs = {mcts.search(seen, random.Random(5), seconds=None, iterations=60) for _ in range(3)}
    assert len(runs) == 1
    assert runs.pop()[1] == 60


def test_search_is_deterministic_across_processes() -> None:
    """Two interpreters with different hash seeds search the same way (no set-order luck)."""
    state = scenes.return_three()
    payload = json.dumps(view(state, 0))
    answers = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", SEARCH],
            input=payload,
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=60,
        )
        answers.add(out.stdout.strip())
    assert len(answers) == 1


def test_mcts_takes_the_winning_buy() -> None:
    """With 13 points and a 2-point card affordable, MCTS buys a card that reaches 15."""
    state = scenes.winning_buy()
    answer = mcts.choose(view(state, 0), random.Random(0), seconds=None, iterations=150)
    assert answer["kind"] == "buy"


def test_mcts_blocks_a_winning_purchase() -> None:
    """The opponent can buy 3-02 and reach 15 next turn: MCTS reserves 3-02."""
    state = scenes.imminent_win()
    answer = mcts.choose(view(state, 0), random.Random(0), seconds=None, iterations=200)
    assert answer == {"kind": "reserve", "card": "3-02"}


def test_time_budget_is_read_from_the_callers_clock() -> None:
    """With only a time budget, the search asks the clock it is given (never its own) and
    stops once the time is spent: with a clock moving 10 ms a call, 4 iterations fit in 50 ms."""
    state = Table(2, first_seat=1).state(mover=0)
    ticks = iter(range(1_000))
    index, done = mcts.search(
        view(state, 0), random.Random(0), seconds=0.05, clock=lambda: next(ticks) / 100
    )
    assert done == 4
    assert 0 <= index < len(view(state, 0)["legal"])


def test_a_time_budget_without_a_clock_is_refused() -> None:
    """The bots read no clock: a budget in seconds without the caller's clock is an error."""
    state = Table(2, first_seat=1).state(mover=0)
    with pytest.raises(ValueError, match="clock"):
        mcts.search(view(state, 0), random.Random(0), seconds=0.05)
