"""Floods are priced per client address: games created, seats joined and failed
authentications get ``429 rate_limited`` (with ``Retry-After``) past their burst,
keyed on the peer's address (clients here connect from 127.0.0.1 and 127.0.0.2)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
import websockets

from server.common.settings import Settings
from server.web.rate_limits import RateLimiter
from server.web.request_parts import budget_key
from tests.server.ws_helpers import LiveServer, Table, live_server, new_table

BURST = 3
SLOW = 0.01  # a token every 100 s: none comes back during a test


def limited(redis_server: str, **changes: Any) -> Settings:
    """Settings with small per-address bursts that do not refill during a test."""
    settings = Settings(redis_url=redis_server).without_rate_limits()
    small: dict[str, Any] = {
        "create_rate": SLOW,
        "create_burst": BURST,
        "join_rate": SLOW,
        "join_burst": BURST,
        "auth_failure_rate": SLOW,
        "auth_failure_burst": BURST,
    }
    return settings.with_(**{**small, **changes})


@asynccontextmanager
async def client_from(server: LiveServer, address: str) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client whose connections come from ``address`` (any 127.x works on lo)."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=server.http_url, transport=transport) as http:
        yield http


async def table_from(server: LiveServer, address: str) -> Table:
    """A two-player game made and filled from ``address``."""
    async with client_from(server, address) as http:
        return await new_table(http)


def assert_rate_limited(r: httpx.Response) -> None:
    assert r.status_code == 429, r.text
    assert r.json()["code"] == "rate_limited"
    assert set(r.json()) == {"code", "message", "reason"}
    assert r.json()["reason"]["key"].startswith("rate_limited.")
    assert int(r.headers["retry-after"]) >= 1


async def test_a_creation_flood_is_refused_after_the_burst(
    redis_client: Any, redis_server: str
) -> None:
    """Games created from one address past the burst get 429 with Retry-After and are not listed; another address still creates."""
    async with live_server(limited(redis_server)) as server:
        async with client_from(server, "127.0.0.1") as flooder:
            body = {"variant": "classic"}
            made = [await flooder.post("/api/games", json=body) for _ in range(BURST)]
            assert [r.status_code for r in made] == [201] * BURST
            assert_rate_limited(await flooder.post("/api/games", json=body))
            listed = (await flooder.get("/api/games?status=open")).json()["games"]
            assert len(listed) == BURST
        async with client_from(server, "127.0.0.2") as other:
            assert (await other.post("/api/games", json=body)).status_code == 201


async def test_a_join_flood_is_refused_after_the_burst(
    redis_client: Any, redis_server: str
) -> None:
    """Seats joined from one address past the burst get 429; the game's seats are unchanged by the refused join."""
    settings = limited(redis_server, create_burst=10)
    async with live_server(settings) as server, client_from(server, "127.0.0.1") as http:
        games = [
            (await http.post("/api/games", json={"variant": "classic", "players": 4})).json()
            for _ in range(2)
        ]
        joins = [
            await http.post(f"/api/games/{games[0]['id']}/seats", json={"name": f"P{i}"})
            for i in range(BURST)
        ]
        assert [r.status_code for r in joins] == [201] * BURST
        r = await http.post(f"/api/games/{games[1]['id']}/seats", json={"name": "Late"})
        assert_rate_limited(r)
        summary = (await http.get(f"/api/games/{games[1]['id']}")).json()
        assert [s["name"] for s in summary["seats"] if s["name"]] == []


async def test_wrong_token_guesses_are_limited_per_address_not_per_token(
    redis_client: Any, redis_server: str
) -> None:
    """Wrong tokens from one address, each different, get 403 up to the burst, then 429; the right token still works from that address (nobody sharing a player's address keeps them from their seat) and from another."""
    async with live_server(limited(redis_server, create_burst=10, join_burst=10)) as server:
        table = await table_from(server, "127.0.0.2")
        async with client_from(server, "127.0.0.1") as guesser:
            view = f"/api/games/{table.id}/view"

            def bearer(token: str) -> dict[str, str]:
                return {"Authorization": f"Bearer {token}"}

            for _ in range(BURST):
                r = await guesser.get(view, headers=bearer(secrets.token_urlsafe(24)))
                assert r.status_code == 403
            assert_rate_limited(await guesser.get(view, headers=bearer(secrets.token_urlsafe(24))))
            r = await guesser.post(
                f"/api/games/{table.id}/commands",
                headers=bearer(secrets.token_urlsafe(24)),
                json={"command_id": "c", "action": {"kind": "pass"}},
            )
            assert_rate_limited(r)
            mine = await guesser.get(view, headers=bearer(table.tokens[0]))
            assert mine.status_code == 200 and mine.json()["view"]["you"] == 0
            # A spectator (no token) from the same address is not refused.
            assert (await guesser.get(view)).status_code == 200
            # Nor is a socket without a token, nor one with the right token; one with
            # a wrong token is closed with 4429.
            async with websockets.connect(server.ws_url(table.id)) as spectator:
                assert '"snapshot"' in str(await spectator.recv())
            async with websockets.connect(server.ws_url(table.id, table.tokens[0])) as seat:
                assert '"snapshot"' in str(await seat.recv())
            wrong = server.ws_url(table.id, secrets.token_urlsafe(24))
            async with websockets.connect(wrong) as refused:
                message = str(await refused.recv())
                assert '"rate_limited"' in message
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await refused.recv()
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        async with client_from(server, "127.0.0.2") as player:
            r = await player.get(view, headers=bearer(table.tokens[0]))
            assert r.status_code == 200, r.text


