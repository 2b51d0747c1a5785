"""Quick pairing on a real Redis: pools, claims, cancels, games made, at explicit times (server/pairing*.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from server.games.lobby import Lobby
from server.games.service import GameService
from server.players.pairing_desk import REQUEUE_MS, Desk, Ratings, Ticket, ratings_of
from server.players.pairing_pools import (
    LEFT,
    MAKING_MS,
    Paired,
    PairingStore,
    Waiting,
    entry_id,
    new_ticket,
    seat_token,
)
from server.players.pairing_rules import FRESH_MS, GRACE_MS, pair_off, pool_named
from server.players.rating_model import RatedGame
from server.players.ratings import Ratings as RatingsModel
from server.store.event_store import EventStore

CLASSIC_53 = pool_named("classic-5+3-casual")
DUEL_32 = pool_named("duel-3+2-casual")
CLASSIC_105 = pool_named("classic-10+5-casual")
assert CLASSIC_53 and DUEL_32 and CLASSIC_105


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


def ratings_table(table: dict[str, float]) -> Ratings:
    """Accounts' ratings from a table (the ratings model's own test is below)."""

    async def rating(account: str, variant: str) -> float:
        return table[account]

    return rating


@pytest.fixture
async def second_client(redis_server: str) -> AsyncIterator[aioredis.Redis]:
    """Another connection pool on the same Redis: a second server process's."""
    client = aioredis.from_url(redis_server)
    try:
        yield client
    finally:
        await client.aclose()


def desk_on(client: aioredis.Redis, clock: Clock, ratings: dict[str, float] | None = None) -> Desk:
    service = GameService(EventStore(client), Lobby(client))
    if ratings is None:
        return Desk(PairingStore(client), service, clock_ms=clock)
    return Desk(PairingStore(client), service, clock_ms=clock, ratings=ratings_table(ratings))


def result(held: Ticket) -> Paired:
    assert held.paired.done() and not held.paired.cancelled()
    return held.paired.result()


async def test_twenty_spread_players_in_pools_all_paired_closest_first(
    redis_client: aioredis.Redis,
) -> None:
    """Twenty accounts of spread ratings in three pools, matched each second, are all
    paired once, within their pool, closest first, each in a game both seats of which
    their own tokens open."""
    clock = Clock()
    ratings = {f"p{i}": 1000.0 + 83 * i + (i % 4) * 29 for i in range(20)}
    desk = desk_on(redis_client, clock, ratings)
    rated = {
        p: pool_named(p.name.replace("casual", "rated")) for p in (CLASSIC_53, DUEL_32, CLASSIC_105)
    }
    pools = [rated[CLASSIC_53], rated[DUEL_32], rated[CLASSIC_105]]
    held = {}
    for i, name in enumerate(ratings):
        pool = pools[0 if i < 8 else 1 + i % 2]  # 8, 6 and 6 players
        assert pool is not None
        held[name] = await desk.join(pool, new_ticket(), name, name)
    order: list[tuple[int, float]] = []
    for second in range(40):
        clock.now += 1000 if second else 0
        before = {n for n, h in held.items() if h.paired.done()}
        await desk.tick(clock.now)
        made = sorted(
            {result(h).game for n, h in held.items() if h.paired.done() and n not in before}
        )
        for game in made:
            players = [n for n, h in held.items() if result_or_none(h) and result(h).game == game]
            assert len(players) == 2
            assert held[players[0]].pool == held[players[1]].pool
            order.append((second, abs(ratings[players[0]] - ratings[players[1]])))
    assert all(h.paired.done() for h in held.values())
    games = {result(h).game for h in held.values()}
    assert len(games) == 10 and len(order) == 10
    first_round = [d for s, d in order if s == order[0][0]]
    assert min(first_round) == min(d for _, d in order)  # the closest were made first
    for name, h in held.items():
        paired = result(h)
        assert paired.rated and paired.opponent != name
        seat = await desk.service.seats.seat_for_token(paired.game, seat_token(h.ticket))
        assert seat == paired.seat
        summary = await desk.service.reader.summary(paired.game)
        assert summary["status"] == "live" and summary["variant"] == h.pool.variant
        assert summary["clock"]["initial"] == h.pool.initial_s


def result_or_none(held: Ticket) -> Paired | None:
    return held.paired.result() if held.paired.done() and not held.paired.cancelled() else None


async def test_cancel_leaves_the_pool(redis_client: aioredis.Redis) -> None:
    """A player who cancels is out of the pool: the next one waits alone, then is paired with a newcomer."""
    clock = Clock()
    desk = desk_on(redis_client, clock)
    ana = await desk.join(CLASSIC_53, new_ticket(), "Ana", None)
    assert await desk.cancel(ana)
    assert await desk.store.size(CLASSIC_53) == 0
    bo = await desk.join(CLASSIC_53, new_ticket(), "Bo", None)
    await desk.tick(clock.now)
    assert (not bo.paired.done() and not ana.paired.done()) or ana.paired.cancelled()
    cy = await desk.join(CLASSIC_53, new_ticket(), "Cy", None)
    await desk.tick(clock.now)
    assert result(bo).opponent == "Cy" and result(cy).opponent == "Bo"
    assert not await desk.cancel(bo)  # too late: the pairing stands


