"""Bots for classic Splendor and Splendor Duel. A bot sees only its own seat's view
(PROTOCOL.md's view) and the public catalog, and answers one of the view's ``legal``
actions, as a wire dict.

The package is pure, like ``events/``: no I/O, no clock, no asyncio, nothing of
``server/`` nor ``client/`` (tests/bots/test_pure.py reads the imports). A time budget
comes with the caller's clock (``bots.budget``).

Levels: ``random`` (uniform among legal actions), ``greedy`` (a one-move Splendor
heuristic), ``mcts`` (information-set Monte Carlo tree search over determinizations
of what the seat can't see). See docs/bots.md.
"""

from __future__ import annotations

import random
from typing import Any, Final

from bots import duel_greedy, duel_mcts, duel_random, greedy, mcts, random_bot
from bots.budget import Clock
from bots.moves import moves

BOTS: Final = frozenset({"random", "greedy", "mcts"})


def choose(
    level: str,
    view: dict[str, Any],
    rng: random.Random | None = None,
    *,
    seconds: float | None = None,
    iterations: int | None = None,
    clock: Clock | None = None,
) -> dict[str, Any]:
    """The action bot ``level`` plays in ``view`` (one of ``view["legal"]``).

    ``seconds`` (by the caller's ``clock``) and ``iterations`` bound the MCTS bot's
    search (``bots.budget``; neither: ``DEFAULT_ITERATIONS``); the other levels answer
    at once and ignore them.
    A Duel view goes to the Duel bots (docs/bots.md, "Duel bots").
    """
    if view.get("variant") == "duel":
        if level == "random":
            return duel_random.choose(view, rng)
        if level == "greedy":
            return duel_greedy.choose(view, rng)
        if level == "mcts":
            index, _ = duel_mcts.search(
                view, rng or random.Random(), seconds=seconds, iterations=iterations, clock=clock
            )
            return moves(view)[index]
    if level == "random":
        return random_bot.choose(view, rng)
    if level == "greedy":
        return greedy.choose(view, rng)
    if level == "mcts":
        return mcts.choose(view, rng, seconds=seconds, iterations=iterations, clock=clock)
    raise ValueError(f"unknown bot level {level!r}: one of {', '.join(sorted(BOTS))}")
