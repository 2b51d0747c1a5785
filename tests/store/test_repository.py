"""GameRepository's contract, on one Redis and on a Redis Cluster: ``get`` folds a game
from the store and caches it, fast-forwards a cached game with what another process
appended, ``forget`` drops it, and an id that names no game is ``not_found``."""

from __future__ import annotations

import asyncio

import pytest

from events.game import VARIANTS
from server.common.errors import ServiceError
from server.games.projection import Game
from server.games.repository import GameRepository, is_game_id, new_game_id
from server.games.service import GameService
from server.store.event_store import EventStore


async def open_game(store: EventStore) -> str:
    """An open two-player game made by a service of its own, as another process would."""
    return str((await GameService(store).create_game("classic", 2, seed=7))["id"])


async def test_get_folds_a_game_from_the_store_and_caches_it(store: EventStore) -> None:
    """A game not cached is folded from its log and meta; the next get is the cached object."""
    game_id = await open_game(store)
    repository = GameRepository(store)
    assert repository.cached(game_id) is None
    lock = repository.lock(game_id)
    async with lock:
        game = await repository.get(game_id, lock)
    assert (game.id, game.variant.name, game.version, game.seed) == (game_id, "classic", 1, 7)
    assert game.status == "open" and not game.archived
    assert repository.cached(game_id) is game
    assert repository.cached_games() == 1
    async with lock:
        assert await repository.get(game_id, lock) is game


async def test_a_second_get_fast_forwards_with_what_another_process_appended(
    store: EventStore,
) -> None:
    """Events another process appended are folded into the cached game by a fresh get only."""
    game_id = await open_game(store)
    repository = GameRepository(store)
    lock = repository.lock(game_id)
    async with lock:
        game = await repository.get(game_id, lock)
    other = GameService(store)  # another process: its own repository and cache
    await other.join(game_id, "Ana")
    await other.join(game_id, "Bo")
    async with lock:
        stale = await repository.get(game_id, lock, fresh=False)
        assert stale is game and game.version == 1
        fresh = await repository.get(game_id, lock)
    assert fresh is game
    assert game.version == await store.version(game_id) == 4
    assert game.status == "live"
    assert [p.name for p in game.state.players] == ["Ana", "Bo"]
    assert not await repository.catch_up(game)  # nothing more since


async def test_seats_reads_the_seats_another_process_wrote(store: EventStore) -> None:
    """A seat taken elsewhere is unknown to the cached game until its seats are read again."""
    game_id = await open_game(store)
    repository = GameRepository(store)
    lock = repository.lock(game_id)
    async with lock:
        game = await repository.get(game_id, lock)
    token = (await GameService(store).join(game_id, "Ana")).token
    assert token is not None
    async with lock:
        game = await repository.get(game_id, lock)
        assert game.seat_of(token) is None
        await repository.seats(game)
    assert game.seat_of(token) == 0


async def test_forget_drops_the_game_and_the_next_get_folds_it_again(store: EventStore) -> None:
    """After forget the game is not cached; get folds a new projection equal to the old one."""
    game_id = await open_game(store)
    repository = GameRepository(store)
    lock = repository.lock(game_id)
    async with lock:
        game = await repository.get(game_id, lock)
    repository.forget(game_id)
    assert repository.cached(game_id) is None and repository.cached_games() == 0
    repository.forget(game_id)  # forgetting a game not cached is harmless
    async with lock:
        again = await repository.get(game_id, lock)
    assert again is not game
    assert (again.version, again.seed, again.state) == (game.version, game.seed, game.state)
    repository.drop_cache()
    assert repository.cached(game_id) is None


async def test_a_game_cached_under_another_lock_is_folded_again(store: EventStore) -> None:
    """A cached game is only handed to the holder of the lock it was loaded under."""
    game_id = await open_game(store)
    repository = GameRepository(store)
    lock = repository.lock(game_id)
    async with lock:
        game = await repository.get(game_id, lock)
    other = asyncio.Lock()
    async with other:
        again = await repository.get(game_id, other)
    assert again is not game and again.lock is other
    assert repository.cached(game_id) is again


@pytest.mark.parametrize("game_id", ["nope", "a" * 64, "", "a b", "{g}", "a" * 65])
async def test_an_id_naming_no_game_is_not_found(store: EventStore, game_id: str) -> None:
    """Unknown ids and ids no game can have are not_found, and nothing is cached."""
    repository = GameRepository(store)
    lock = repository.lock(game_id)
    async with lock:
        with pytest.raises(ServiceError) as missing:
            await repository.get(game_id, lock)
    assert missing.value.code == "not_found"
    assert repository.cached_games() == 0


def test_new_ids_are_game_ids_and_differ() -> None:
    """A new id is a valid game id, and two new ids differ."""
    first, second = new_game_id(), new_game_id()
    assert is_game_id(first) and is_game_id(second) and first != second
    assert not is_game_id("a/b") and not is_game_id("")


async def test_the_cache_keeps_the_most_recently_used_games(store: EventStore) -> None:
    """Past its size the cache drops the least recently used game."""
    repository = GameRepository(store, cache_games=2)
    games = [make_game(repository, game_id) for game_id in ("g1", "g2", "g3")]
    repository.remember(games[0])
    repository.remember(games[1])
    repository.remember(games[0])  # used again: g2 is now the oldest
    repository.remember(games[2])
    assert [repository.cached(g) is not None for g in ("g1", "g2", "g3")] == [True, False, True]


def make_game(repository: GameRepository, game_id: str) -> Game:
    """An empty classic game's projection, never written to the store."""
    return Game(game_id, VARIANTS["classic"], 1, 0, repository.lock(game_id))


async def test_a_game_over_read_without_keep_over_is_not_cached(store: EventStore) -> None:
    """keep_over=False leaves a game over out of the cache, unless it was cached already."""
    now = [1_700_000_000_000]
    service = GameService(store, clock_ms=lambda: now[0])
    game_id = str((await service.create_game("classic", 2, seed=7))["id"])
    now[0] += 30 * 86_400_000  # long past an open game's expiry
    assert await service.expire(game_id) is not None
    repository = GameRepository(store)
    lock = repository.lock(game_id)
    async with lock:
        game = await repository.get(game_id, lock, keep_over=False)
    assert game.status == "aborted" and repository.cached(game_id) is None
    async with lock:
        kept = await repository.get(game_id, lock)
        assert await repository.get(game_id, lock, keep_over=False) is kept
    assert repository.cached(game_id) is kept
