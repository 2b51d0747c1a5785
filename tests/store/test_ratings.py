"""The ratings read model on a real Redis: counted once, races, the daily limit of a
pair, rebuild, leaderboard."""

from __future__ import annotations

import asyncio
import random

import redis.asyncio as aioredis

from server.players.rating_model import RatedGame, RatingBook
from server.players.ratings import Ratings
from server.store.keys import ratings_counted_key, ratings_pairs_key
from tests.ratings.helpers import ratings_state

DAY_MS = 86_400_000


def random_games(
    count: int, seed: int, apart_ms: int = DAY_MS, early: float = 0.0
) -> list[RatedGame]:
    """Rated classic games among 6 players and 2 bots, 2-4 seats, ties now and then,
    ending ``apart_ms`` apart (a day by default: no pair meets its daily limit), a
    share ``early`` of them ended before two turns each."""
    rng = random.Random(seed)
    pool = ["ada", "bob", "cy", "dee", "eve", "fox", "bot:greedy", "bot:random"]
    games = []
    for n in range(count):
        players = tuple(rng.sample(pool, rng.randint(2, 4)))
        ranks = tuple(sorted(rng.choice([1, 1, 2, 3]) for _ in players))
        ended = 1000 + n * apart_ms
        short = rng.random() < early
        games.append(RatedGame(f"g{n:04d}", "classic", ended, players, players, ranks, short))
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
    """Games counted one by one in end order, about ten a day, some ended early, then
    rebuilt from the same games: every key and value of the ratings is the same, the
    games that moved nothing (early, a pair's fourth of a day) included."""
    games = random_games(120, seed=7, apart_ms=DAY_MS // 10, early=0.1)
    ratings = Ratings(redis_client)
    counted = [game for game in games if await ratings.count(game)]
    refused = await ratings.uncounted("classic")
    assert sorted(set(refused.values())) == ["daily_limit", "early_end"]
    assert len(counted) + len(refused) == len(games)
    live = await ratings_state(redis_client)
    await redis_client.hset(ratings_counted_key("classic"), "stray", 1)  # the rebuild drops it
    counts = await ratings.rebuild(reversed(games))  # given in any order: sorted by end
    assert counts == {"classic": len(counted), "duel": 0}
    assert await ratings_state(redis_client) == live


async def test_a_pairs_daily_limit_holds_when_games_race(
    redis_server: str, redis_client: aioredis.Redis
) -> None:
    """Ten Duels of Ada and Bob ending on one day, counted at once on 8 connections,
    each twice: exactly three move the ratings, the seven others are recorded as
    daily_limit, and the pair's counter for the day says 3."""
    games = [
        RatedGame(f"d{n}", "duel", 5 * DAY_MS + n, ("ada", "bob"), ("Ada", "Bob"), (1, 2))
        for n in range(10)
    ]
    clients = [aioredis.from_url(redis_server) for _ in range(8)]
    try:
        writers = [Ratings(c) for c in clients]
        results = await asyncio.gather(
            *(writers[i % 8].count(g) for i, g in enumerate(games + games))
        )
    finally:
        for c in clients:
            await c.aclose()
    assert sum(results) == 3
    ratings = Ratings(redis_client)
    counted = await ratings.counted("duel")
    assert len(counted) == 3
    assert await ratings.uncounted("duel") == {
        g.id: "daily_limit" for g in games if g.id not in counted
    }
    assert await redis_client.hgetall(ratings_pairs_key("duel")) == {b"1970-01-06 ada bob": b"3"}
    ada = await ratings.skill("duel", "ada")
    assert ada is not None and ada.games == len(await ratings.history("duel", "ada")) == 3


async def test_leaderboard_best_first_with_names(redis_client: aioredis.Redis) -> None:
    """The leaderboard lists players by displayed rating, best first, with their names:
    Ada, after 10 wins against the greedy bot and 4 accounts (one a day), and the bot
    (a bot is listed from its first game); the 4 accounts (2 or 3 games) are not."""
    ratings = Ratings(redis_client)
    book = RatingBook("duel")
    rivals = ["bot:greedy", "bo", "cy", "di", "ed"] * 2
    for n, rival in enumerate(rivals):
        game = RatedGame(
            f"d{n}", "duel", n * DAY_MS, ("ada", rival), ("Ada", rival.title()), (1, 2)
        )
        assert book.count(game) and await ratings.count(game)
    rows = await ratings.leaderboard("duel", 10)
    assert [(pid, name) for pid, name, _ in rows] == [("ada", "Ada"), ("bot:greedy", "Bot:Greedy")]
    assert [s for _, _, s in rows] == [book.skills["ada"], book.skills["bot:greedy"]]
    assert len(await ratings.leaderboard("duel", 1)) == 1
    assert sorted(book.listed_players()) == ["ada", "bot:greedy"]


async def test_an_account_is_listed_after_10_games_against_5_opponents(
    redis_client: aioredis.Redis,
) -> None:
    """Ada's 9 games against 5 opponents and Bo's 10 against 4 leave both provisional
    and off the leaderboard; Ada's 10th and Bo's game against a 5th opponent list
    them; the standing gives the opponents met."""
    ratings = Ratings(redis_client)
    ended = iter(range(0, 100 * DAY_MS, DAY_MS))

    async def play(player: str, rivals: list[str]) -> None:
        for rival in rivals:
            game = RatedGame(
                f"{player}-{next(ended)}",
                "duel",
                next(ended),
                (player, rival),
                (player, rival),
                (1, 2),
            )
            assert await ratings.count(game)

    await play("ada", ["o1", "o2", "o3", "o4", "o5", "o1", "o2", "o3", "o4"])
    await play("bo", ["o1", "o2", "o3", "o4"] * 2 + ["o1", "o2"])
    ada, bo = await ratings.standing("duel", "ada"), await ratings.standing("duel", "bo")
    assert (ada.skill and ada.skill.games, ada.opponents, ada.listed) == (9, 5, False)
    assert (bo.skill and bo.skill.games, bo.opponents, bo.listed) == (10, 4, False)
    assert await ratings.leaderboard("duel", 10) == []
    await play("ada", ["o5"])
    assert [p for p, _, _ in await ratings.leaderboard("duel", 10)] == ["ada"]
    await play("bo", ["o5"])
    assert sorted(p for p, _, _ in await ratings.leaderboard("duel", 10)) == ["ada", "bo"]
    assert (await ratings.standing("duel", "bo")).opponents == 5


async def test_history_gives_the_last_points_when_asked(redis_client: aioredis.Redis) -> None:
    """history(last=N) gives the N latest points, oldest first (the profile's graph)."""
    ratings = Ratings(redis_client)
    for n in range(5):
        game = RatedGame(f"h{n}", "duel", n * DAY_MS, ("ada", "bob"), ("Ada", "Bob"), (1, 2))
        await ratings.count(game)
    assert [p.game for p in await ratings.history("duel", "ada", last=2)] == ["h3", "h4"]
    assert len(await ratings.history("duel", "ada")) == 5
