"""The game repository: every game's projection, read through one object.

``get`` has the shape of eventsourcing's ``Repository.get``: a game cached in this
process is taken from the cache and fast-forwarded with the events appended after its
version (by any process), and a game not cached is folded from its whole log in one
round trip (``EventStore.load``) and cached. The cache is a bounded LRU; a projection
is thrown away freely (principle 5), because the log is the truth.

Within a process a game is changed only under its ``asyncio.Lock`` (``lock``): a
cached ``Game`` carries the lock it was loaded under, and ``get`` loads the game again
when the lock given is another one. Between processes the store's optimistic append
is what orders writes; the repository only reads.

Its only I/O is the event store: it holds no Redis client of its own.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import weakref
from collections import OrderedDict
from typing import Final

import msgspec

from events.game import VARIANTS
from server.common.errors import not_found
from server.games.projection import OVER, Game, GapError, LoggedEvent, decode_created
from server.store import archive_format as archives
from server.store.event_store import EventStore

__all__ = [
    "TOURNAMENT_ID_MAX",
    "GameRepository",
    "is_game_id",
    "new_game_id",
    "tournament_game_id",
    "tournament_of_game",
]

_ID_ALPHABET: Final = "abcdefghjkmnpqrstuvwxyz23456789"  # without 0, o, 1, l and i
_ID_LENGTH: Final = 10
_MAX_ID: Final = 64
_GAME_ID: Final = re.compile(rf"[A-Za-z0-9_-]{{1,{_MAX_ID}}}")


def is_game_id(game_id: str) -> bool:
    """Whether a string can name a game (ASCII letters, digits, ``-`` and ``_``)."""
    return _GAME_ID.fullmatch(game_id) is not None


def new_game_id() -> str:
    """A fresh random game id, easy to read aloud and to type."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(_ID_LENGTH))


TOURNAMENT_ID_MAX: Final = 40
"""A tournament id is 1 to this many letters, digits and ``_`` (server/tournaments/)."""
_TOURNAMENT_GAME: Final = re.compile(
    rf"([A-Za-z0-9_]{{1,{TOURNAMENT_ID_MAX}}})-(\d{{1,9}})-(\d{{1,4}})"
)


def tournament_game_id(tournament_id: str, version: int, index: int) -> str:
    """The id of a tournament's game: the game of pair ``index`` of the tournament's
    ``PlayersPaired`` at ``version``. Every process names a pair's game the same, so it
    is created once (server/tournaments/games.py); a random id (``new_game_id``) never
    has this form, so the id alone says that a game is a tournament's, and whose."""
    return f"{tournament_id}-{version}-{index}"


def tournament_of_game(game_id: str) -> tuple[str, int, int] | None:
    """The tournament, version and pair index a game id was made of, or None."""
    match = _TOURNAMENT_GAME.fullmatch(game_id)
    if match is None:
        return None
    return match[1], int(match[2]), int(match[3])


