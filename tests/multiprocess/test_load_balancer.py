"""docs/deploy's HAProxy and nginx configurations, run for real in front of two
``splendor serve`` processes: websockets pass through, and a process sent SIGTERM
mid-game is left for the other without a client missing or repeating a version."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import httpx
import pytest
import redis.asyncio as aioredis

from tests.multiprocess.balancers import balancer, missing
from tests.multiprocess.followers import play_across_a_stop
from tests.multiprocess.servers import served

ENV = {"SPLENDOR_PRESENCE_BEAT": "30", "SPLENDOR_DRAIN_SECONDS": "10"}


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
        outcome = await play_across_a_stop(http, [front], a.process, seed=31)
        # The balancer had put some of them on the stopped process (closed with 1012).
        assert any(code == 1012 for f in outcome.everyone for _, code in f.closes[:-1])
        game_id = outcome.everyone[0].game_id
        recorded = cast(
            dict[bytes, bytes], await redis_client.hgetall(f"game:{{{game_id}}}:commands")
        )
        assert {k.decode(): int(v.split(b":")[0]) for k, v in recorded.items()} == outcome.acked


@pytest.mark.parametrize("kind", ["haproxy", "nginx"])
async def test_a_pages_sign_up_passes_the_origin_check_behind_the_balancer(
    kind: str, tmp_path: Path, redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Through the balancer on a port of its own, a page's sign-up (Origin: the balancer's address, port included) is 201: the Host the process sees keeps the port (nginx's $host would drop it, and every account request would be 403); another site's is still 403, and so is https://<the balancer> from a client claiming X-Forwarded-Proto https (the balancer, trusted, says the scheme it was reached by: http)."""
    reason = missing(kind)
    if reason is not None:
        pytest.skip(reason)
    trusted = {**ENV, "SPLENDOR_TRUSTED_PROXIES": "127.0.0.1"}
    async with (
        served(redis_server, trusted) as a,
        balancer(kind, tmp_path / kind, [a.base, a.base]) as front,  # one process twice
        httpx.AsyncClient(base_url=front) as http,
    ):
        body = {"username": f"Lb_{kind}", "password": "long enough password"}
        evil = await http.post(
            "/api/accounts", json=body, headers={"Origin": "http://evil.example"}
        )
        assert evil.status_code == 403
        claimed = {"Origin": front.replace("http://", "https://"), "X-Forwarded-Proto": "https"}
        r = await http.post("/api/accounts", json=body, headers=claimed)
        assert r.status_code == 403, r.text
        r = await http.post("/api/accounts", json=body, headers={"Origin": front})
        assert r.status_code == 201, r.text
