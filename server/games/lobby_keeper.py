"""Keeping the lobby whole across restarts, without reading every game at start-up.

A process that starts trusts the lobby's keys when ``{lobby}:built`` is there: before
it serves it reads that one key. Then, in the background, it refreshes the games the
lobby lists as open or live (a process may have died between an append and its lobby
update; the refresh also writes their deadlines again, server/games/timekeeper.py): those
are the games being played, however many were played before. A finished game is
never read again at start-up: it never changes.

When the keys are missing (a new or flushed Redis) or on ``splendor lobby rebuild``,
the index is rebuilt from a ``SCAN`` of every game's keys (redis-py's ``scan_iter``,
which visits every primary of a cluster), in the background, one process at a time:
the first to claim ``{lobby}:rebuilding`` does it and renews its hold as it goes; the
others wait for ``{lobby}:built``, or take over if the holder dies and its hold
lapses. Meanwhile the server serves, and its lists say ``rebuilding``. Updates only
move a game forward (server/games/lobby.py), so a rebuild racing live moves, or two
rebuilds, never put back an older entry.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Final

from redis.exceptions import RedisError

from server.games.lobby import Lobby, LobbyEntry

__all__ = ["HOLD_MS", "LobbyKeeper"]

log = logging.getLogger(__name__)

HOLD_MS: Final = 30_000  # a rebuild's hold lapses this long after its holder stops renewing
RENEW_S: Final = 5.0  # how often a rebuilding process renews its hold
WAIT_S: Final = 1.0  # how often a process waiting for another's rebuild looks again
RETRY_S: Final = 1.0  # after Redis failed under the keeper
# Games a rebuild reads at once, so that their round trips (load, deadline, archive
# note, lobby update) overlap: with the app's parts, 540 games/s against 100-400 one
# at a time (1,500 games, load 4.5).
AT_ONCE: Final = 16

EntryOf = Callable[[str], Awaitable[LobbyEntry | None]]
"""A game's lobby entry, folded from its keys (None: not listed or not readable)."""


class LobbyKeeper:
    """The lobby's start-up and rebuilds for one process (``GameListing.keeper``)."""

    def __init__(
        self,
        lobby: Lobby,
        game_ids: Callable[[], Awaitable[list[str]]],
        entry_of: EntryOf,
        exists: Callable[[str], Awaitable[bool]],
        *,
        wait_s: float = WAIT_S,
    ) -> None:
        self.lobby = lobby
        self._game_ids = game_ids
        self._entry_of = entry_of
        self._exists = exists
        self._wait_s = wait_s
        self._task: asyncio.Task[None] | None = None
        self._built_seen = False

    # ------------------------------------------------------------ start-up

    def start(self) -> None:
        """Keep the lobby in a task of its own (call from the event loop)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._keep())

    async def ready(self) -> None:
        """Wait until the start-up's refresh or rebuild is done (tests, tools)."""
        if self._task is not None:
            await asyncio.shield(self._task)

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def rebuilding(self) -> bool:
        """Whether the lists may be missing games: the index is not built yet (asked of
        Redis until it is seen built once, then never again)."""
        if not self._built_seen:
            self._built_seen = await self.lobby.is_built()
        return not self._built_seen

    async def _keep(self) -> None:
        while True:
            try:
                if await self.lobby.is_built():
                    self._built_seen = True
                    count = await self.refresh_unfinished()
                    log.info("lobby trusted; %d open and live games refreshed", count)
                else:
                    await self.rebuild(unless_built=True)
                return
            except (RedisError, OSError) as e:
                log.warning("lobby start-up interrupted (%r); trying again", e)
                await asyncio.sleep(RETRY_S)

    async def refresh_unfinished(self) -> int:
        """Fold again the games listed open or live and update their entries (and
        deadlines); returns how many were indexed."""
        count = 0
        for game_id in await self.lobby.members(("open", "live")):
            if await self._index(game_id):
                count += 1
        return count

    # ------------------------------------------------------------ rebuilds

    async def rebuild(self, *, unless_built: bool = False) -> int | None:
        """Index every game found by a SCAN of the store's keys, as the one process
        rebuilding (waiting while another is); then drop the entries of games whose
        keys are gone and mark the index built. Returns how many games were indexed,
        or None when ``unless_built`` and another process built it meanwhile."""
        token = secrets.token_hex(8)
        while not await self.lobby.claim_rebuild(token, HOLD_MS):
            if unless_built and await self.lobby.is_built():
                self._built_seen = True
                return None
            await asyncio.sleep(self._wait_s)
        try:
            count = await self._rebuild_held(token)
        finally:
            with contextlib.suppress(RedisError, OSError):
                await self.lobby.release_rebuild(token)
        self._built_seen = True
        return count

    async def _rebuild_held(self, token: str) -> int:
        started = time.monotonic()
        renewed = started
        game_ids = await self._game_ids()
        log.info("lobby rebuild: %d games found", len(game_ids))
        count = 0
        for start in range(0, len(game_ids), AT_ONCE):
            batch = game_ids[start : start + AT_ONCE]
            count += sum(await asyncio.gather(*(self._index(g) for g in batch)))
            if time.monotonic() - renewed >= RENEW_S:
                renewed = time.monotonic()
                done = start + len(batch)
                log.info("lobby rebuild: %d of %d games read", done, len(game_ids))
                if not await self.lobby.renew_rebuild(token, HOLD_MS):
                    # Held past its expiry (a stall): another process may be rebuilding
                    # too, which only costs work; claim it again if it is free.
                    await self.lobby.claim_rebuild(token, HOLD_MS)
        found = set(game_ids)
        gone = [
            game_id
            for game_id in await self.lobby.indexed()
            if game_id not in found and not await self._exists(game_id)
        ]
        await self.lobby.remove(gone)
        await self.lobby.mark_built()
        log.info(
            "lobby rebuilt: %d games indexed, %d entries without a game dropped, in %.1f s",
            count,
            len(gone),
            time.monotonic() - started,
        )
        return count

    async def _index(self, game_id: str) -> bool:
        entry = await self._entry_of(game_id)
        if entry is None:
            return False
        await self.lobby.update(entry)
        return True
