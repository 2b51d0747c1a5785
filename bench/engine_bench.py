"""What the rules benchmarks of both games share (``rules_bench.py`` for classic,
``duel_bench.py`` for Duel): seeded random playouts through a game's ``Variant``, and
the timing of playouts, of a fold and of views. Pure Python, one core, no I/O; CPU
time via ``time.process_time``.
"""

from __future__ import annotations

import random
import statistics
import time
import timeit
from collections.abc import Callable, Sequence
from typing import Any

from events.game import Variant

MAX_MOVES = 5000  # a bound on any one game; random games take ~100-400 moves


def playout(game: Variant, players: int, seed: int) -> tuple[int, list[Any]]:
    """One random game (uniform over the legal actions): its move count and its log."""
    rng = random.Random(seed)
    decide, evolve, legal_actions = game.decide, game.evolve, game.legal_actions
    state = game.new_state()
    log = game.create(f"g{seed}", players)
    evolve(state, log[0])
    for s in range(players):
        for event in game.join(state, f"P{s}", None, rng):
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


def live_positions(game: Variant, log: Sequence[Any]) -> list[Any]:
    """A copy of the state after each event of ``log`` while the game is live."""
    positions = []
    state = game.new_state()
    for event in log:
        game.evolve(state, event)
        if state.status == "live":
            positions.append(state.copy())
    return positions


def bench_playouts(game: Variant, players: int, games: int, seed: int, label: str) -> None:
    moves = 0
    start = time.process_time()
    for g in range(games):
        moves += playout(game, players, seed + g)[0]
    elapsed = time.process_time() - start
    print(
        f"random playout{label}: {moves / elapsed:,.0f} moves/s, "
        f"{games / elapsed:,.1f} games/s ({games} games, {moves / games:.0f} moves a game)"
    )


def bench_fold(fold: Callable[[list[Any]], Any], log: list[Any], label: str) -> None:
    """``fold`` is the game's own (a plain loop of ``evolve`` is what it is measured against)."""
    runs = timeit.repeat(lambda: fold(log), number=50, repeat=5, timer=time.process_time)
    best = min(runs) / 50
    print(f"fold of a finished {label}game ({len(log)} events): {best * 1e3:.2f} ms")


def bench_view(game: Variant, positions: list[Any], label: str) -> None:
    """The mean time of a view over ``positions``, for the mover and for a spectator."""
    for who, viewer_of in (("the mover", lambda s: s.seat), ("a spectator", lambda s: None)):
        per_view = []
        for _ in range(3):
            start = time.process_time()
            for position in positions:
                game.view(position, viewer_of(position))
            per_view.append((time.process_time() - start) / len(positions))
        print(
            f"view for {who}{label}: {min(per_view) * 1e6:.0f} µs "
            f"(mean over the {len(positions)} positions of a game, best of 3; "
            f"median run {statistics.median(per_view) * 1e6:.0f} µs)"
        )
