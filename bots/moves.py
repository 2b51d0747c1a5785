"""What a bot chooses from: the game's moves in a view's ``legal``, without the leave
actions (``abort``, ``claim_abandon``; RULES.md part 3) that a seat's view lists
too. Bots never abort, resign nor claim a game."""

from __future__ import annotations

from typing import Any

from events.base import LEAVE_KINDS


def moves(view: dict[str, Any]) -> list[dict[str, Any]]:
    """``view["legal"]`` without the leave actions (the same list when it has none)."""
    legal: list[dict[str, Any]] = view["legal"]
    if not any(action["kind"] in LEAVE_KINDS for action in legal):
        return legal
    return [action for action in legal if action["kind"] not in LEAVE_KINDS]
