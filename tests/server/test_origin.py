"""The ``Origin`` check (server/players/accounts.py ``check_origin``, docs/accounts.md): a
request that uses a session is accepted from the server's own origin only, scheme,
host and port alike, as the client (or a trusted proxy) reached it; on every route
that checks it, the account routes, a rated game, an account's seat and
``/ws/pairing``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest
import redis.asyncio as aioredis
import websockets

from tests.server.test_accounts import PASSWORD, client, settings_for
from tests.server.ws_helpers import LiveServer, connect, live_server

RATED = {"variant": "classic", "rated": True, "clock": {"initial": 180, "increment": 2}}

Attempt = Callable[[httpx.AsyncClient, dict[str, str]], Awaitable[httpx.Response]]


async def _sign_up(http: httpx.AsyncClient, headers: dict[str, str]) -> httpx.Response:
    return await http.post(
        "/api/accounts", json={"username": "New_one", "password": PASSWORD}, headers=headers
    )


async def _log_in(http: httpx.AsyncClient, headers: dict[str, str]) -> httpx.Response:
    return await http.post(
        "/api/session", json={"username": "Ori_1", "password": PASSWORD}, headers=headers
    )


async def _rated_game(http: httpx.AsyncClient, headers: dict[str, str]) -> httpx.Response:
    return await http.post("/api/games", json=RATED, headers=headers)


async def _account_seat(http: httpx.AsyncClient, headers: dict[str, str]) -> httpx.Response:
    game = (await http.post("/api/games", json={"variant": "classic"})).json()
    return await http.post(f"/api/games/{game['id']}/seats", json={}, headers=headers)


async def _log_out_everywhere(http: httpx.AsyncClient, headers: dict[str, str]) -> httpx.Response:
    return await http.delete("/api/sessions", headers=headers)


async def _log_out(http: httpx.AsyncClient, headers: dict[str, str]) -> httpx.Response:
    return await http.delete("/api/session", headers=headers)


async def _delete(http: httpx.AsyncClient, headers: dict[str, str]) -> httpx.Response:
    return await http.request("DELETE", "/api/me", json={"password": PASSWORD}, headers=headers)


ROUTES: dict[str, tuple[Attempt, int]] = {
    # Each route and its answer once the Origin is accepted (the last ones end the session).
    "POST /api/accounts": (_sign_up, 201),
    "POST /api/session": (_log_in, 200),
    "POST /api/games (rated)": (_rated_game, 201),
    "POST /api/games/{id}/seats {}": (_account_seat, 201),
    "DELETE /api/sessions": (_log_out_everywhere, 200),
    "DELETE /api/session": (_log_out, 204),
    "DELETE /api/me": (_delete, 204),
}


@pytest.fixture
async def server(redis_client: aioredis.Redis, redis_server: str) -> AsyncIterator[LiveServer]:
    async with live_server(settings_for(redis_server)) as live:
        yield live


async def _logged_in(http: httpx.AsyncClient) -> None:
    r = await http.post("/api/accounts", json={"username": "Ori_1", "password": PASSWORD})
    assert r.status_code in (201, 409), r.text
    if r.status_code == 409:
        assert (await _log_in(http, {})).status_code == 200


async def test_the_wrong_scheme_is_refused_on_every_route(server: LiveServer) -> None:
    """On plain http, Origin https://<the server's host and port> is another origin: 403 unauthorized on each route that uses a session, the session kept; the same Origin with http is accepted on each."""
    host = f"{server.host}:{server.port}"
    wrong, right = {"Origin": f"https://{host}"}, {"Origin": f"http://{host}"}
    async with client(server) as http:
        await _logged_in(http)
        for name, (attempt, _) in ROUTES.items():
            r = await attempt(http, wrong)
            assert r.status_code == 403, (name, r.text)
            assert r.json()["code"] == "unauthorized" and "another site" in r.json()["message"]
            assert (await http.get("/api/me")).status_code == 200, name
        for name, (attempt, accepted) in ROUTES.items():
            await _logged_in(http)
            r = await attempt(http, right)
            assert r.status_code == accepted, (name, r.text)


