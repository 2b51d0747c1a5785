"""Splendor Duel events: facts in the past tense, each one the whole of a change.

Cells are ``[row, col]`` pairs. Every random draw (the opening layout, each token
laid on the board when it is replenished, each card dealt or reserved blind) is
written into its event, so a replay never depends on a random generator.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from events.base import (
    AbandonClaimed,
    GameAborted,
    GameCreated,
    PlayerJoined,
    Resigned,
    TimeRanOut,
)
from events.colors import DuelToken
from events.duel.state import Reason

Cell = tuple[int, int]
PrivilegeReason = Literal["setup", "take", "replenish", "ability"]
IgnoredAbility = Literal["take_token", "steal_token", "take_privilege"]


class _Event(msgspec.Struct, frozen=True, tag_field="type", omit_defaults=True):
    pass


class GameStarted(_Event, frozen=True, tag="GameStarted"):
    """The opening: who starts, the 25 tokens as laid along the spiral, the pyramid, the royals."""

    first_seat: int
    board: tuple[tuple[DuelToken | None, ...], ...]  # 5 rows of 5 cells
    pyramid: tuple[tuple[str | None, ...], ...]  # levels 1..3: 5, 4 and 3 cards
    royals: tuple[str, ...]
    privileges: int = 3


class PrivilegeTaken(_Event, frozen=True, tag="PrivilegeTaken"):
    """``seat`` took a privilege from the supply (``from_seat`` None) or from the opponent.

    ``reason``: ``setup`` (the second player's), ``take`` (the opponent took 3 tokens of
    one colour or both pearls), ``replenish`` (the opponent replenished the board),
    ``ability`` (a card's or a royal's).
    """

    seat: int
    reason: PrivilegeReason
    from_seat: int | None = None


class PrivilegesUsed(_Event, frozen=True, tag="PrivilegesUsed"):
    """One privilege back to the supply per cell; the token at each cell to ``seat``."""

    seat: int
    cells: tuple[Cell, ...]
    tokens: tuple[DuelToken, ...]


class Placed(msgspec.Struct, frozen=True):
    cell: Cell
    token: DuelToken


class BoardReplenished(_Event, frozen=True, tag="BoardReplenished"):
    """Every bag token laid on the empty cells along the spiral, in the order drawn.

    ``forced`` when the player had no mandatory action left without it.
    """

    seat: int
    placed: tuple[Placed, ...]
    forced: bool = False


class TokensTaken(_Event, frozen=True, tag="TokensTaken"):
    seat: int
    cells: tuple[Cell, ...]
    tokens: tuple[DuelToken, ...]


class CardReserved(_Event, frozen=True, tag="CardReserved"):
    """The gold at ``gold_cell`` and a card: from pyramid ``slot``, or blind from a deck.

    ``card`` is None only in a copy redacted for someone who may not see it.
    """

    seat: int
    level: int
    card: str | None
    gold_cell: Cell
    slot: int | None = None  # the pyramid slot; None for a blind reserve


class CardBought(_Event, frozen=True, tag="CardBought"):
    """``wild_on``: the owned card a wild card was placed on (it takes that colour)."""

    seat: int
    card: str
    payment: dict[str, int]
    from_reserve: bool = False
    wild_on: str | None = None


class CardDealt(_Event, frozen=True, tag="CardDealt"):
    level: int
    slot: int
    card: str


class BonusTokenTaken(_Event, frozen=True, tag="BonusTokenTaken"):
    """A take_token ability: the token at ``cell``, of the card's colour."""

    seat: int
    cell: Cell
    token: DuelToken


class TokenStolen(_Event, frozen=True, tag="TokenStolen"):
    seat: int
    from_seat: int
    token: DuelToken


class AbilityIgnored(_Event, frozen=True, tag="AbilityIgnored"):
    """An ability with nothing to act on, as the rulebook says: its effect is ignored."""

    seat: int
    ability: IgnoredAbility


class RoyalTaken(_Event, frozen=True, tag="RoyalTaken"):
    seat: int
    royal: str


class TokensDiscarded(_Event, frozen=True, tag="TokensDiscarded"):
    """Tokens put back into the bag to end the turn with 10."""

    seat: int
    tokens: dict[str, int]


class TurnEnded(_Event, frozen=True, tag="TurnEnded"):
    """``next_seat`` equals ``seat`` after an extra turn ability."""

    seat: int
    next_seat: int


class GameEnded(_Event, frozen=True, tag="GameEnded"):
    """``ranks`` per seat (empty in games recorded before ranks: derived when folded)."""

    winners: tuple[int, ...]
    reason: Reason
    ranks: tuple[int, ...] = ()


DuelEvent = (
    GameCreated
    | PlayerJoined
    | GameStarted
    | PrivilegeTaken
    | PrivilegesUsed
    | BoardReplenished
    | TokensTaken
    | CardReserved
    | CardBought
    | CardDealt
    | BonusTokenTaken
    | TokenStolen
    | AbilityIgnored
    | RoyalTaken
    | TokensDiscarded
    | TurnEnded
    | GameEnded
    | Resigned
    | TimeRanOut
    | AbandonClaimed
    | GameAborted
)
