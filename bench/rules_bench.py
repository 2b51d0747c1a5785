"""Classic Splendor rules engine benchmark: pure Python, one core, no I/O.

Figures printed:
- random playout: moves per second, one move being ``legal_actions`` + a random choice
  + ``decide`` + ``evolve`` of its events, and complete games per second (set-up by
  ``join`` included), for 2 and 4 players;
- fold: time to fold the whole log of a finished game from scratch;
- view: time to compute one view, for the player to move (it includes his ``legal``
  list) and for a spectator, averaged over every position of a game.

Usage: ``.venv/bin/python bench/rules_bench.py [--games N] [--seed S]``.
"""

from __future__ import annotations

import argparse

from engine_bench import bench_fold, bench_playouts, bench_view, live_positions, playout

from events.classic.evolve import fold
from events.game import CLASSIC


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per player count")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for players in (2, 4):
        bench_playouts(CLASSIC, players, args.games, args.seed, f", {players} players")
    for players in (2, 4):
        bench_fold(fold, playout(CLASSIC, players, args.seed)[1], f"{players}-player ")
    for players in (2, 4):
        positions = live_positions(CLASSIC, playout(CLASSIC, players, args.seed)[1])
        bench_view(CLASSIC, positions, f", {players} players")


if __name__ == "__main__":
    main()
