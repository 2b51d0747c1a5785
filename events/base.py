"""What every game shares: the events of the lobby and the frame of a seat."""

from __future__ import annotations

from typing import Literal

import msgspec

Variant = Literal["classic", "duel"]
Status = Literal["open", "live", "finished"]


class GameCreated(msgspec.Struct, frozen=True, tag="GameCreated", tag_field="type"):
    game: str
    variant: Variant
    players: int


class PlayerJoined(msgspec.Struct, frozen=True, tag="PlayerJoined", tag_field="type"):
    seat: int
    name: str
    bot: str | None = None


class Seat(msgspec.Struct):
    """Who sits at a seat. Tokens of the seat live in the server, never in events."""

    seat: int
    name: str
    bot: str | None = None
