"""The table of a classic Splendor game, as folded from its events.

Token vectors are lists indexed white, blue, green, red, black, gold; bonuses the
first five. Deck lists hold the cards not yet dealt, in id order: their order is no
secret because the next card is drawn at random when it is dealt.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from events.base import OutReason, Status
from events.clock import Clock


class Reservation(msgspec.Struct):
    card: str
    blind: bool


class PlayerState(msgspec.Struct):
    seat: int
    name: str
    bot: str | None = None
    tokens: list[int] = msgspec.field(default_factory=lambda: [0] * 6)
    bonuses: list[int] = msgspec.field(default_factory=lambda: [0] * 5)
    points: int = 0
    cards: list[str] = msgspec.field(default_factory=list)
    nobles: list[str] = msgspec.field(default_factory=list)
    reserved: list[Reservation] = msgspec.field(default_factory=list)
    out: OutReason | None = None  # out of the game (RULES.md part 3): no more moves
    account: str | None = None  # the account's username (None: a guest or a bot)
    turns: int = 0  # turns this seat has started: the round it is in


Reason = Literal["points", "time", "resign", "abandon"]


class Result(msgspec.Struct, frozen=True):
    winners: tuple[int, ...]
    points: tuple[int, ...]
    cards: tuple[int, ...]
    reason: Reason = "points"
    ranks: tuple[int, ...] = ()


class ClassicState(msgspec.Struct):
    game: str = ""
    players_count: int = 0
    status: Status = "open"
    version: int = 0
    players: list[PlayerState] = msgspec.field(default_factory=list)
    bank: list[int] = msgspec.field(default_factory=lambda: [0] * 6)
    board: list[list[str | None]] = msgspec.field(default_factory=list)
    decks: list[list[str]] = msgspec.field(default_factory=list)  # index 0 is level 1
    nobles: list[str] = msgspec.field(default_factory=list)
    first_seat: int = 0
    seat: int = 0  # whose turn
    turn_number: int = 0
    acted: bool = False  # the main action of this turn is done
    noble_visited: bool = False  # a noble came this turn
    passes_in_row: int = 0  # consecutive turns passed, for the all-stuck end
    result: Result | None = None
    clock: Clock = msgspec.field(default_factory=Clock)  # the clocks' facts (events.clock)

    def copy(self) -> ClassicState:
        """A deep copy: evolve changes a state in place."""
        return msgspec.convert(msgspec.to_builtins(self), ClassicState)
