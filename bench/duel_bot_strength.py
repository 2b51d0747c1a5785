"""Duel bot strength: one bot against another, with a 95% Wilson interval.

Games are played in pairs on the same seed (the same opening, the same engine draws
as far as the moves agree), the first-named bot moving first in one game of the pair
and second in the other, so neither bot gains from the first move. Each bot sees only
its own seat's view, through the rules engine, in this one process (no worker pool:
the machine is shared; run several processes on different seeds and add up their
logs with ``--tally``). A game that reaches the arena's move bound is counted
unfinished (a loss for the first-named bot in the win rate).

Every game prints one line as it ends (``game seed=... first=... won=...``), so a
run cut short still counts; ``--tally LOG...`` adds up such lines from any runs.

    .venv/bin/python bench/duel_bot_strength.py                       # greedy vs random, 200 games
    .venv/bin/python bench/duel_bot_strength.py --match mcts-greedy --games 40 --mcts-iterations 300
    .venv/bin/python bench/duel_bot_strength.py --match mcts-greedy --mcts-seconds 1.0
    .venv/bin/python bench/duel_bot_strength.py --tally run1.log run2.log
"""

from __future__ import annotations

import argparse
import math
import random
import re
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots import duel_greedy, duel_mcts, duel_random
from bots.duel_arena import Chooser, new_game, play
from bots.moves import moves

MATCHES = ("greedy-random", "mcts-greedy", "mcts-random")
GAME_LINE = re.compile(r"^game seed=(\d+) first=(\d) won=(\d) reason=(\S+) turns=(\d+)")


@dataclass
class Budget:
    seconds: float | None
    iterations: int | None
    depth: int
    exploration: float


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    first_wins: int = 0  # wins when the first-named bot moved first
    first_games: int = 0
    unfinished: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    turns: list[int] = field(default_factory=list)  # turns of a game it won, both players'
    seconds: Counter[str] = field(default_factory=Counter)  # each bot's thinking time
    moves: Counter[str] = field(default_factory=Counter)  # each bot's decisions
    iterations: int = 0  # MCTS iterations, all decisions

    def add(self, first: bool, won: bool, reason: str, turns: int) -> None:
        self.games += 1
        self.first_games += first
        if reason == "unfinished":
            self.unfinished += 1
        if won:
            self.wins += 1
            self.first_wins += first
            self.reasons[reason] += 1
            self.turns.append(turns)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def chooser(level: str, seed: int, budget: Budget, tally: Tally) -> Chooser:
    rng = random.Random(f"{level}:{seed}")

    def choose(view: dict[str, Any]) -> dict[str, Any]:
        start = time.perf_counter()
        if level == "random":
            action = duel_random.choose(view, rng)
        elif level == "greedy":
            action = duel_greedy.choose(view, rng)
        else:
            index, done = duel_mcts.search(
                view,
                rng,
                seconds=budget.seconds,
                iterations=budget.iterations,
                clock=time.perf_counter,
                depth=budget.depth,
                exploration=budget.exploration,
            )
            action = moves(view)[index]
            tally.iterations += done
        tally.seconds[level] += time.perf_counter() - start
        tally.moves[level] += 1
        return action

    return choose


def game(match: str, seed: int, first: bool, budget: Budget, tally: Tally) -> None:
    """One game of the pair ``seed``: the first-named bot moves first if ``first``."""
    mine, theirs = match.split("-")
    rng = random.Random(seed)  # the engine's chance: the opening, replenishes, deals
    state = new_game(["a", "b"], rng)
    seat = state.first_seat if first else 1 - state.first_seat
    bots: list[Chooser] = [chooser(theirs, seed, budget, tally)] * 2
    bots[seat] = chooser(mine, seed, budget, tally)
    result = play(state, bots, rng)
    won = result is not None and result.winners == (seat,)
    reason = "unfinished" if result is None else result.reason
    tally.add(first, won, reason, state.turn_number)
    print(
        f"game seed={seed} first={int(first)} won={int(won)} reason={reason} "
        f"turns={state.turn_number}",
        flush=True,
    )


def report(title: str, tally: Tally) -> None:
    n = tally.games
    low, high = wilson(tally.wins, n)
    print(title)
    print(
        f"  wins            {tally.wins}/{n} = {tally.wins / max(n, 1):.1%}  "
        f"95% Wilson [{low:.1%}, {high:.1%}]"
    )
    print(
        f"  moving first    {tally.first_wins}/{tally.first_games}   moving second "
        f"{tally.wins - tally.first_wins}/{n - tally.first_games}"
    )
    print(f"  unfinished      {tally.unfinished}")
    print(f"  won by          {dict(tally.reasons.most_common())}")
    if tally.turns:
        print(
            f"  game length     {statistics.mean(tally.turns):.1f} turns (both players) "
            f"in the games won, median {statistics.median(tally.turns):.0f}"
        )
    for level, count in tally.moves.items():
        per_move = 1000 * tally.seconds[level] / max(1, count)
        print(f"  {level:15s} {per_move:.2f} ms per decision over {count} decisions")
    if tally.moves["mcts"]:
        print(
            f"  mcts            {tally.iterations / tally.moves['mcts']:.0f} iterations a decision"
        )


def tally_logs(paths: list[str]) -> Tally:
    """The games of earlier runs, from their ``game ...`` lines."""
    tally = Tally()
    for path in paths:
        for line in Path(path).read_text().splitlines():
            found = GAME_LINE.match(line)
            if found:
                _, first, won, reason, turns = found.groups()
                tally.add(first == "1", won == "1", reason, int(turns))
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--match", choices=MATCHES, default="greedy-random")
    parser.add_argument("--games", type=int, default=200, help="an even number of games")
    parser.add_argument("--seed", type=int, default=0, help="the first pair's seed")
    parser.add_argument("--mcts-iterations", type=int, default=None)
    parser.add_argument("--mcts-seconds", type=float, default=None)
    parser.add_argument("--mcts-depth", type=int, default=duel_mcts.DEPTH)
    parser.add_argument("--mcts-exploration", type=float, default=duel_mcts.EXPLORATION)
    parser.add_argument("--tally", nargs="+", metavar="LOG", help="add up the games of logs")
    args = parser.parse_args()
    if args.tally:
        tally = tally_logs(args.tally)
        report(f"{tally.games} games from {len(args.tally)} log(s)", tally)
        return
    if args.mcts_seconds is None and args.mcts_iterations is None:
        args.mcts_iterations = 300
    budget = Budget(args.mcts_seconds, args.mcts_iterations, args.mcts_depth, args.mcts_exploration)
    pairs = max(1, args.games // 2)
    tally = Tally()
    start = time.perf_counter()
    for k in range(pairs):
        for first in (True, False):
            game(args.match, args.seed + k, first, budget, tally)
    elapsed = time.perf_counter() - start
    mcts = (f", mcts {budget.iterations} iterations" if budget.iterations else "") + (
        f", mcts {budget.seconds} s" if budget.seconds else ""
    )
    first, second = args.match.split("-")
    report(
        f"Duel {first} vs {second}: {2 * pairs} games ({pairs} seed pairs from seed "
        f"{args.seed}{mcts if 'mcts' in args.match else ''}, depth {budget.depth}, "
        f"exploration {budget.exploration})",
        tally,
    )
    print(f"  wall time       {elapsed:.1f} s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
