"""The ratings read model on a real Redis: counted once, races, rebuild, leaderboard."""

from __future__ import annotations

import asyncio
import random

import redis.asyncio as aioredis

from server.ratings import Ratings, counted_key
from server.skill import RatedGame, RatingBook
from tests.ratings.helpers import ratings_state


def random_games(count: int, seed: int) -> list[RatedGame]:
    """Rated classic games among 6 players and 2 bots, 2-4 seats, ties now and then."""
    rng = random.Random(seed)
    pool = ["ada", "bob", "cy", "dee", "eve", "fox", "bot:greedy", "bot:random"]
    games = []
    for n in range(count):
        players = tuple(rng.sample(pool, rng.randint(2, 4)))
        ranks = tuple(sorted(rng.choice([1, 1, 2, 3]) for _ in players))
        games.append(RatedGame(f"g{n:04d}", "classic", 1000 + n, players, players, ranks))
    return games


async def test_a_game_counts_once(redis_client: aioredis.Redis) -> None:
    """Counting one game twice writes it once: the second call says it was counted."""
    ratings = Ratings(redis_client)
    game = RatedGame("g1", "duel", 5, ("ada", "bob"), ("Ada", "Bob"), (1, 2))
    assert await ratings.count(game)
    assert not await ratings.count(game)
    ada = await ratings.skill("duel", "ada")
    assert ada is not None and ada.games == 1 and ada.rating > 1500
    assert len(await ratings.history("duel", "ada")) == 1
    assert await ratings.counted("duel") == {"g1": 5}
    assert await ratings.skill("classic", "ada") is None


async def test_racing_updates_each_count_once(
    redis_server: str, redis_client: aioredis.Redis
) -> None:
    """Games sharing players counted at once on 8 connections, each twice: every game
    counted once, and each player's games and history agree with its rating."""
    games = random_games(60, seed=3)
    clients = [aioredis.from_url(redis_server) for _ in range(8)]
    try:
        writers = [Ratings(c) for c in clients]
        results = await asyncio.gather(
            *(writers[i % 8].count(g) for i, g in enumerate(games + games))
        )
    finally:
        for c in clients:
            await c.aclose()
    assert sum(results) == len(games)
    ratings = Ratings(redis_client)
    assert len(await ratings.counted("classic")) == len(games)
    for player in {p for g in games for p in g.players}:
        skill = await ratings.skill("classic", player)
        history = await ratings.history("classic", player)
        assert skill is not None and skill.games == len(history)
        assert skill.games == sum(player in g.players for g in games)
        assert skill.rating == history[-1].rating == 1500 + sum(p.delta for p in history)


async def test_rebuild_writes_what_live_counting_wrote(redis_client: aioredis.Redis) -> None:
    """Games counted one by one in end order, then rebuilt from the same games: every
    key and value of the ratings is the same."""
    games = random_games(120, seed=7)
    ratings = Ratings(redis_client)
    for game in games:
        assert await ratings.count(game)
    live = await ratings_state(redis_client)
    await redis_client.hset(counted_key("classic"), "stray", 1)  # the rebuild drops it
    counts = await ratings.rebuild(reversed(games))  # given in any order: sorted by end
    assert counts == {"classic": len(games), "duel": 0}
    assert await ratings_state(redis_client) == live


async def test_leaderboard_best_first_with_names(redis_client: aioredis.Redis) -> None:
    """The leaderboard lists players by displayed rating, best first, with their names."""
    ratings = Ratings(redis_client)
    book = RatingBook("duel")
    for n in range(5):
        game = RatedGame(f"d{n}", "duel", n, ("ada", "bot:greedy"), ("Ada", "Greedy"), (1, 2))
        book.count(game)
        await ratings.count(game)
    rows = await ratings.leaderboard("duel", 10)
    assert [(pid, name) for pid, name, _ in rows] == [("ada", "Ada"), ("bot:greedy", "Greedy")]
    assert [s for _, _, s in rows] == [book.skills["ada"], book.skills["bot:greedy"]]
    assert len(await ratings.leaderboard("duel", 1)) == 1


async def test_history_gives_the_last_points_when_asked(redis_client: aioredis.Redis) -> None:
    """history(last=N) gives the N latest points, oldest first (the profile's graph)."""
    ratings = Ratings(redis_client)
    for n in range(5):
        await ratings.count(RatedGame(f"h{n}", "duel", n, ("ada", "bob"), ("Ada", "Bob"), (1, 2)))
    assert [p.game for p in await ratings.history("duel", "ada", last=2)] == ["h3", "h4"]
    assert len(await ratings.history("duel", "ada")) == 5
