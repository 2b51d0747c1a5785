"""Fit the Duel MCTS bot's position evaluation (bots/duel_policy.py WEIGHTS).

Plays Duel games between greedy bots (each move, with a small chance, a random legal
move instead, so the positions vary), records every position's features for both
seats and who won in the end, and fits a logistic model
    P(seat a wins) = sigmoid(WEIGHTS . (features(a) - features(b)))
by Newton's method (bench/bot_eval_fit.py's). Prints the weights to paste into
duel_policy.py and the model's accuracy on held-out games. Plain script:

    .venv/bin/python bench/duel_eval_fit.py [games]   # default 300
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any

from bot_eval_fit import accuracy, fit

from bots import duel_greedy
from bots.duel_arena import new_game, play
from bots.duel_policy import FEATURES, features
from bots.moves import moves as game_moves
from events.duel.state import DuelState

EXPLORE = 0.1  # chance of a random legal move


def positions(games: int, seed: int) -> list[tuple[list[float], float, int]]:
    """(feature difference seat 0 - seat 1, seat 0's score, game) for every position."""
    rows: list[tuple[list[float], float, int]] = []
    for g in range(games):
        seen, score = one_game(seed + g)
        if score is not None:
            rows.extend((x, score, g) for x in seen)
    return rows


def one_game(seed: int) -> tuple[list[list[float]], float | None]:
    rng = random.Random(seed)
    bots = random.Random(10_000 + seed)
    state = new_game(["a", "b"], rng)
    seen: list[list[float]] = []

    def record(s: DuelState, _wire: dict[str, Any]) -> None:
        f0 = features(s, s.players[0])
        f1 = features(s, s.players[1])
        seen.append([a - b for a, b in zip(f0, f1, strict=True)])

    def bot(view: dict[str, Any]) -> dict[str, Any]:
        if bots.random() < EXPLORE:
            action: dict[str, Any] = bots.choice(game_moves(view))
            return action
        return duel_greedy.choose(view, bots)

    result = play(state, [bot, bot], rng, on_move=record)
    if result is None:
        return seen, None
    return seen, 1.0 if 0 in result.winners else 0.0


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    start = time.perf_counter()
    train = positions(games, seed=0)
    test = positions(max(games // 4, 10), seed=1_000_000)
    w = fit(train)
    acc, loss = accuracy(w, test)
    print(f"{games} training games, {len(train)} positions; {len(test)} test positions")
    print(f"held-out accuracy {acc:.3f}, log loss {loss:.3f}")
    print(f"time {time.perf_counter() - start:.1f} s")
    for name, weight in zip(FEATURES, w, strict=True):
        print(f"  {name:14s} {weight:+.4f}")
    print("WEIGHTS = (" + ", ".join(f"{x:.4f}" for x in w) + ")")


if __name__ == "__main__":
    main()
