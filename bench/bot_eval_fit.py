"""Fit the MCTS bot's position evaluation (bots/policy.py WEIGHTS).

Plays two-player games between greedy bots (each move, with a small chance, a random
legal move instead, so the positions vary), records every position's features for
both seats and who won in the end, and fits a logistic model
    P(seat a wins) = sigmoid(WEIGHTS . (features(a) - features(b)))
by Newton's method. Prints the weights to paste into policy.py and the model's
accuracy on held-out games. Plain script:

    .venv/bin/python bench/bot_eval_fit.py [games]   # default 300, about a minute
"""

from __future__ import annotations

import math
import random
import sys
import time
from typing import Any

from bots import greedy
from bots.arena import new_game, play
from bots.moves import moves as game_moves
from bots.policy import FEATURES, features
from events.classic.state import ClassicState

EXPLORE = 0.1  # chance of a random legal move


def positions(games: int, seed: int) -> list[tuple[list[float], float, int]]:
    """(feature difference seat 0 - seat 1, seat 0's score, game) for every position."""
    rows: list[tuple[list[float], float, int]] = []
    for g in range(games):
        seen, score = one_game(seed + g)
        rows.extend((x, score, g) for x in seen)
    return rows


def one_game(seed: int) -> tuple[list[list[float]], float]:
    rng = random.Random(seed)
    bots = random.Random(10_000 + seed)
    state = new_game(["a", "b"], rng)
    seen: list[list[float]] = []

    def record(s: ClassicState, _wire: dict[str, Any]) -> None:
        f0 = features(s, s.players[0])
        f1 = features(s, s.players[1])
        seen.append([a - b for a, b in zip(f0, f1, strict=True)])

    def bot(view: dict[str, Any]) -> dict[str, Any]:
        if bots.random() < EXPLORE:
            action: dict[str, Any] = bots.choice(game_moves(view))
            return action
        return greedy.choose(view, bots)

    result = play(state, [bot, bot], rng, on_move=record)
    return seen, 1.0 / len(result.winners) if 0 in result.winners else 0.0


def fit(rows: list[tuple[list[float], float, int]], ridge: float = 1.0) -> list[float]:
    """Logistic regression without intercept (the model is symmetric), Newton steps."""
    n = len(rows[0][0])
    w = [0.0] * n
    for _ in range(25):
        grad = [-ridge * wi for wi in w]
        hess = [[ridge if i == j else 0.0 for j in range(n)] for i in range(n)]
        for x, y, _g in rows:
            p = 1.0 / (1.0 + math.exp(-sum(a * b for a, b in zip(w, x, strict=True))))
            r = p * (1.0 - p)
            for i in range(n):
                grad[i] += (y - p) * x[i]
                for j in range(i, n):
                    hess[i][j] += r * x[i] * x[j]
        for i in range(n):
            for j in range(i):
                hess[i][j] = hess[j][i]
        step = solve(hess, grad)
        w = [a + b for a, b in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return w


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a is small and positive definite)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            for c in range(col, n + 1):
                m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (m[i][n] - sum(m[i][j] * x[j] for j in range(i + 1, n))) / m[i][i]
    return x


def accuracy(w: list[float], rows: list[tuple[list[float], float, int]]) -> tuple[float, float]:
    """Share of decided positions whose winner the model favours, and the log loss."""
    right = total = 0
    loss = 0.0
    for x, y, _g in rows:
        z = sum(a * b for a, b in zip(w, x, strict=True))
        p = min(max(1.0 / (1.0 + math.exp(-z)), 1e-9), 1 - 1e-9)
        loss -= y * math.log(p) + (1 - y) * math.log(1 - p)
        if y != 0.5:
            total += 1
            right += (p > 0.5) == (y == 1.0)
    return right / max(total, 1), loss / max(len(rows), 1)


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
