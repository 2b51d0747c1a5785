"""The game service: the thin layer of I/O around ``events.game.Variant`` that takes
a command to events and appends them.

It creates games, seats players and bots, and turns commands into events: get the
game's projection from the repository (server/games/repository.py: cached in memory,
else folded from its stream), ``decide`` with a generator derived from the game's
secret seed and version, and append with the version it decided on. Within a process
the repository's per-game ``asyncio.Lock`` serializes commands; between processes the
store's optimistic append does (principle 6): the loser of a race reads the events it
missed and decides once more.

The cached projection is trusted optimistically: a command is decided on it without
reading the stream first, and only a refusal (a version conflict, a rule violation,
a stale ``expected_version``) makes the service read what it may have missed before
answering. So a command costs one round trip to Redis, plus the lobby update.

The seed never leaves the server: it is kept in the game's meta hash, never in an
event, and every draw is written into the events it causes (principle 2).

What is not a command has a module of its own: reading views, logs and records
(reading.py, ``service.reader``), who acts for a seat (seats.py, ``service.seats``),
the rematches' bookkeeping (rematches.py), the lobby's entries (listing.py,
``service.listing``) and whom the service tells of an append (hooks.py,
``service.hooks``). The constructor makes them over one repository, so that the web
edge and the workers hold one object for games; callers use them directly.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from events.base import ClaimAbandon, TimeControl
from events.errors import RuleViolation
from events.game import VARIANTS
from events.leaving import Facts, TimeIsUp, expiry_seat
from server.common.errors import (
    ServiceError,
    bad_request,
    conflict,
    forbidden,
    from_violation,
    missing_token,
)
from server.games.hooks import AppendedCallback, ServiceHooks
from server.games.listing import GameListing
from server.games.lobby import Lobby
from server.games.projection import OVER, Game, LoggedEvent, encode_event, token_digest
from server.games.public_records import Restorable, restore, summary_of
from server.games.reading import GameReader
from server.games.rematch_plan import PlannedSeat, join_command_id
from server.games.rematches import Rematches
from server.games.repository import GameRepository, new_game_id, tournament_of_game
from server.games.results import CommandResult, JoinResult, RematchAnswers, RematchResult
from server.games.seat_tokens import SeatTokens, revoked_digest
from server.games.seats import REVOKED, Seats
from server.store.event_store import AppendResult, EventStore, SeatRevoked, VersionConflict

__all__ = ["GameService"]

log = logging.getLogger(__name__)

ATTEMPTS: Final = 3  # decide, and after a lost race decide once (then twice) more


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class _Stale(Exception):
    """The client's expected_version is not the cached version."""


