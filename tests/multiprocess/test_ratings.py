"""Two ``splendor serve`` processes finishing rated games at once: each rating is
updated once per game, and each pair of accounts has at most 3 counted games a day."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import httpx
import redis.asyncio as aioredis

from tests.multiprocess.servers import splendor_serve
from tests.ratings.helpers import play_turns_http

PASSWORD = "a long enough pass phrase"
CLOCK = {"initial": 300, "increment": 3}
PAIRS = list(itertools.combinations(["Ada", "Bob", "Cyd", "Dee"], 2)) * 4  # 24 games


async def test_two_processes_finishing_games_at_once_update_each_rating_once(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """24 rated Duels among four accounts (each in 12, four with each other), all live
    at once, two turns each played; every loser's resignation is sent to both
    processes at the same moment: every game is decided once, three of each pair's
    four counted and the fourth not (daily_limit), each player's rating comes from
    exactly its 9 counted games (one history point each)."""
    async with (
        splendor_serve(redis_server) as a,
        splendor_serve(redis_server) as b,
        httpx.AsyncClient(base_url=a) as http_a,
        httpx.AsyncClient(base_url=b) as http_b,
    ):
        sessions = {}
        for name in ("Ada", "Bob", "Cyd", "Dee"):
            r = await http_a.post("/api/accounts", json={"username": name, "password": PASSWORD})
            assert r.status_code == 201, r.text
            sessions[name] = {"Cookie": f"splendor_session={r.cookies['splendor_session']}"}
            http_a.cookies.clear()  # the next sign-up would end this session
        games: list[tuple[str, str]] = []  # (game id, the loser's seat token)
        for first, second in PAIRS:
            r = await http_a.post(
                "/api/games",
                json={"variant": "duel", "rated": True, "clock": CLOCK},
                headers=sessions[first],
            )
            assert r.status_code == 201, r.text
            game_id = r.json()["id"]
            tokens = []
            for who in (first, second):
                r = await http_b.post(f"/api/games/{game_id}/seats", json={}, headers=sessions[who])
                assert r.status_code == 201, r.text
                tokens.append(r.json()["token"])
            await play_turns_http(http_a, game_id, tokens)
            games.append((game_id, tokens[1]))

        async def resign(http: httpx.AsyncClient, game_id: str, token: str) -> int:
            body = {"command_id": f"resign-{game_id}", "action": {"kind": "resign"}}
            r = await http.post(
                f"/api/games/{game_id}/commands",
                json=body,
                headers={"Authorization": f"Bearer {token}"},
            )
            return r.status_code

        answers = await asyncio.gather(
            *(resign(http, g, t) for g, t in games for http in (http_a, http_b))
        )
        # Per game one resignation applied; the other answered as a duplicate (200) or,
        # decided on the game already over, refused (409).
        assert set(answers) <= {200, 409} and all(
            200 in answers[i : i + 2] for i in range(0, len(answers), 2)
        ), answers
        profiles: dict[str, Any] = {}
        for name in sessions:
            r = await http_b.get(f"/api/players/{name.lower()}")
            assert r.status_code == 200, r.text
            profiles[name] = r.json()
    counted = {k.decode() for k in await redis_client.hgetall("{ratings:duel}:counted")}
    refused = await redis_client.hgetall("{ratings:duel}:uncounted")
    assert set(refused.values()) == {b"daily_limit"} and len(refused) == 6
    assert counted | {k.decode() for k in refused} == {g for g, _ in games}
    assert len(counted) == 18
    for pair in set(PAIRS):
        of_pair = {g for (g, _), p in zip(games, PAIRS, strict=True) if p == pair}
        assert len(of_pair & counted) == 3
    for name, profile in profiles.items():
        mine = {g for (g, _), pair in zip(games, PAIRS, strict=True) if name in pair} & counted
        history = profile["history"]["duel"]
        assert profile["ratings"]["duel"]["games"] == len(history) == len(mine) == 9
        assert {p["game"] for p in history} == mine
        assert profile["ratings"]["duel"]["rating"] == history[-1]["rating"]
        assert profile["record"]["games"] == 12
        listed = {g["id"]: g["counted"] for g in profile["games"]}
        assert sorted(listed.values()) == [False] * 3 + [True] * 9
