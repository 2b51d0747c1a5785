"""Splendor Duel actions: the commands a seat may send, in PROTOCOL.md's style.

Cells are ``[row, col]`` pairs, row 0 at the top. Optional actions come first
(``use_privileges``, then ``replenish``), then one mandatory action (``take_tokens``,
``reserve``, ``buy``), then one action per choice the turn leaves pending.
"""

from __future__ import annotations

import msgspec

from events.base import Abort, ClaimAbandon, Resign
from events.colors import DuelToken

Cell = tuple[int, int]


class _Action(msgspec.Struct, frozen=True, tag_field="kind", forbid_unknown_fields=True):
    pass


class UsePrivileges(_Action, frozen=True, tag="use_privileges"):
    """Spend one privilege per cell, taking its gem or pearl token (never gold)."""

    cells: tuple[Cell, ...]


class Replenish(_Action, frozen=True, tag="replenish"):
    """Empty the bag onto the board; the opponent takes a privilege."""


class TakeTokens(_Action, frozen=True, tag="take_tokens"):
    """1 to 3 gem or pearl tokens adjacent in one straight line."""

    cells: tuple[Cell, ...]


class Reserve(_Action, frozen=True, tag="reserve", omit_defaults=True):
    """Take the gold at ``gold_cell`` and reserve a pyramid ``card`` or a deck's top (``level``)."""

    gold_cell: Cell
    card: str | None = None
    level: int | None = None


class Buy(_Action, frozen=True, tag="buy", omit_defaults=True):
    """Buy from the pyramid or one's reserve; a wild card names the owned card it goes on."""

    card: str
    payment: dict[DuelToken, int] | None = None
    wild_on: str | None = None


class TakeBonusToken(_Action, frozen=True, tag="take_bonus_token"):
    """The take_token ability: the token of the card's colour at ``cell``."""

    cell: Cell


class StealToken(_Action, frozen=True, tag="steal_token"):
    """The steal ability: one gem or pearl token of ``color`` from the opponent."""

    color: DuelToken


class ChooseRoyal(_Action, frozen=True, tag="choose_royal"):
    royal: str


class DiscardTokens(_Action, frozen=True, tag="discard_tokens"):
    """Put tokens back into the bag until 10 are left."""

    tokens: dict[DuelToken, int]


DuelAction = (
    UsePrivileges
    | Replenish
    | TakeTokens
    | Reserve
    | Buy
    | TakeBonusToken
    | StealToken
    | ChooseRoyal
    | DiscardTokens
    | Resign
    | Abort
    | ClaimAbandon
)
