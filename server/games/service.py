"""The game service: the thin layer of I/O around ``events.game.Variant``.

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
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Protocol

import msgspec
from redis.exceptions import RedisError

from events.base import ClaimAbandon, TimeControl
from events.clock import clock_view, control_wire
from events.errors import RuleViolation
from events.game import VARIANTS, Variant
from events.leaving import Facts, TimeIsUp, expiry_seat, leave_actions
from server.common.errors import (
    ServiceError,
    bad_request,
    conflict,
    forbidden,
    from_violation,
    missing_token,
    not_found,
)
from server.common.wire import decode_with, event_to_wire, iso_time
from server.games.lobby import Lobby, LobbyEntry, Status
from server.games.lobby_keeper import LobbyKeeper
from server.games.projection import OVER, Game, LoggedEvent, encode_event, token_digest
from server.games.public_records import RecordError, Restorable, header_mismatch, record_of
from server.games.rematch_plan import (
    CLAIM_LUA,
    SET_ABSENT_LUA,
    PlannedSeat,
    decode_plan,
    encode_plan,
    join_command_id,
    new_seat,
    plan_seats,
    rematch_token,
)
from server.games.repository import GameRepository, is_game_id, new_game_id
from server.live.game_signals import ARCHIVED_SIGNAL, rematch_signal, signals_channel
from server.live.presence import presence_key
from server.players.seat_tokens import SeatTokens, new_token
from server.store import archive_format as archives
from server.store.clients import RedisClient
from server.store.event_store import (
    AppendResult,
    EventStore,
    SeatRevoked,
    VersionConflict,
    meta_key,
    seats_key,
)
from server.store.fast_paths import command_path

__all__ = [
    "AppendObserver",
    "AppendedCallback",
    "CommandResult",
    "GameService",
    "JoinResult",
    "RematchResult",
    "reveal_reserves",
]

log = logging.getLogger(__name__)

ATTEMPTS: Final = 3  # decide, and after a lost race decide once (then twice) more
REVOKED: Final = (
    "This seat token no longer acts for its seat: the seat was given a new token"
    " (its player logged out everywhere, or made a new link for another device)."
)

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


class CommandResult(msgspec.Struct, frozen=True):
    """A command's answer: the version the game is at after it. ``duplicate`` when the
    command id had been applied before (nothing new was written)."""

    version: int
    duplicate: bool = False


class RematchResult(msgspec.Struct, frozen=True):
    """A seat of a rematch: the game's id, the seat and its token."""

    id: str
    seat: int
    token: str


class JoinResult(msgspec.Struct, frozen=True):
    """A seat taken: its number, its token (None for a bot) and the game's version."""

    seat: int
    token: str | None
    version: int


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class _Stale(Exception):
    """The client's expected_version is not the cached version."""


class _SeededOnDraw(random.Random):
    """``random.Random(seed)``, seeded at its first draw rather than when made.

    Most commands draw nothing (only a card dealt or a game set up does), and seeding
    a Mersenne Twister costs a third of deciding a move. The draws are those of
    ``random.Random(seed)``: every method of ``random.Random`` draws through
    ``random()`` or ``getrandbits()``, and both seed first.
    """

    def __init__(self, seed: str) -> None:  # no super().__init__(): it would seed now
        self._pending: str | None = seed
        self.gauss_next = None

    def _seed_now(self) -> None:
        seed, self._pending = self._pending, None
        super().seed(seed)

    def seed(self, a: Any = None, version: int = 2) -> None:
        self._pending = None
        super().seed(a, version)

    def random(self) -> float:
        if self._pending is not None:
            self._seed_now()
        return super().random()

    def getrandbits(self, k: int, /) -> int:
        if self._pending is not None:
            self._seed_now()
        return super().getrandbits(k)

    def getstate(self) -> tuple[Any, ...]:
        if self._pending is not None:
            self._seed_now()
        return super().getstate()

    def setstate(self, state: tuple[Any, ...]) -> None:
        self._pending = None  # the state given replaces the seed still to come
        super().setstate(state)


