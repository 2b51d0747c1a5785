"""Classic Splendor events: facts in the past tense, each one the whole of a change.

Token fields are wire dicts (colour -> count) naming only the colours that moved.
"""

from __future__ import annotations

import msgspec

from events.base import (
    AbandonClaimed,
    GameAborted,
    GameCreated,
    PlayerJoined,
    Resigned,
    TimeRanOut,
)
from events.classic.state import Reason


class _Event(msgspec.Struct, frozen=True, tag_field="type", omit_defaults=True):
    pass


class GameStarted(_Event, frozen=True, tag="GameStarted"):
    first_seat: int
    nobles: tuple[str, ...]
    board: tuple[tuple[str | None, ...], ...]  # the opening layout, levels 1..3
    bank: dict[str, int]


class TokensTaken(_Event, frozen=True, tag="TokensTaken"):
    seat: int
    tokens: dict[str, int]


class CardReserved(_Event, frozen=True, tag="CardReserved"):
    """``card`` is None only in a copy redacted for someone who may not see it."""

    seat: int
    level: int
    card: str | None
    blind: bool = False
    gold: int = 0


class CardBought(_Event, frozen=True, tag="CardBought"):
    seat: int
    card: str
    payment: dict[str, int]
    from_reserve: bool = False


class CardDealt(_Event, frozen=True, tag="CardDealt"):
    level: int
    slot: int
    card: str


class TokensReturned(_Event, frozen=True, tag="TokensReturned"):
    seat: int
    tokens: dict[str, int]


class NobleVisited(_Event, frozen=True, tag="NobleVisited"):
    seat: int
    noble: str


class TurnPassed(_Event, frozen=True, tag="TurnPassed"):
    seat: int


class TurnEnded(_Event, frozen=True, tag="TurnEnded"):
    seat: int
    next_seat: int


class GameEnded(_Event, frozen=True, tag="GameEnded"):
    """``reason``: ``points`` (the normal end), or how the last seat but one went out;
    ``ranks`` per seat (empty in games recorded before ranks: derived when folded)."""

    winners: tuple[int, ...]
    points: tuple[int, ...]
    cards: tuple[int, ...]
    reason: Reason = "points"
    ranks: tuple[int, ...] = ()


ClassicEvent = (
    GameCreated
    | PlayerJoined
    | GameStarted
    | TokensTaken
    | CardReserved
    | CardBought
    | CardDealt
    | TokensReturned
    | NobleVisited
    | TurnPassed
    | TurnEnded
    | GameEnded
    | Resigned
    | TimeRanOut
    | AbandonClaimed
    | GameAborted
)
