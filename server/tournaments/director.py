"""The director: what happens to a tournament without anyone asking, done exactly
once whichever server process sees the moment first (docs/tournaments.md "Server").

Every process runs one, as every process runs a timekeeper (server/games/timekeeper.py).
A tournament is due at a time kept in ``{tournaments}:due``: its start while upcoming,
then every ``SWEEP_MS`` while it runs (and an arena's end). A process also looks at a
tournament at once when it appended to it (a player joined) or to one of its games
(the game ended): ``poke``. To look, a process takes the tournament's lease
(``tournament:{<id>}:lease``, redis-py's ``Lock``: ``SET NX PX``), so one process at a time works on it,
then in one step (``plan``):

1. records the result of every game of the tournament that is over (``GamePlayed``);
2. pairs: an arena the players waiting, whenever it runs; a Swiss the next round once
   every game of the last one is played;
3. ends an arena at its end time, a Swiss after its last round.

The step's events are appended with the version they were decided on: that append is
the final guard, so even two processes that both think they hold the lease (one
paused past its lease) never both append on one version. Then each game paired is
made (``TournamentGames.ensure``: its id derived from the pairing, so a process that
died between the append and the game leaves the next look to make it, once).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Final

from redis.exceptions import LockError

from events.tournament import standings as core
from events.tournament.log import (
    GamePlayed,
    PlayerPaused,
    PlayersPaired,
    TournamentEnded,
    TournamentError,
    TournamentEvent,
)
from events.tournament.standings import Tournament, evolve
from server.common.background import Sleeper, running
from server.games.projection import OVER
from server.games.service import GameService
from server.store.clients import RedisClient
from server.store.keys import tournament_lease_key
from server.tournaments.announcements import Announce
from server.tournaments.games import GameOutcome, TournamentGames
from server.tournaments.record import TournamentRecord, tournament_of_game
from server.tournaments.schedule import Schedule
from server.tournaments.service import TournamentService

__all__ = ["Director", "DirectorCounts", "plan", "plan_off_loop", "running_director"]

log = logging.getLogger(__name__)

SWEEP_MS: Final = 2_000  # a running tournament is looked at at least this often
POLL_S: Final = 0.5  # the longest sleep: what another process made due is seen within it
RETRY_S: Final = 0.05  # the sleep after a turn that left tournaments poked meanwhile
# A tournament whose lease another process holds is looked at again after HELD_MS,
# doubled at each refusal in a row up to HELD_MAX_MS: the holder is looking at it
# (a look takes milliseconds, and the holder makes it due again), so spinning on the
# lease would only load Redis. A poke still looks at it at the next turn.
HELD_MS: Final = 50
HELD_MAX_MS: Final = 1_000
# How often a process gives every open tournament without a due time one (a process
# that died between a tournament's creation and its due time left it without).
HEAL_MS: Final = 60_000
# A start is announced by the first look at or after it, within this long of it.
ANNOUNCE_WITHIN_MS: Final = 600_000
LEASE_MS: Final = 10_000
BATCH: Final = 32
AT_ONCE: Final = 8


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _before_pairing(
    record: TournamentRecord, now_ms: int, outcomes: dict[str, GameOutcome]
) -> tuple[Tournament, list[TournamentEvent], bool]:
    """The events of a look up to its pairing (results, forfeits' pauses, an arena's
    pairing or end), the state after them, and whether a Swiss's next round (or its
    end) is to be decided on that state."""
    t: Tournament = record.tournament
    if t.ended:
        return t, [], False
    events: list[TournamentEvent] = []

    def add(new: list[TournamentEvent]) -> None:
        nonlocal t
        for event in new:
            t = evolve(t, event)
        events.extend(new)

    if t.kind == "arena" and t.ends_ms is not None and now_ms >= t.ends_ms:
        add(core.end(t, now_ms))  # games in play now do not count
        return t, events, False
    for entry in record.in_play():
        outcome = outcomes.get(entry.game_id)
        if outcome is None:
            continue
        add([GamePlayed(entry.first, entry.second, outcome.winner, now_ms)])
        culprit = outcome.forfeited_by
        if culprit is not None and t.players[culprit].active:
            add([PlayerPaused(culprit, now_ms, reason="forfeit")])
    if now_ms < t.starts_ms:
        return t, events, False
    if t.kind == "arena":
        add(core.pair_arena(t, now_ms))
        return t, events, False
    return t, events, not t.in_play


def _swiss_round(t: Tournament, now_ms: int) -> list[TournamentEvent]:
    """A Swiss's next round, or its end (after its last round, or when a round
    cannot be paired): pure on ``t``, so it may run off the event loop."""
    if t.rounds is not None and t.round >= t.rounds:
        return core.end(t, now_ms)
    try:
        return core.pair_swiss(t, now_ms)
    except TournamentError as error:
        if error.code != "too_few_players":
            raise
        # A round nobody can play ends the Swiss (docs/tournaments.md "Server").
        return [TournamentEnded(now_ms)]


def plan(
    record: TournamentRecord, now_ms: int, outcomes: dict[str, GameOutcome]
) -> list[TournamentEvent]:
    """The events of one look at ``now_ms``, ``outcomes`` being the games found over
    (by game id): pure, so that it is decided again on a newer record after a lost race."""
    t, events, swiss_next = _before_pairing(record, now_ms, outcomes)
    return events + _swiss_round(t, now_ms) if swiss_next else events


async def plan_off_loop(
    record: TournamentRecord, now_ms: int, outcomes: dict[str, GameOutcome]
) -> list[TournamentEvent]:
    """``plan``, with a Swiss's round paired in a worker thread: a round of 500
    players takes up to a second of networkx (seconds on its full-graph fallback,
    bench/README.md), which would stop every socket and request of the process. The
    thread is given only the state after the look's other events, an immutable
    value (``evolve`` makes new states), never the record, which readers of the
    process keep folding meanwhile."""
    t, events, swiss_next = _before_pairing(record, now_ms, outcomes)
    if not swiss_next:
        return events
    return events + await asyncio.to_thread(_swiss_round, t, now_ms)


@dataclass
class DirectorCounts:
    """What this process's director did since it started, for ``GET /metrics``."""

    looks: int = 0  # tournaments looked at under their lease
    held: int = 0  # looks given up because another process held the lease
    failed: int = 0  # looks that raised (retried at the next turn)
    pairs: int = 0  # pairs this process appended (each a game to make)
    results: int = 0  # games' results this process appended


