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
import random
import statistics
import time
import timeit

from events.base import GameCreated
from events.classic.events import ClassicEvent
from events.classic.evolve import evolve, fold
from events.classic.rules import decide, join, legal_actions
from events.classic.state import ClassicState
from events.classic.view import view

MAX_MOVES = 5000  # a bound on any one game; random games take ~100-400 moves


def playout(players: int, seed: int) -> tuple[int, list[ClassicEvent]]:
    """One random game: its move count and its log."""
    rng = random.Random(seed)
    state = ClassicState()
    log: list[ClassicEvent] = [GameCreated(f"g{seed}", "classic", players)]
    evolve(state, log[0])
    for s in range(players):
        for event in join(state, f"P{s}", None, rng):
            evolve(state, event)
            log.append(event)
    moves = 0
    while state.status == "live" and moves < MAX_MOVES:
        seat = state.seat
        for event in decide(state, seat, rng.choice(legal_actions(state, seat)), rng):
            evolve(state, event)
            log.append(event)
        moves += 1
    return moves, log


def bench_playouts(players: int, games: int, seed: int) -> None:
    moves = 0
    start = time.process_time()
    for g in range(games):
        moves += playout(players, seed + g)[0]
    elapsed = time.process_time() - start
    print(
        f"random playout, {players} players: {moves / elapsed:,.0f} moves/s, "
        f"{games / elapsed:,.1f} games/s ({games} games, {moves / games:.0f} moves a game)"
    )


def bench_fold(players: int, seed: int) -> None:
    _, log = playout(players, seed)
    runs = timeit.repeat(lambda: fold(log), number=50, repeat=5, timer=time.process_time)
    best = min(runs) / 50
    print(f"fold of a finished {players}-player game ({len(log)} events): {best * 1e3:.2f} ms")


def bench_view(players: int, seed: int) -> None:
    _, log = playout(players, seed)
    positions: list[ClassicState] = []
    state = ClassicState()
    for event in log:
        evolve(state, event)
        if state.status == "live":
            positions.append(state.copy())
    for label, viewer_of in (("the mover", lambda s: s.seat), ("a spectator", lambda s: None)):
        per_view = []
        for _ in range(3):
            start = time.process_time()
            for position in positions:
                view(position, viewer_of(position))
            per_view.append((time.process_time() - start) / len(positions))
        print(
            f"view for {label}, {players} players: {min(per_view) * 1e6:.0f} µs "
            f"(mean over the {len(positions)} positions of a game, best of 3; "
            f"median run {statistics.median(per_view) * 1e6:.0f} µs)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per player count")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for players in (2, 4):
        bench_playouts(players, args.games, args.seed)
    for players in (2, 4):
        bench_fold(players, args.seed)
    for players in (2, 4):
        bench_view(players, args.seed)


if __name__ == "__main__":
    main()
