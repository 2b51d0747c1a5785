"""Who archives finished games, and when (server/store/archive_format.py is what an archive is).

A game that ends (finished or aborted) is noted in one sorted set of its own hash
tag, ``{archive}:due``: game id -> when to archive it (ms since the epoch), its end
plus ``SPLENDOR_ARCHIVE_AFTER`` (so a late spectator and a rematch see the live
path meanwhile). The service notes it when it appends the end (``ServiceHooks.archives``),
before the lobby update, and again whenever the lobby's start-up refresh or rebuild
reads a game over (``ZADD NX``: a note keeps its time), so a process dying between the
two is healed at the next start; an imported game is noted when it is written.

Every process runs an ``Archiver``: every ``POLL_S`` it takes the games now due, in
one script that also puts each one's time ``LEASE_MS`` later (so other processes
leave it alone meanwhile, and take it up again if this one dies), archives each
through ``archive_game`` and drops it from the set (also a game it can't read, which
stays as it is; a game Redis failed on stays, taken again when its lease ends). The
games it reads are not kept in the repository's cache. Two processes archiving one
game at once archive it once: the swap is one script that does nothing when the
archive is there (``EventStore.archive``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Final

from redis.exceptions import RedisError

from server.common.background import Sleeper, running
from server.common.errors import ServiceError
from server.games.projection import OVER, Game
from server.games.rematch_plan import decode_plan
from server.games.service import GameService
from server.store import archive_format as archives
from server.store.clients import RedisClient
from server.store.event_store import EventStore
from server.store.fast_paths import command_path
from server.store.keys import (
    ARCHIVE_DUE_KEY,
    ARCHIVED_SIGNAL,
    presence_key,
    seats_key,
    signals_channel,
)
from server.store.public_path import Script

__all__ = ["ArchiveQueue", "Archiver", "archive_game", "running_archiver"]

log = logging.getLogger(__name__)

POLL_S: Final = 1.0  # an archive is due to the second at best: nobody waits for it
LEASE_MS: Final = 60_000  # a taken game is due again this long after, if not done
BATCH: Final = 32  # games archived at once

# KEYS[1] the due set. ARGV: now ms, batch, the lease's end ms. The ids due (at most
# batch), each one's time moved to the lease's end.
_TAKE_LUA: Final = Script("""
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for i = 1, #due do redis.call('ZADD', KEYS[1], 'XX', ARGV[3], due[i]) end
return due
""")
_KEYS: Final = (ARCHIVE_DUE_KEY.encode(),)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


async def archive_game(service: GameService, game_id: str) -> bool:
    """Archive a game over (server/store/archive_format.py): its stream, commands,
    seats and presence give way to one compact value, in one script, and its
    accounts no longer list its seats. True if this call did it; False if the game is
    not over or was archived already (by any process). Raises ``not_found`` for an
    unknown game."""
    repository, store = service.repository, service.store
    lock = repository.lock(game_id)
    async with lock:
        game = await repository.get(game_id, lock, keep_over=False)
        if game.status not in OVER or game.archived:
            return False
        # The archive holds the bytes the stream holds, not the events encoded again,
        # and the seats as Redis has them (a seat taken by another process is there).
        stored = await store.read(game_id)
        await repository.seats(game)
        if game.archived:  # by another process, since this one cached the game
            return False
        value = archives.encode(
            game.variant.name, [(e.at_ms, e.data) for e in stored], game.seat_digests
        )
        accounts = await _seated_accounts(store, game)  # the plan's is dropped below
        done = await store.archive(
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
        # Its seats are final: its accounts no longer list them (server/games/seat_tokens.py).
        try:
            await service.seat_tokens.forget(accounts, game_id)
        except RedisError:  # left listed: a revocation finds no token there, harmlessly
            log.exception("seats of archived %s not unlisted", game_id)
    return done == 1


async def _seated_accounts(store: EventStore, game: Game) -> set[str]:
    """The accounts seated in a game, and those a rematch's plan seats (a seat called
    and not taken is listed too)."""
    accounts = {p.account for p in game.state.players if p.account}
    if game.rematch_of is not None:
        raw = await store.meta_field(game.id, "seats")
        if raw is not None:
            accounts.update(p.account for p in decode_plan(raw) if p.account)
    return accounts


class ArchiveQueue:
    """The games to archive and when (``ServiceHooks.archives``)."""

    def __init__(self, client: RedisClient, *, after_s: float) -> None:
        self._r = client
        self._direct = command_path(client)
        self.after_ms = round(after_s * 1000)

    async def add(self, game_id: str, ended_ms: int) -> None:
        """Archive the game ``after_s`` after ``ended_ms`` (a noted game keeps its time)."""
        await self._r.zadd(ARCHIVE_DUE_KEY, {game_id: ended_ms + self.after_ms}, nx=True)

    async def take(self, now_ms: int, limit: int = BATCH, lease_ms: int = LEASE_MS) -> list[str]:
        """The games due at ``now_ms`` (at most ``limit``), leased for ``lease_ms``."""
        args = (b"%d" % now_ms, b"%d" % limit, b"%d" % (now_ms + lease_ms))
        due = await self._direct.run(_TAKE_LUA, _KEYS, args)
        return [g.decode() if isinstance(g, bytes) else str(g) for g in due]

    async def done(self, game_id: str) -> None:
        await self._r.zrem(ARCHIVE_DUE_KEY, game_id)

    async def length(self) -> int:
        """How many games are noted (metrics)."""
        return int(await self._r.zcard(ARCHIVE_DUE_KEY))

    async def all(self) -> dict[str, int]:
        """Every game noted and its time (tests and tools)."""
        pairs: list[Any] = await self._r.zrange(ARCHIVE_DUE_KEY, 0, -1, withscores=True)
        return {(g.decode() if isinstance(g, bytes) else g): int(s) for g, s in pairs}


class Archiver:
    """Archives the games of an ``ArchiveQueue`` as they fall due, until closed.
    Several processes may run one each: each game is archived once."""

    def __init__(
        self,
        service: GameService,
        queue: ArchiveQueue,
        *,
        poll_s: float = POLL_S,
        clock_ms: Callable[[], int] = _now_ms,
    ) -> None:
        self.service = service
        self.queue = queue
        self._poll_s = poll_s
        self._clock_ms = clock_ms
        self._closed = False
        self._sleeper = Sleeper()
        self.archived = 0  # games this archiver swapped (tests, logs)

    def close(self) -> None:
        self._closed = True
        self._sleeper.wake()

    async def run(self) -> None:
        while not self._closed:
            try:
                if await self.tick() < BATCH:
                    await self._sleeper.sleep(self._poll_s)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("archiver tick failed; retrying")
                await self._sleeper.sleep(max(self._poll_s, 1.0))

    async def tick(self) -> int:
        """Archive the games due now; returns how many were taken."""
        due = await self.queue.take(self._clock_ms())
        for game_id in due:
            await self._archive(game_id)
        return len(due)

    async def _archive(self, game_id: str) -> None:
        try:
            if await archive_game(self.service, game_id):
                self.archived += 1
        except ServiceError as refusal:  # no such game (any more): nothing to archive
            log.warning("archive of %s dropped: %s", game_id, refusal)
        except (RedisError, OSError):
            # Left in the set: taken again when its lease ends.
            log.exception("archive of %s failed; again in a minute", game_id)
            return
        except Exception:
            # A game this server can't read or archive: left as it is, and not retried.
            log.exception("archive of %s failed; the game stays as it is", game_id)
        await self.queue.done(game_id)


@asynccontextmanager
async def running_archiver(service: GameService, queue: ArchiveQueue) -> AsyncIterator[Archiver]:
    """This process's archiver of the games ``queue`` (the service's archive
    schedule) holds, for as long as the context lasts."""
    archiver = Archiver(service, queue)
    async with running(archiver):
        yield archiver
