"""What the game service tells others of, and asks them: the hooks it is given,
together in ``ServiceHooks``.

Each is a ``Protocol`` or a callable type, so the service names what it needs and
nothing of who supplies it (the hubs, the timekeeper, the archiver, the analyser,
the presence tracking, the profiles, the metrics: all in layers of their own).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from server.games.projection import Game, LoggedEvent

__all__ = [
    "AnalysisSchedule",
    "AppendObserver",
    "AppendedCallback",
    "ArchiveSchedule",
    "AwaySince",
    "OnCommand",
    "OnFinished",
    "Scheduler",
    "ServiceHooks",
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
    (``ServiceHooks.observer``): the hubs use it to show a process's own moves without
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


OnFinished = Callable[[Game, dict[str, Any]], Awaitable[None]]
"""``on_finished(game, summary)``: a game this process appended the last event of
has finished (not aborted)."""

OnCommand = Callable[[str, float], None]
"""``on_command(outcome, seconds)``: a command's outcome (``ok``, ``duplicate`` or the
error code) and its handling time."""


@dataclass
class ServiceHooks:
    """Whom the service tells of what it does; each is optional (None: nobody).

    The app gives them to the constructor (server/web/app.py), except ``observer``
    and ``away_since``: those are the hubs', which exist only once the sockets'
    lifespan has started after the service (server/web/game_socket.py), so they are
    bound then and unbound when it ends. Tests assign any of them directly.
    """

    # Told of each append, synchronously (the hubs show a process's own moves).
    observer: AppendObserver | None = None
    # Presence, for abandon claims and views (server.live.presence).
    away_since: AwaySince | None = None
    # Deadlines of games, for the timekeeper (server.games.timekeeper).
    scheduler: Scheduler | None = None
    # When games over are archived (server.games.archiver).
    archives: ArchiveSchedule | None = None
    # Finished games to analyse (server.workers.analyser).
    analyses: AnalysisSchedule | None = None
    # The profiles and ratings (server.players.profiles).
    on_finished: OnFinished | None = None
    # The metrics (server.web.metrics).
    on_command: OnCommand | None = None
