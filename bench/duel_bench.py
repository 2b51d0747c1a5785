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

from events.base import GameCreated
from events.duel.events import DuelEvent, PrivilegeTaken
from events.duel.evolve import evolve, fold
from events.duel.legal import legal_actions
from events.duel.rules import decide
from events.duel.setup import join
from events.duel.state import DuelState
from events.duel.view import view

MAX_MOVES = 5000  # a bound on any one game; random games take ~150-250 moves


def playout(seed: int) -> tuple[int, list[DuelEvent]]:
    """One random game (uniform over the legal actions): its move count and its log."""
    rng = random.Random(seed)
    state = DuelState()
    log: list[DuelEvent] = [GameCreated(f"g{seed}", "duel", 2)]
    evolve(state, log[0])
    for s in range(2):
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


def bench_playouts(games: int, seed: int) -> None:
    moves = 0
    start = time.process_time()
    for g in range(games):
        moves += playout(seed + g)[0]
    elapsed = time.process_time() - start
    print(
        f"random playout: {moves / elapsed:,.0f} moves/s, {games / elapsed:,.1f} games/s "
        f"({games} games, {moves / games:.0f} moves a game)"
    )


def bench_fold(seed: int) -> None:
    _, log = playout(seed)
    runs = timeit.repeat(lambda: fold(log), number=50, repeat=5, timer=time.process_time)
    best = min(runs) / 50
    print(f"fold of a finished game ({len(log)} events): {best * 1e3:.2f} ms")


def bench_view(seed: int) -> None:
    _, log = playout(seed)
    positions: list[DuelState] = []
    state = DuelState()
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
            f"view for {label}: {min(per_view) * 1e6:.0f} µs "
            f"(mean over the {len(positions)} positions of a game, best of 3; "
            f"median run {statistics.median(per_view) * 1e6:.0f} µs)"
        )
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
    bench_playouts(args.games, args.seed)
    bench_fold(args.seed)
    bench_view(args.seed)
    bench_worst_view(args.seed)


if __name__ == "__main__":
    main()