class GameService:
    """Games over an ``EventStore``, with their lobby index kept up to date."""

    def __init__(
        self,
        store: EventStore,
        lobby: Lobby | None = None,
        *,
        cache_games: int = 2000,
        clock_ms: Callable[[], int] = _now_ms,
    ) -> None:
        self.store = store
        self.lobby = lobby
        self._r: RedisClient = store.client
        # The games' projections: cached, locked, loaded and caught up from the store.
        self.repository = GameRepository(store, cache_games=cache_games)
        self._clock_ms = clock_ms
        self._last_created_ms = 0
        self._subscribers: list[AppendedCallback] = []
        self._action_decoders: dict[str, msgspec.json.Decoder[Any]] = {}
        self._direct = command_path(self._r)
        # The seats of accounts and the replacing of tokens (server/players/seat_tokens.py).
        self.seat_tokens = SeatTokens(self._r)
        self.observer: AppendObserver | None = None
        # Presence, for abandon claims and views (set by the presence tracking).
        self.away_since: AwaySince | None = None
        # Deadlines of games, for the timekeeper (set by server.games.timekeeper).
        self.scheduler: Scheduler | None = None
        # When games over are archived (server.games.archiver; None: never).
        self.archives: ArchiveSchedule | None = None
        # Finished games to analyse (server.workers.analyser; None: never).
        self.analyses: AnalysisSchedule | None = None
        # Called once a game this process appended the last event of is finished (not
        # aborted): the profiles and ratings (server.players.profiles), set by the app.
        self.on_finished: Callable[[Game, dict[str, Any]], Awaitable[None]] | None = None
        # Told each command's outcome (ok, duplicate or the error code) and handling
        # time in seconds: the metrics (server.web.metrics), set by the app.
        self.on_command: Callable[[str, float], None] | None = None
        # The lobby's start-up and rebuilds (server/games/lobby_keeper.py).
        self.keeper = (
            None
            if lobby is None
            else LobbyKeeper(lobby, store.game_ids, self.lobby_entry, store.exists)
        )

    # ------------------------------------------------------------------ hooks

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
    ) -> dict[str, Any]:
        """A new open game; returns its summary. ``seed`` makes it reproducible (and
        the game is marked seeded); ``clock`` is its time control (None: untimed). A
        ``rated`` game needs a time control and no seed (docs/accounts.md)."""
        rules = VARIANTS.get(variant)
        if rules is None:
            known = ", ".join(sorted(VARIANTS))
            raise bad_request(f"Unknown variant {variant!r}: this server plays {known}.")
        count = rules.min_players if players is None else players
        if not rules.min_players <= count <= rules.max_players:
            raise bad_request(
                f"{variant} is played by {rules.min_players} to {rules.max_players} players,"
                f" not {count}."
            )
        seeded = seed is not None
        if rated:
            check_rated(seeded, clock)
        if seed is None:
            seed = secrets.randbits(63)
        for _ in range(ATTEMPTS):
            game_id = new_game_id()
            # Strictly increasing in this process: two games created in one
            # millisecond still list newest first, in the order they were made.
            at_ms = max(self._clock_ms(), self._last_created_ms + 1)
            self._last_created_ms = at_ms
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
                continue
            await self.store.set_meta(
                game_id,
                {"variant": rules.name, "players": count, "seed": seed, "created_at": at_ms},
            )
            game = Game(game_id, rules, seed, at_ms, self.repository.lock(game_id))
            for event in created:
                game.apply_event(event, at_ms)
            self.repository.remember(game)
            await self._index(game)
            await self._schedule(game)
            await self._notify(game_id, game.version)
            return self._summary(game)
        raise ServiceError("conflict", "Could not find a free game id; try again.")

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
                    "illegal_action",
                    f"This game is the rematch of {game.rematch_of}: its seats are kept for"
                    " that game's players, who join it through its rematch.",
                )
            result = await self._join_locked(game, name, bot, account, digest)
        await self._notify(game_id, result.version)
        return result

    async def rated(self, game_id: str) -> bool:
        """Whether a game is rated (``not_found`` for no game)."""
        lock = self.repository.lock(game_id)
        async with lock:
            return bool((await self.repository.get(game_id, lock, fresh=False)).state.clock.rated)

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
                events = game.variant.join(game.state, name, bot, self._rng(game), account)
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
                await self.store.set_seat(game.id, seat, digest)
                game.seat_digests[seat] = digest
                if account is not None:  # revoked when the account's sessions end
                    await self.seat_tokens.record(account, game.id, seat)
            else:
                # Listed for every bot runner (server/workers/bot_runner.py), in any process.
                await self.store.note_bot_game(game.id)
            return JoinResult(seat, token, game.version)
        raise _busy()

    async def seat_for_token(
        self, game_id: str, token: str | None, *, verify: bool = True
    ) -> int | None:
        """The seat a token acts for; None without a token (a spectator).

        The seats are read from Redis (a token may have been replaced on another
        process since they were cached), unless ``verify`` is False: then a token the
        cache knows is trusted, for a caller whose write checks it again (a command:
        its append script does, server/store.py).

        Raises ``not_found`` for an unknown game and ``unauthorized`` (403) for a token
        that is no seat's of this game.
        """
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock, fresh=False)
            if token is None:
                return None
            seat = await self._seat_locked(game, token, verify)
        if seat is None:
            raise forbidden()
        return seat

    async def _seat_locked(self, game: Game, token: str, verify: bool = True) -> int | None:
        """The seat ``token`` acts for in ``game`` (its lock held), or None."""
        seat = None if verify and not game.archived else game.seat_of(token)
        if seat is None:
            # Replaced, or another server process seated this player: read the seats.
            await self.repository.seats(game)
            seat = game.seat_of(token)
        return seat

    async def account_seat(self, game_id: str, username: str) -> int | None:
        """The seat the account holds in a game: taken (its ``PlayerJoined``), or
        called in a rematch and not yet taken (listed, server/players/seat_tokens.py); None if
        it holds none. Raises ``not_found``."""
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock, fresh=False)
            for player in game.state.players:
                if player.account and player.account.lower() == username.lower():
                    return int(player.seat)
        return await self.seat_tokens.listed_seat(username, game_id)

    async def issue_token(self, game_id: str, seat: int, replacing: str | None = None) -> str:
        """A new token for a seat of a game (which has one): the seat's token from now
        on, the one it replaces refused. ``replacing``: only if the seat's token is
        still the one of that digest (else 403). ``conflict`` (409) for a game whose
        seats are final (archived) or a seat without a token."""
        token, digest = new_token()
        replaced = await self.seat_tokens.replace(game_id, seat, digest, replacing)
        if replaced == 0:
            raise forbidden(REVOKED)
        if replaced < 0:
            raise ServiceError(
                "conflict",
                f"Seat {seat} of game {game_id} has no token to replace: the game is archived"
                " (its seats are final), or the seat is not taken.",
            )
        game = self.repository.cached(game_id)
        if game is not None and not game.archived:
            game.seat_digests[seat] = digest
        return token

    # ------------------------------------------------------------------ commands

    def decode_action(self, variant: str, raw: bytes) -> Any:
        """A JSON action as the variant's action Struct, or ``bad_request``."""
        decoder = self._action_decoders.get(variant)
        if decoder is None:
            decoder = self._action_decoders[variant] = VARIANTS[variant].action_decoder()
        return decode_with(decoder.decode, raw, "action")

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
            if self.on_command is not None:
                self.on_command(outcome, time.perf_counter() - started)
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
                    await self._facts(game, now, True)
                    if type(action) is ClaimAbandon
                    else Facts(now)  # no look-up, no await: the path of every move
                )
                events = game.variant.decide(game.state, seat, action, self._rng(game), facts)
            except (RuleViolation, _Stale) as refusal:
                # Before refusing, make sure the refusal is not an artefact of a stale
                # cache, and that this is not a retry of a command applied already.
                recorded, caught_up = await asyncio.gather(
                    self._recorded(game.id, command_id), self.repository.catch_up(game)
                )
                if recorded is not None:
                    return recorded
                if caught_up:
                    continue
                if digest is not None and not await self._holds_locked(game, seat, digest):
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

    async def _holds_locked(self, game: Game, seat: int, digest: str) -> bool:
        """Whether ``digest`` is the seat's token's, as Redis has it (the lock held)."""
        await self.repository.seats(game)
        held = game.seat_digests.get(seat)
        return held is not None and hmac.compare_digest(held, digest)

    async def _facts(self, game: Game, now_ms: int, presence: bool) -> Facts:
        """The facts of ``now`` for the rules; who is away only when ``presence`` is
        asked (an abandon claim, a view): it costs a look-up."""
        if not presence or self.away_since is None:
            return Facts(now_ms)
        away = await self.away_since(game.id, len(game.state.players))
        return Facts(now_ms, tuple(away))

    # ------------------------------------------------------------------ time

    async def expire(self, game_id: str) -> CommandResult | None:
        """Record what the passing of time causes in a game now (a loss on time, a
        first turn's window passed, an open game expired), once whichever process
        asks first: the command id is ``clock:<seat>:<version>`` (``expire:<version>``
        for an open game). None when nothing is due. The game's deadline is written
        again either way (``scheduler``)."""
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            result = await self._expire_locked(game)
            if result is not None and result.duplicate:
                await self.repository.catch_up(game)  # another process recorded it
            # Written even if unchanged here: the set may hold another process's older
            # word (that is why this game was found due).
            await self._schedule(game, force=True)
        if result is not None and not result.duplicate:
            await self._notify(game_id, result.version)
        return result

    async def _expire_locked(self, game: Game) -> CommandResult | None:
        for _ in range(ATTEMPTS):
            now = self._clock_ms()
            events = game.variant.expire(game.state, Facts(now))
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

    async def _schedule(self, game: Game, *, force: bool = False) -> None:
        """Tell the scheduler the game's deadline when it changed (or ``force``)."""
        if self.scheduler is None:
            return
        due = game.variant.deadline(game.state)
        if due == game.scheduled and not force:
            return
        try:
            await self.scheduler.schedule(game.id, game.version, due)
        except RedisError:
            # The timekeeper's start-up rebuild or the next change heals it.
            log.exception("deadline update failed for %s at %d", game.id, game.version)
            return
        game.scheduled = due

    def _schedule_soon(self, game: Game) -> None:
        """``_schedule`` for the move path: written with others shortly (``note``)."""
        if self.scheduler is None:
            return
        due = game.variant.deadline(game.state)
        if due != game.scheduled:
            self.scheduler.note(game.id, game.version, due)
            game.scheduled = due

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
        observer = self.observer
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
            return CommandResult(result.version, duplicate=True)
        was = game.status
        self._fold_appended(game, logged, result.version)
        if game.status in OVER and was not in OVER:
            await self._archive_later(game)  # before the lobby: a restart heals it then
        await self._index(game)
        if game.status == "finished" and was != "finished":
            await self._finished(game)
        if moved:
            self._schedule_soon(game)
        else:
            await self._schedule(game)
        return CommandResult(result.version)

    def _fold_appended(self, game: Game, logged: list[LoggedEvent], version: int) -> None:
        """Fold events just appended into the projection (dropped from the cache if
        that fails)."""
        try:
            for entry in logged:
                game.apply_event(entry.event, entry.at_ms)
        except BaseException:
            self.repository.forget(game.id)  # a half-applied projection must not be reused
            raise
        if game.version != version:  # pragma: no cover - a bug, not a race
            self.repository.forget(game.id)
            raise RuntimeError(f"{game.id}: projection at {game.version}, log at {version}")

    # ------------------------------------------------------------------ rematch

    async def rematch(self, game_id: str, token: str | None) -> RematchResult:
        """``POST /api/games/{id}/rematch``: the rematch of a finished game for the
        seat of ``token`` (``server.games.rematch_plan``): made by the first call, joined by the
        others, the same answer when called again.

        Raises ``not_found``, ``unauthorized`` (no token, or not a seat's of this
        game), and ``conflict`` (409) while the game is not finished.
        """
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            if token is None:
                raise missing_token()
            seat = await self._seat_locked(game, token)
            if seat is None:
                raise forbidden()
            if game.status != "finished":
                raise ServiceError(
                    "conflict",
                    f"Game {game_id} is not over: a rematch can be started once it has ended.",
                )
            if not await self._rematch_known(game):
                claimed = await self._direct.run(
                    CLAIM_LUA, (meta_key(game_id).encode(),), (new_game_id().encode(),)
                )
                game.rematch = _text(claimed[0])
            rematch_id = game.rematch
            assert rematch_id is not None
            plan = plan_seats(game.state.players)
            await self._index(game)
        await self._ensure_rematch(game, rematch_id, plan)
        new_token = rematch_token(token, rematch_id)
        digest = token_digest(new_token)
        seat_there = new_seat(seat, len(plan))
        account = plan[seat_there].account
        # Listed, written, then the finished game's token checked again: a token
        # revoked meanwhile (server/players/seat_tokens.py) either sees this seat listed and
        # revokes it too, or is seen here, and its rematch seat is withdrawn.
        if account is not None:
            await self.seat_tokens.record(account, rematch_id, seat_there)
        await self.store.set_seat(rematch_id, seat_there, digest)
        held = await self.store.seat(game_id, seat)
        if held is not None and not hmac.compare_digest(held, token_digest(token)):
            await self.seat_tokens.withdraw(rematch_id, seat_there, digest)
            raise forbidden(REVOKED)
        await self._fill_rematch(rematch_id, plan)
        # Sent on every call (a process may have died before sending it): watchers of
        # the finished game are told once, as a hub forgets a rematch it knows.
        await self._r.publish(signals_channel(game_id), rematch_signal(rematch_id))
        return RematchResult(rematch_id, seat_there, new_token)

    async def _rematch_known(self, game: Game) -> bool:
        """Whether a finished game has a rematch (made maybe by another process)."""
        if game.rematch is None and game.status == "finished":
            found = await self._r.hget(meta_key(game.id), "rematch")
            if found is not None:
                game.rematch = _text(found)
        return game.rematch is not None

    async def _ensure_rematch(self, game: Game, rematch_id: str, plan: list[PlannedSeat]) -> None:
        """Make the rematch game unless it is made: its first event and its meta."""
        known = self.repository.cached(rematch_id)
        if known is not None and known.rematch_of == game.id:
            return
        at_ms = max(self._clock_ms(), self._last_created_ms + 1)
        self._last_created_ms = at_ms
        # The same time control (RULES.md part 3), rated if the game was; a rematch is
        # never seeded.
        created = game.variant.create(
            rematch_id, len(plan), game.state.clock.control, rated=game.state.clock.rated
        )
        with contextlib.suppress(VersionConflict):  # made already
            await self.store.append(
                rematch_id,
                [encode_event(e) for e in created],
                expected_version=0,
                command_id=None,
                at_ms=at_ms,
            )
        meta: dict[str, bytes | str | int] = {
            "variant": game.variant.name,
            "players": len(plan),
            "seed": secrets.randbits(63),  # a rematch is never seeded
            "created_at": at_ms,
            "rematch_of": game.id,
            "seats": encode_plan(plan),
        }
        args = [_bytes(x) for pair in meta.items() for x in pair]
        await self._direct.run(SET_ABSENT_LUA, (meta_key(rematch_id).encode(),), args)

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
                        game.state, planned.name, planned.bot, self._rng(game), planned.account
                    )
                    result = await self._append(game, events, join_command_id(seat))
                except VersionConflict:
                    await self.repository.catch_up(game)
                    continue
                except RuleViolation:
                    break  # no longer open (expired): nothing to join
                if result.duplicate:
                    await self.repository.catch_up(game)
                    continue
                joined = True
                if planned.bot is not None:
                    await self.store.note_bot_game(rematch_id)
            await self._schedule(game)  # an open game expires (even one nobody joined)
            version = game.version
        if joined:
            await self._notify(rematch_id, version)

    # ------------------------------------------------------------------ reading

    async def finished_game(self, game_id: str) -> tuple[Game, dict[str, Any]] | None:
        """A finished game's projection and summary (``splendor ratings rebuild``), not
        kept in the cache unless it was there; None for a game not finished. Raises
        ``not_found``."""
        lock = self.repository.lock(game_id)
        async with lock:
            cached = self.repository.cached(game_id) is not None
            game = await self.repository.get(game_id, lock)
            if not cached and game.status in OVER:
                self.repository.forget(game_id)
            return (game, self._summary(game)) if game.status == "finished" else None

    async def variant_of(self, game_id: str) -> Variant:
        """The rules a game is played with."""
        lock = self.repository.lock(game_id)
        async with lock:
            return (await self.repository.get(game_id, lock, fresh=False)).variant

    async def view(
        self, game_id: str, viewer: int | None, version: int | None = None
    ) -> dict[str, Any]:
        """``viewer``'s view (a seat, or None for a spectator) now or at ``version``.

        Once the game is finished it is public (PROTOCOL.md): its past views show
        every reserved card to everyone, as its events do.
        Raises ``bad_request`` for a version below 1 and ``not_found`` past the end.
        """
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            if version is None or version == game.version:
                view = game.variant.view(game.state, viewer)
                if await self._rematch_known(game):
                    view["rematch"] = game.rematch
                now = self._clock_ms()
                view = with_facts(game, view, viewer, await self._facts(game, now, True))
                state = None
            else:
                _check_version(version, game.version)
                state = game.state_at(version)
                finished = game.status == "finished"
        await self.store.durable((game_id,))  # shown only once it survives a failover
        if state is None:
            return view
        view = game.variant.view(state, viewer)
        if finished:
            reveal_reserves(game.variant, state, view)
        return view

    async def log(self, game_id: str, after: int = 0) -> list[LoggedEvent]:
        """The decoded events after version ``after``, unredacted: for server code only."""
        if after < 0:
            raise bad_request("after must be 0 or more.")
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            logged = game.log[after:]
        await self.store.durable((game_id,))  # shown only once it survives a failover
        return logged

    async def events(
        self, game_id: str, viewer: int | None, after: int = 0
    ) -> list[dict[str, Any]]:
        """The events after ``after`` in PROTOCOL.md's wire shape, as ``viewer`` may
        see them (``Variant.redact``: all of them once the game is finished)."""
        if after < 0:
            raise bad_request("after must be 0 or more.")
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            finished = game.status == "finished"
            redact = game.variant.redact
            events = [
                event_to_wire(
                    redact(e.event, viewer, finished), e.version, e.at_ms, game.variant.name
                )
                for e in game.log[after:]
            ]
        await self.store.durable((game_id,))  # shown only once it survives a failover
        return events

    async def summary(self, game_id: str) -> dict[str, Any]:
        """``GET /api/games/{id}``: id, variant, players, status, seats, version, result."""
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            await self._rematch_known(game)
            return self._summary(game)

    async def record(self, game_id: str) -> dict[str, Any]:
        """The public record of a finished game (``server.games.public_records``, docs/export.md).

        Raises ``not_found``, and ``conflict`` (409) for a game not finished: an
        aborted game has no result and is never exported."""
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            if game.status != "finished":
                raise ServiceError(
                    "conflict",
                    f"Game {game_id} is {game.status}: only a finished game can be exported.",
                )
            await self._rematch_known(game)
            return record_of(game, self._summary(game))

    async def restore(self, record: Restorable) -> bool:
        """Write a finished game read from a record (``splendor import``) and list it,
        unless a game with its id exists: True if written, False if it was there.

        The events are folded first and the record refused (``RecordError``) unless
        they make a finished game whose summary is the record's. The seed is a new
        one (the record never has it; a finished game draws nothing more) and there
        are no seat tokens: nobody acts in an imported game."""
        if not is_game_id(record.id):
            raise RecordError(f"invalid game id {record.id!r}")
        lock = self.repository.lock(record.id)
        game = Game(record.id, record.variant, secrets.randbits(63), record.created_ms, lock)
        try:
            for logged in record.events:
                game.apply_event(logged.event, logged.at_ms)
        except Exception as e:  # evolve trusts its events: a forged log may break it anyhow
            raise RecordError(f"game {record.id}: its events do not fold ({e!r})") from None
        if game.status != "finished":
            raise RecordError(f"game {record.id}: its events end {game.status}, not finished")
        for name in ("rematch", "rematch_of"):
            linked = record.header.get(name)
            if linked is not None and not (isinstance(linked, str) and is_game_id(linked)):
                raise RecordError(f"game {record.id}: invalid {name} {linked!r}")
            setattr(game, name, linked)
        differs = header_mismatch(record.header, record_of(game, self._summary(game)))
        if differs is not None:
            raise RecordError(f"game {record.id}: its {differs!r} is not what its events give")
        meta: dict[str, bytes | str | int] = {
            "variant": game.variant.name,
            "players": game.state.players_count,
            "seed": game.seed,
            "created_at": game.created_ms,
        }
        if game.rematch is not None:
            meta["rematch"] = game.rematch
        if game.rematch_of is not None:
            meta["rematch_of"] = game.rematch_of
        async with lock:
            if not await self.store.restore(record.id, record.stored, meta):
                return False
            self.repository.remember(game)
            await self._archive_later(game)
            await self._index(game)
        return True

    async def list_games(self, status: Status | None, limit: int) -> list[dict[str, Any]]:
        """The lobby: newest first, of one status or of all."""
        if self.lobby is None:
            return []
        if status is None:
            return await self.lobby.list_all(limit)
        return await self.lobby.newest(status, limit)

    # ------------------------------------------------------------------ lobby

    async def start(self) -> None:
        """Keep the lobby whole, in the background (server/games/lobby_keeper.py): its keys are
        trusted when built, and only the open and live games refreshed; missing, they
        are rebuilt from a SCAN of every game. Returns at once: the server is healthy
        meanwhile (``lobby_ready`` waits for it)."""
        if self.keeper is not None:
            self.keeper.start()

    async def lobby_ready(self) -> None:
        """Wait for the start-up's refresh or rebuild of the lobby."""
        if self.keeper is not None:
            await self.keeper.ready()

    async def lobby_rebuilding(self) -> bool:
        """Whether the lobby is being rebuilt (its lists may be missing games)."""
        return self.keeper is not None and await self.keeper.rebuilding()

    async def aclose(self) -> None:
        """Stop the lobby's background work."""
        if self.keeper is not None:
            await self.keeper.aclose()

    async def lobby_entry(self, game_id: str) -> LobbyEntry | None:
        """A game's lobby entry folded from its keys (None: not listed, or not a game
        this server reads), its deadline written again as it goes. A finished game
        read for it is not kept in the cache unless it was there (a rebuild reads them
        all)."""
        lock = self.repository.lock(game_id)
        async with lock:
            cached = self.repository.cached(game_id) is not None
            try:
                game = await self.repository.get(game_id, lock)
            except ServiceError:
                return None
            except (msgspec.DecodeError, msgspec.ValidationError, KeyError, ValueError):
                # A stream this server can't read (another program's, or a newer
                # format) stays out of the lobby; it must not keep the server down.
                log.exception("game %s can't be loaded; left out of the lobby", game_id)
                return None
            if not cached and game.status in OVER:
                self.repository.forget(game_id)
            await self._schedule(game)  # its deadline, rebuilt with the lobby
            if game.status in OVER:
                await self._archive_later(game)  # if its end's note was lost
            return None if _unlisted(game) else self._entry(game)

    def _entry(self, game: Game) -> LobbyEntry:
        status: Status = game.state.status
        # A finished game's entry changes once more, when its rematch is made: its
        # revision (what the index compares) counts that as a half version.
        revision = game.version * 2 + (game.rematch is not None)
        ended_ms = game.log[-1].at_ms if status in OVER else None
        return LobbyEntry(game.id, status, game.created_ms, revision, self._summary(game), ended_ms)

    async def _index(self, game: Game) -> None:
        """Update the game's lobby entry when something a list shows has changed.

        Lists show the status, the seats and their points, the result: most moves
        change none of these, and skipping them saves a round trip per command.
        """
        if self.lobby is None or _unlisted(game):
            return
        shown = _listed(game)
        if shown == game.listed:
            return
        try:
            await self.lobby.update(self._entry(game))
        except RedisError:
            # The event is appended and stays the truth; the index heals at the next
            # update of this game or the next start.
            log.exception("lobby update failed for %s at %d", game.id, game.version)
            return
        game.listed = shown

    # ------------------------------------------------------------------ archive

    async def archive(self, game_id: str) -> bool:
        """Archive a game over (server/store/archive_format.py): its stream, commands, seats and
        presence give way to one compact value, in one script. True if this call did
        it; False if the game is not over or was archived already (by any process).
        Raises ``not_found`` for an unknown game."""
        lock = self.repository.lock(game_id)
        async with lock:
            cached = self.repository.cached(game_id) is not None
            game = await self.repository.get(game_id, lock)
            if not cached and game.status in OVER:
                self.repository.forget(game_id)  # archiving old games must not push out hot ones
            if game.status not in OVER or game.archived:
                return False
            # The bytes the stream holds, not the events encoded again; and the seats
            # as Redis has them (a seat taken by another process is known there).
            stored = await self.store.read(game_id)
            await self.repository.seats(game)
            if game.archived:  # by another process, since this one cached the game
                return False
            value = archives.encode(
                game.variant.name, [(e.at_ms, e.data) for e in stored], game.seat_digests
            )
            accounts = await self._seated_accounts(game)  # the plan's is dropped below
            done = await self.store.archive(
                game_id,
                len(stored),
                value,
                (seats_key(game_id), presence_key(game_id)),
                # The hubs of every process read what they had not (server/live/game_signals.py).
                (signals_channel(game_id), ARCHIVED_SIGNAL),
            )
            if done >= 0:
                game.archived = True
        if done == 1:
            # Its seats are final: its accounts no longer list them (server/players/seat_tokens.py).
            try:
                await self.seat_tokens.forget(accounts, game_id)
            except RedisError:  # left listed: a revocation finds no token there, harmlessly
                log.exception("seats of archived %s not unlisted", game_id)
        return done == 1

    async def _seated_accounts(self, game: Game) -> set[str]:
        """The accounts seated in a game, and those a rematch's plan seats (a seat
        called and not taken is listed too)."""
        accounts = {p.account for p in game.state.players if p.account}
        if game.rematch_of is not None:
            raw = await self._r.hget(meta_key(game.id), "seats")
            if raw is not None:
                accounts.update(p.account for p in decode_plan(_bytes(raw)) if p.account)
        return accounts

    async def _archive_later(self, game: Game) -> None:
        """Have a game over archived ``SPLENDOR_ARCHIVE_AFTER`` after its end."""
        if self.archives is None or game.archived:
            return
        try:
            await self.archives.add(game.id, game.log[-1].at_ms)
        except RedisError:
            # Healed at the next start: the lobby's refresh reads the game again.
            log.exception("archive of %s not scheduled", game.id)

    async def _finished(self, game: Game) -> None:
        """Note the game for analysis; tell ``on_finished`` the game and its summary
        (it logs its own failures: the end is appended)."""
        if self.analyses is not None:
            try:
                await self.analyses.add(game.id)
            except RedisError:  # noted again when someone asks for its analysis
                log.exception("analysis of %s not scheduled", game.id)
        if self.on_finished is not None:
            await self.on_finished(game, self._summary(game))

    def _summary(self, game: Game) -> dict[str, Any]:
        public = game.variant.view(game.state, None)
        return {
            "id": game.id,
            "variant": game.variant.name,
            "players": game.state.players_count,
            "status": public["status"],
            "seats": [
                {
                    "seat": p["seat"],
                    "name": p["name"],
                    "bot": p["bot"],
                    "account": p["account"],
                    "points": p["points"],
                }
                for p in public["players"]
            ],
            "version": game.version,
            "result": public["result"],
            "created_at": iso_time(game.created_ms),
            "rematch": game.rematch,
            "rematch_of": game.rematch_of,
            # A finished or aborted game is dated by its end: its last event's time.
            "ended_at": iso_time(game.log[-1].at_ms) if public["status"] in OVER else None,
            "clock": control_wire(game.state.clock.control),
            "seeded": public["seeded"],
            "rated": public["rated"],
        }

    # ------------------------------------------------------------------ projections

    def _rng(self, game: Game) -> random.Random:
        # Distinct for every version of every game, reproducible from the seed alone.
        return _SeededOnDraw(f"{game.seed}:{game.version}")

    def cached_games(self) -> int:
        """How many projections are held in memory (``GameRepository.cached_games``)."""
        return self.repository.cached_games()

    def drop_cache(self) -> None:
        """Forget every projection (``GameRepository.drop_cache``)."""
        self.repository.drop_cache()


