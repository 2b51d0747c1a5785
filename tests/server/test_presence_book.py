"""``server.live.presence.Presence`` against the real Redis, with explicit clocks: what it
writes, which servers count, and since when a seat is away (claim_abandon's input)."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from server.games.service import GameService
from server.live.presence import DEAD_AFTER_BEATS, Presence, SeatsSeen
from server.store.keys import PRESENCE_SERVERS_KEY, presence_key

BEAT_S = 1.0
DEAD_MS = int(BEAT_S * 1000 * DEAD_AFTER_BEATS)


class Clock:
    """A clock the test moves by hand (ms)."""

    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def held_elsewhere(presence: Presence, seen: SeatsSeen, seats: int) -> list[bool]:
    """Per seat, whether another live server holds one of its sockets."""
    return [away is None for away in presence.remote(seen, seats)]


async def written(presence: Presence) -> None:
    """Wait for the writing task to have written everything wanted."""
    await asyncio.wait_for(presence._idle.wait(), 5)


async def started_presence(client: aioredis.Redis, name: str, clock: Clock) -> Presence:
    presence = Presence(client, beat_s=BEAT_S, server_id=name, clock_ms=clock)
    await presence.start()
    return presence


async def test_a_seat_counts_while_a_live_server_holds_it_and_is_away_since_it_left(
    redis_client: aioredis.Redis,
) -> None:
    """Server a holds seat 0: server b sees it present (remote) and not away; once a lets it go at t, b sees it away since t; a seat never held is away since 0 (never connected)."""
    clock = Clock(1_000_000)
    a, b = (
        await started_presence(redis_client, "a", clock),
        await started_presence(redis_client, "b", clock),
    )
    try:
        a.want("g1", 0, True)
        await written(a)
        seen, _ = await b.read("g1")
        assert seen.on == {0: {"a"}}
        assert held_elsewhere(b, seen, 2) == [True, False]
        assert held_elsewhere(a, seen, 2) == [False, False]  # its own sockets count from its hubs
        assert b.away_since(seen, 0) is None and b.away_since(seen, 1) == 0
        clock.now += 5_000
        a.want("g1", 0, False)
        await written(a)
        seen, _ = await b.read("g1")
        assert held_elsewhere(b, seen, 2) == [False, False]
        assert b.away_since(seen, 0) == clock.now
    finally:
        await a.close()
        await b.close()


async def test_a_dead_servers_sockets_stop_counting_from_its_last_beat(
    redis_client: aioredis.Redis,
) -> None:
    """A server that stops beating still counts until DEAD_AFTER_BEATS beats have passed, then no more, and the seat it held is away since its last beat; a server that stops cleanly leaves the set at once."""
    clock = Clock(2_000_000)
    a, b = (
        await started_presence(redis_client, "a", clock),
        await started_presence(redis_client, "b", clock),
    )
    a.want("g2", 1, True)
    await written(a)
    last_beat = clock.now
    for task in a._tasks:  # killed: no more beats, nothing cleaned up
        task.cancel()
    seen, _ = await b.read("g2")
    clock.now = last_beat + DEAD_MS
    assert held_elsewhere(b, seen, 2) == [False, True]
    clock.now = last_beat + DEAD_MS + 1
    assert held_elsewhere(b, seen, 2) == [False, False]
    assert b.away_since(seen, 1) == last_beat
    await b.close()
    assert await redis_client.zscore(PRESENCE_SERVERS_KEY, "b") is None
    assert await redis_client.zscore(PRESENCE_SERVERS_KEY, "a") is not None


async def test_a_server_newer_than_the_last_beat_read_counts_until_the_next_one(
    redis_client: aioredis.Redis,
) -> None:
    """A server missing from b's last read of the set counts if the hash naming it was read after that read (it beats before it writes, so it was just born), and not once a later read still misses it."""
    clock = Clock(3_000_000)
    b = await started_presence(redis_client, "b", clock)
    try:
        clock.now += 5
        flat = [b"on:0:newborn", b"%d" % clock.now]
        clock.now += 5
        seen = SeatsSeen.parse(flat, clock.now)
        assert held_elsewhere(b, seen, 1) == [True]
        await b._beat()  # the set read again: still no "newborn"
        assert held_elsewhere(b, seen, 1) == [False]
        assert await redis_client.hgetall(presence_key("nothing")) == {}
    finally:
        await b.close()


async def test_a_server_forgotten_from_the_set_never_counts_again(
    redis_client: aioredis.Redis,
) -> None:
    """A hash still naming a server killed two hours ago (its entry never deleted, the server forgotten from the set after an hour) is read after b's last beat, as every hub's periodic read is: the server does not count, and the seat is away since the entry's last left time."""
    clock = Clock(10_000_000)
    b = await started_presence(redis_client, "b", clock)
    try:
        long_ago = clock.now - 7_200_000
        flat = [b"on:0:killed", b"%d" % long_ago, b"left:0", b"%d" % (long_ago - 5)]
        clock.now += 10
        seen = SeatsSeen.parse(flat, clock.now)
        assert held_elsewhere(b, seen, 1) == [False]
        assert b.away_since(seen, 0) == long_ago - 5
    finally:
        await b.close()


async def test_seats_away_since_count_from_the_start_for_the_rules(
    redis_client: aioredis.Redis, service: GameService
) -> None:
    """What claim_abandon's facts get: a seat of a started game that never connected is away since the game started (its GameStarted event's time); a seat held is not away; one let go later is away since then."""
    created = await service.create_game("classic", 2, seed=3)
    game_id = created["id"]
    for name in ("Ana", "Ben"):
        await service.join(game_id, name)
    started = next(
        e.at_ms
        for e in await service.reader.log(game_id)
        if type(e.event).__name__ == "GameStarted"
    )
    clock = Clock(started + 1_000)
    presence = await started_presence(redis_client, "a", clock)
    try:
        assert await presence.seats_away_since(game_id, 2) == [started, started]
        presence.want(game_id, 1, True)
        await written(presence)
        assert await presence.seats_away_since(game_id, 2) == [started, None]
        clock.now += 70_000
        presence.want(game_id, 1, False)
        await written(presence)
        assert await presence.seats_away_since(game_id, 2) == [started, clock.now]
    finally:
        await presence.close()
