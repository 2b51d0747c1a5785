"""Rule violations: a code from PROTOCOL.md and a reason, a key with arguments
(``events/reasons.py``) from which each reader's sentence is made at the edge."""

from __future__ import annotations

from typing import Literal

from events.reasons import REASONS, Arg, Reason, english

ViolationCode = Literal["not_your_turn", "illegal_action", "game_over"]


class RuleViolation(Exception):
    """An action the rules refuse. ``code`` is PROTOCOL.md's error code, ``reason``
    what was refused (a key of ``events.reasons.REASONS`` and its arguments)."""

    code: ViolationCode = "illegal_action"

    def __init__(self, key: str, **args: Arg) -> None:
        template = REASONS.get(key)
        if template is None:
            raise KeyError(f"{key!r} is not a reason of events/reasons.py")
        template.check(key, args)
        super().__init__(key, args)
        self.reason = Reason(key, args)

    @property
    def message(self) -> str:
        """The refusal in English (logs, tests); a reader's sentence is made from
        ``reason`` in their language."""
        return english(self.reason)

    def __str__(self) -> str:
        return self.message


class NotYourTurn(RuleViolation):
    code = "not_your_turn"


class IllegalAction(RuleViolation):
    code = "illegal_action"


class GameOver(RuleViolation):
    code = "game_over"
