"""The Duel random bot: a uniform choice that is not silly about optional actions.

In the ``main`` phase it first decides whether to take an optional action: it uses
privileges with probability ``USE_PRIVILEGES`` (on a set of cells drawn uniformly)
and replenishes the board with probability ``REPLENISH``; otherwise it draws one of
the mandatory kinds present (``take_tokens``, ``reserve``, ``buy``) uniformly, then
one action of that kind uniformly. A uniform draw over the whole ``legal`` list would
almost always spend privileges (one entry per set of cells: up to ~1,800 of them)
and hardly ever buy. Every other phase (a pending choice, a discard, a forced
replenish) is a uniform draw over ``legal``.
"""

from __future__ import annotations

import random
from typing import Any, Final

from bots.duel_table import by_kind
from bots.moves import moves

USE_PRIVILEGES: Final = 0.1
REPLENISH: Final = 0.05
MANDATORY: Final = ("take_tokens", "reserve", "buy")


def choose(view: dict[str, Any], rng: random.Random | None = None) -> dict[str, Any]:
    """One of ``view["legal"]``, drawn as the module says."""
    legal: list[dict[str, Any]] = moves(view)
    if not legal:
        raise ValueError("it is not this seat's move: the view lists no legal action")
    rng = rng or random.Random()
    groups = by_kind(legal)
    mandatory = [kind for kind in MANDATORY if kind in groups]
    if not mandatory:  # a pending choice, a discard or a forced replenish
        action: dict[str, Any] = rng.choice(legal)
        return action
    draw = rng.random()
    if "use_privileges" in groups and draw < USE_PRIVILEGES:
        return rng.choice(groups["use_privileges"])
    if "replenish" in groups and USE_PRIVILEGES <= draw < USE_PRIVILEGES + REPLENISH:
        return groups["replenish"][0]
    return rng.choice(groups[rng.choice(mandatory)])
