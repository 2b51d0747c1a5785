"""How well the analysis predicts results (issue 16): of the positions it gave a seat
70-80% (and every other tenth), the share that seat went on to win.

Plays two-player games between greedy bots (each move, with a small chance, a random
one, so that games vary and mistakes happen), analyses each (``bots.analysis``, the
budget given, from the public position), and counts, at every turn's start, each
seat's estimated chance against whether it won. Prints one row per tenth and the
Brier score. Plain script, a lot of CPU (run it under ``nice -n 19``):

    .venv/bin/python bench/analysis_calibration.py --variant classic --games 200
    .venv/bin/python bench/analysis_calibration.py --variant duel --games 40 --iterations 300
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import msgspec

import bots
from bots import analysis
from bots.moves import moves
from events.game import VARIANTS

EXPLORE = 0.1  # chance of a random move


def bot_game(variant: str, seed: int) -> list[Any]:
    """The events of one game between greedy bots that now and then play at random."""
    rules = VARIANTS[variant]
    rng = random.Random(seed)
    chooser = random.Random(f"bots:{seed}")
    state = rules.new_state()
    events: list[Any] = []

    def apply(new: list[Any]) -> None:
        for event in new:
            rules.evolve(state, event)
            events.append(event)

    apply(rules.create(f"g{seed}", 2))
    for name in ("a", "b"):
        apply(rules.join(state, name, "greedy", rng))
    while state.status == "live":
        seat = state.seat
        seen = rules.view(state, seat)
        if chooser.random() < EXPLORE:
            wire = chooser.choice(moves(seen))
        else:
            wire = bots.choose("greedy", seen, chooser)
        apply(rules.decide(state, seat, msgspec.convert(wire, rules.action_type), rng))
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="classic")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--iterations", type=int, default=analysis.ITERATIONS)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    buckets = [[0.0, 0.0] for _ in range(10)]  # positions, wins
    brier = 0.0
    count = 0
    cpu = 0.0
    for g in range(args.games):
        events = bot_game(args.variant, args.seed + g)
        started = time.process_time()
        result = analysis.analyse(args.variant, events, f"cal:{g}", args.iterations)
        cpu += time.process_time() - started
        won = [seat[-1] for seat in result.seats]
        for version, _view in analysis.turn_starts(args.variant, events):
            for seat, chances in enumerate(result.seats):
                p = chances[version]
                bucket = buckets[min(int(p * 10), 9)]
                bucket[0] += 1
                bucket[1] += won[seat]
                brier += (p - won[seat]) ** 2
                count += 1
        print(f"game {g}: {len(events)} events, {cpu / (g + 1):.1f} s of CPU a game", flush=True)
        if (g + 1) % 5 == 0 or g + 1 == args.games:
            report(args.variant, g + 1, args.iterations, buckets, brier, count)


def report(
    variant: str, games: int, iterations: int, buckets: list[list[float]], brier: float, count: int
) -> None:
    print(
        f"{variant}: {games} games, {iterations} iterations a position, "
        f"{count} (position, seat) pairs; Brier score {brier / max(count, 1):.3f} "
        f"(sum {brier:.2f})"
    )
    print("| given | positions | won | share won |")
    print("|---|---|---|---|")
    for tenth, (positions, wins) in enumerate(buckets):
        if positions:
            share = f"{wins / positions:.1%}"
            print(f"| {10 * tenth}-{10 * tenth + 10}% | {positions:.0f} | {wins:.0f} | {share} |")
    print(flush=True)


if __name__ == "__main__":
    main()
