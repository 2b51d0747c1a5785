"""Benchmark of tournament pairing (events/tournament/); prints its figures.

    .venv/bin/python bench/tournament_bench.py [--arena 1000] [--swiss 500] [--repeat 5]

Pure functions, one process, no I/O:

- **arena**: ``pair_waiting`` over ``--arena`` waiting players (scores 0-30, ratings
  around 1500, a third of them with a last opponent among the others);
- **Swiss**: ``pair_round`` (networkx's maximum-weight matching) over ``--swiss``
  players, for round 1 (everyone on 0: one big score group) and for round 5 after
  four rounds of random results (the rematches forbidden), with the edges restricted
  as events/tournament/swiss.py does, and once over the full graph for comparison.

Each figure is the median of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from events.tournament import swiss
from events.tournament.arena import Waiting, pair_waiting
from events.tournament.swiss import Entrant, pair_round


def timed(run: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``run``, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def arena_field(n: int, rng: random.Random) -> list[Waiting]:
    names = [f"p{i}" for i in range(n)]
    return [
        Waiting(
            name,
            rng.randrange(0, 31),
            rng.gauss(1500, 250),
            rng.choice(names) if rng.random() < 1 / 3 else None,
            rng.randrange(0, 60_000),
        )
        for name in names
    ]


def swiss_field(n: int, played: int, rng: random.Random) -> list[Entrant]:
    """The field after ``played`` rounds paired by ``pair_round`` with random results."""
    field = [Entrant(f"p{i}", 0, rng.gauss(1500, 250)) for i in range(n)]
    for _ in range(played):
        paired = pair_round(field)
        by_id = {e.player: e for e in field}
        new: dict[str, Entrant] = {}
        for pair in paired.pairs:
            a, b = by_id[pair.first], by_id[pair.second]
            pa, pb = rng.choice([(2, 0), (0, 2), (1, 1)])
            new[a.player] = Entrant(
                a.player, a.points + pa, a.rating, a.met | {b.player}, a.byes, (*a.seats, "first")
            )
            new[b.player] = Entrant(
                b.player, b.points + pb, b.rating, b.met | {a.player}, b.byes, (*b.seats, "second")
            )
        if paired.bye is not None:
            e = by_id[paired.bye]
            new[e.player] = Entrant(e.player, e.points + 2, e.rating, e.met, e.byes + 1, e.seats)
        field = [new.get(e.player, e) for e in field]
    return field


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--arena", type=int, default=1000)
    parser.add_argument("--swiss", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(27)

    waiting = arena_field(args.arena, rng)
    ms = timed(lambda: pair_waiting(waiting), args.repeat)
    print(f"arena: pair {args.arena} waiting players: {ms:.1f} ms")

    first = swiss_field(args.swiss, 0, rng)
    fifth = swiss_field(args.swiss, 4, rng)
    for label, field in (("round 1", first), ("round 5", fifth)):
        ms = timed(partial(pair_round, field), args.repeat)
        print(f"swiss: {label} of {args.swiss} players, restricted edges: {ms:.0f} ms")
    full = swiss.FULL_GRAPH_UP_TO
    swiss.FULL_GRAPH_UP_TO = args.swiss
    try:
        for label, field in (("round 1", first), ("round 5", fifth)):
            ms = timed(partial(pair_round, field), 1)
            print(f"swiss: {label} of {args.swiss} players, full graph: {ms:.0f} ms")
    finally:
        swiss.FULL_GRAPH_UP_TO = full


if __name__ == "__main__":
    main()
