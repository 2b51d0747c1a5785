"""What the game service answers (server/games/service.py): a command's version, a
seat taken, a rematch's seat and its answers. The web edge writes them on the wire."""

from __future__ import annotations

import msgspec

__all__ = ["CommandResult", "JoinResult", "RematchAnswers", "RematchResult"]


class CommandResult(msgspec.Struct, frozen=True):
    """A command's answer: the version the game is at after it. ``duplicate`` when the
    command id had been applied before (nothing new was written)."""

    version: int
    duplicate: bool = False


class RematchResult(msgspec.Struct, frozen=True):
    """A seat of a rematch: the game's id, the seat and its token."""

    id: str
    seat: int
    token: str


class RematchAnswers(msgspec.Struct, frozen=True):
    """A finished game's rematch and the answers of its seats (seats of the finished
    game): who accepted it (its bots among them), who declined it."""

    id: str
    accepted: list[int]
    declined: list[int]


class JoinResult(msgspec.Struct, frozen=True):
    """A seat taken: its number, its token (None for a bot) and the game's version."""

    seat: int
    token: str | None
    version: int
