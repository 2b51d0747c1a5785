"""Analysis of a game, move by move: each seat's chance to win at every version, the
move the search would have played at each turn, and the moves that lost the most.

The chances are estimated by the bots' search (``ismcts``) from the **public**
position: the spectator's view at the start of each turn, everything hidden (both
seats' reserves, the decks, what the bag will draw) determinized, never read. A
position's estimate is each seat's mean reward over a fixed number of iterations
(the game's result where a rollout ends it, else the game's evaluation at the depth
cap), with the generator ``Random(f"{seed}:{version}")``: positions are independent
and reproducible, so a worker can compute them in any order and resume after a crash.

Between two turns' starts a version keeps the chances of the turn it belongs to;
before the game starts every seat has an equal chance, and from the game's end the
winners share 1. A **mistake** is a turn after which its player's chance fell by at
least ``MISTAKE``: ``lost`` is the fall from the start of that turn to the start of
the next (or the end).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from bots import duel_mcts, mcts
from bots.budget import Budget
from bots.determinize import Determinizer
from bots.duel_determinize import DuelDeterminizer
from bots.ismcts import Game, Search
from events.game import VARIANTS

ITERATIONS: Final = 300  # a position's budget: a 2-player game in well under 60 s of a core
MISTAKE: Final = 0.1  # a fall in a player's chance that counts as a mistake


@dataclass(frozen=True)
class Estimate:
    """One turn's start: each seat's chance to win, the seat to move and the action the
    search favours for it."""

    chances: list[float]
    mover: int
    best: dict[str, Any] | None


@dataclass
class Analysis:
    """The analysis of a game, as ``GET /api/games/{id}/analysis`` gives it."""

    seats: list[list[float]]  # per seat, its chance at every version from 0
    best: dict[int, dict[str, Any]] = field(default_factory=dict)  # a turn's start -> action
    mistakes: list[dict[str, Any]] = field(default_factory=list)  # version, seat, lost

    def wire(self) -> dict[str, Any]:
        """The JSON body of a done analysis."""
        return {
            "status": "done",
            "seats": self.seats,
            "best": {str(v): action for v, action in self.best.items()},
            "mistakes": self.mistakes,
        }


_SEARCH: dict[str, tuple[Game[Any, Any], Callable[[dict[str, Any]], Any], int]] = {
    "classic": (mcts.CLASSIC, lambda view: Determinizer(view, public=True), mcts.DEPTH),
    "duel": (duel_mcts.DUEL, lambda view: DuelDeterminizer(view, public=True), duel_mcts.DEPTH),
}


def estimate(view: dict[str, Any], seed: str, iterations: int = ITERATIONS) -> Estimate:
    """Each seat's chance to win from the public ``view`` (a spectator's) of a live game
    at the start of a turn, and the search's favourite action for the seat to move."""
    if view["you"] is not None:
        raise ValueError("an analysis reads the public position: give a spectator's view")
    game, determinizer, depth = _SEARCH[view["variant"]]
    deal = determinizer(view)
    tree: Search[Any, Any] = Search(game, view["turn"]["seat"], None)
    rng = random.Random(f"{seed}:{view['version']}")
    tree.run(deal.sample, rng, Budget(iterations=iterations), depth)
    best = tree.most_visited() if tree.root.children else None
    return Estimate(tree.chances(), view["turn"]["seat"], None if best is None else _wire(best))


def _wire(action: Any) -> dict[str, Any]:
    wire: dict[str, Any] = msgspec.to_builtins(action)
    return wire


def turn_starts(variant: str, events: Iterable[Any]) -> list[tuple[int, dict[str, Any]]]:
    """The public view at the start of every turn of a game (its version, the view):
    the first live version, and each version whose last event ended a turn while the
    game went on (not a turn's end that the game's end follows in the same move)."""
    rules = VARIANTS[variant]
    state = rules.new_state()
    events = list(events)
    starts: list[tuple[int, dict[str, Any]]] = []
    live = False
    for k, event in enumerate(events):
        rules.evolve(state, event)
        if state.status != "live":
            continue
        ends = k + 1 < len(events) and type(events[k + 1]).__name__ == "GameEnded"
        if (not live or type(event).__name__ == "TurnEnded") and not ends:
            starts.append((state.version, rules.view(state, None)))
        live = True
    return starts


def assemble(
    players: int,
    versions: int,
    estimates: Sequence[tuple[int, Estimate]],
    winners: Sequence[int],
) -> Analysis:
    """The analysis of a game of ``versions`` versions from each turn start's estimate
    (version, estimate) and the game's winners (empty if it ended without any)."""
    even = [1.0 / players] * players
    final = (
        [1.0 / len(winners) if s in winners else 0.0 for s in range(players)] if winners else even
    )
    by_version = dict(estimates)
    seats: list[list[float]] = [[] for _ in range(players)]
    current = even
    for version in range(versions + 1):
        if version == versions:
            current = final
        elif version in by_version:
            current = by_version[version].chances
        for s in range(players):
            seats[s].append(current[s])
    best = {v: e.best for v, e in estimates if e.best is not None}
    mistakes = []
    ordered = sorted(by_version.items())
    for k, (version, start) in enumerate(ordered):
        after = ordered[k + 1][1].chances if k + 1 < len(ordered) else final
        mover = start.mover
        lost = start.chances[mover] - after[mover]
        if lost >= MISTAKE:
            mistakes.append({"version": version, "seat": mover, "lost": round(lost, 4)})
    return Analysis(seats, best, mistakes)


def analyse(
    variant: str, events: Sequence[Any], seed: str, iterations: int = ITERATIONS
) -> Analysis:
    """The whole analysis of a finished game from its events (pure: no I/O, no clock)."""
    rules = VARIANTS[variant]
    state = rules.fold(events)
    estimates = [
        (version, estimate(view, seed, iterations))
        for version, view in turn_starts(variant, events)
    ]
    winners = list(state.result.winners) if state.result is not None else []
    return assemble(state.players_count, len(events), estimates, winners)
