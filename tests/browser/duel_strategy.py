"""A scripted Splendor Duel player for the browser tests: the Duel greedy bot's choice,
steered early towards the actions the test wants to see clicked once each (a reserve
from the pyramid and a blind one, both with a gold cell, a use of a privilege and a
replenish). Pending choices (a token for an ability, a steal, a royal, a discard)
are the bot's.
"""

from __future__ import annotations

import random
from typing import Any

from bots import duel_greedy
from bots.moves import moves as game_moves

Action = dict[str, Any]
View = dict[str, Any]


def duel_kind(action: Action, reserved: set[str] | None = None) -> str:
    """The coverage name of a Duel action: reserves by source, buys by wild and source."""
    kind = str(action["kind"])
    if kind == "reserve":
        return "reserve_blind" if "level" in action else "reserve_pyramid"
    if kind == "buy":
        if action.get("wild_on"):
            return "buy_wild"
        if reserved is not None and action["card"] in reserved:
            return "buy_reserve"
    return kind


def choose_duel(view: View, used: set[str], rng: random.Random) -> Action:
    """The action to play now (``used``: coverage names already played)."""
    legal: list[Action] = game_moves(view)
    assert legal, "choose_duel() is only called on the mover's view"
    if view["turn"]["phase"] != "main":
        return duel_greedy.choose(view, rng)
    kinds = {duel_kind(a): a for a in reversed(legal)}  # the first of each kind
    in_bag = sum(view["bag"].values())
    turn = view["turn"]["number"]
    if "reserve_pyramid" not in used and "reserve_pyramid" in kinds:
        return kinds["reserve_pyramid"]
    if "use_privileges" not in used and "use_privileges" in kinds:
        return min(
            (a for a in legal if a["kind"] == "use_privileges"), key=lambda a: len(a["cells"])
        )
    if "replenish" not in used and "replenish" in kinds and in_bag >= 3:
        return kinds["replenish"]
    if "reserve_blind" not in used and "reserve_blind" in kinds and turn >= 6:
        return kinds["reserve_blind"]
    return duel_greedy.choose(view, rng)