class Director:
    """This process's director (see the module's docstring)."""

    def __init__(
        self,
        client: RedisClient,
        tournaments: TournamentService,
        games: GameService,
        *,
        schedules: tuple[Schedule, ...] = (),
        announce: Announce | None = None,
        clock_ms: Callable[[], int] = _now_ms,
        lease_ms: int = LEASE_MS,
    ) -> None:
        self._r = client
        self.tournaments = tournaments
        self.games = TournamentGames(games)
        self.schedules = schedules
        self.announce = announce
        self.counts = DirectorCounts()
        # Kept only while they matter, so that a long-running process holds no more
        # than its open tournaments and their games in play: the starts announced
        # (until ANNOUNCE_WITHIN_MS past them), and per tournament its games made.
        self._announced: dict[str, int] = {}
        self.clock_ms = clock_ms
        self.lease_ms = lease_ms
        self._poked: set[str] = set()
        # Tournaments another process's lease kept this one from: (refusals in a row,
        # when to look again, ms).
        self._held: dict[str, tuple[int, int]] = {}
        self._ensured: dict[str, set[str]] = {}
        self._sleeper = Sleeper()
        self._closed = False
        self._healed_ms = 0
        self._unsubscribe = [
            tournaments.subscribe(self._tournament_changed),
            games.subscribe(self._game_appended),
        ]
        self._game_service = games

    # ------------------------------------------------------------------ wakes

    def poke(self, tournament_id: str) -> None:
        """Look at the tournament at the next turn (now)."""
        self._poked.add(tournament_id)
        self._sleeper.wake()

    async def _tournament_changed(self, tournament_id: str) -> None:
        self.poke(tournament_id)

    async def _game_appended(self, game_id: str, version: int) -> None:
        made = tournament_of_game(game_id)
        if made is None:
            return
        game = self._game_service.repository.cached(game_id)
        if game is not None and game.status in OVER:
            self.poke(made[0])

    # ------------------------------------------------------------------ loop

    def close(self) -> None:
        self._closed = True
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._sleeper.wake()

    async def run(self) -> None:
        while not self._closed:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("director tick failed; retrying")
                await self._sleeper.sleep(1.0)
                continue
            # A tournament poked meanwhile is looked at soon; one held by another
            # process's lease at its time to look again (``_hold``).
            await self._sleeper.sleep(RETRY_S if self._poked else self._idle_s())

    def _idle_s(self) -> float:
        """The sleep until the next turn: POLL_S, or less when a held tournament's
        time to look again comes sooner."""
        if not self._held:
            return POLL_S
        soonest = min(at for _, at in self._held.values())
        return max(0.0, min(POLL_S, (soonest - self.clock_ms()) / 1000))

    def _hold(self, tournament_id: str, now: int) -> None:
        """Another process holds the tournament's lease: look again later, backing off."""
        refusals = self._held.get(tournament_id, (0, 0))[0] + 1
        wait = min(HELD_MAX_MS, HELD_MS << min(refusals - 1, 16))
        self._held[tournament_id] = (refusals, now + wait)

    async def tick(self) -> None:
        """One turn: the schedules' tournaments due to be announced, then every
        tournament due or poked."""
        now = self.clock_ms()
        for schedule in self.schedules:
            await schedule.announce(self.tournaments, now)
        if now - self._healed_ms >= HEAL_MS:
            indexes = self.tournaments.indexes
            open_ids = await indexes.open_ids()
            await indexes.keep_due(open_ids, now)
            self._forget(set(open_ids), now)
            self._healed_ms = now
        # A held tournament waits for its time to look again even when it is due,
        # unless it was poked.
        waiting = {t for t, (_, at) in self._held.items() if at > now}
        due = (set(await self.tournaments.indexes.due(now, BATCH)) - waiting) | self._poked
        self._poked = set()
        room = asyncio.Semaphore(AT_ONCE)

        async def look(tournament_id: str) -> None:
            async with room:
                try:
                    if await self.advance(tournament_id):
                        self._held.pop(tournament_id, None)
                    else:
                        self.counts.held += 1
                        self._hold(tournament_id, now)
                except Exception:
                    self.counts.failed += 1
                    log.exception("director failed on tournament %s", tournament_id)

        await asyncio.gather(*(look(t) for t in due))

    # ------------------------------------------------------------------ one look

    async def advance(self, tournament_id: str) -> bool:
        """Look at one tournament under its lease; False when another process holds it."""
        # redis-py's lock: SET NX PX with a token of its own, let go only by its
        # holder (a look that outlived its lease lets go of nothing).
        lease = self._r.lock(
            tournament_lease_key(tournament_id), timeout=self.lease_ms / 1000, blocking=False
        )
        if not await lease.acquire():
            return False
        try:
            await self.step(tournament_id)
        finally:
            with contextlib.suppress(LockError):
                await lease.release()
        self.counts.looks += 1
        return True

    def _forget(self, open_ids: set[str], now: int) -> None:
        """Drop what is kept of tournaments no longer open (another process may have
        ended them) and of starts too old to be announced."""
        for tournament_id in [t for t in self._ensured if t not in open_ids]:
            del self._ensured[tournament_id]
        for tournament_id in [t for t in self._held if t not in open_ids]:
            del self._held[tournament_id]
        for tournament_id, starts_ms in list(self._announced.items()):
            if now >= starts_ms + ANNOUNCE_WITHIN_MS or tournament_id not in open_ids:
                del self._announced[tournament_id]

    async def _announce_start(self, record: TournamentRecord, now: int) -> None:
        """Tell the players a tournament started, once a process (the mail layer sends
        it once a tournament and account)."""
        t = record.tournament
        if self.announce is None or t.ended or record.id in self._announced:
            return
        if not t.starts_ms <= now < t.starts_ms + ANNOUNCE_WITHIN_MS:
            return
        try:
            await self.announce(record)
        except Exception:
            # Not marked announced: the next look tries again (the mail layer's once
            # marks keep those told already from a second e-mail). An e-mail that
            # fails must not stop the tournament.
            log.exception("start of tournament %s not announced", record.id)
            return
        self._announced[record.id] = t.starts_ms

    async def step(self, tournament_id: str) -> TournamentRecord:
        """The look itself (``advance`` takes the lease around it; tests call it bare
        to race two processes on the append alone)."""
        service = self.tournaments
        record = await service.get(tournament_id)
        outcomes: dict[str, GameOutcome] = {}
        for entry in record.in_play():
            outcome = await self.games.outcome(entry)
            if outcome is not None:
                outcomes[entry.game_id] = outcome
        appended: list[TournamentEvent] = []

        async def decide(r: TournamentRecord, now: int) -> list[TournamentEvent]:
            # The last decision is the one appended.
            appended[:] = await plan_off_loop(r, now, outcomes)
            return appended

        record = await service.change(tournament_id, decide)
        self.counts.pairs += sum(len(e.pairs) for e in appended if isinstance(e, PlayersPaired))
        self.counts.results += sum(isinstance(e, GamePlayed) for e in appended)
        made = False
        ensured = self._ensured.get(tournament_id, set())
        in_play = set()
        for entry in record.in_play():
            in_play.add(entry.game_id)
            if entry.game_id not in ensured:
                await self.games.ensure(record, entry)
                ensured.add(entry.game_id)
                made = True
        if record.tournament.ended:
            self._ensured.pop(tournament_id, None)
        else:
            self._ensured[tournament_id] = ensured & in_play
        # The pairing whose games were made above, taken before the await: a reader of
        # this process may fold a newer pairing meanwhile, whose games are not made.
        made_up_to = record.last_paired
        if record.made < made_up_to:
            await service.store.mark_made(tournament_id, made_up_to)
            record.made = max(record.made, made_up_to)
        if made:
            await service.announce(tournament_id)  # its pages: the games exist now
        await service.heal(record)
        t = record.tournament
        now = self.clock_ms()
        await self._announce_start(record, now)
        if t.ended:
            await service.indexes.not_due(tournament_id)
        elif now < t.starts_ms:
            await service.indexes.due_at(tournament_id, t.starts_ms)
        else:
            due = now + SWEEP_MS
            if t.ends_ms is not None:
                due = min(due, t.ends_ms)
            await service.indexes.due_at(tournament_id, due)
        return record


@asynccontextmanager
async def running_director(
    client: RedisClient,
    tournaments: TournamentService,
    games: GameService,
    schedules: tuple[Schedule, ...] = (),
    announce: Announce | None = None,
) -> AsyncIterator[Director]:
    """This process's director, for as long as the context lasts."""
    director = Director(client, tournaments, games, schedules=schedules, announce=announce)
    async with running(director):
        yield director
