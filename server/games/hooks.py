"""What the game service tells others of, and asks them: the hooks it is given,
together in ``ServiceHooks``, and how each is told.

Each hook is a ``Protocol`` or a callable type, so the service names what it needs and
nothing of who supplies it (the hubs, the timekeeper, the archiver, the analyser,
the presence tracking, the profiles, the metrics: all in layers of their own).

What a hook is told after an append is already written: a hook that fails must not
fail the command, so its Redis errors are logged here, and what they lost is written
again later (the next change of the game, or the lobby's refresh at the next start,
which calls ``heal``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from redis.exceptions import RedisError

from events.leaving import Facts
from server.games.projection import OVER, Game, LoggedEvent
from server.games.public_records import summary_of

__all__ = [
    "AnalysisSchedule",
    "AppendObserver",
    "AppendedCallback",
    "ArchiveSchedule",
    "AwaySince",
    "ChatRetention",
    "OnCommand",
    "OnFinished",
    "Scheduler",
    "ServiceHooks",
    "TurnWatcher",
]

log = logging.getLogger(__name__)

AppendedCallback = Callable[[str, int], Awaitable[None]]
"""``on_appended(game_id, version)``: called after this process appended events."""

AwaySince = Callable[[str, int, int | None], Awaitable[Sequence[int | None]]]
"""``away_since(game_id, seats, since_version)``: per seat, since when (ms) it has had
no open connection on any server process, None while it has one, never before the
game's event at ``since_version`` (None: its start); server presence tracking supplies
it (``events.leaving.Facts``)."""


class Scheduler(Protocol):
    """Where the service writes each game's next deadline (``server.games.timekeeper``)."""

    async def schedule(self, game_id: str, version: int, deadline_ms: int | None) -> None:
        """The game at ``version`` has this deadline (None: none); an older version's
        word never overrides a newer one's."""

    def note(self, game_id: str, version: int, deadline_ms: int | None) -> None:
        """``schedule`` soon, without waiting (a move's new deadline)."""


class AnalysisSchedule(Protocol):
    """Where the service notes the finished games to analyse (``server.workers.analyser``)."""

    async def finished(self, game_id: str, rated: bool, ended_ms: int) -> None:
        """A game just finished at ``ended_ms``: queue its analysis if the server's
        mode says so (``SPLENDOR_ANALYSIS``; a game queued already keeps its place)."""


class ArchiveSchedule(Protocol):
    """Where the service notes the games to archive (``server.games.archiver``)."""

    async def add(self, game_id: str, ended_ms: int) -> None:
        """Archive the game some time after ``ended_ms``, its end (a game noted
        already keeps its time)."""


class ChatRetention(Protocol):
    """Where the service tells of games over, whose chat is kept for a while from
    their end (``server.games.chat.ChatStore``)."""

    async def ended(self, game_id: str, ended_ms: int) -> None:
        """The game ended at ``ended_ms`` (setting it again is harmless)."""


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


class TurnWatcher(Protocol):
    """Who is told of each append this service makes, to tell a player that the move
    is theirs (``server.mail``: the e-mails of correspondence games)."""

    async def turn_passed(self, game: Game) -> None:
        """``game`` as it stands after an append (a new turn, or not)."""


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

    Its methods are how the service, the reader and the listing tell them: each reads
    the hook when called, so a hook bound later is used from then on. One object is
    shared by all three, so it is changed attribute by attribute, never replaced.
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
    # The chat of games over, deleted some days after their end (server.games.chat).
    chat: ChatRetention | None = None
    # The profiles and ratings (server.players.profiles).
    on_finished: OnFinished | None = None
    # The metrics (server.web.metrics).
    on_command: OnCommand | None = None
    # The e-mails of correspondence games' turns (server.mail), with SPLENDOR_SMTP_URL.
    turns: TurnWatcher | None = None

    async def turn_passed(self, game: Game) -> None:
        """Tell ``turns`` of an append; its Redis errors lose the turn's e-mails only
        (the move is appended: the player's page shows it)."""
        if self.turns is None:
            return
        try:
            await self.turns.turn_passed(game)
        except RedisError:
            log.exception("turn notices of %s at %d not written", game.id, game.version)

    async def schedule(self, game: Game, *, force: bool = False) -> None:
        """Tell the scheduler the game's deadline when it changed (or ``force``)."""
        if self.scheduler is None:
            return
        due = game.variant.deadline(game.state)
        if due == game.scheduled and not force:
            return
        try:
            await self.scheduler.schedule(game.id, game.version, due)
        except RedisError:
            # The timekeeper's start-up rebuild or the game's next change writes it again.
            log.exception("deadline update failed for %s at %d", game.id, game.version)
            return
        game.scheduled = due

    def schedule_soon(self, game: Game) -> None:
        """``schedule`` for a player's move: the deadline is written with others
        shortly (``Scheduler.note``), so the move does not wait for it."""
        if self.scheduler is None:
            return
        due = game.variant.deadline(game.state)
        if due != game.scheduled:
            self.scheduler.note(game.id, game.version, due)
            game.scheduled = due

    async def archive_later(self, game: Game) -> None:
        """Have a game over archived ``SPLENDOR_ARCHIVE_AFTER`` after its end, and its
        chat deleted ``server.games.chat.RETENTION_MS`` after it."""
        if self.chat is not None:
            try:
                await self.chat.ended(game.id, game.log[-1].at_ms)
            except RedisError:
                # The lobby's refresh at the next start reads the game again and heals it.
                log.exception("chat of %s not given its end", game.id)
        if self.archives is None or game.archived:
            return
        try:
            await self.archives.add(game.id, game.log[-1].at_ms)
        except RedisError:
            # The lobby's refresh at the next start reads the game again and heals it.
            log.exception("archive of %s not scheduled", game.id)

    async def finished(self, game: Game) -> None:
        """Note a game just finished for analysis, and tell ``on_finished`` the game
        and its summary (which logs its own failures, since the end is appended)."""
        summary = summary_of(game)
        if self.analyses is not None:
            try:
                await self.analyses.finished(
                    game.id, bool(summary.get("rated")), game.log[-1].at_ms
                )
            except RedisError:  # It is queued again when someone asks for its analysis.
                log.exception("analysis of %s not scheduled", game.id)
        if self.on_finished is not None:
            await self.on_finished(game, summary)

    async def heal(self, game: Game) -> None:
        """Write again what a game's lobby entry is rebuilt with, the game's lock
        held: its deadline, and the note of its archive in case its end's note was
        lost."""
        await self.schedule(game)
        if game.status in OVER:
            await self.archive_later(game)

    async def facts(self, game: Game, now_ms: int) -> Facts:
        """The facts of ``now_ms`` for the rules, who is away included: that costs a
        look-up, so only an abandon claim, a view and the attendance's expiries
        (server/live/attendance.py) ask for them."""
        if self.away_since is None:
            return Facts(now_ms)
        # An open game's seats are away since its creation at the earliest.
        since_version = 1 if game.status == "open" else None
        away = await self.away_since(game.id, len(game.state.players), since_version)
        return Facts(now_ms, tuple(away))
