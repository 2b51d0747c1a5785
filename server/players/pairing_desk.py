"""A server process's pairing desk: its waiting players, the rounds, the games.

Every ``TICK_S`` the desk, for each pool where one of its own sockets waits:

1. **touches** its entries in one script (``PairingStore.touch``): each is marked
   seen now, and what was paired meanwhile (by this process or another) comes back
   and is handed to its socket;
2. **matches** the pool if it takes the pool's lock (one process a round): reads the
   entries, plans with the pure ``group_off(now, entries, players)`` (``pair_off``
   for two), claims the plan in one script, and for each table it now owns creates
   the game (``GameService.create_game``) and seats its players with their tokens'
   digests (``GameService.join``), bots in the seats left of a table they fill,
   then records each one's ``Paired`` for its server to hand over (a socket of its
   own is handed it at once).

A pair is claimed before its game exists, so a process that dies between the two
leaves two players out of the pool unpaired: their own servers see the entry
missing, unpaired, for ``REQUEUE_MS`` and put it back with its first waiting time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final

import msgspec
from redis.exceptions import RedisError

from events.base import TimeControl
from events.turns import bot_name
from server.common.errors import ServiceError, bad_request
from server.games.service import GameService
from server.players.pairing_pools import LEFT, Opponent, Paired, PairingStore, Waiting
from server.players.pairing_rules import FILL_BOT, Pool, group_off
from server.players.rating_model import START
from server.players.ratings import Ratings as RatingsModel
from server.players.ratings import player_id
from server.store.clients import RedisClient

__all__ = ["STARTING_RATING", "Desk", "Ratings", "Ticket", "ratings_of", "starting_rating"]

log = logging.getLogger(__name__)

TICK_S: Final = 0.25
REQUEUE_MS: Final = 5_000
GAMES_AT_ONCE: Final = 32
"""Games of one round made at once (a burst of arrivals is paired in one round)."""
STARTING_RATING: Final = START

Ratings = Callable[[str, str], Awaitable[float]]
"""``rating(account, variant)``: the rating an account is paired by."""


async def starting_rating(account: str, variant: str) -> float:
    """Every account's rating before it has played (and every guest's)."""
    return STARTING_RATING


def ratings_of(client: RedisClient) -> Ratings:
    """An account's displayed rating in a variant, from the ratings read model
    (``server.players.ratings``); the starting rating before its first rated game."""
    book = RatingsModel(client)

    async def rating(account: str, variant: str) -> float:
        player = player_id(account, None)
        skill = None if player is None else await book.skill(variant, player)
        return STARTING_RATING if skill is None else float(skill.rating)

    return rating


def waiting_elsewhere() -> ServiceError:
    """What a socket is told when its account began waiting in another place (or
    logged out everywhere, or was deleted)."""
    return ServiceError("conflict", "pairing.elsewhere")


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(eq=False)
class Ticket:
    """A socket's place in a pool: what it waits as, and what it will be told."""

    pool: Pool
    ticket: str
    waiting: Waiting
    paired: asyncio.Future[Paired] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    missing_since: int | None = None


