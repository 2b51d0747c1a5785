"""The wire shapes of the tournaments' requests, decoded strictly (unknown fields
refused, types checked: server/common/wire.py), and their checks."""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from events.base import TimeControl
from server.common import wire
from server.common.errors import bad_request

__all__ = ["CreateTournament", "TournamentClock", "checked_name", "time_control"]

MAX_STARTS_IN_S: Final = 86_400
DEFAULT_STARTS_IN_S: Final = 60
DURATION_MIN: Final = (10, 180)
ROUNDS: Final = (3, 11)
DEFAULT_DURATION_MIN: Final = 60
DEFAULT_ROUNDS: Final = 5
MAX_NAME: Final = 40


class TournamentClock(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A tournament's real-time clock, in seconds."""

    initial: int
    increment: int = 0


class CreateTournament(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /api/tournaments``."""

    kind: Literal["arena", "swiss"]
    variant: Literal["classic", "duel"]
    clock: TournamentClock
    starts_in_s: int = DEFAULT_STARTS_IN_S
    duration_min: int | None = None
    rounds: int | None = None
    name: str | None = None


def time_control(clock: TournamentClock) -> TimeControl:
    """The clock checked as a game's real-time clock is (``bad_request``)."""
    control = wire.time_control(wire.ClockRequest(clock.initial, clock.increment))
    assert control is not None
    return control


def checked_name(name: str) -> str:
    """A tournament's name checked as a player's is: 1 to 40 characters, none hidden."""
    checked, _ = wire.player_name(wire.JoinSeat(name=name))
    return checked


def checked(body: CreateTournament) -> tuple[int | None, int | None]:
    """An arena's duration (ms) or a Swiss's rounds, checked against the limits."""
    if not 0 <= body.starts_in_s <= MAX_STARTS_IN_S:
        raise bad_request("tournament.starts_in", most=MAX_STARTS_IN_S)
    if body.kind == "arena":
        if body.rounds is not None:
            raise bad_request("tournament.kind_settings")
        minutes = DEFAULT_DURATION_MIN if body.duration_min is None else body.duration_min
        if not DURATION_MIN[0] <= minutes <= DURATION_MIN[1]:
            raise bad_request("tournament.duration", least=DURATION_MIN[0], most=DURATION_MIN[1])
        return minutes * 60_000, None
    if body.duration_min is not None:
        raise bad_request("tournament.kind_settings")
    rounds = DEFAULT_ROUNDS if body.rounds is None else body.rounds
    if not ROUNDS[0] <= rounds <= ROUNDS[1]:
        raise bad_request("tournament.rounds", least=ROUNDS[0], most=ROUNDS[1])
    return None, rounds


def clock_text(clock: TimeControl) -> str:
    """A real-time clock as players write it: ``3+2`` (minutes, increment seconds)."""
    minutes = (clock.initial or 0) / 60
    return f"{minutes:g}+{clock.increment or 0}"
