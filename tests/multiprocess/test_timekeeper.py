"""The timekeeper across processes (server/games/timekeeper.py): a seat that stops moving
loses on time within 1 s of its deadline, recorded once with two servers on one
Redis, and recorded too when the only server was restarted mid-clock (its deadlines
rebuilt from the streams)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import httpx
import redis.asyncio as aioredis

from server.store.keys import DEADLINE_VERSIONS_KEY, DEADLINES_KEY
from tests.multiprocess.servers import served, splendor_serve

LATE_MS = 1000  # a deadline is met within 1 s


def ms(iso: str) -> int:
    return round(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


async def timed_game(http: httpx.AsyncClient, initial: int) -> tuple[str, list[str]]:
    """A 2-player classic game with a real-time clock of ``initial`` seconds, no
    increment, both first turns played: the mover's bank runs from now on."""
    body = {"variant": "classic", "players": 2, "seed": 8, "clock": {"initial": initial}}
    game_id = (await http.post("/api/games", json=body)).json()["id"]
    tokens = [
        (await http.post(f"/api/games/{game_id}/seats", json={"name": n})).json()["token"]
        for n in ("Ana", "Bo")
    ]
    for n in range(2):
        view = (await http.get(f"/api/games/{game_id}/view")).json()["view"]
        seat = view["turn"]["seat"]
        take = {
            "kind": "take_three",
            "colors": [["white", "blue", "red"], ["green", "black", "red"]][n],
        }
        r = await http.post(
            f"/api/games/{game_id}/commands",
            json={"command_id": f"first-{n}", "action": take},
            headers={"Authorization": f"Bearer {tokens[seat]}"},
        )
        assert r.status_code == 200, r.text
    return game_id, tokens


async def ended(http: httpx.AsyncClient, game_id: str, seconds: float) -> list[dict[str, Any]]:
    """The game's events once it is over (waiting up to ``seconds``)."""
    for _ in range(int(seconds / 0.1)):
        events: list[dict[str, Any]] = (await http.get(f"/api/games/{game_id}/events")).json()[
            "events"
        ]
        if events[-1]["type"] == "GameEnded":
            return events
        await asyncio.sleep(0.1)
    raise AssertionError("the game did not end by time")


def check_lost_on_time(events: list[dict[str, Any]], initial: int) -> None:
    """Exactly one TimeRanOut, for the seat to move since the last TurnEnded, recorded
    within LATE_MS of its deadline (that TurnEnded + the bank)."""
    flags = [e for e in events if e["type"] == "TimeRanOut"]
    assert len(flags) == 1, flags
    last_turn = [e for e in events if e["type"] == "TurnEnded"][-1]
    assert flags[0]["seat"] == last_turn["next_seat"]
    deadline = ms(last_turn["at"]) + initial * 1000
    late = ms(flags[0]["at"]) - deadline
    assert 0 <= late <= LATE_MS, late
    assert events[-1]["reason"] == "time" and events[-1]["winners"] == [1 - flags[0]["seat"]]


async def test_two_servers_record_one_loss_on_time_within_a_second(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Two servers on one Redis both keep the clocks: a seat that stops moving loses on time within 1 s of its deadline, and the log holds exactly one TimeRanOut."""
    async with (
        splendor_serve(redis_server) as a,
        splendor_serve(redis_server) as b,
        httpx.AsyncClient(base_url=a) as http_a,
        httpx.AsyncClient(base_url=b) as http_b,
    ):
        games = [await timed_game(http_a if i % 2 else http_b, 2) for i in range(4)]
        for game_id, _ in games:
            check_lost_on_time(await ended(http_b, game_id, 10), 2)
        assert await redis_client.zcard(DEADLINES_KEY) == 0


async def test_a_restarted_server_still_records_the_loss_on_time(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """The only server stops mid-clock and its deadlines are lost; started again, it rebuilds them from the streams and records the loss within 1 s of the deadline."""
    async with served(redis_server) as first, httpx.AsyncClient(base_url=first.base) as http:
        game_id, _ = await timed_game(http, 8)
    await redis_client.delete(DEADLINES_KEY, DEADLINE_VERSIONS_KEY)
    async with served(redis_server) as second, httpx.AsyncClient(base_url=second.base) as http:
        check_lost_on_time(await ended(http, game_id, 20), 8)