async def test_nobody_paired_twice_by_two_processes_at_once(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    """Two desks on their own connections match one pool at the same moment, five rounds
    over forty players: each player is in exactly one game, every game has two."""
    clock = Clock()
    one, two = desk_on(redis_client, clock), desk_on(second_client, clock)
    tickets = [new_ticket() for _ in range(40)]
    for i, ticket in enumerate(tickets):
        await (one if i % 2 else two).join(CLASSIC_53, ticket, f"P{i}", None)
    made: list[str] = []
    for _ in range(5):
        games = await asyncio.gather(
            one.match(CLASSIC_53, clock.now), two.match(CLASSIC_53, clock.now)
        )
        made += games[0] + games[1]
    assert len(made) == len(set(made)) == 20
    told = await one.store.touch(CLASSIC_53, clock.now, [entry_id(t) for t in tickets])
    by_game: dict[str, int] = {}
    for outcome in told:
        assert isinstance(outcome, Paired)
        by_game[outcome.game] = by_game.get(outcome.game, 0) + 1
    assert sorted(by_game) == sorted(made) and set(by_game.values()) == {2}


async def test_a_dropped_player_leaves_after_the_grace(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    """A socket gone (its desk stops touching) keeps its place within the grace, and is
    out of the pool after it; its ticket within the grace takes the place back."""
    clock = Clock()
    here, there = desk_on(redis_client, clock), desk_on(second_client, clock)
    ticket = new_ticket()
    ana = await here.join(CLASSIC_53, ticket, "Ana", None)
    here.forget(ana)
    clock.now += GRACE_MS
    back = await there.join(CLASSIC_53, ticket, "Ana", None)
    assert back.waiting.since_ms == ana.waiting.since_ms  # the same place
    there.forget(back)
    bo = await there.join(DUEL_32, new_ticket(), "Bo", None)  # keeps `there` ticking
    clock.now += GRACE_MS + 1
    await there.tick(clock.now)
    await there.match(CLASSIC_53, clock.now)
    assert await there.store.size(CLASSIC_53) == 0
    assert not bo.paired.done()


async def a_pair_claimed_elsewhere(
    desk: Desk, clock: Clock
) -> tuple[Ticket, Ticket, list[tuple[Waiting, Waiting]]]:
    """Ana and Bo wait at ``desk``; another process claims them as a pair (its game
    not made yet)."""
    ana = await desk.join(CLASSIC_53, new_ticket(), "Ana", None)
    bo = await desk.join(CLASSIC_53, new_ticket(), "Bo", None)
    _, entries = await desk.store.entries(CLASSIC_53)
    claimed = await desk.store.claim(CLASSIC_53, clock.now, pair_off(clock.now, entries))
    return ana, bo, claimed


async def test_a_claim_without_its_game_goes_back_in(redis_client: aioredis.Redis) -> None:
    """Entries claimed by a process that died before making their game return to the
    pool REQUEUE_MS after their making's time ran out, keeping since when they wait,
    and are paired then."""
    clock = Clock()
    desk = desk_on(redis_client, clock)
    ana, bo, claimed = await a_pair_claimed_elsewhere(desk, clock)
    assert len(claimed) == 1  # ... and that process died here
    clock.now += MAKING_MS
    await desk._touch(CLASSIC_53, clock.now)
    clock.now += REQUEUE_MS
    await desk.tick(clock.now)
    assert result(ana).game == result(bo).game


async def test_a_pair_whose_game_is_slow_to_make_is_not_paired_again_meanwhile(
    redis_client: aioredis.Redis,
) -> None:
    """A claimed pair whose game takes longer than REQUEUE_MS but less than MAKING_MS to make stays out of the pool meanwhile (a round there pairs them with nobody else), and its players are told the one game."""
    clock = Clock()
    desk = desk_on(redis_client, clock)
    ana, bo, claimed = await a_pair_claimed_elsewhere(desk, clock)
    [(first, second)] = claimed
    cy = await desk.join(CLASSIC_53, new_ticket(), "Cy", None)
    for _ in range(3):
        clock.now += REQUEUE_MS
        await desk.tick(clock.now)
    assert await desk.store.size(CLASSIC_53) == 1 and not cy.paired.done()
    slow = desk_on(redis_client, clock)
    await slow._start(CLASSIC_53, (first, second))
    await desk._touch(CLASSIC_53, clock.now)
    assert result(ana).game == result(bo).game


async def test_a_dropped_player_is_not_paired_within_the_grace(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    """A player whose socket dropped keeps its place but is given no game: a newcomer waits instead."""
    clock = Clock()
    here, there = desk_on(redis_client, clock), desk_on(second_client, clock)
    ana = await here.join(CLASSIC_53, new_ticket(), "Ana", None)
    here.forget(ana)
    clock.now += FRESH_MS + 1
    bo = await there.join(CLASSIC_53, new_ticket(), "Bo", None)
    await there.tick(clock.now)
    assert not bo.paired.done() and await there.store.size(CLASSIC_53) == 2


async def test_accounts_wait_with_their_rating_from_the_ratings_model(
    redis_client: aioredis.Redis,
) -> None:
    """An account waits with its displayed rating in the pool's variant (server.players.ratings), 1500 before its first rated game."""
    await RatingsModel(redis_client).count(
        RatedGame("g1", "duel", 5, ("ada", "bob"), ("Ada", "Bob"), (1, 2))
    )
    ada = await RatingsModel(redis_client).skill("duel", "ada")
    assert ada is not None and ada.rating != 1500
    clock = Clock()
    service = GameService(EventStore(redis_client), Lobby(redis_client))
    desk = Desk(
        PairingStore(redis_client), service, clock_ms=clock, ratings=ratings_of(redis_client)
    )
    duel = pool_named("duel-5+3-rated")
    classic = pool_named("classic-5+3-rated")
    assert duel is not None and classic is not None
    assert (await desk.join(duel, new_ticket(), "Ada", "Ada")).waiting.rating == ada.rating
    assert (await desk.join(classic, new_ticket(), "Ada", "Ada")).waiting.rating == 1500


async def test_an_accounts_latest_wait_is_named_longer_than_any_wait(
    redis_client: aioredis.Redis,
) -> None:
    """pair:account:{id} lives a day (not the ten minutes of a paired answer): a wait longer than ten minutes still has its older tab's entry taken out by a newer one."""
    store = PairingStore(redis_client)
    rated = pool_named("duel-5+3-rated")
    assert rated is not None
    older, newer = entry_id(new_ticket()), entry_id(new_ticket())
    await store.wait_as("Ana", rated, older)
    assert await redis_client.ttl("pair:account:{ana}") > 3600
    waiting = Waiting(older, "Ana", "Ana", 1500.0, 0, "digest")
    await store.enqueue(rated, waiting, 0)
    await redis_client.expire("pair:account:{ana}", 3000)  # fifty minutes later
    await store.wait_as("ANA", rated, newer)
    assert await store.entry(rated, older) is None
    assert await store.touch(rated, 1, [older]) == [LEFT]


async def test_a_game_made_late_takes_its_players_put_back_out_of_the_pool(
    redis_client: aioredis.Redis,
) -> None:
    """A claimed pair whose game comes only after MAKING_MS and REQUEUE_MS (a very slow process, not a dead one): its players, put back in the pool meanwhile, are told the game and leave the pool at once, so no later round pairs them again."""
    clock = Clock()
    desk = desk_on(redis_client, clock)
    ana, bo, claimed = await a_pair_claimed_elsewhere(desk, clock)
    [(first, second)] = claimed  # the slow process holds the pair...
    clock.now += MAKING_MS
    await desk._touch(CLASSIC_53, clock.now)
    clock.now += REQUEUE_MS
    await desk._touch(CLASSIC_53, clock.now)  # ...long enough for both to go back in
    assert await desk.store.size(CLASSIC_53) == 2
    slow = desk_on(redis_client, clock)
    await slow._start(CLASSIC_53, (first, second))  # ...and then makes their game
    await desk._touch(CLASSIC_53, clock.now)
    assert result(ana).game == result(bo).game
    assert await desk.store.size(CLASSIC_53) == 0  # nobody left to pair a second time


async def test_a_table_of_four_is_made_of_two_who_accepted_bots_at_an_explicit_time(
    redis_client: aioredis.Redis,
) -> None:
    """Two accounts waiting in classic-4p 5+3 rated: a round at t makes nothing; one accepts bots, a round at t + 20 s makes nothing; both have, a round at t + 21 s makes one casual game of four (bots in seats 2 and 3), each told the other and both bots."""
    clock = Clock()
    desk = desk_on(redis_client, clock, {"ana": 1500.0, "bo": 1900.0})
    pool = pool_named("classic-4p-5+3-rated")
    assert pool is not None
    ana = await desk.join(pool, new_ticket(), "ana", "ana")
    bo = await desk.join(pool, new_ticket(), "bo", "bo")
    await desk.tick(clock.now)
    assert not ana.paired.done() and not bo.paired.done()
    clock.now += 20_000
    assert await desk.fill(ana)
    await desk.tick(clock.now)
    assert not ana.paired.done()
    clock.now += 1_000
    assert await desk.fill(bo)
    await desk.tick(clock.now)
    told = [result(ana), result(bo)]
    assert told[0].game == told[1].game and not told[0].rated
    assert sorted([t.seat for t in told]) == [0, 1]
    assert [o.bot for o in told[0].others].count("greedy") == 2
    summary = await desk.service.reader.summary(told[0].game)
    assert summary["rated"] is False and summary["players"] == 4
    assert [s["bot"] for s in summary["seats"]][2:] == ["greedy", "greedy"]
    assert await desk.store.size(pool) == 0
