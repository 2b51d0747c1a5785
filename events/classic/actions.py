"""Classic Splendor actions: the commands a seat may send, as PROTOCOL.md names them."""

from __future__ import annotations

import msgspec

from events.base import Abort, ClaimAbandon, Resign
from events.colors import Gem, Token


class _Action(msgspec.Struct, frozen=True, tag_field="kind", forbid_unknown_fields=True):
    pass


class TakeThree(_Action, frozen=True, tag="take_three"):
    colors: tuple[Gem, ...]


class TakeTwo(_Action, frozen=True, tag="take_two"):
    color: Gem


class Reserve(_Action, frozen=True, tag="reserve", omit_defaults=True):
    """From the board (``card``) or blind from a deck (``level``)."""

    card: str | None = None
    level: int | None = None


class Buy(_Action, frozen=True, tag="buy", omit_defaults=True):
    card: str
    payment: dict[Token, int] | None = None


class ReturnTokens(_Action, frozen=True, tag="return_tokens"):
    tokens: dict[Token, int]


class ChooseNoble(_Action, frozen=True, tag="choose_noble"):
    noble: str


class Pass(_Action, frozen=True, tag="pass"):
    pass


ClassicAction = (
    TakeThree
    | TakeTwo
    | Reserve
    | Buy
    | ReturnTokens
    | ChooseNoble
    | Pass
    | Resign
    | Abort
    | ClaimAbandon
)
