"""The tournament service: players' actions on tournaments (create, join, pause,
leave) and the reads of the API, over one log per tournament.

Every change is decided by the pure core (``events.tournament.standings``) on the
record folded from the log, then appended with the version it was decided on: a lost
race reads what it missed and decides again, so two processes never both append on
one version. The director (server/tournaments/director.py) changes tournaments through
``change`` too. What the log implies elsewhere (the indexes) is written after the
append and written again by the director whenever it looks at the tournament.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from redis.exceptions import RedisError

from events.base import TimeControl
from events.tournament import standings as core
from events.tournament.log import (
    Kind,
    PlayerJoined,
    TournamentEnded,
    TournamentError,
    TournamentEvent,
)
from server.common.errors import ServiceError, rate_limited
from server.players.accounts import DELETED_NAME, deleted_among
from server.players.pairing_desk import Ratings, starting_rating
from server.store.clients import RedisClient
from server.store.event_store import VersionConflict
from server.tournaments import requests, views
from server.tournaments.indexes import CreationRefused, TournamentIndexes
from server.tournaments.record import TournamentRecord
from server.tournaments.repository import TournamentRepository
from server.tournaments.store import TournamentStore

__all__ = ["Changed", "TournamentService", "refusal"]

log = logging.getLogger(__name__)

MOST_OPEN: Final = 2  # upcoming or running tournaments an account created
MOST_A_DAY: Final = 5  # tournaments an account creates a UTC day
CLAIM_SETTLED_MS: Final = 60_000  # a claim this old whose creation ended is settled
FINISHED_LISTED: Final = 50
UPCOMING_LISTED: Final = 50  # the soonest to start
RUNNING_LISTED: Final = 100  # the most players first...
RUNNING_READ: Final = 1_000  # ...of those that started last
LISTING_FRESH_MS: Final = 1_000  # a process answers the list and histories from memory
HISTORIES_KEPT: Final = 256
HISTORY: Final = 50
ATTEMPTS: Final = 5
# The most players a tournament takes (everyone who joined, left or not): a Swiss
# round of 500 is paired in 0.15-0.8 s (bench/README.md, "Tournament pairing"); an
# arena pairs 1,000 waiting in under a millisecond, and its page then lists 1,000
# standings (about 120 KB, sent on every change).
MOST_PLAYERS: Final[dict[str, int]] = {"swiss": 500, "arena": 1_000}
_ID_ALPHABET: Final = "abcdefghjkmnpqrstuvwxyz23456789"

Changed = Callable[[str], Awaitable[None]]
"""``changed(tournament_id)``: told after this process appended to a tournament."""

Decide = Callable[[TournamentRecord, int], list[TournamentEvent] | Awaitable[list[TournamentEvent]]]
"""``decide(record, now_ms)``: the events to append, decided on the record as it is
when called; may be a coroutine (a Swiss's pairing, decided in a worker thread)."""


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def new_tournament_id() -> str:
    return "t" + "".join(secrets.choice(_ID_ALPHABET) for _ in range(10))


def refusal(error: TournamentError) -> ServiceError:
    """A refused action as PROTOCOL.md's 409 ``conflict``, with the core's code in
    its reason (``tournament.<code>``)."""
    return ServiceError("conflict", f"tournament.{error.code}")


def _day_start(now_ms: int) -> int:
    day = datetime.fromtimestamp(now_ms / 1000, UTC).replace(
        hour=0, minute=0, second=0, microsecond=0
    )
    return int(day.timestamp() * 1000)


class TournamentService:
    """Tournaments over one Redis client; games made through the game service by the
    director."""

    def __init__(
        self,
        client: RedisClient,
        *,
        ratings: Ratings = starting_rating,
        clock_ms: Callable[[], int] = _now_ms,
    ) -> None:
        self.client = client
        self.store = TournamentStore(client)
        self.repository = TournamentRepository(self.store)
        self.indexes = TournamentIndexes(client)
        self.ratings = ratings
        self.clock_ms = clock_ms
        self._listeners: list[Changed] = []
        # The list and the players' histories, as read at a time (ms): each read
        # folds up to hundreds of logs, so a process does it at most once a second.
        self._listing: tuple[int, dict[str, list[dict[str, Any]]]] | None = None
        self._listing_drops = 0  # how often the list was dropped: a read older is not kept
        self._listing_lock = asyncio.Lock()
        self._histories: OrderedDict[str, tuple[int, list[dict[str, Any]]]] = OrderedDict()

    def subscribe(self, listener: Changed) -> Callable[[], None]:
        """Tell ``listener`` of every append this process makes; returns the unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def announce(self, tournament_id: str) -> None:
        """Tell the listeners the tournament changed (its games were made)."""
        await self._changed(tournament_id)

    async def _changed(self, tournament_id: str) -> None:
        for listener in list(self._listeners):
            try:
                await listener(tournament_id)
            except Exception:
                log.exception("tournament listener failed for %s", tournament_id)

    # ------------------------------------------------------------------ changes

    async def change(self, tournament_id: str, decide: Decide) -> TournamentRecord:
        """Decide on the record as the log has it and append the events with its
        version; after a lost race, once more on what was missed. ``decide`` raises
        ``TournamentError`` to refuse (nothing written) and returns [] for nothing to do."""
        lock = self.repository.lock(tournament_id)
        async with lock:
            record = await self.repository.get(tournament_id)
            for _ in range(ATTEMPTS):
                now = self.clock_ms()
                # The version decided on: a reader of this process may fold newer
                # events into the record while an awaited decision runs.
                decided_on = record.version
                decided = decide(record, now)
                events = await decided if inspect.isawaitable(decided) else decided
                if not events:
                    return record
                try:
                    version = await self.store.append(
                        tournament_id, events, expected_version=decided_on, at_ms=now
                    )
                except VersionConflict:
                    await self.repository.catch_up(record)
                    continue
                first = version - len(events) + 1
                for i, event in enumerate(events):
                    # A reader of this process may have folded them from the log already.
                    if first + i > record.version:
                        record.apply_event(event, first + i)
                try:
                    await self.after_append(record, events)
                except RedisError:
                    # The change is in the log: the request succeeded, and the director
                    # writes these indexes again (``heal``).
                    log.warning("indexes of tournament %s not written", tournament_id)
                break
            else:
                raise ServiceError("conflict", "tournament.busy")
        await self._changed(tournament_id)
        return record

    async def after_append(
        self, record: TournamentRecord, events: Sequence[TournamentEvent]
    ) -> None:
        """Write what the events imply beside the log (written again by the director)."""
        t = record.tournament
        for event in events:
            if isinstance(event, PlayerJoined):
                await self.indexes.joined(event.player, record.id, t.starts_ms)
            elif isinstance(event, TournamentEnded):
                self._drop_listing()  # listed as finished at once on this process
                await self.heal(record)

    async def heal(self, record: TournamentRecord) -> None:
        """Write the indexes a record implies (idempotent)."""
        t = record.tournament
        if t.ended:
            await self.indexes.finished(
                record.id, record.ended_ms or t.starts_ms, record.meta.get("created_by") or None
            )
            deleted = await deleted_among(self.client, set(t.players))
            for player in t.players:
                if player.lower() not in deleted:
                    await self.indexes.joined(player, record.id, t.starts_ms)
        else:
            await self.indexes.listed(record.id, t.starts_ms)

    # ------------------------------------------------------------------ create

    async def create(self, account: str, body: requests.CreateTournament) -> TournamentRecord:
        """``POST /api/tournaments`` for a signed-in account, within its limits."""
        duration_ms, rounds = requests.checked(body)
        clock = requests.time_control(body.clock)
        # No name given, none stored: readers name it in their words from its kind,
        # game and clock (docs/tournaments.md "Decisions").
        name = requests.checked_name(body.name) if body.name is not None else ""
        now = self.clock_ms()
        tournament_id = new_tournament_id()
        await self._claim(account, tournament_id, now)
        try:
            created = await self.open(
                tournament_id,
                body.kind,
                body.variant,
                clock,
                now + body.starts_in_s * 1000,
                name=name,
                created_by=account,
                duration_ms=duration_ms,
                rounds=rounds,
            )
        except BaseException:
            # A tournament whose log was not written must not hold one of the
            # account's slots (one written is counted, and its indexes written again).
            # When Redis can't be reached here either, ``_settle_claims`` does it later.
            with contextlib.suppress(Exception):
                await self._settle_claim(account, tournament_id)
            raise
        if created is None:  # A random id another tournament has: one in 10^14.
            await self.indexes.release_creation(account, tournament_id)
            raise ServiceError("conflict", "tournament.busy")
        return created

    async def _claim(self, account: str, tournament_id: str, now: int) -> None:
        """Count the tournament against the account's limits, or refuse it: 429 for
        the day's, 409 ``tournament.too_many_open`` for those open. Refused for those
        open, the account's claims are settled first, then asked once more."""
        for settled in (False, True):
            try:
                await self.indexes.claim_creation(
                    account, tournament_id, now, _day_start(now), MOST_OPEN, MOST_A_DAY
                )
                return
            except CreationRefused as refused:
                if refused.today:
                    wait = (_day_start(now) + 86_400_000 - now) / 1000
                    raise rate_limited(wait, "tournaments") from None
                if settled or not await self._settle_claims(account, now):
                    raise ServiceError(
                        "conflict", "tournament.too_many_open", {"most": MOST_OPEN}
                    ) from None

    async def _settle_claims(self, account: str, now: int) -> bool:
        """Settle the account's open claims at least ``CLAIM_SETTLED_MS`` old (a
        creation still under way is younger): whether any slot was freed."""
        freed = False
        for tournament_id, claimed_ms in await self.indexes.open_claims(account):
            if claimed_ms is not None and now - claimed_ms < CLAIM_SETTLED_MS:
                continue
            freed |= await self._settle_claim(account, tournament_id)
        return freed

    async def _settle_claim(self, account: str, tournament_id: str) -> bool:
        """What a process that died, or a Redis that failed, between a claim and the
        tournament's indexes left: a claim whose log was never written stops holding
        a slot, one ended stops being counted open, and one written but not listed
        is listed and made due. Whether a slot was freed."""
        if await self.store.version(tournament_id) == 0:
            await self.indexes.release_creation(account, tournament_id)
            return True
        record = await self.repository.get(tournament_id)
        await self.heal(record)
        if record.tournament.ended:
            return True
        await self.indexes.keep_due([tournament_id], record.tournament.starts_ms)
        return False

    async def open(
        self,
        tournament_id: str,
        kind: Kind,
        variant: Any,
        clock: TimeControl,
        starts_ms: int,
        *,
        name: str,
        created_by: str | None,
        duration_ms: int | None = None,
        rounds: int | None = None,
    ) -> TournamentRecord | None:
        """Create a tournament under ``tournament_id``, once: None when the id has a
        log already (a schedule's slot made by another process)."""
        events = core.create(
            tournament_id, kind, variant, clock, starts_ms, duration_ms=duration_ms, rounds=rounds
        )
        now = self.clock_ms()
        meta = {"name": name, "created_by": created_by or "", "created_ms": str(now)}
        try:
            await self.store.append(tournament_id, events, expected_version=0, at_ms=now, meta=meta)
        except VersionConflict:
            # The id has a log: a schedule's slot made by another process, or by one
            # that died (or met a failing Redis) before writing its indexes. They are
            # written again, so that it is listed and looked at whatever happened.
            existing = await self.repository.get(tournament_id)
            await self.heal(existing)
            if not existing.tournament.ended:
                await self.indexes.keep_due([tournament_id], existing.tournament.starts_ms)
            return None
        await self.indexes.listed(tournament_id, starts_ms)
        await self.indexes.due_at(tournament_id, starts_ms)
        self._drop_listing()  # its creator sees it listed at once (on this process)
        record = await self.repository.get(tournament_id)
        await self._changed(tournament_id)
        return record

    # ------------------------------------------------------------------ players

    async def join(self, tournament_id: str, username: str) -> TournamentRecord:
        """Join, or come back after a pause, with the account's rating now."""
        record = await self.repository.get(tournament_id)
        rating = await self.ratings(username, record.tournament.variant)

        def decide(r: TournamentRecord, now: int) -> list[TournamentEvent]:
            name = views.player_in(r, username) or username
            t = r.tournament
            most = MOST_PLAYERS[t.kind]
            if name not in t.players and len(t.players) >= most and not t.ended:
                raise ServiceError("conflict", "tournament.full", {"most": most})
            return core.join(t, name, rating, now)

        return await self._act(tournament_id, decide)

    async def pause(self, tournament_id: str, username: str) -> TournamentRecord:
        def decide(r: TournamentRecord, now: int) -> list[TournamentEvent]:
            return core.pause(r.tournament, views.player_in(r, username) or username, now)

        return await self._act(tournament_id, decide)

    async def leave(self, tournament_id: str, username: str) -> TournamentRecord:
        def decide(r: TournamentRecord, now: int) -> list[TournamentEvent]:
            return core.leave(r.tournament, views.player_in(r, username) or username, now)

        return await self._act(tournament_id, decide)

    async def _act(self, tournament_id: str, decide: Decide) -> TournamentRecord:
        try:
            return await self.change(tournament_id, decide)
        except TournamentError as error:
            raise refusal(error) from None

    # ------------------------------------------------------------------ reads

    async def get(self, tournament_id: str) -> TournamentRecord:
        return await self.repository.get(tournament_id)

    async def page(self, record: TournamentRecord) -> dict[str, Any]:
        """``GET /api/tournaments/{id}`` without ``you``, deleted accounts masked."""
        page = views.detail(record, self.clock_ms())
        creator = views.creator(record)
        named = set(record.tournament.players) | ({creator} if creator else set())
        deleted = await deleted_among(self.client, named)
        if deleted:
            views.mask(page, deleted, DELETED_NAME)
        return page

    async def listing(self) -> dict[str, list[dict[str, Any]]]:
        """``GET /api/tournaments``: the ``UPCOMING_LISTED`` soonest to start, the
        ``RUNNING_LISTED`` running with the most players (of the ``RUNNING_READ``
        that started last), and the ``FINISHED_LISTED`` last finished (newest
        first); read at most once every ``LISTING_FRESH_MS`` by a process."""
        async with self._listing_lock:  # one read at a time; the others take it
            now = self.clock_ms()
            if self._listing is not None and now - self._listing[0] < LISTING_FRESH_MS:
                return self._listing[1]
            drops = self._listing_drops
            lists = await self._read_listing(now)
            # Dropped while it was read (a creation, an end): it may lack that change.
            if drops == self._listing_drops:
                self._listing = (now, lists)
            return lists

    def _drop_listing(self) -> None:
        """Read the list afresh at its next request."""
        self._listing = None
        self._listing_drops += 1

    async def _read_listing(self, now: int) -> dict[str, list[dict[str, Any]]]:
        lists: dict[str, list[dict[str, Any]]] = {"upcoming": [], "running": [], "finished": []}
        upcoming = await self.indexes.upcoming_ids(now, UPCOMING_LISTED)
        started = await self.indexes.started_ids(now, RUNNING_READ)
        for tournament_id in upcoming + started:
            record = await self._readable(tournament_id)
            if record is not None and not record.tournament.ended:
                lists[views.status_of(record, now)].append(views.summary(record, now))
        lists["upcoming"].sort(key=lambda s: (s["starts_ms"], s["id"]))
        lists["running"].sort(key=lambda s: (-s["players"], s["starts_ms"], s["id"]))
        del lists["running"][RUNNING_LISTED:]
        for tournament_id in await self.indexes.finished_ids(FINISHED_LISTED):
            record = await self._readable(tournament_id)
            if record is not None and record.tournament.ended:
                lists["finished"].append(views.summary(record, now))
        await self._mask_creators([s for listed in lists.values() for s in listed])
        return lists

    async def summary(self, record: TournamentRecord) -> dict[str, Any]:
        """A tournament's summary, its creator masked if that account is deleted."""
        shown = views.summary(record, self.clock_ms())
        await self._mask_creators([shown])
        return shown

    async def _mask_creators(self, summaries: list[dict[str, Any]]) -> None:
        """Name the deleted accounts among these summaries' creators as such, in place
        (one read for all; the meta keeps the name, as the log keeps players')."""
        creators = {s["created_by"] for s in summaries if s["created_by"]}
        deleted = await deleted_among(self.client, creators)
        for shown in summaries:
            if shown["created_by"] and shown["created_by"].lower() in deleted:
                shown["created_by"] = DELETED_NAME

    async def _readable(self, tournament_id: str) -> TournamentRecord | None:
        try:
            return await self.repository.get(tournament_id)
        except ServiceError:
            return None

    async def history(self, username: str) -> list[dict[str, Any]]:
        """A player's ``HISTORY`` last tournaments, newest first, with their rank and
        points; read at most once every ``LISTING_FRESH_MS`` by a process."""
        now = self.clock_ms()
        key = username.lower()
        kept = self._histories.get(key)
        if kept is not None and now - kept[0] < LISTING_FRESH_MS:
            return kept[1]
        entries = await self._read_history(username, now)
        self._histories[key] = (now, entries)
        self._histories.move_to_end(key)
        while len(self._histories) > HISTORIES_KEPT:
            self._histories.popitem(last=False)
        return entries

    async def _read_history(self, username: str, now: int) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        shown: list[dict[str, Any]] = []
        for tournament_id in await self.indexes.history(username, HISTORY):
            record = await self._readable(tournament_id)
            if record is None:
                continue
            name = views.player_in(record, username)
            line = next((s for s in core.standings(record.tournament) if s.player == name), None)
            if line is None:
                continue
            shown.append(views.summary(record, now))
            entries.append(
                {
                    "tournament": shown[-1],
                    "rank": line.rank,
                    "points": line.points,
                    "players": len(record.tournament.players),
                }
            )
        await self._mask_creators(shown)
        return entries
