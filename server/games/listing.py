"""The games as the lobby lists them (server/games/lobby.py): each game's entry,
written again when something a list shows changes, and the lobby kept whole at
start-up and by rebuilds (server/games/lobby_keeper.py).

The lobby is an index, never the truth: an entry that could not be written is
written at the next change of its game or the next start, from the game's log.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from redis.exceptions import RedisError

from server.common.errors import ServiceError
from server.games.lobby import Lobby, LobbyEntry, Status
from server.games.lobby_keeper import LobbyKeeper
from server.games.projection import OVER, Game
from server.games.public_records import summary_of
from server.games.repository import GameRepository

__all__ = ["GameListing", "unlisted"]

log = logging.getLogger(__name__)


class GameListing:
    """The lobby's entries of the games of a ``GameRepository`` (no lobby: none).

    ``heal(game)`` is called for every game a start-up refresh or a rebuild reads, its
    lock held: the service writes its deadline and its archive's note again there.
    """

    def __init__(
        self,
        lobby: Lobby | None,
        repository: GameRepository,
        heal: Callable[[Game], Awaitable[None]],
    ) -> None:
        self.lobby = lobby
        self.repository = repository
        self._heal = heal
        store = repository.store
        self.keeper = (
            None
            if lobby is None
            else LobbyKeeper(lobby, store.game_ids, self.lobby_entry, store.exists)
        )

    async def index(self, game: Game) -> None:
        """Update the game's lobby entry when something a list shows has changed (the
        game's lock held).

        Lists show the status, the seats and their points, the result: most moves
        change none of these, and skipping them saves a round trip per command.
        """
        if self.lobby is None or unlisted(game):
            return
        shown = _listed(game)
        if shown == game.listed:
            return
        try:
            await self.lobby.update(self.entry(game))
        except RedisError:
            # The event is appended and stays the truth; the index heals at the next
            # update of this game or the next start.
            log.exception("lobby update failed for %s at %d", game.id, game.version)
            return
        game.listed = shown

    def entry(self, game: Game) -> LobbyEntry:
        """The game's lobby entry as it is now."""
        status: Status = game.state.status
        # A finished game's entry changes once more, when its rematch is made: its
        # revision (what the index compares) counts that as a half version.
        revision = game.version * 2 + (game.rematch is not None)
        ended_ms = game.log[-1].at_ms if status in OVER else None
        return LobbyEntry(game.id, status, game.created_ms, revision, summary_of(game), ended_ms)

    async def lobby_entry(self, game_id: str) -> LobbyEntry | None:
        """A game's lobby entry folded from its keys (None: not listed, or not a game
        this server reads), healed as it goes (``heal``). A game over read for it is
        not kept in the cache unless it was there (a rebuild reads them all)."""
        lock = self.repository.lock(game_id)
        async with lock:
            try:
                game = await self.repository.get(game_id, lock, keep_over=False)
            except ServiceError:
                return None
            except (msgspec.DecodeError, msgspec.ValidationError, KeyError, ValueError):
                # A stream this server can't read (another program's, or a newer
                # format) stays out of the lobby; it must not keep the server down.
                log.exception("game %s can't be loaded; left out of the lobby", game_id)
                return None
            await self._heal(game)
            return None if unlisted(game) else self.entry(game)

    async def list_games(self, status: Status | None, limit: int) -> list[dict[str, Any]]:
        """The lobby: newest first, of one status or of all."""
        if self.lobby is None:
            return []
        if status is None:
            return await self.lobby.list_all(limit)
        return await self.lobby.newest(status, limit)

    async def start(self) -> None:
        """Keep the lobby whole, in the background: its keys are trusted when built,
        and only the open and live games refreshed; missing, they are rebuilt from a
        SCAN of every game. Returns at once: the server is healthy meanwhile
        (``ready`` waits for it)."""
        if self.keeper is not None:
            self.keeper.start()

    async def ready(self) -> None:
        """Wait for the start-up's refresh or rebuild of the lobby."""
        if self.keeper is not None:
            await self.keeper.ready()

    async def rebuilding(self) -> bool:
        """Whether the lobby is being rebuilt (its lists may be missing games)."""
        return self.keeper is not None and await self.keeper.rebuilding()

    async def aclose(self) -> None:
        """Stop the lobby's background work."""
        if self.keeper is not None:
            await self.keeper.aclose()


def _listed(game: Game) -> tuple[Any, ...]:
    """What the lobby lists of a game, in short: a change of it needs an update.

    Its status (the result comes with "finished"), its seats and their points: a
    seat's name and bot are set when it is taken, so the number of seats stands for
    them (checked on every command, so kept cheap)."""
    state = game.state
    return (state.status, [p.points for p in state.players], game.rematch)


def unlisted(game: Game) -> bool:
    """A rematch waiting for its players is theirs alone: not listed as open."""
    return game.rematch_of is not None and game.status == "open"
