"""Bot strength: two-player matches between the bots, with 95% confidence intervals.

Each match plays games in pairs on the same seed (the same opening and the same
chance draws as long as the moves agree), the first bot moving first in one game of
the pair and second in the other, so neither bot gains from the first move. A shared
victory counts half. Every bot sees only its own seat's view, through the rules
engine, in this one process (no worker pool: the machine is shared).

    .venv/bin/python bench/bot_strength.py                     # both matches, 200 games each
    .venv/bin/python bench/bot_strength.py --match greedy-random --games 400
    .venv/bin/python bench/bot_strength.py --match mcts-greedy --mcts-iterations 100
    .venv/bin/python bench/bot_strength.py --match mcts-greedy --mcts-seconds 1.0

The MCTS bot's budget is a fixed iteration count by default (reproducible on a busy
machine); ``--mcts-seconds`` gives it a time budget per move instead.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bots import greedy, mcts, random_bot
from bots.arena import new_game, play
from bots.moves import moves as game_moves

Chooser = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class Budget:
    seconds: float | None
    iterations: int | None
    depth: int


@dataclass
class Tally:
    """What one bot did over a match."""

    score: float = 0.0  # wins, a shared victory counting half
    points: list[int] = field(default_factory=list)
    seconds: float = 0.0
    moves: int = 0
    iterations: int = 0


def make_bot(level: str, rng: random.Random, budget: Budget, tally: Tally) -> Chooser:
    """A chooser for one seat that times itself into ``tally``."""

    def choose(view: dict[str, Any]) -> dict[str, Any]:
        start = time.perf_counter()
        if level == "random":
            action = random_bot.choose(view, rng)
        elif level == "greedy":
            action = greedy.choose(view, rng)
        else:
            index, done = mcts.search(
                view,
                rng,
                seconds=budget.seconds,
                iterations=budget.iterations,
                clock=time.perf_counter,
                depth=budget.depth,
            )
            action = game_moves(view)[index]
            tally.iterations += done
        tally.seconds += time.perf_counter() - start
        tally.moves += 1
        return action

    return choose


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96)."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def match(first: str, second: str, games: int, budget: Budget, seed: int) -> None:
    """Play ``games`` games of ``first`` against ``second`` and print the figures."""
    tallies = {first: Tally(), second: Tally()}
    turns: list[int] = []
    start = time.perf_counter()
    for g in range(games):
        pair = g // 2
        rng = random.Random(f"{seed}:{pair}")
        state = new_game(["seat 0", "seat 1"], rng)
        # The first bot sits at the first seat in even games, at the other in odd ones.
        a_seat = state.first_seat if g % 2 == 0 else 1 - state.first_seat
        seats = {a_seat: first, 1 - a_seat: second}
        choosers = [
            make_bot(seats[s], random.Random(f"{seed}:{g}:{s}"), budget, tallies[seats[s]])
            for s in (0, 1)
        ]
        result = play(state, choosers, rng)
        for s in (0, 1):
            tally = tallies[seats[s]]
            tally.points.append(result.points[s])
            if s in result.winners:
                tally.score += 1.0 / len(result.winners)
        turns.append(state.turn_number)
        if (g + 1) % 50 == 0:
            done = tallies[first].score
            print(f"  ... {g + 1} games, {first} {done:g}", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - start
    a = tallies[first]
    low, high = wilson(a.score, games)
    print(f"{first} vs {second}: {games} games, alternating first seat, seed {seed}")
    print(
        f"  {first} wins {a.score:g}/{games} = {a.score / games:.1%} "
        f"(95% Wilson CI {low:.1%} - {high:.1%})"
    )
    for level, tally in tallies.items():
        line = (
            f"  {level:7s} mean points {statistics.mean(tally.points):5.2f}, "
            f"{1000 * tally.seconds / max(tally.moves, 1):7.1f} ms/move over {tally.moves} moves"
        )
        if level == "mcts":
            line += f", {tally.iterations / max(tally.moves, 1):.0f} iterations/move"
        print(line)
    print(f"  mean turns per game {statistics.mean(turns):.1f}; wall time {elapsed:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--match",
        action="append",
        choices=["greedy-random", "mcts-greedy", "mcts-random"],
        help="which match to play (repeatable; default: greedy-random and mcts-greedy)",
    )
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--mcts-iterations", type=int, default=100)
    parser.add_argument("--mcts-seconds", type=float, default=None)
    parser.add_argument("--mcts-depth", type=int, default=mcts.DEPTH)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    budget = (
        Budget(args.mcts_seconds, None, args.mcts_depth)
        if args.mcts_seconds is not None
        else Budget(None, args.mcts_iterations, args.mcts_depth)
    )
    what = (
        f"{budget.seconds} s per move"
        if budget.seconds is not None
        else f"{budget.iterations} iterations per move"
    )
    print(f"MCTS budget: {what}, depth {budget.depth} plies")
    for name in args.match or ["greedy-random", "mcts-greedy"]:
        first, second = name.split("-")
        match(first, second, args.games, budget, args.seed)


if __name__ == "__main__":
    main()