class Desk:
    """This process's side of quick pairing (one per app, started by its lifespan)."""

    def __init__(
        self,
        store: PairingStore,
        service: GameService,
        *,
        ratings: Ratings = starting_rating,
        clock_ms: Callable[[], int] = _now_ms,
    ) -> None:
        self.store = store
        self.service = service
        self.ratings = ratings
        self.clock_ms = clock_ms
        self._tickets: dict[Pool, dict[str, Ticket]] = {}
        # ``GET /api/pairing/pools`` as last answered (monotonic s, the body).
        self.pools_answer: tuple[float, bytes] | None = None
        self._wake = asyncio.Event()

    async def join(
        self, pool: Pool, ticket: str, name: str, account: str | None, since_ms: int | None = None
    ) -> Ticket:
        """Wait in ``pool`` with ``ticket`` (a new one, or one resumed after a dropped
        connection: then its place and first waiting time are kept). An account
        waits in one place only: any older wait of it stops (``conflict`` to its
        socket), and so does this ticket if the account went elsewhere meanwhile."""
        now = self.clock_ms()
        # A casual pool pairs everyone as the starting rating: the longest waiting first.
        rating = STARTING_RATING
        if account is not None and pool.rated:
            rating = await self.ratings(account, pool.variant)
        waiting = Waiting.of_ticket(
            ticket, name, account, rating, now if since_ms is None else since_ms
        )
        outcome = (await self.store.touch(pool, now, [waiting.id]))[0]
        if outcome is True:  # A resumed entry keeps its place and its waiting time.
            waiting = await self.store.entry(pool, waiting.id) or waiting
        held = Ticket(pool, ticket, waiting)
        if isinstance(outcome, Paired):
            held.paired.set_result(outcome)
            return held
        if outcome == LEFT:
            raise waiting_elsewhere()
        if outcome is False:
            await self.store.enqueue(pool, waiting, now)
        if account is not None:
            await self.store.wait_as(account, pool, waiting.id)
        existing = self._tickets.setdefault(pool, {}).get(waiting.id)
        if existing is not None and not existing.paired.done():
            existing.paired.cancel()  # The older socket of this ticket stops waiting.
        self._tickets[pool][waiting.id] = held
        self._wake.set()  # Match now rather than at the next tick.
        return held

    async def cancel(self, held: Ticket) -> bool:
        """Leave the pool; False when too late (paired already: that answer stands)."""
        left = await self.store.cancel(held.pool, held.waiting.id)
        if left:
            self.forget(held)
        return left

    def forget(self, held: Ticket) -> None:
        """The socket is gone: stop touching its entry, which then leaves the pool
        once unseen for the grace (unless the ticket comes back meanwhile)."""
        tickets = self._tickets.get(held.pool, {})
        if tickets.get(held.waiting.id) is held:
            del tickets[held.waiting.id]
        if not held.paired.done():
            held.paired.cancel()
        elif not held.paired.cancelled():
            # Its socket may be gone before reading the outcome, and asyncio logs an
            # exception nobody retrieved, so it is retrieved here.
            held.paired.exception()

    def waiting_here(self) -> int:
        return sum(len(t) for t in self._tickets.values())

    async def fill(self, held: Ticket) -> bool:
        """The player accepts that bots fill the seats of a table of three or four
        nobody else took (``group_off``); False if it is in the pool no more. A pool
        of two has no such table: ``bad_request``."""
        if held.pool.players <= 2:
            raise bad_request("pairing.fill_two")
        waiting = msgspec.structs.replace(held.waiting, fill=True)
        if not await self.store.update(held.pool, waiting):
            return False
        held.waiting = waiting
        self._wake.set()
        return True

    # ------------------------------------------------------------------ rounds

    async def run(self) -> None:
        """Tick until cancelled; a failed round (Redis out of reach, or a fault) is
        logged and the next one tried."""
        while True:
            try:
                await self.tick(self.clock_ms())
            except RedisError as e:
                log.warning("pairing tick failed: %s", e)
            except Exception:  # A fault of ours must not stop every pool's rounds.
                log.exception("pairing tick failed")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), TICK_S)

    async def tick(self, now_ms: int) -> None:
        """One round for every pool where a socket of this process waits."""
        for pool in [p for p, t in self._tickets.items() if t]:
            await self._touch(pool, now_ms)
            if self._tickets.get(pool) and await self.store.lock(pool):
                try:
                    await self.match(pool, now_ms)
                finally:
                    await self.store.unlock(pool)

    async def _touch(self, pool: Pool, now_ms: int) -> None:
        tickets = list(self._tickets.get(pool, {}).values())
        outcomes = await self.store.touch(pool, now_ms, [t.waiting.id for t in tickets])
        for held, outcome in zip(tickets, outcomes, strict=True):
            if isinstance(outcome, Paired):
                if not held.paired.done():
                    held.paired.set_result(outcome)
                self.forget(held)
            elif outcome == LEFT:
                if not held.paired.done():
                    held.paired.set_exception(waiting_elsewhere())
                self.forget(held)
            elif outcome is True:
                held.missing_since = None
            elif held.missing_since is None:
                held.missing_since = now_ms
            elif now_ms - held.missing_since >= REQUEUE_MS:
                # A process claimed it and died before making the game, so it goes back in.
                log.warning(
                    "pairing entry %s lost its game; back in %s", held.waiting.id, pool.name
                )
                await self.store.enqueue(pool, held.waiting, now_ms)
                held.missing_since = None

    async def match(self, pool: Pool, now_ms: int) -> list[str]:
        """One matching round of ``pool`` at ``now_ms``: the games made."""
        _, entries = await self.store.entries(pool)
        plan = group_off(now_ms, entries, pool.players)
        if not plan.tables() and not plan.gone:
            return []
        claimed = await self.store.claim(pool, now_ms, plan)
        room = asyncio.Semaphore(GAMES_AT_ONCE)

        async def start(table: tuple[Waiting, ...]) -> str | None:
            async with room:
                try:
                    return await self._start(pool, table)
                except Exception:
                    log.exception("pairing could not make %s's game", pool.name)
                    return None

        made = await asyncio.gather(*(start(table) for table in claimed))
        return [game for game in made if game is not None]

    async def _start(self, pool: Pool, table: tuple[Waiting, ...]) -> str:
        """The game of a claimed table, every seat taken: its players in an order drawn
        at random, then bots in the seats left (a table they fill). A table bots fill
        is casual, whatever its pool."""
        players = list(table)
        secrets.SystemRandom().shuffle(players)
        rated = pool.rated and len(players) == pool.players
        clock = TimeControl(initial=pool.initial_s, increment=pool.increment_s)
        summary = await self.service.create_game(pool.variant, pool.players, None, clock, rated)
        game_id: str = summary["id"]
        seats: list[Opponent] = []
        seat_of: dict[str, int] = {}
        for player in players:
            joined = await self.service.join(
                game_id, player.name, account=player.account, digest=player.digest
            )
            seat_of[player.id] = joined.seat
            seats.append(Opponent(player.name, player.rating if rated else None))
        for _ in range(pool.players - len(players)):
            await self.service.join(game_id, bot_name(FILL_BOT), FILL_BOT)
            seats.append(Opponent(bot_name(FILL_BOT), None, FILL_BOT))
        for player in players:
            seat = seat_of[player.id]
            others = [o for i, o in enumerate(seats) if i != seat]
            first = others[0]
            paired = Paired(game_id, seat, first.name, first.rating, rated, others)
            await self.store.tell(pool, player.id, paired)
            held = self._tickets.get(pool, {}).get(player.id)
            if held is not None:  # Its socket is here, so it is told now, not at the next touch.
                if not held.paired.done():
                    held.paired.set_result(paired)
                self.forget(held)
        return game_id
