"""A tournament's events: frozen, tagged, past tense, folded by
``events.tournament.standings.evolve``. ``TournamentError`` is a refused action."""

from __future__ import annotations

from typing import Literal

import msgspec

from events.base import TimeControl, VariantName

Kind = Literal["arena", "swiss"]
# What one game gave a player: a win, a loss, a shared victory, or a Swiss bye.
Outcome = Literal["win", "loss", "shared", "bye"]
# Why the director paused a player: they forfeited a game (None: they chose to pause).
PauseReason = Literal["forfeit"]


class TournamentError(ValueError):
    """An action a tournament refuses; ``code`` names it for the server's reply."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


class Pair(msgspec.Struct, frozen=True):
    """Two players paired for one game; ``first`` takes the first seat."""

    first: str
    second: str


class _Event(msgspec.Struct, frozen=True, tag_field="type", omit_defaults=True):
    pass


class TournamentCreated(_Event, frozen=True, tag="TournamentCreated"):
    """An arena lasts ``duration_ms`` from ``starts_ms``; a Swiss plays ``rounds``."""

    tournament: str
    kind: Kind
    variant: VariantName
    clock: TimeControl
    starts_ms: int
    duration_ms: int | None = None
    rounds: int | None = None


class PlayerJoined(_Event, frozen=True, tag="PlayerJoined"):
    """A player joined, or came back after a pause, with their rating at that time."""

    player: str
    rating: float
    at_ms: int


class PlayerPaused(_Event, frozen=True, tag="PlayerPaused"):
    """A player stopped being paired; their points stay and they may come back.
    ``reason`` is "forfeit" when the director paused them for a forfeited game, None
    when they chose to; being a default, it is left out of the JSON of a chosen pause
    and an older log's pauses decode as chosen ones."""

    player: str
    at_ms: int
    reason: PauseReason | None = None


class PlayerLeft(_Event, frozen=True, tag="PlayerLeft"):
    """A player left for good: never paired again, still ranked with their points."""

    player: str
    at_ms: int


class PlayersPaired(_Event, frozen=True, tag="PlayersPaired"):
    """Games to start. ``round`` is the Swiss round (0 in an arena); ``bye`` the
    Swiss player who sits out this round and scores it as a win."""

    pairs: tuple[Pair, ...]
    at_ms: int
    round: int = 0
    bye: str | None = None


class GamePlayed(_Event, frozen=True, tag="GamePlayed"):
    """A paired game ended; ``winner`` is None for a shared victory."""

    first: str
    second: str
    winner: str | None
    at_ms: int


class TournamentEnded(_Event, frozen=True, tag="TournamentEnded"):
    at_ms: int


TournamentEvent = (
    TournamentCreated
    | PlayerJoined
    | PlayerPaused
    | PlayerLeft
    | PlayersPaired
    | GamePlayed
    | TournamentEnded
)
