"""Splendor Duel rules engine benchmark: pure Python, one core, no I/O.

Figures printed:
- random playout: moves per second, one move being ``legal_actions`` + a random choice
  + ``decide`` + ``evolve`` of its events, and complete games per second (set-up by
  ``join`` included);
- fold: time to fold the whole log of a finished game from scratch;
- view: time to compute one view, for the player to move (it includes his ``legal``
  list) and for a spectator, averaged over every position of a game; and the size of
  the mover's view as JSON (mean and largest), since ``legal`` lists every
  ``use_privileges`` combination, and the worst case of that list.

Usage: ``.venv/bin/python bench/duel_bench.py [--games N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import timeit

import msgspec
from engine_bench import bench_fold, bench_playouts, bench_view, live_positions, playout

from events.base import GameCreated
from events.duel.events import PrivilegeTaken
from events.duel.evolve import evolve, fold
from events.duel.legal import legal_actions
from events.duel.setup import join
from events.duel.state import DuelState
from events.duel.view import view
from events.game import DUEL


def bench_view_size(positions: list[DuelState]) -> None:
    """The mover's view as JSON, and the length of its ``legal`` list."""
    sizes = [len(msgspec.json.encode(view(p, p.seat))) for p in positions]
    legal = [len(legal_actions(p, p.seat)) for p in positions]
    print(
        f"mover's view as JSON: {statistics.mean(sizes) / 1024:.1f} KiB mean, "
        f"{max(sizes) / 1024:.1f} KiB largest; legal actions: {statistics.mean(legal):.0f} "
        f"mean, {max(legal)} most"
    )


def bench_worst_view(seed: int) -> None:
    """The largest ``legal``: 3 privileges on a full board (every 1-3 cell combination)."""
    rng = random.Random(seed)
    state = DuelState()
    evolve(state, GameCreated("g", "duel", 2))
    for s in range(2):
        for event in join(state, f"P{s}", None, rng):
            evolve(state, event)
    mover = state.seat
    evolve(state, PrivilegeTaken(mover, "take"))
    evolve(state, PrivilegeTaken(mover, "take"))
    evolve(state, PrivilegeTaken(mover, "take", 1 - mover))
    runs = timeit.repeat(lambda: view(state, mover), number=20, repeat=3, timer=time.process_time)
    seen = view(state, mover)
    print(
        f"worst-case mover's view (3 privileges, full board): {min(runs) / 20 * 1e3:.1f} ms, "
        f"{len(seen['legal'])} legal actions, {len(msgspec.json.encode(seen)) / 1024:.0f} KiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    bench_playouts(DUEL, 2, args.games, args.seed, "")
    log = playout(DUEL, 2, args.seed)[1]
    bench_fold(fold, log, "")
    positions = live_positions(DUEL, log)
    bench_view(DUEL, positions, "")
    bench_view_size(positions)
    bench_worst_view(args.seed)


if __name__ == "__main__":
    main()
