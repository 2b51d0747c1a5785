"""The timekeeper's deadlines in Redis: written at once, or noted by moves and written
together shortly after, a later version's word never replaced by an older one's."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from server.games.timekeeper import Deadlines


async def test_noted_deadlines_are_written_together_after_a_short_wait(
    redis_client: aioredis.Redis,
) -> None:
    """Deadlines noted by moves are not in Redis at once, and all are after the flush delay."""
    deadlines = Deadlines(redis_client, flush_s=0.2)
    deadlines.note("a", 5, 1_000)
    deadlines.note("b", 7, 2_000)
    deadlines.note("a", 6, 1_500)  # the same game's later word replaces its earlier
    assert await deadlines.all() == {}
    for _ in range(100):
        await asyncio.sleep(0.05)
        if await deadlines.all():
            break
    assert await deadlines.all() == {"a": 1_500, "b": 2_000}
    await deadlines.aclose()


async def test_an_older_versions_word_never_replaces_a_newer_one(
    redis_client: aioredis.Redis,
) -> None:
    """A deadline noted for an older version than the one written is dropped; None removes."""
    deadlines = Deadlines(redis_client)
    await deadlines.schedule("a", 9, 3_000)
    deadlines.note("a", 8, 1_000)
    deadlines.note("b", 1, 4_000)
    await deadlines.aclose()  # what a stopping process does: write what is noted now
    assert await deadlines.all() == {"a": 3_000, "b": 4_000}
    await deadlines.schedule("b", 2, None)
    assert await deadlines.all() == {"a": 3_000}
