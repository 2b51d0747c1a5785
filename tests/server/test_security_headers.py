"""The security headers (server/web/security_headers.py) against a real server (uvicorn on
127.0.0.1, with the protocols ``splendor serve`` uses) and the session's Redis: every
kind of answer carries them, ``no-store`` marks the answers a token or a session
authorized, and ``Strict-Transport-Security`` comes only over https."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.common.settings import Settings
from server.web.app import create_app
from server.web.head_limits import MAX_REQUEST_TARGET
from server.web.security_headers import private_request
from tests.fast_paths_marks import needs_our_protocols
from tests.server.ws_helpers import LiveServer, live_server, new_table

PASSWORD = "Tr0ub4dor&3-quite-long"
HTTPS = {"X-Forwarded-Proto": "https"}


def settings_for(redis_server: str, **changes: Any) -> Settings:
    return (
        Settings(redis_url=redis_server, analysis_budget=0).without_rate_limits().with_(**changes)
    )


@pytest.fixture
async def server(redis_client: Any, redis_server: str) -> AsyncIterator[LiveServer]:
    """A live server with no rate limit, on an emptied database."""
    async with live_server(settings_for(redis_server)) as live:
        yield live


@contextlib.asynccontextmanager
async def client(
    server: LiveServer, address: str = "127.0.0.1"
) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the server (its own cookie jar), connecting from ``address``."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=server.http_url, transport=transport) as http:
        yield http


def directives(policy: str) -> dict[str, list[str]]:
    """A Content-Security-Policy as {directive: its sources}."""
    parsed: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *sources = part.split()
        parsed[name] = sources
    return parsed


def assert_protected(headers: httpx.Headers) -> None:
    """The headers every answer carries, with the policy's essential directives."""
    assert headers.get("x-frame-options") == "DENY"
    assert headers.get("x-content-type-options") == "nosniff"
    assert headers.get("referrer-policy") == "no-referrer"
    policy = directives(headers["content-security-policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["form-action"] == ["'self'"]
    assert policy["connect-src"] == ["'self'"]
    # No inline script or style, no eval: nothing but the origin (and blob: images).
    for directive in ("script-src", "style-src"):
        assert policy.get(directive, policy["default-src"]) == ["'self'"]
    assert set(policy["img-src"]) <= {"'self'", "blob:"}
    assert "strict-transport-security" not in headers  # plain http


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 200),
        ("HEAD", "/", 200),
        ("GET", "/js/app.js", 200),
        ("GET", "/style.css", 200),
        ("GET", "/favicon.svg", 200),
        ("GET", "/api/catalog/classic", 200),
        ("GET", "/api/games", 200),
        ("GET", "/healthz", 200),
        ("GET", "/api/no-such-thing", 404),
        ("GET", "/no-such-file.js", 404),
        ("GET", "/api/games/nope/view", 404),
        ("DELETE", "/api/games", 405),
        ("POST", "/api/games", 400),
        ("GET", "/ws/games/abc", 426),
    ],
)
async def test_every_kind_of_answer_carries_the_security_headers(
    server: LiveServer, method: str, path: str, status: int
) -> None:
    """The page, its scripts, styles and icon, API answers, the health check and every error (404 of the API and of files, 405, 400, 426) carry CSP, X-Frame-Options, nosniff and Referrer-Policy."""
    async with client(server) as http:
        r = await http.request(method, path)
    assert r.status_code == status
    assert_protected(r.headers)


