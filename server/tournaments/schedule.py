"""Tournaments on the operator's schedule: ``SPLENDOR_SCHEDULED_TOURNAMENTS``
(docs/operations.md), e.g. ``duel 3+2 arena 60m hourly; classic 5+3 swiss 5r
daily@20:00``. Entries are separated by ``;``; each is five words:

- the variant: ``classic`` or ``duel``;
- the clock: ``<minutes>+<increment seconds>``;
- the kind: ``arena`` or ``swiss``;
- its length: an arena's minutes (``60m``, 10 to 180), a Swiss's rounds (``5r``, 3 to 11);
- when: ``hourly`` (on the hour), ``hourly@:MM`` (at minute MM), ``daily@HH:MM`` (UTC).

Each slot's tournament has an id made of the entry and the slot's start
(``s_duel_3_2_arena_60m_202611281500``), so every process creating it creates it once
(the append at version 0 is the guard). It is created (announced) ``ANNOUNCE_MS``
before it starts; a slot started less than ``LATE_MS`` ago is still created (a
deployment that was down at its announcement).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Final, Literal

from events.base import TimeControl
from server.tournaments.requests import DURATION_MIN, ROUNDS

if TYPE_CHECKING:
    from server.tournaments.service import TournamentService

__all__ = ["ANNOUNCE_MS", "Schedule", "parse_schedules"]

ANNOUNCE_MS: Final = 3_600_000
LATE_MS: Final = 300_000
_ENTRY: Final = re.compile(
    r"(classic|duel)\s+(\d{1,3})\+(\d{1,3})\s+(arena|swiss)\s+(\d{1,3})([mr])\s+"
    r"(hourly(?:@:(\d\d))?|daily@(\d\d):(\d\d))"
)


@dataclass(frozen=True)
class Schedule:
    """One entry of the schedule."""

    variant: Literal["classic", "duel"]
    minutes: int
    increment: int
    kind: Literal["arena", "swiss"]
    length: int  # an arena's minutes, a Swiss's rounds
    hourly: bool
    hour: int
    minute: int
    _made: set[str] = field(default_factory=set, compare=False, hash=False, repr=False)

    @property
    def clock(self) -> TimeControl:
        return TimeControl(initial=self.minutes * 60, increment=self.increment)

    def slots(self, now_ms: int) -> list[int]:
        """The starts (ms) to have created at ``now_ms``: from ``LATE_MS`` ago to
        ``ANNOUNCE_MS`` ahead."""
        now = datetime.fromtimestamp(now_ms / 1000, UTC)
        step = timedelta(hours=1) if self.hourly else timedelta(days=1)
        first = now.replace(minute=self.minute, second=0, microsecond=0)
        if not self.hourly:
            first = first.replace(hour=self.hour)
        first -= step
        starts = []
        for k in range(3):
            start = int((first + k * step).timestamp() * 1000)
            if now_ms - LATE_MS <= start <= now_ms + ANNOUNCE_MS:
                starts.append(start)
        return starts

    def slot_id(self, start_ms: int) -> str:
        stamp = datetime.fromtimestamp(start_ms / 1000, UTC).strftime("%Y%m%d%H%M")
        unit = "m" if self.kind == "arena" else "r"
        return (
            f"s_{self.variant}_{self.minutes}_{self.increment}_{self.kind}_"
            f"{self.length}{unit}_{stamp}"
        )

    async def announce(self, service: TournamentService, now_ms: int) -> list[str]:
        """Create the slots' tournaments this process has not seen made: their ids."""
        made = []
        slots = self.slots(now_ms)
        current = {self.slot_id(start) for start in slots}
        self._made.intersection_update(current)  # past slots are never asked again
        for start in slots:
            tournament_id = self.slot_id(start)
            if tournament_id in self._made:
                continue
            arena = self.kind == "arena"
            await service.open(
                tournament_id,
                self.kind,
                self.variant,
                self.clock,
                start,
                name="",  # named by each reader in their words
                created_by=None,
                duration_ms=self.length * 60_000 if arena else None,
                rounds=None if arena else self.length,
            )
            self._made.add(tournament_id)
            made.append(tournament_id)
        return made


def parse_schedules(text: str) -> tuple[Schedule, ...]:
    """The entries of ``SPLENDOR_SCHEDULED_TOURNAMENTS``; ``ValueError`` says which is wrong."""
    schedules = []
    for raw in text.split(";"):
        entry = " ".join(raw.split())
        if not entry:
            continue
        match = _ENTRY.fullmatch(entry)
        if match is None:
            raise ValueError(
                f"{entry!r} is not '<classic|duel> <min>+<inc> <arena|swiss> <N>m|<N>r "
                "hourly[@:MM]|daily@HH:MM'"
            )
        variant, minutes, increment, kind, length, unit, _, at_minute, hour, minute = match.groups()
        if (kind == "arena") != (unit == "m"):
            raise ValueError(f"{entry!r}: an arena lasts <N>m minutes, a Swiss plays <N>r rounds")
        least, most = DURATION_MIN if kind == "arena" else ROUNDS
        if not least <= int(length) <= most:
            raise ValueError(f"{entry!r}: {length}{unit} is not within {least} to {most}")
        if not 1 <= int(minutes) <= 180 or int(increment) > 180:
            raise ValueError(f"{entry!r}: the clock is 1 to 180 minutes, + 0 to 180 s")
        hourly = hour is None
        h = 0 if hourly else int(hour)
        m = int(at_minute or 0) if hourly else int(minute)
        if h > 23 or m > 59:
            raise ValueError(f"{entry!r}: no such time of day")
        schedules.append(
            Schedule(variant, int(minutes), int(increment), kind, int(length), hourly, h, m)  # type: ignore[arg-type]
        )
    return tuple(schedules)