async def test_wrong_tokens_on_the_websocket_spend_the_same_budget(
    redis_client: Any, redis_server: str
) -> None:
    """Sockets opened with wrong tokens are closed 4403 up to the burst, then 4429."""
    async with live_server(limited(redis_server, create_burst=10, join_burst=10)) as server:
        table = await table_from(server, "127.0.0.2")
        codes = []
        for _ in range(BURST + 1):
            url = server.ws_url(table.id, secrets.token_urlsafe(24))
            async with websockets.connect(url) as conn:
                await conn.recv()  # the error
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await conn.recv()
                assert closed.value.rcvd is not None
                codes.append(closed.value.rcvd.code)
        assert codes == [4403] * BURST + [4429]


async def test_x_forwarded_for_counts_only_from_a_trusted_proxy(
    redis_client: Any, redis_server: str
) -> None:
    """By default X-Forwarded-For is ignored (a flood naming other clients is still one address); with SPLENDOR_TRUSTED_PROXIES naming the peer it keys the limit."""
    body = {"variant": "classic"}
    async with (
        live_server(limited(redis_server)) as server,
        client_from(server, "127.0.0.1") as http,
    ):
        answers = [
            await http.post("/api/games", json=body, headers={"X-Forwarded-For": f"10.0.0.{i}"})
            for i in range(BURST + 1)
        ]
        assert [r.status_code for r in answers] == [201] * BURST + [429]
    proxied = limited(redis_server, trusted_proxies=("127.0.0.1",))
    async with live_server(proxied) as server, client_from(server, "127.0.0.1") as proxy:
        answers = [
            await proxy.post("/api/games", json=body, headers={"X-Forwarded-For": f"10.0.0.{i}"})
            for i in range(BURST + 1)
        ]
        assert [r.status_code for r in answers] == [201] * (BURST + 1)
        for _ in range(BURST):
            await proxy.post("/api/games", json=body, headers={"X-Forwarded-For": "10.0.0.9"})
        r = await proxy.post("/api/games", json=body, headers={"X-Forwarded-For": "10.0.0.9"})
        assert_rate_limited(r)


async def test_an_ipv6_subscribers_addresses_share_one_budget(
    redis_client: Any, redis_server: str
) -> None:
    """Addresses of one IPv6 /64 (one subscriber's, who may pick any of them) share one budget: a flood from a new address at each request is refused after the burst, while another /64 and an IPv4 client are not."""
    body = {"variant": "classic"}
    proxied = limited(redis_server, trusted_proxies=("127.0.0.1",))
    async with live_server(proxied) as server, client_from(server, "127.0.0.1") as proxy:
        answers = [
            await proxy.post(
                "/api/games", json=body, headers={"X-Forwarded-For": f"2001:db8:1:2::{i:x}"}
            )
            for i in range(1, BURST + 2)
        ]
        assert [r.status_code for r in answers] == [201] * BURST + [429]
        other = await proxy.post(
            "/api/games", json=body, headers={"X-Forwarded-For": "2001:db8:1:3::1"}
        )
        assert other.status_code == 201
        mapped = await proxy.post(
            "/api/games", json=body, headers={"X-Forwarded-For": "::ffff:10.0.0.7"}
        )
        assert mapped.status_code == 201
    assert [budget_key(h) for h in ("2001:db8:1:2::5", "::ffff:10.0.0.7", "10.0.0.7", "unknown")] == [
        "2001:db8:1:2::/64", "10.0.0.7", "10.0.0.7", "unknown"
    ]  # fmt: skip


def test_waiting_spends_nothing() -> None:
    """``waiting`` tells whether a key may go on, without spending its budget."""
    now = [0.0]
    limiter = RateLimiter(1.0, 2, clock=lambda: now[0])
    assert limiter.waiting("a") is None
    assert limiter.allow("a") is None and limiter.allow("a") is None
    assert limiter.waiting("a") == pytest.approx(1.0)
    assert limiter.waiting("a") == pytest.approx(1.0)
    now[0] = 1.0
    assert limiter.waiting("a") is None
