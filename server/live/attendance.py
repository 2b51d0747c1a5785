"""Attendance: which open and live games someone attends (RULES.md part 3).

Presence is no event, so no append tells the lobby or the timekeeper that the last
person left a game. Every ``every_s`` seconds one process (the first to take
``{lobby}:sweep`` for that long) looks at every game the lobby lists as open or live:
its seats (the lobby's summary), its presence hash, its start (or creation) and its
last event's time (``Presence.attendance``, one script a game). Then:

- the games ``events.leaving.listed`` says not to list (an open game none of whose
  seated people is connected; a live game with no human connected that has not moved
  for 10 minutes) are written as ``{lobby}:quiet``, which the lists leave out;
- an open game whose seated people have all been away 2 minutes, and a live untimed
  game no human seat has attended for a day, go to ``GameService.expire`` with
  presence, which decides under the game's lock with fresh facts (the rules' own
  ``expire``) and appends once whichever process asks (its command id is the game's
  version's).

A seat's absence is counted as the rules count it (``seat_away_since``): from when
its last socket closed, a dead process's sockets from that process's last beat, and
never before the game started (an open game: its creation). A seat away less than
``LIST_GRACE_MS`` counts as there for the lists (a page reloading).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Final

from events.clock import IDLE_MS, OPEN_AWAY_MS
from events.leaving import listed
from server.common.background import Sleeper, running
from server.common.errors import ServiceError
from server.games.lobby import Lobby
from server.games.service import GameService
from server.live.presence import Presence, seat_away_since

__all__ = ["SWEEP_S", "Attendance", "Swept", "running_attendance"]

log = logging.getLogger(__name__)

SWEEP_S: Final = 5.0  # how often attendance is looked at (by one process)
AT_ONCE: Final = 64  # games whose presence is read at once


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class Swept:
    """What one look found (tests, logs)."""

    games: int = 0
    quiet: list[str] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)  # appended by this look


class Attendance:
    """This process's part in attendance: a look every ``every_s`` when its turn."""

    def __init__(
        self,
        service: GameService,
        lobby: Lobby,
        presence: Presence,
        *,
        every_s: float = SWEEP_S,
        clock_ms: Callable[[], int] = _now_ms,
    ) -> None:
        self.service = service
        self.lobby = lobby
        self.presence = presence
        self._every_s = every_s
        self._clock_ms = clock_ms
        self._token = secrets.token_hex(8)
        self._closed = False
        self._sleeper = Sleeper()

    def close(self) -> None:
        self._closed = True
        self._sleeper.wake()

    async def run(self) -> None:
        while not self._closed:
            try:
                # Held a little less than a period, so the next period is free again.
                hold_ms = max(1, int(self._every_s * 900))
                if await self.lobby.claim_sweep(self._token, hold_ms):
                    await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("attendance look failed; trying again")
            await self._sleeper.sleep(self._every_s)

    async def sweep(self) -> Swept:
        """Look at every open and live game once: write the quiet ones, expire those
        left or idle."""
        ids = await self.lobby.members(("open", "live"))
        summaries = await self.lobby.summaries(ids)
        swept = Swept(len(ids))
        due: list[str] = []
        for start in range(0, len(ids), AT_ONCE):
            batch = list(
                zip(ids[start : start + AT_ONCE], summaries[start : start + AT_ONCE], strict=True)
            )
            looks = await asyncio.gather(*(self._look(g, s) for g, s in batch if s is not None))
            for game_id, quiet, expire in looks:
                if quiet:
                    swept.quiet.append(game_id)
                if expire:
                    due.append(game_id)
        await self.lobby.set_quiet(swept.quiet)
        for game_id in due:
            try:
                result = await self.service.expire(game_id, presence=True)
            except ServiceError as refusal:
                log.warning("attendance of %s not recorded: %s", game_id, refusal)
                continue
            if result is not None and not result.duplicate:
                swept.expired.append(game_id)
        return swept

    async def _look(self, game_id: str, summary: dict[str, Any]) -> tuple[str, bool, bool]:
        """(the game, whether it is quiet, whether it may be due to expire)."""
        status = summary.get("status")
        seats = summary.get("seats") or []
        since_version = 1 if status == "open" else int(summary.get("players", 0)) + 2
        seen, since_ms, last_ms = await self.presence.attendance(game_id, since_version)
        now = self._clock_ms()
        away: list[int] = []
        for seat in seats:
            if seat.get("bot") is not None:
                continue
            raw = self.presence.away_since(seen, int(seat["seat"]))
            since = seat_away_since(raw, since_ms or None)
            away.append(0 if since is None else max(0, now - since))
        quiet = not listed(str(status), away, max(0, now - last_ms))
        if not away:
            return game_id, quiet, False
        if status == "open":
            return game_id, quiet, min(away) >= OPEN_AWAY_MS
        untimed = summary.get("clock") is None
        return game_id, quiet, untimed and min(away) >= IDLE_MS


@asynccontextmanager
async def running_attendance(
    service: GameService, lobby: Lobby, presence: Presence
) -> AsyncIterator[Attendance]:
    """This process's part in attendance for as long as the context lasts."""
    attendance = Attendance(service, lobby, presence)
    async with running(attendance):
        yield attendance
