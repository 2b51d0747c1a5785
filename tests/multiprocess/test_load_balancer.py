"""docs/deploy's HAProxy and nginx configurations, run for real in front of two
``splendor serve`` processes: websockets pass through, and a process sent SIGTERM
mid-game is left for the other without a client missing or repeating a version."""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path
from typing import cast

import httpx
import pytest
import redis.asyncio as aioredis

from bots.moves import moves as game_moves
from tests.multiprocess.balancers import balancer, missing
from tests.multiprocess.followers import Follower
from tests.multiprocess.servers import served
from tests.server.ws_helpers import choose, http_view, new_table

ENV = {"SPLENDOR_PRESENCE_BEAT": "30", "SPLENDOR_DRAIN_SECONDS": "10"}
MOVES_BEFORE = 4
MOVES_AFTER = 6


@pytest.mark.parametrize("kind", ["haproxy", "nginx"])
async def test_a_process_stopped_behind_the_balancer_is_left_for_the_other(
    kind: str, tmp_path: Path, redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Two players and two spectators through the balancer; one process sent SIGTERM after a few moves: each client reconnects through the balancer (to the other process), applies every version once from its one snapshot, ends with the right view, and each acknowledged command is in the log once."""
    reason = missing(kind)
    if reason is not None:
        pytest.skip(reason)
    async with (
        served(redis_server, ENV) as a,
        served(redis_server, ENV) as b,
        balancer(kind, tmp_path / kind, [a.base, b.base]) as front,
        httpx.AsyncClient(base_url=front) as http,
    ):
        table = await new_table(http, players=2, seed=31)
        players = [
            Follower(f"p{seat}", [front], table.id, token) for seat, token in enumerate(table.tokens)
        ]
        everyone = [*players, Follower("s0", [front], table.id), Follower("s1", [front], table.id)]
        runs = [asyncio.create_task(f.run()) for f in everyone]
        for follower in everyone:
            await follower.until(lambda f=follower: f.view is not None)
        rng = random.Random(31)

        async def move() -> None:
            view = await http_view(http, table.id, None)
            mover = players[view["turn"]["seat"]]
            await mover.until(lambda: mover.version == view["version"])
            assert mover.view is not None
            command_id = await mover.send(choose(game_moves(mover.view), rng))
            await mover.until(lambda: command_id not in mover.pending)

        for _ in range(MOVES_BEFORE):
            await move()
        a.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(asyncio.to_thread(a.process.wait), 30)
        for _ in range(MOVES_AFTER):
            await move()

        final = (await http.get(f"/api/games/{table.id}")).json()["version"]
        for follower in everyone:
            await follower.until(lambda f=follower: f.version == final)
        for follower in everyone:
            await follower.stop()
        await asyncio.gather(*runs)

        on_a = 0
        for follower in everyone:
            on_a += any(code == 1012 for _, code in follower.closes[:-1])
            assert follower.snapshots == 1, follower.name
            start = follower.applied[0]
            assert follower.applied == list(range(start, final + 1)), follower.name
            assert follower.view == await http_view(http, table.id, follower.token)
        assert on_a >= 1  # the balancer had put some of them on the stopped process
        answers = [m for p in players for _, m in p.answers]
        acked = {m["command_id"]: m["version"] for m in answers if m["type"] == "ack"}
        assert len(acked) == MOVES_BEFORE + MOVES_AFTER
        recorded = cast(
            dict[bytes, bytes], await redis_client.hgetall(f"game:{{{table.id}}}:commands")
        )
        assert {k.decode(): int(v.split(b":")[0]) for k, v in recorded.items()} == acked