async def test_the_default_port_is_the_same_origin(http: httpx.AsyncClient) -> None:
    """Host splendor.test (no port) over http: Origin http://splendor.test and http://splendor.test:80 are its own; https://splendor.test, :443, :8080, another host and "null" are not."""
    body = {"username": "Port_1", "password": "wrong password"}
    for origin in ("http://splendor.test", "http://splendor.test:80", "HTTP://Splendor.Test"):
        r = await http.post("/api/session", json=body, headers={"Origin": origin})
        assert r.status_code == 401, origin  # past the Origin check: the password is wrong
    for origin in (
        "https://splendor.test",
        "https://splendor.test:443",
        "http://splendor.test:8080",
        "http://splendor.test.evil.example",
        "null",
        "http://[::1",
    ):
        r = await http.post("/api/session", json=body, headers={"Origin": origin})
        assert r.status_code == 403 and r.json()["code"] == "unauthorized", origin


async def test_behind_a_trusted_proxy_the_scheme_is_the_proxys(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Behind a trusted proxy that says X-Forwarded-Proto: https, Origin https://<host> is accepted and http://<host> refused; a client that is no trusted proxy saying the same is not believed (its https Origin refused)."""
    settings = settings_for(redis_server, trusted_proxies=("127.0.0.1",))
    async with live_server(settings) as live:
        host = f"{live.host}:{live.port}"
        https = {"X-Forwarded-Proto": "https"}
        async with client(live) as proxied:
            r = await _sign_up(proxied, {**https, "Origin": f"http://{host}"})
            assert r.status_code == 403 and r.json()["code"] == "unauthorized"
            r = await _sign_up(proxied, {**https, "Origin": f"https://{host}"})
            assert r.status_code == 201, r.text
            # The cookie is Secure (https as the proxy says): httpx keeps it for https.
            cookie = {"Cookie": f"splendor_session={r.cookies['splendor_session']}"}
            r = await _rated_game(proxied, {**https, **cookie, "Origin": f"https://{host}"})
            assert r.status_code == 201, r.text
            r = await _rated_game(proxied, {**https, **cookie, "Origin": f"http://{host}"})
            assert r.status_code == 403 and r.json()["code"] == "unauthorized"
        async with client(live, "127.0.0.2") as direct:
            r = await _log_in(direct, {**https, "Origin": f"https://{host}"})
            assert r.status_code == 403 and r.json()["code"] == "unauthorized"
            r = await _log_in(direct, {**https, "Origin": f"http://{host}"})
            assert r.status_code == 401  # its own origin: then the (wrong) account


def _pairing_url(server: LiveServer) -> str:
    return f"ws://{server.host}:{server.port}/ws/pairing?variant=classic&clock=5%2B3"


async def _first_message(
    server: LiveServer, cookie: str, origin: str, headers: dict[str, str] | None = None
) -> tuple[dict[str, object], websockets.asyncio.client.ClientConnection]:
    conn = await connect(
        _pairing_url(server),
        additional_headers={"Cookie": f"splendor_session={cookie}", **(headers or {})},
        origin=websockets.Origin(origin),
    )
    message: dict[str, object] = json.loads(await conn.recv(decode=True))
    return message, conn


async def test_the_pairing_socket_checks_the_scheme(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """/ws/pairing with the session cookie: Origin https://<host> on plain http is closed 4403 unauthorized, http://<host> waits in the rated pool; behind a trusted proxy saying X-Forwarded-Proto: https, the https Origin waits."""
    settings = settings_for(redis_server, trusted_proxies=("127.0.0.1",))
    async with live_server(settings) as live, client(live) as http:
        await _logged_in(http)
        cookie = http.cookies["splendor_session"]
        host = f"{live.host}:{live.port}"
        refused, conn = await _first_message(live, cookie, f"https://{host}")
        assert refused["type"] == "error" and refused["code"] == "unauthorized"
        await conn.wait_closed()
        assert conn.close_code == 4403
        for origin, headers in (
            (f"http://{host}", None),
            (f"https://{host}", {"X-Forwarded-Proto": "https"}),
        ):
            waiting, conn = await _first_message(live, cookie, origin, headers)
            assert waiting["type"] == "waiting" and waiting["rated"] is True, waiting
            await conn.close()