class GameRepository:
    """Games' projections over an ``EventStore``: cached, and caught up on demand."""

    def __init__(self, store: EventStore, *, cache_games: int = 2000) -> None:
        self.store = store
        self._cache: OrderedDict[str, Game] = OrderedDict()
        self._cache_games = max(1, cache_games)
        # A lock lives as long as someone holds it or its game is cached (a Game
        # keeps its lock), so the table never outgrows the cache and the waiters.
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, game_id: str) -> asyncio.Lock:
        """The lock under which this process reads and changes a game."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    async def get(
        self, game_id: str, lock: asyncio.Lock, *, fresh: bool = True, keep_over: bool = True
    ) -> Game:
        """The game's projection, to use with ``lock`` held. Taken from the cache and,
        when ``fresh``, fast-forwarded with what any process appended since; else
        folded from the store and cached, except a game over when not ``keep_over``
        (the rebuilds and the archiver read every old game once: they must not push
        the games being played out of the cache). Raises ``not_found`` for an id that
        is malformed or names no game this server plays."""
        if not is_game_id(game_id):
            raise not_found("game.not_found", game=game_id)
        game = self._cache.get(game_id)
        if game is None or game.lock is not lock:
            loaded = await self._load(game_id, lock)
            if keep_over or game is not None or loaded.status not in OVER:
                self.remember(loaded)
            game = loaded
        else:
            self._cache.move_to_end(game_id)
            if fresh:
                await self.catch_up(game)
        return game

    async def _load(self, game_id: str, lock: asyncio.Lock) -> Game:
        loaded = await self.store.load(game_id)
        if not loaded.events:
            raise not_found("game.not_found", game=game_id)
        created = decode_created(loaded.events[0].data)
        rules = VARIANTS.get(created.variant)
        if rules is None:
            raise not_found("game.other_variant", game=game_id, variant=created.variant)
        meta = loaded.meta
        # An archived game draws nothing more: its seed is gone, and never drawn again.
        seed = 0 if loaded.archived else await self._seed(game_id, meta)
        created_ms = int(meta.get("created_at", loaded.events[0].at_ms))
        game = Game(game_id, rules, seed, created_ms, lock, archived=loaded.archived)
        for event in loaded.events:
            game.apply(event)
        game.seat_digests = loaded.digests
        if "rematch" in meta:
            game.rematch = meta["rematch"].decode()
        if "rematch_of" in meta:
            game.rematch_of = meta["rematch_of"].decode()
        return game

    async def _seed(self, game_id: str, meta: dict[str, bytes]) -> int:
        if "seed" in meta:
            return int(meta["seed"])
        # A process died between the game's first append and its meta: the seed is
        # drawn now, once for every process, before anything was drawn from it.
        return await self.store.ensure_seed(game_id, secrets.randbits(63))

    async def catch_up(self, game: Game) -> bool:
        """Fold the events appended since the game's version; True if there were any.
        A game over has none to come, so nothing is read. A projection that can't
        take the next event (a gap, bytes it can't decode) is dropped from the cache,
        so the next ``get`` folds the whole log again."""
        if game.status in OVER:
            return False
        stored = await self.store.read(game.id, after=game.version)
        try:
            for event in stored:
                game.apply(event)
        except (GapError, msgspec.DecodeError):
            self.forget(game.id)
            raise
        return bool(stored)

    def fold_appended(self, game: Game, logged: list[LoggedEvent], version: int) -> None:
        """Fold events this process just appended into the game's projection, which
        must then be at ``version``. A projection half folded, or at another version,
        is dropped from the cache, so that no command is decided on it."""
        try:
            for entry in logged:
                game.apply_event(entry.event, entry.at_ms)
        except BaseException:
            self.forget(game.id)
            raise
        if game.version != version:  # pragma: no cover - a bug, not a race
            self.forget(game.id)
            raise RuntimeError(f"{game.id}: projection at {game.version}, log at {version}")

    async def seats(self, game: Game) -> None:
        """Read the game's seat digests again (another process may have seated a
        player). An archived game's seats are final, so they are not read."""
        if game.archived:
            return
        seats = await self.store.seats(game.id)
        if not seats and game.status in OVER:
            # Archived by another process since it was cached: the digests are there.
            value = await self.store.archived(game.id)
            if value is not None:
                game.seat_digests = archives.decode(value).digests
                game.archived = True
                return
        game.seat_digests = seats

    def cached(self, game_id: str) -> Game | None:
        """The game's projection if this process holds it, as it is (not caught up)."""
        return self._cache.get(game_id)

    def remember(self, game: Game) -> None:
        """Cache a projection as the most recently used; the least recently used
        ones beyond the cache's size are dropped."""
        self._cache[game.id] = game
        self._cache.move_to_end(game.id)
        while len(self._cache) > self._cache_games:
            self._cache.popitem(last=False)

    def forget(self, game_id: str) -> None:
        """Drop a game's projection (the next ``get`` folds it from the store)."""
        self._cache.pop(game_id, None)

    def cached_games(self) -> int:
        """How many projections are held in memory."""
        return len(self._cache)

    def drop_cache(self) -> None:
        """Forget every projection (they are folded from the store when needed)."""
        self._cache.clear()
