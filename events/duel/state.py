"""The table of a Splendor Duel game, as folded from its events.

Token vectors are lists indexed white, blue, green, red, black, gold, pearl
(``events.colors.DUEL_TOKENS``); bonuses and prestige per colour the first five. The
board is a flat list of 25 cells, ``cell = 5 * row + col``. Deck lists hold the cards
not yet dealt, in id order: their order is no secret because the next card is drawn at
random when it is dealt.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from events.base import OutReason, Status
from events.clock import Clock
from events.colors import DuelToken

# The choices a card or a royal can leave pending, in the order they resolve.
# ``take_privilege`` never waits for the player: it is listed so that a privilege
# won by a card resolves in its place, before a royal chosen in the same turn.
Pending = Literal["take_privilege", "take_bonus_token", "steal_token", "choose_royal"]
Reason = Literal["prestige", "crowns", "colour", "time", "resign", "abandon"]


def _tokens() -> list[int]:
    return [0] * 7


def _colours() -> list[int]:
    return [0] * 5


class PlayerState(msgspec.Struct):
    seat: int
    name: str
    bot: str | None = None
    tokens: list[int] = msgspec.field(default_factory=_tokens)
    bonuses: list[int] = msgspec.field(default_factory=_colours)  # double bonus counts 2
    colour_points: list[int] = msgspec.field(default_factory=_colours)  # prestige per colour
    points: int = 0  # cards and royals
    crowns: int = 0
    privileges: int = 0
    cards: list[str] = msgspec.field(default_factory=list)
    wilds: dict[str, int] = msgspec.field(default_factory=dict)  # wild card -> colour index
    royals: list[str] = msgspec.field(default_factory=list)
    reserved: list[str] = msgspec.field(default_factory=list)
    out: OutReason | None = None  # out of the game (RULES.md part 3)
    account: str | None = None  # the account's username (None: a guest or a bot)
    turns: int = 0  # turns this seat has started, extra turns not counted: its round

    def copy(self) -> PlayerState:
        return PlayerState(
            self.seat,
            self.name,
            self.bot,
            list(self.tokens),
            list(self.bonuses),
            list(self.colour_points),
            self.points,
            self.crowns,
            self.privileges,
            list(self.cards),
            dict(self.wilds),
            list(self.royals),
            list(self.reserved),
            self.out,
            self.account,
            self.turns,
        )


class Result(msgspec.Struct, frozen=True):
    winners: tuple[int, ...]
    reason: Reason
    ranks: tuple[int, ...] = ()


def _board() -> list[DuelToken | None]:
    return [None] * 25


def _pyramid() -> list[list[str | None]]:
    return [[None] * 5, [None] * 4, [None] * 3]


class DuelState(msgspec.Struct):
    game: str = ""
    players_count: int = 2
    status: Status = "open"
    version: int = 0
    players: list[PlayerState] = msgspec.field(default_factory=list)
    board: list[DuelToken | None] = msgspec.field(default_factory=_board)
    bag: list[int] = msgspec.field(default_factory=_tokens)
    pyramid: list[list[str | None]] = msgspec.field(default_factory=_pyramid)
    decks: list[list[str]] = msgspec.field(default_factory=lambda: [[], [], []])
    royals: list[str] = msgspec.field(default_factory=list)  # still available
    privileges: int = 0  # scrolls in the supply
    first_seat: int = 0
    seat: int = 0  # whose turn
    turn_number: int = 0
    replenished: bool = False  # the board was replenished this turn (no privilege after it)
    acted: bool = False  # the mandatory action of this turn is done
    pending: list[Pending] = msgspec.field(default_factory=list)  # abilities to resolve
    bonus_color: int = -1  # the colour a pending take_bonus_token takes
    extra_turn: bool = False  # this turn is followed by another of the same player
    result: Result | None = None
    clock: Clock = msgspec.field(default_factory=Clock)  # the clocks' facts (events.clock)

    def copy(self) -> DuelState:
        """A deep copy: evolve changes a state in place."""
        return DuelState(
            self.game,
            self.players_count,
            self.status,
            self.version,
            [p.copy() for p in self.players],
            list(self.board),
            list(self.bag),
            [list(row) for row in self.pyramid],
            [list(deck) for deck in self.decks],
            list(self.royals),
            self.privileges,
            self.first_seat,
            self.seat,
            self.turn_number,
            self.replenished,
            self.acted,
            list(self.pending),
            self.bonus_color,
            self.extra_turn,
            self.result,
            self.clock.copy(),
        )
