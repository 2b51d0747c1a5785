"""The ratings and profiles on a real Redis Cluster: each variant's rating keys share
one slot (its hash tag), each player's profile keys another, so every script runs
there; counting races, the rebuild and the leaderboard work as on one Redis."""

from __future__ import annotations

import asyncio

from redis.asyncio.cluster import RedisCluster

from server.players.rating_model import RatedGame
from server.players.ratings import Ratings
from server.store.keys import (
    player_games_key,
    player_record_key,
    player_seats_key,
    player_summaries_key,
    ratings_board_key,
    ratings_counted_key,
    ratings_history_key,
    ratings_names_key,
    ratings_opponents_key,
    ratings_pairs_key,
    ratings_skills_key,
    ratings_uncounted_key,
)
from tests.cluster_helpers import key_slot
from tests.store.test_ratings import DAY_MS, random_games


def test_a_variants_keys_share_a_slot_and_a_players_too() -> None:
    """All of a variant's rating keys, history lists included, hash to one slot; the two
    variants to different ones; a player's profile keys to one slot."""
    slots = {}
    for variant in ("classic", "duel"):
        keys = [
            ratings_counted_key(variant),
            ratings_skills_key(variant),
            ratings_board_key(variant),
        ]
        keys += [
            ratings_names_key(variant),
            ratings_history_key(variant, "ada"),
            ratings_history_key(variant, "bot:mcts"),
        ]
        keys += [
            ratings_uncounted_key(variant),
            ratings_pairs_key(variant),
            ratings_opponents_key(variant, "ada"),
        ]
        assert len({key_slot(k) for k in keys}) == 1
        slots[variant] = key_slot(keys[0])
    assert slots["classic"] != slots["duel"]
    profile = [
        player_games_key("ada"),
        player_seats_key("ada"),
        player_record_key("ada"),
        player_summaries_key("ada"),
    ]
    assert len({key_slot(k) for k in profile}) == 1


async def test_counting_racing_and_rebuild_on_a_cluster(cluster_client: RedisCluster) -> None:
    """On a cluster: 40 games sharing players, about ten a day, some ended early,
    counted at once, each twice, are decided once each (counted, or not: early, or a
    pair's fourth of a day); the leaderboard and histories agree; a rebuild from the
    same games (in end order, as they were counted one by one here) writes the same
    skills and decisions."""
    games = random_games(40, seed=11, apart_ms=DAY_MS // 10, early=0.1)
    ratings = Ratings(cluster_client)  # type: ignore[arg-type]
    await ratings.skills("classic", ["ada"])  # the client's first connection, alone
    results = await asyncio.gather(*(ratings.count(g) for g in games + games))
    counted, refused = await ratings.counted("classic"), await ratings.uncounted("classic")
    assert sum(results) == len(counted) and len(counted) + len(refused) == len(games)
    assert sorted(set(refused.values())) == ["daily_limit", "early_end"]
    board = await ratings.leaderboard("classic", 100)
    assert [s.ordinal for _, _, s in board] == sorted(
        (s.ordinal for _, _, s in board), reverse=True
    )
    for player, _, skill in board:
        history = await ratings.history("classic", player)
        assert skill.games == len(history) and skill.rating == history[-1].rating

    await ratings.forget("classic")
    assert await ratings.counted("classic") == {}
    for game in games:  # one by one, in end order: what the rebuild folds
        await ratings.count(game)
    live = {p: s for p, _, s in await ratings.leaderboard("classic", 100)}
    decided = await ratings.counted("classic"), await ratings.uncounted("classic")
    await ratings.rebuild(
        [*reversed(games), RatedGame("d1", "duel", 1, ("a", "bot:mcts"), ("A", "B"), (1, 2))]
    )
    assert {p: s for p, _, s in await ratings.leaderboard("classic", 100)} == live
    assert (await ratings.counted("classic"), await ratings.uncounted("classic")) == decided
    assert [p for p, _, _ in await ratings.leaderboard("duel", 10)] == ["bot:mcts"]
