"""What the game service tells others of, and asks them: the hooks it is given.

Each is a ``Protocol`` or a callable type, so the service names what it needs and
nothing of who supplies it (the hubs, the timekeeper, the archiver, the analyser,
the presence tracking: all in layers of their own).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from server.games.projection import LoggedEvent

__all__ = [
    "AnalysisSchedule",
    "AppendObserver",
    "AppendedCallback",
    "ArchiveSchedule",
    "AwaySince",
    "Scheduler",
]

AppendedCallback = Callable[[str, int], Awaitable[None]]
"""``on_appended(game_id, version)``: called after this process appended events."""

AwaySince = Callable[[str, int], Awaitable[Sequence[int | None]]]
"""``away_since(game_id, seats)``: per seat, since when (ms) it has had no open
connection on any server process, None while it has one (server presence tracking
supplies it; ``events.leaving.Facts``)."""


class Scheduler(Protocol):
    """Where the service writes each game's next deadline (``server.games.timekeeper``)."""

    async def schedule(self, game_id: str, version: int, deadline_ms: int | None) -> None:
        """The game at ``version`` has this deadline (None: none); an older version's
        word never overrides a newer one's."""

    def note(self, game_id: str, version: int, deadline_ms: int | None) -> None:
        """``schedule`` soon, without waiting (a move's new deadline)."""


class AnalysisSchedule(Protocol):
    """Where the service notes the finished games to analyse (``server.workers.analyser``)."""

    async def add(self, game_id: str) -> None:
        """Analyse the game (a game noted already stays as it is)."""


class ArchiveSchedule(Protocol):
    """Where the service notes the games to archive (``server.games.archiver``)."""

    async def add(self, game_id: str, ended_ms: int) -> None:
        """Archive the game some time after ``ended_ms``, its end (a game noted
        already keeps its time)."""


class AppendObserver(Protocol):
    """Told synchronously of every append this service makes to a game it has loaded
    (``GameService.observer``): the hubs use it to show a process's own moves without
    reading them back from Redis."""

    def appending(self, game_id: str, logged: Sequence[LoggedEvent]) -> None:
        """These events, with the versions and times they get if the append succeeds,
        are about to be appended (their notifications may come). Work done for them
        now overlaps the append's round trip; ``appended`` or ``append_failed`` follows,
        always, before the game's lock is let go."""

    def appended(self, game_id: str, logged: Sequence[LoggedEvent]) -> None:
        """They were appended (the same list as ``appending``'s)."""

    def append_failed(self, game_id: str) -> None:
        """The append wrote nothing (a conflict, a duplicate) or its outcome is unknown."""