def check_rated(seeded: bool, clock: TimeControl | None) -> None:
    """A rated game is played with a time control and a seed nobody chose
    (``bad_request`` otherwise): its result must mean something for a rating."""
    if seeded:
        raise bad_request("A rated game can't have a seed: its draws must be nobody's choice.")
    if clock is None:
        raise bad_request(
            'A rated game needs a time control: "clock": {"initial", "increment"} or {"per_move"}.'
        )


def with_facts(
    game: Game, view: dict[str, Any], viewer: int | None, facts: Facts
) -> dict[str, Any]:
    """``view`` (the game's now) as of ``facts``: its clock read at ``facts.now_ms``
    rather than at the turn's start, and ``claim_abandon`` in ``legal`` when the facts
    allow it (kept views, built from the events alone, never list it)."""
    state = game.state
    if state.clock.control is not None:
        view["clock"] = clock_view(state.clock, facts.now_ms)
    if viewer is not None and any(
        type(a) is ClaimAbandon for a in leave_actions(state, viewer, facts)
    ):
        view["legal"] = [*view["legal"], {"kind": "claim_abandon"}]
    return view


def reveal_reserves(variant: Variant, state: Any, view: dict[str, Any]) -> None:
    """Show every player's reserved cards in ``view`` as their owner sees them."""
    for i, player in enumerate(view["players"]):
        if player["seat"] != view["you"]:
            player["reserved"] = variant.view(state, player["seat"])["players"][i]["reserved"]


def _listed(game: Game) -> tuple[Any, ...]:
    """What the lobby lists of a game, in short: a change of it needs an update.

    Its status (the result comes with "finished"), its seats and their points: a
    seat's name and bot are set when it is taken, so the number of seats stands for
    them (checked on every command, so kept cheap)."""
    state = game.state
    return (state.status, [p.points for p in state.players], game.rematch)


def _unlisted(game: Game) -> bool:
    """A rematch waiting for its players is theirs alone: not listed as open."""
    return game.rematch_of is not None and game.status == "open"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _bytes(value: bytes | str | int) -> bytes:
    if isinstance(value, bytes):
        return value
    return str(value).encode()


def _check_version(version: int, current: int) -> None:
    if version < 1:
        raise bad_request("version must be 1 or more: version 1 is the game's creation.")
    if version > current:
        raise not_found(f"There is no version {version} yet: the game is at version {current}.")


def _busy() -> ServiceError:
    return ServiceError(
        "conflict", "The game changed several times while this was decided: send it again."
    )
