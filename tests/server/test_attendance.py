"""Attendance (server/live/attendance.py) on the real Redis with hand-moved clocks: the
lobby lists open games while a seated person is connected and live games while a
human is connected or they moved in the last 10 minutes; an open game its seated
people left 2 minutes ago expires, and an untimed game no human attended for a day
ends, exactly once however many processes look."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import redis.asyncio as aioredis

from events.base import TimeControl
from events.classic.actions import TakeThree
from server.games.lobby import Lobby
from server.games.service import GameService
from server.live.attendance import Attendance
from server.live.presence import Presence
from server.store.event_store import EventStore
from tests.server.test_presence_book import Clock, written

START_MS = 1_700_000_000_000
MINUTE = 60_000
DAY = 24 * 60 * MINUTE


@dataclass
class Process:
    """One server process's parts on the shared Redis: its service (own cache), its
    presence and its attendance, all on the test's clock."""

    service: GameService
    presence: Presence
    attendance: Attendance


async def process(redis_server: str, name: str, clock: Clock) -> Process:
    client = aioredis.from_url(redis_server, decode_responses=False)
    store = EventStore(client)
    lobby = Lobby(client)
    service = GameService(store, lobby, clock_ms=clock)
    presence = Presence(client, beat_s=1.0, server_id=name, clock_ms=clock)
    await presence.start()
    service.hooks.away_since = presence.seats_away_since
    return Process(service, presence, Attendance(service, lobby, presence, clock_ms=clock))


@pytest.fixture
async def two(
    redis_server: str, redis_client: aioredis.Redis
) -> AsyncIterator[tuple[Process, Process, Clock]]:
    """Two processes on one Redis (emptied) and one clock."""
    clock = Clock(START_MS)
    first = await process(redis_server, "one", clock)
    second = await process(redis_server, "two", clock)
    try:
        yield first, second, clock
    finally:
        for p in (first, second):
            await p.presence.close()
            await p.service.store.client.aclose()


async def listed(p: Process, status: str) -> list[str]:
    return [g["id"] for g in await p.service.listing.list_games(status, 50)]  # type: ignore[arg-type]


async def event_types(p: Process, game_id: str) -> list[str]:
    return [e["type"] for e in await p.service.reader.events(game_id, None)]


async def test_an_open_game_is_listed_while_a_seated_person_is_connected(
    two: tuple[Process, Process, Clock],
) -> None:
    """Ana's open game is listed while her socket is open, and 9 s after it closed (a reload); 10 s after, it leaves the list; her socket back, it is listed again."""
    one, _, clock = two
    game_id = (await one.service.create_game("classic", 3))["id"]
    await one.service.join(game_id, "Ana")
    one.presence.want(game_id, 0, True)
    await written(one.presence)
    clock.now += 30 * MINUTE - MINUTE  # connected all along: no expiry but the 30 minutes'
    await one.attendance.sweep()
    assert await listed(one, "open") == [game_id]
    one.presence.want(game_id, 0, False)
    await written(one.presence)
    clock.now += 9_000
    await one.attendance.sweep()
    assert await listed(one, "open") == [game_id]
    clock.now += 1_000
    await one.attendance.sweep()
    assert await listed(one, "open") == []
    one.presence.want(game_id, 0, True)
    await written(one.presence)
    await one.attendance.sweep()
    assert await listed(one, "open") == [game_id]


async def test_an_open_game_its_seated_people_left_expires_once_on_two_processes(
    two: tuple[Process, Process, Clock],
) -> None:
    """Ana and Ben sit at an open game of 3 and leave: at 1:59 nothing happens; at 2:00 both processes look at once and the game is aborted (expired) exactly once, then leaves the open list."""
    one, other, clock = two
    game_id = (await one.service.create_game("classic", 3))["id"]
    await one.service.join(game_id, "Ana")
    await other.service.join(game_id, "Ben")
    one.presence.want(game_id, 0, True)
    other.presence.want(game_id, 1, True)
    await asyncio.gather(written(one.presence), written(other.presence))
    clock.now += 5 * MINUTE
    one.presence.want(game_id, 0, False)
    other.presence.want(game_id, 1, False)
    await asyncio.gather(written(one.presence), written(other.presence))
    clock.now += 2 * MINUTE - 1_000
    swept = await asyncio.gather(one.attendance.sweep(), other.attendance.sweep())
    assert swept[0].expired == swept[1].expired == []
    assert (await one.service.reader.summary(game_id))["status"] == "open"
    clock.now += 1_000
    swept = await asyncio.gather(one.attendance.sweep(), other.attendance.sweep())
    assert len(swept[0].expired) + len(swept[1].expired) == 1
    assert (await event_types(one, game_id)).count("GameAborted") == 1
    summary = await other.service.reader.summary(game_id)
    assert summary["status"] == "aborted"
    events = await one.service.reader.events(game_id, None)
    assert events[-1]["reason"] == "expired"
    assert await listed(one, "open") == []