@needs_our_protocols
async def test_a_refusal_below_the_app_carries_them(server: LiveServer) -> None:
    """A request refused by the connection's own protocol (a 414 for a target too long, written below the app) carries the same headers."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    try:
        target = "/?x=" + "a" * MAX_REQUEST_TARGET
        writer.write(f"GET {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 15)
    finally:
        writer.close()
    head = answer.partition(b"\r\n\r\n")[0].decode()
    status_line, *lines = head.split("\r\n")
    assert " 414 " in status_line
    assert_protected(httpx.Headers([tuple(line.split(": ", 1)) for line in lines]))


async def test_an_answer_of_the_last_resort_carries_them(
    redis_client: Any, redis_server: str
) -> None:
    """A request that fails unexpectedly (the last resort's 500) carries the headers too: the middleware is outside it."""

    async def boom(request: Request) -> Response:
        raise RuntimeError("a bug")

    app = create_app(settings_for(redis_server), routes=[Route("/boom", boom)], plugins=False)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as http:
            r = await http.get("/boom")
    assert r.status_code == 500 and r.json()["code"] == "server_error"
    assert_protected(r.headers)


async def test_answers_a_seat_token_authorized_are_not_stored(server: LiveServer) -> None:
    """The view and the events a seat token authorized (a hidden reserved card), a command and the join that answers a token are no-store; a spectator's view of the same game is not."""
    async with client(server) as http:
        table = await new_table(http)
        bearer = {"Authorization": f"Bearer {table.tokens[0]}"}
        game = f"/api/games/{table.id}"
        joined = await http.post("/api/games", json={"variant": "classic", "players": 2, "seed": 1})
        seat = await http.post(f"/api/games/{joined.json()['id']}/seats", json={"name": "Ed"})
        private = [
            await http.get(f"{game}/view", headers=bearer),
            await http.get(f"{game}/events", headers=bearer),
            await http.post(f"{game}/commands", headers=bearer, content=b"{}"),
            joined,
            seat,
        ]
        public = [await http.get(f"{game}/view"), await http.get(f"{game}/events")]
    assert [r.status_code for r in private] == [200, 200, 400, 201, 201]
    assert seat.json()["token"]
    for r in private:
        assert r.headers.get("cache-control") == "no-store", r.request.url
        assert_protected(r.headers)
    for r in public:
        assert r.status_code == 200 and "cache-control" not in r.headers


async def test_answers_a_session_authorized_are_not_stored(server: LiveServer) -> None:
    """With the session cookie, every API answer is no-store, a route that does not exist yet included (the rule is generic); the page and its files stay cacheable for everyone."""
    async with client(server) as http:
        signed = await http.post("/api/accounts", json={"username": "Hd_1", "password": PASSWORD})
        assert signed.status_code == 201 and "splendor_session" in http.cookies
        private = [
            signed,
            await http.get("/api/me"),
            await http.get("/api/games"),
            await http.get("/api/me/not-yet-a-route"),
        ]
        public = [await http.get("/"), await http.get("/js/app.js"), await http.get("/style.css")]
    for r in private:
        assert r.headers.get("cache-control") == "no-store", r.request.url
    for r in public:
        assert r.status_code == 200 and "cache-control" not in r.headers
        assert r.headers.get("etag")  # revalidated, not stored blind
    async with client(server) as guest:  # no session: the lobby's list is public
        assert "cache-control" not in (await guest.get("/api/games")).headers


def test_which_requests_are_private() -> None:
    """A token in the query string, a bearer header or any method but GET/HEAD make an answer private; the session cookie does only under the API."""

    def scope(method: str, path: str, query: bytes = b"", **headers: str) -> dict[str, Any]:
        raw = [(k.encode(), v.encode()) for k, v in headers.items()]
        return {
            "type": "http",
            "method": method,
            "path": path,
            "query_string": query,
            "headers": raw,
        }

    cookie = "splendor_account=1; splendor_session=abc"
    assert private_request(scope("GET", "/ws/games/x", b"token=abc&since=3"))
    assert private_request(scope("GET", "/ws/games/x", b"since=3&token=abc"))
    assert not private_request(scope("GET", "/ws/games/x", b"since=3&notoken=1"))
    assert private_request(scope("GET", "/metrics", authorization="Bearer m"))
    assert private_request(scope("POST", "/api/qr"))
    assert private_request(scope("GET", "/api/players/ana", cookie=cookie))
    assert not private_request(scope("GET", "/api/players/ana", cookie="splendor_account=1"))
    assert not private_request(scope("GET", "/js/app.js", cookie=cookie))
    assert not private_request(scope("HEAD", "/"))


async def test_hsts_only_over_https_from_a_trusted_proxy(
    redis_client: Any, redis_server: str
) -> None:
    """Strict-Transport-Security comes when a trusted proxy says the request came over https (X-Forwarded-Proto), never over plain http nor on an untrusted client's say-so."""
    proxied = settings_for(redis_server, trusted_proxies=("127.0.0.1",))
    async with live_server(proxied) as live:
        async with client(live) as proxy:
            over_https = [await proxy.get(path, headers=HTTPS) for path in ("/", "/api/nope")]
            plain = await proxy.get("/")
        async with client(live, "127.0.0.2") as stranger:  # not the proxy: not believed
            claimed = await stranger.get("/", headers=HTTPS)
    for r in over_https:
        assert r.headers.get("strict-transport-security") == "max-age=31536000"
    assert "strict-transport-security" not in plain.headers
    assert "strict-transport-security" not in claimed.headers
    async with live_server(settings_for(redis_server)) as live, client(live) as http:
        # No trusted proxy: X-Forwarded-Proto is nobody's word.
        assert "strict-transport-security" not in (await http.get("/", headers=HTTPS)).headers