class GameService:
    """Games over an ``EventStore``, with their lobby index kept up to date."""

    def __init__(
        self,
        store: EventStore,
        lobby: Lobby | None = None,
        *,
        cache_games: int = 2000,
        clock_ms: Callable[[], int] = _now_ms,
        hooks: ServiceHooks | None = None,
    ) -> None:
        self.store = store
        self.lobby = lobby
        self._clock_ms = clock_ms
        self._last_created_ms = 0
        self._subscribers: list[AppendedCallback] = []
        # Whom the service tells of what it does (server/games/hooks.py).
        self.hooks = ServiceHooks() if hooks is None else hooks
        # The games' projections: cached, locked, loaded and caught up from the store.
        self.repository = GameRepository(store, cache_games=cache_games)
        self.rematches = Rematches(self.repository)
        # What is read of the games: views, logs, summaries, records.
        self.reader = GameReader(
            self.repository, self.rematches, clock_ms=clock_ms, facts_of=self.hooks.facts
        )
        # The seats of accounts and the replacing of tokens (server/games/seat_tokens.py).
        self.seat_tokens = SeatTokens(store.client)
        # Who acts for a seat: a token read against the seat's digest.
        self.seats = Seats(self.repository, self.seat_tokens)
        # The lobby's entries, its start-up and its rebuilds; a game read for them has
        # its deadline and its archive's note written again (``ServiceHooks.heal``).
        self.listing = GameListing(lobby, self.repository, self.hooks.heal)

    # ------------------------------------------------------------------ appended

    def subscribe(self, callback: AppendedCallback) -> Callable[[], None]:
        """Call ``callback(game_id, version)`` after each append made by this service
        (game created, seat taken, command applied); returns an unsubscribe function.

        Callbacks run one after the other, outside the game's lock (so they may send
        commands themselves), before the request that caused them is answered: keep
        them short and start long work (a bot thinking) in a task of your own.
        """
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def _creation_ms(self) -> int:
        """When a game made now is created: strictly increasing in this process, so
        two games created in one millisecond still list newest first, in the order
        they were made."""
        at_ms = max(self._clock_ms(), self._last_created_ms + 1)
        self._last_created_ms = at_ms
        return at_ms

    async def _notify(self, game_id: str, version: int) -> None:
        for callback in list(self._subscribers):
            try:
                await callback(game_id, version)
            except Exception:
                log.exception("on_appended subscriber failed for %s at %d", game_id, version)

    # ------------------------------------------------------------------ games

    async def create_game(
        self,
        variant: str,
        players: int | None = None,
        seed: int | None = None,
        clock: TimeControl | None = None,
        rated: bool = False,
        *,
        game_id: str | None = None,
    ) -> dict[str, Any]:
        """A new open game; returns its summary. ``seed`` makes it reproducible (and
        the game is marked seeded); ``clock`` is its time control (None: untimed). A
        ``rated`` game needs a time control and no seed (docs/accounts.md).

        ``game_id`` names the game (a tournament's, server/tournaments/games.py):
        created once whichever process asks first; a later call gets the game made
        by the first as it is now."""
        rules = VARIANTS.get(variant)
        if rules is None:
            known = ", ".join(sorted(VARIANTS))
            raise bad_request("variant.unknown", variant=variant, known=known)
        count = rules.min_players if players is None else players
        if not rules.min_players <= count <= rules.max_players:
            raise bad_request(
                "variant.players",
                variant=variant,
                least=rules.min_players,
                most=rules.max_players,
                count=count,
            )
        seeded = seed is not None
        if rated:
            check_rated(seeded, clock)
        if seed is None:
            seed = secrets.randbits(63)
        for _ in range(ATTEMPTS):
            named = game_id is not None
            if game_id is None:
                game_id = new_game_id()
            at_ms = self._creation_ms()
            created = rules.create(game_id, count, clock, seeded, rated)
            try:
                # The append comes first: expected_version 0 proves the id is new, so
                # the meta written next can never overwrite another game's seed.
                await self.store.append(
                    game_id,
                    [encode_event(e) for e in created],
                    expected_version=0,
                    command_id=None,
                    at_ms=at_ms,
                )
            except VersionConflict:
                if named:
                    return await self.reader.summary(game_id)
                game_id = None
                continue
            await self.store.set_meta(
                game_id,
                {"variant": rules.name, "players": count, "seed": seed, "created_at": at_ms},
            )
            game = Game(game_id, rules, seed, at_ms, self.repository.lock(game_id))
            for event in created:
                game.apply_event(event, at_ms)
            self.repository.remember(game)
            await self.listing.index(game)
            await self.hooks.schedule(game)
            await self._notify(game_id, game.version)
            return summary_of(game)
        raise ServiceError("conflict", "game.no_free_id")

    async def join(
        self,
        game_id: str,
        name: str,
        bot: str | None = None,
        account: str | None = None,
        *,
        digest: str | None = None,
    ) -> JoinResult:
        """Take the next free seat: a player's (a token is returned), an account's
        (``account``: its username, the seat's name too) or a bot's.

        With ``digest`` the player's seat takes the token of that digest, which the
        caller derived and keeps (quick pairing, ``server.players.pairing_pools``): no token is
        returned. The game starts by itself when the last seat is filled
        (``Variant.join``).
        """
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            if game.rematch_of is not None and game.status == "open":
                raise ServiceError(
                    "illegal_action", "game.rematch_seats", {"game": game.rematch_of}
                )
            if tournament_of_game(game_id) is not None:
                # A tournament's game seats its pair only (``seat_accounts``): a seat
                # taken by anyone else would lose a player their game.
                raise ServiceError("illegal_action", "seat.none_free")
            result = await self._join_locked(game, name, bot, account, digest)
        await self._notify(game_id, result.version)
        return result

    async def seat_accounts(self, game_id: str, accounts: Sequence[str]) -> None:
        """Seat ``accounts`` in this order, each once, whichever processes do it at
        once or again after one died midway (a tournament's game,
        server/tournaments/games.py): seat ``i`` is taken with the command id
        ``seat:<i>``. Each seat gets a token nobody holds, unless it has one: its
        player takes it with their session (``POST /api/games/{id}/seat-token``)."""
        lock = self.repository.lock(game_id)
        joined = False
        async with lock:
            game = await self.repository.get(game_id, lock)
            for _ in range(len(accounts) * ATTEMPTS):
                seat = len(game.state.players)
                if seat >= len(accounts) or game.status != "open":
                    break
                account = accounts[seat]
                try:
                    events = game.variant.join(game.state, account, None, game.rng(), account)
                    result = await self._append(game, events, f"seat:{seat}")
                except VersionConflict:
                    await self.repository.catch_up(game)
                    continue
                if result.duplicate:  # caught up by ``_append``
                    continue
                joined = True
            for player in game.state.players:
                if player.account is not None:
                    await self.seat_tokens.record(player.account, game_id, player.seat)
                    await self.store.set_seat_absent(game_id, player.seat, revoked_digest())
            await self.repository.seats(game)
            version = game.version
        if joined:
            await self._notify(game_id, version)

    async def _join_locked(
        self,
        game: Game,
        name: str,
        bot: str | None,
        account: str | None = None,
        digest: str | None = None,
    ) -> JoinResult:
        for _ in range(ATTEMPTS):
            try:
                events = game.variant.join(game.state, name, bot, game.rng(), account)
            except RuleViolation as refusal:
                if await self.repository.catch_up(game):
                    continue
                raise from_violation(refusal) from None
            try:
                await self._append(game, events, None)
            except VersionConflict:
                await self.repository.catch_up(game)
                continue
            seat: int = events[0].seat
            token = None
            if bot is None:
                # Stored after the append: only the winner of this seat writes it, and
                # nobody holds the token before this request is answered.
                if digest is None:
                    token = secrets.token_urlsafe(32)
                    digest = token_digest(token)
                if account is not None:
                    # Listed before its token is written, and the session checked by the
                    # caller after: a "log out everywhere" meanwhile either revokes it
                    # or ended the session first (server/games/seat_tokens.py).
                    await self.seat_tokens.record(account, game.id, seat)
                await self.store.set_seat(game.id, seat, digest)
                game.seat_digests[seat] = digest
            else:
                # Listed for every bot runner (server/workers/bot_runner.py), in any process.
                await self.store.note_bot_game(game.id)
            return JoinResult(seat, token, game.version)
        raise _busy()

    # ------------------------------------------------------------------ commands

    async def submit(
        self,
        game_id: str,
        seat: int,
        command_id: str,
        action: Any,
        expected_version: int | None = None,
        digest: str | None = None,
    ) -> CommandResult:
        """Apply ``action`` for ``seat``, once per ``command_id``; with ``digest`` (of
        the token it was sent with) only while that is the seat's token (else 403
        ``unauthorized``: checked by the append itself, on whatever process).

        Raises ``ServiceError``: ``not_found``, ``conflict`` (``expected_version`` is
        stale), or the rules' ``not_your_turn`` / ``illegal_action`` / ``game_over``.
        A command id seen before gets the recorded answer, whatever the game's state.
        """
        started = time.perf_counter()
        outcome = "failed"  # what no ServiceError says: Redis down, a bug
        try:
            lock = self.repository.lock(game_id)
            async with lock:
                game = await self.repository.get(game_id, lock, fresh=False)
                result = await self._submit_locked(
                    game, seat, command_id, action, expected_version, digest
                )
            outcome = "duplicate" if result.duplicate else "ok"
        except ServiceError as e:
            outcome = e.code
            raise
        finally:
            if self.hooks.on_command is not None:
                self.hooks.on_command(outcome, time.perf_counter() - started)
        if not result.duplicate:
            await self._notify(game_id, result.version)
        return result

    async def _submit_locked(
        self,
        game: Game,
        seat: int,
        command_id: str,
        action: Any,
        expected_version: int | None,
        digest: str | None = None,
    ) -> CommandResult:
        for _ in range(ATTEMPTS):
            now = self._clock_ms()
            try:
                if expected_version is not None and expected_version != game.version:
                    raise _Stale
                facts = (
                    await self.hooks.facts(game, now)
                    if type(action) is ClaimAbandon
                    else Facts(now)  # no look-up, no await: the path of every move
                )
                events = game.variant.decide(game.state, seat, action, game.rng(), facts)
            except (RuleViolation, _Stale) as refusal:
                # Before refusing, make sure the refusal is not an artefact of a stale
                # cache, and that this is not a retry of a command applied already.
                was = game.status
                recorded, caught_up = await asyncio.gather(
                    self._recorded(game.id, command_id), self.repository.catch_up(game)
                )
                if recorded is not None:
                    await self._ended_by_catching_up(game, was)
                    return recorded
                if caught_up:
                    continue
                if digest is not None and not await self.seats.holds_locked(game, seat, digest):
                    raise forbidden(REVOKED) from None  # the token's refusal comes first
                if isinstance(refusal, TimeIsUp):
                    # Nobody else may have seen it yet: record it now, once.
                    await self._expire_locked(game)
                if isinstance(refusal, RuleViolation):
                    raise from_violation(refusal) from None
                assert expected_version is not None
                raise conflict(expected_version, game.version) from None
            acting = None if digest is None else (seat, digest)
            try:
                return await self._append(game, events, command_id, now, moved=True, acting=acting)
            except VersionConflict:
                await self.repository.catch_up(game)
            except SeatRevoked:
                await self.repository.seats(game)
                raise forbidden(REVOKED) from None
        raise _busy()

    # ------------------------------------------------------------------ time

    async def expire(self, game_id: str, *, presence: bool = False) -> CommandResult | None:
        """Record what the passing of time causes in a game now (a loss on time, a
        first turn's window passed, an open game expired), once whichever process
        asks first: the command id is ``clock:<seat>:<version>`` (``expire:<version>``
        for an open game). None when nothing is due. The game's deadline is written
        again either way (``scheduler``). ``presence``: who is away counts too (an
        open game its seated people left, an untimed game idle for a day), as the
        attendance asks (server/live/attendance.py)."""
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            result = await self._expire_locked(game, presence=presence)
            # A duplicate: recorded by another process, or by this one whose answer
            # was lost (``_append`` caught the game up and ran what its end asks).
            # Written even if unchanged here: the set may hold another process's older
            # word (that is why this game was found due).
            await self.hooks.schedule(game, force=True)
        if result is not None and not result.duplicate:
            await self._notify(game_id, result.version)
        return result

    async def _expire_locked(self, game: Game, *, presence: bool = False) -> CommandResult | None:
        for _ in range(ATTEMPTS):
            now = self._clock_ms()
            facts = await self.hooks.facts(game, now) if presence else Facts(now)
            events = game.variant.expire(game.state, facts)
            if not events:
                return None
            seat = expiry_seat(events)
            version = game.version
            command_id = f"expire:{version}" if seat is None else f"clock:{seat}:{version}"
            try:
                return await self._append(game, events, command_id, now)
            except VersionConflict:
                await self.repository.catch_up(game)
        raise _busy()

    async def _caught_up_after_duplicate(self, game: Game) -> None:
        """A command found applied already: the game caught up, and the end-of-game
        steps run if that brought its end. The process that appended it may not have
        learnt it was written (the answer lost with the connection, or not replicated
        in time: a 503 to the player, whose retry lands here), and so never ran them;
        each is idempotent, so running them again after a process that did costs a
        few writes."""
        was = game.status
        await self.repository.catch_up(game)
        await self._ended_by_catching_up(game, was)

    async def _ended_by_catching_up(self, game: Game, was: str) -> None:
        """``_after_change`` for a game found ended by catching up (else nothing: a
        change that did not end it was followed up by the process that made it)."""
        if game.status in OVER and was not in OVER:
            await self._after_change(game, was)

    async def _after_change(self, game: Game, was: str, *, moved: bool = False) -> None:
        """What a change of ``game`` (its status ``was`` before) asks for beside its log:
        the archive at its end (before the lobby: a restart heals it then), the lobby,
        the finished game's hooks, its next deadline (a player's move's written
        shortly, not waited for) and the turn's e-mail."""
        if game.status in OVER and was not in OVER:
            await self.hooks.archive_later(game)
        await self.listing.index(game)
        if game.status == "finished" and was != "finished":
            await self.hooks.finished(game)
        if moved:
            self.hooks.schedule_soon(game)
        else:
            await self.hooks.schedule(game)
        await self.hooks.turn_passed(game)

    async def _recorded(self, game_id: str, command_id: str) -> CommandResult | None:
        """The answer recorded for a command id already applied, if any."""
        seen = await self.store.recorded(game_id, command_id)
        if seen is None:
            return None
        version = int(seen.split(b":", 1)[0])
        return CommandResult(version, duplicate=True)

    async def _append(
        self,
        game: Game,
        events: list[Any],
        command_id: str | None,
        at_ms: int | None = None,
        *,
        moved: bool = False,
        acting: tuple[int, str] | None = None,
    ) -> CommandResult:
        """Append ``events`` decided on ``game`` at its version, recorded at ``at_ms``
        (the ``now`` they were decided with; by default the clock now). A player's move
        (``moved``) has its new deadline written shortly, not waited for. ``acting``:
        the seat and token digest a command was sent with (``SeatRevoked`` unless it
        is still the seat's)."""
        if at_ms is None:
            at_ms = self._clock_ms()
        logged = [LoggedEvent(game.version + 1 + i, at_ms, e) for i, e in enumerate(events)]
        pending = self.store.send_append(
            game.id,
            [encode_event(e) for e in events],
            expected_version=game.version,
            command_id=command_id,
            at_ms=at_ms,
            acting=acting,
        )
        observer = self.hooks.observer
        result: AppendResult | None = None
        try:
            if observer is not None:
                observer.appending(game.id, logged)  # while the append is on its way
            result = await pending.result()
        finally:
            if observer is not None:
                if result is None or result.duplicate:  # nothing written, or unknown
                    observer.append_failed(game.id)
                else:
                    # Before the projection: the sockets are what is waited on.
                    observer.appended(game.id, logged)
        if result.duplicate:
            await self._caught_up_after_duplicate(game)
            return CommandResult(result.version, duplicate=True)
        was = game.status
        self.repository.fold_appended(game, logged, result.version)
        await self._after_change(game, was, moved=moved)
        return CommandResult(result.version)

    # ------------------------------------------------------------------ rematch

    async def rematch(self, game_id: str, token: str | None) -> RematchResult:
        """``POST /api/games/{id}/rematch``: the rematch of a finished game for the
        seat of ``token`` (server/games/rematches.py): made by the first call, joined
        by the others, the same answer when called again.

        Raises ``not_found``, ``unauthorized`` (no token, or not a seat's of this
        game), and ``conflict`` (409) while the game is not finished.
        """
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            if token is None:
                raise missing_token()
            seat = await self.seats.seat_locked(game, token)
            if seat is None:
                raise forbidden()
            plan = await self.rematches.claim(game)
            rematch_id = game.rematch
            assert rematch_id is not None
            # The caller accepts (refused if it declined); the bots accept at once.
            await self.rematches.answer(game, seat, "accepted")
            for player in game.state.players:
                if player.bot is not None:
                    await self.rematches.answer(game, player.seat, "accepted")
            await self.listing.index(game)
        await self.rematches.ensure(game, rematch_id, plan, self._creation_ms())
        seat_there, new_token = await self.seats.rematch_seat(
            game_id, seat, token, rematch_id, plan
        )
        await self._fill_rematch(rematch_id, plan)
        await self.rematches.announce(game_id, rematch_id)
        return RematchResult(rematch_id, seat_there, new_token)

    async def decline_rematch(self, game_id: str, token: str | None) -> RematchAnswers:
        """``POST /api/games/{id}/rematch/decline``: the seat of ``token`` declines
        the finished game's rematch, offered by another seat; the answers after.
        Declining again gives the same answer. The rematch game is left to expire
        (an open game does, 30 minutes after it was made): its seats are kept for
        the finished game's players, and one of them will not come.

        Raises ``not_found``, ``unauthorized`` (no token, or not a seat's of this
        game), and ``conflict`` (409) while the game is not finished, while it has no
        rematch (``rematch.not_offered``) or once the seat accepted it.
        """
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            if token is None:
                raise missing_token()
            seat = await self.seats.seat_locked(game, token)
            if seat is None:
                raise forbidden()
            if game.status != "finished":
                raise ServiceError("conflict", "rematch.not_over", {"game": game.id})
            if not await self.rematches.known(game):
                raise ServiceError("conflict", "rematch.not_offered", {"game": game.id})
            rematch_id = game.rematch
            assert rematch_id is not None
            await self.rematches.answer(game, seat, "declined")
        await self.rematches.announce(game_id, rematch_id)
        return await self.rematch_answers(game_id, rematch_id)

    async def rematch_answers(self, game_id: str, rematch_id: str) -> RematchAnswers:
        """The seats of a finished game that accepted its rematch and that declined it."""
        said = await self.rematches.answers(game_id)
        return RematchAnswers(
            rematch_id,
            sorted(s for s, a in said.items() if a == "accepted"),
            sorted(s for s, a in said.items() if a == "declined"),
        )

    async def _fill_rematch(self, rematch_id: str, plan: list[PlannedSeat]) -> None:
        """Join the rematch's seats that can be joined, in order: each seat whose
        player has called (its token digest is written) or which is a bot, up to the
        first that cannot. The last one starts the game."""
        lock = self.repository.lock(rematch_id)
        joined = False
        async with lock:
            game = await self.repository.get(rematch_id, lock)
            await self.repository.seats(game)
            for _ in range(len(plan) * ATTEMPTS):
                seat = len(game.state.players)
                if seat >= len(plan) or game.status != "open":
                    break
                planned = plan[seat]
                if planned.bot is None and seat not in game.seat_digests:
                    break
                try:
                    events = game.variant.join(
                        game.state, planned.name, planned.bot, game.rng(), planned.account
                    )
                    result = await self._append(game, events, join_command_id(seat))
                except VersionConflict:
                    await self.repository.catch_up(game)
                    continue
                except RuleViolation:
                    break  # no longer open (expired): nothing to join
                if result.duplicate:  # caught up by ``_append``
                    continue
                joined = True
                if planned.bot is not None:
                    await self.store.note_bot_game(rematch_id)
            await self.hooks.schedule(game)  # an open game expires (even one nobody joined)
            version = game.version
        if joined:
            await self._notify(rematch_id, version)

    # ------------------------------------------------------------------ import

    async def restore(self, record: Restorable) -> bool:
        """Write a finished game read from a record (``splendor import``), then list it
        and note it for archiving: ``server.games.public_records.restore``."""
        return await restore(self.repository, record, self._restored)

    async def _restored(self, game: Game) -> None:
        """List a game just imported, and note it for archiving (its lock held)."""
        await self.hooks.archive_later(game)
        await self.listing.index(game)


def check_rated(seeded: bool, clock: TimeControl | None) -> None:
    """A rated game is played with a time control and a seed nobody chose
    (``bad_request`` otherwise): its result must mean something for a rating."""
    if seeded:
        raise bad_request("rated.seed")
    if clock is None:
        raise bad_request("rated.clock")


def _busy() -> ServiceError:
    return ServiceError("conflict", "game.busy")
