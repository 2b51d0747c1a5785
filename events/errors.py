"""Rule violations: a code from PROTOCOL.md and a sentence a player understands."""

from __future__ import annotations

from typing import Literal

ViolationCode = Literal["not_your_turn", "illegal_action", "game_over"]


class RuleViolation(Exception):
    """An action the rules refuse. ``code`` is PROTOCOL.md's error code."""

    code: ViolationCode = "illegal_action"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotYourTurn(RuleViolation):
    code = "not_your_turn"


class IllegalAction(RuleViolation):
    code = "illegal_action"


class GameOver(RuleViolation):
    code = "game_over"
