"""Duel bot strength: greedy against random, with a 95% Wilson interval.

Games are played in pairs on the same seed (the same opening), greedy moving first in
one game of the pair and second in the other, so neither bot gains from the first
move. Each bot sees only its own seat's view, through the rules engine, in this one
process (no worker pool: the machine is shared). A game that reaches the arena's move
bound is counted unfinished (a loss for greedy in the win rate).

    .venv/bin/python bench/duel_bot_strength.py                 # 200 games
    .venv/bin/python bench/duel_bot_strength.py --games 400 --seed 1000
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bots import duel_greedy, duel_random
from bots.duel_arena import Chooser, new_game, play


@dataclass
class Tally:
    wins: int = 0
    first_wins: int = 0  # wins when greedy moved first
    unfinished: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    turns: list[int] = field(default_factory=list)  # turns of a game greedy won, both players'
    greedy_seconds: float = 0.0
    greedy_moves: int = 0


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def game(seed: int, greedy_first: bool, tally: Tally) -> None:
    rng = random.Random(seed)  # the engine's chance: the opening, replenishes, deals
    state = new_game(["a", "b"], rng)
    greedy_seat = state.first_seat if greedy_first else 1 - state.first_seat
    greedy_rng = random.Random(f"greedy:{seed}")
    random_rng = random.Random(f"random:{seed}:{greedy_first}")

    def greedy(view: dict[str, Any]) -> dict[str, Any]:
        start = time.perf_counter()
        action = duel_greedy.choose(view, greedy_rng)
        tally.greedy_seconds += time.perf_counter() - start
        tally.greedy_moves += 1
        return action

    def other(view: dict[str, Any]) -> dict[str, Any]:
        return duel_random.choose(view, random_rng)

    bots: list[Chooser] = [other, other]
    bots[greedy_seat] = greedy
    result = play(state, bots, rng)
    if result is None:
        tally.unfinished += 1
    elif result.winners == (greedy_seat,):
        tally.wins += 1
        tally.first_wins += greedy_first
        tally.reasons[result.reason] += 1
        tally.turns.append(state.turn_number)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="an even number of games")
    parser.add_argument("--seed", type=int, default=0, help="the first pair's seed")
    args = parser.parse_args()
    pairs = max(1, args.games // 2)
    tally = Tally()
    start = time.perf_counter()
    for k in range(pairs):
        for greedy_first in (True, False):
            game(args.seed + k, greedy_first, tally)
    elapsed = time.perf_counter() - start
    n = 2 * pairs
    low, high = wilson(tally.wins, n)
    print(f"Duel greedy vs random: {n} games ({pairs} seed pairs from seed {args.seed})")
    print(
        f"  greedy wins     {tally.wins}/{n} = {tally.wins / n:.1%}  95% Wilson [{low:.1%}, {high:.1%}]"
    )
    print(
        f"  moving first    {tally.first_wins}/{pairs}   moving second {tally.wins - tally.first_wins}/{pairs}"
    )
    print(f"  unfinished      {tally.unfinished}")
    print(f"  won by          {dict(tally.reasons.most_common())}")
    if tally.turns:
        print(
            f"  game length     {statistics.mean(tally.turns):.1f} turns (both players) "
            f"in the games greedy won, median {statistics.median(tally.turns):.0f}"
        )
    per_move = 1000 * tally.greedy_seconds / max(1, tally.greedy_moves)
    print(f"  greedy          {per_move:.2f} ms per decision over {tally.greedy_moves} decisions")
    print(f"  wall time       {elapsed:.1f} s")


if __name__ == "__main__":
    main()
