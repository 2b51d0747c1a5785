"""The random bot: any legal action, each as likely as the others."""

from __future__ import annotations

import random
from typing import Any

from bots.moves import moves


def choose(view: dict[str, Any], rng: random.Random | None = None) -> dict[str, Any]:
    """One of ``view["legal"]``, drawn uniformly."""
    legal = moves(view)
    if not legal:
        raise ValueError("it is not this seat's move: the view lists no legal action")
    action: dict[str, Any] = (rng or random.Random()).choice(legal)
    return action