async def test_a_live_game_is_listed_while_attended_or_moving(
    two: tuple[Process, Process, Clock],
) -> None:
    """A live game nobody attends stays listed for 10 minutes after its last move, then leaves the live list; a move brings it back, and so does a human's socket."""
    one, _, clock = two
    game_id = (await one.service.create_game("classic", 2))["id"]
    tokens = [(await one.service.join(game_id, name)).token for name in ("Ana", "Ben")]
    assert tokens
    clock.now += 10 * MINUTE - 1
    await one.attendance.sweep()
    assert await listed(one, "live") == [game_id]
    clock.now += 1
    await one.attendance.sweep()
    assert await listed(one, "live") == []
    view = await one.service.reader.view(game_id, None)
    mover = view["turn"]["seat"]
    await one.service.submit(game_id, mover, "m1", TakeThree(("white", "blue", "green")))
    await one.attendance.sweep()
    assert await listed(one, "live") == [game_id]
    clock.now += 11 * MINUTE
    one.presence.want(game_id, 1 - mover, True)
    await written(one.presence)
    await one.attendance.sweep()
    assert await listed(one, "live") == [game_id]


async def test_an_untimed_game_of_humans_idle_a_day_is_aborted_once(
    two: tuple[Process, Process, Clock],
) -> None:
    """Untimed, humans only, nobody connected since the start: at 23:59:59 nothing; at 24 h both processes look and the game is aborted (idle) exactly once."""
    one, other, clock = two
    game_id = (await one.service.create_game("classic", 2))["id"]
    for name in ("Ana", "Ben"):
        await one.service.join(game_id, name)
    clock.now += DAY - 1_000
    await asyncio.gather(one.attendance.sweep(), other.attendance.sweep())
    assert (await one.service.reader.summary(game_id))["status"] == "live"
    clock.now += 1_000
    swept = await asyncio.gather(one.attendance.sweep(), other.attendance.sweep())
    assert len(swept[0].expired) + len(swept[1].expired) == 1
    events = await one.service.reader.events(game_id, None)
    assert [e["type"] for e in events].count("GameAborted") == 1
    assert events[-1]["reason"] == "idle"


async def test_an_idle_game_with_a_bot_ends_with_the_bot_ranked_first(
    two: tuple[Process, Process, Clock],
) -> None:
    """Untimed, Ana against a bot: a day without Ana, she is out (abandon) and the bot wins, reason abandon, and the game is in the finished list at once though the look found it quiet; a real-time game with the same absence is left to its clock."""
    one, _, clock = two
    game_id = (await one.service.create_game("classic", 2))["id"]
    await one.service.join(game_id, "Ana")
    await one.service.join(game_id, "Bot", "random")
    timed = await one.service.create_game("classic", 2, clock=TimeControl(600, 5))
    await one.service.join(timed["id"], "Ana")
    await one.service.join(timed["id"], "Ben")
    clock.now += DAY
    swept = await one.attendance.sweep()
    assert swept.expired == [game_id]
    summary = await one.service.reader.summary(game_id)
    assert summary["status"] == "finished"
    assert summary["result"]["winners"] == [1] and summary["result"]["reason"] == "abandon"
    assert summary["result"]["ranks"] == [2, 1]
    assert game_id in swept.quiet and game_id in await listed(one, "finished")
    assert (await one.service.reader.summary(timed["id"]))["status"] == "live"
