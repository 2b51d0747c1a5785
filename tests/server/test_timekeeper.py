"""The timekeeper (server/games/timekeeper.py) with a game whose expiry fails each
time, and deadlines whose write fails: it tries again later, neither spinning on the
one game nor losing the others."""

from __future__ import annotations

import redis.asyncio as aioredis

from server.games.lobby import Lobby
from server.games.results import CommandResult
from server.games.service import GameService
from server.games.timekeeper import FAILED_MS, Deadlines, Timekeeper
from server.store.availability import StoreUnavailable
from server.store.event_store import EventStore


class BrokenGame(GameService):
    """A service whose expiry of one game fails each time (a stream it can't read)."""

    def __init__(self, client: aioredis.Redis) -> None:
        super().__init__(EventStore(client), Lobby(client))
        self.tries = 0

    async def expire(self, game_id: str, *, presence: bool = False) -> CommandResult | None:
        self.tries += 1
        raise RuntimeError(f"the log of {game_id} can't be read")


async def test_a_game_whose_expiry_fails_is_tried_again_later_not_at_once(
    redis_client: aioredis.Redis,
) -> None:
    """A due game whose expiry fails is tried once per tick no more: not again until a second later, then after two more (the keeper sleeps meanwhile instead of reading and failing in a loop)."""
    await redis_client.flushdb()
    service = BrokenGame(redis_client)
    deadlines = Deadlines(redis_client)
    await deadlines.schedule("gbroken", 1, 1_000)
    now = [10_000]
    keeper = Timekeeper(service, deadlines, poll_s=0.01, clock_ms=lambda: now[0])
    for _ in range(5):
        await keeper.tick()
    assert service.tries == 1
    now[0] += FAILED_MS
    await keeper.tick()
    await keeper.tick()
    assert service.tries == 2
    now[0] += FAILED_MS
    await keeper.tick()
    assert service.tries == 2  # two seconds after the second failure
    now[0] += FAILED_MS
    await keeper.tick()
    assert service.tries == 3


async def test_deadlines_whose_write_failed_are_written_at_the_next_flush(
    redis_client: aioredis.Redis,
) -> None:
    """Deadlines noted while Redis fails are written at the next flush, unless a newer one of the game was noted meanwhile."""
    await redis_client.flushdb()
    deadlines = Deadlines(redis_client, flush_s=3600)
    run = deadlines._direct.run
    failing = [True]

    async def fails_once(*args: object) -> object:
        if failing[0]:
            failing[0] = False
            raise StoreUnavailable("Redis went away")
        return await run(*args)  # type: ignore[arg-type]

    deadlines._direct.run = fails_once  # type: ignore[method-assign]
    deadlines.note("g1", 3, 5_000)
    deadlines.note("g2", 4, 6_000)
    await deadlines.flush()
    assert await deadlines.all() == {}
    deadlines.note("g2", 5, 7_000)  # g2 moved on meanwhile
    await deadlines.aclose()
    assert await deadlines.all() == {"g1": 5_000, "g2": 7_000}
