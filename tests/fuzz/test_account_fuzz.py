"""Hypothesis over raw bytes for the account and player endpoints (docs/accounts.md,
docs/http-api.md): sign-up, log-in and deletion bodies, session cookies, ``Origin``
headers, player and leaderboard paths. Every answer is PROTOCOL.md's (a 2xx, or a
status with ``{"code", "message"}``), never a 500, and a refused request changes
nothing: the accounts in Redis are as they were and the test's session still works."""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import quote

import httpx
import pytest
import redis.asyncio as aioredis
from hypothesis import example, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette

from tests.fuzz.strategies import bodies, query_values
from tests.fuzz.test_http_fuzz import FUZZ, answered, header_values

PASSWORD = "Fuzz-Password-Long-7"
OWN_ORIGIN = "http://splendor.test"
FEWER = settings(FUZZ, max_examples=40)  # a right password costs an argon2 hash

# Cookie values as a browser or a program might send them (no ; or , or space).
cookie_values = st.one_of(
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=120).filter(
        lambda s: not set(s) & set(';,"\\')
    ),
    st.sampled_from(["", "x" * 101, "a" * 43]),
)


class Accounts:
    """What the accounts hold in Redis (accounts, tombstones, session lists), taken
    once and compared after each example; and whether the session still works."""

    def __init__(self, redis_client: aioredis.Redis, http: httpx.AsyncClient) -> None:
        self.redis = redis_client
        self.http = http
        self.before: dict[bytes, bytes | None] | None = None

    async def now(self) -> dict[bytes, bytes | None]:
        keys = sorted([k async for k in self.redis.scan_iter(match="{accounts}:*")])
        return {
            k: await self.redis.dump(k) if k.endswith(b":sessions") else await self.redis.get(k)
            for k in keys
        }

    async def check(self) -> None:
        now = await self.now()
        if self.before is None:
            self.before = now
        assert now == self.before
        me = await self.http.get("/api/me")
        assert me.status_code == 200 and me.json()["username"] == "Fuzz_Ana"


@pytest.fixture
async def logged_in(http: httpx.AsyncClient) -> httpx.AsyncClient:
    """The app's client with the session of a new account, Fuzz_Ana."""
    r = await http.post("/api/accounts", json={"username": "Fuzz_Ana", "password": PASSWORD})
    assert r.status_code == 201
    return http


@pytest.fixture
async def stranger(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    """Another client of the app, with a cookie jar of its own (emptied by each test)."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=OWN_ORIGIN) as client:
        yield client


@pytest.fixture
async def unchanged(redis_client: aioredis.Redis, logged_in: httpx.AsyncClient) -> Accounts:
    guard = Accounts(redis_client, logged_in)
    await guard.check()
    return guard


@FEWER
@given(body=bodies([{"username": "Fuzz_Ana", "password": PASSWORD}]))
@example(body=b'{"username":"Fuzz_Ana","password":"' + b"p" * 300 + b'"}')
@example(body=b'{"username":"fUZZ_aNA","password":"another one"}')
@example(body=b'{"username":"Fuzz_Ana","password":"' + b"\xff" * 9 + b'"}')
@example(body=b'{"username":["Fuzz_Ana"],"password":"' + PASSWORD.encode() + b'"}')
@example(body=b'{"username":"' + b"n" * 70_000 + b'","password":"x"}')
async def test_sign_up_bodies(
    stranger: httpx.AsyncClient, unchanged: Accounts, body: bytes
) -> None:
    """POST /api/accounts with any body around the taken name Fuzz_Ana: 400 or 409, nothing made, no cookie."""
    stranger.cookies.clear()
    r = await stranger.post("/api/accounts", content=body)
    answered(r, 400, 409)
    assert "set-cookie" not in r.headers
    await unchanged.check()


@FEWER
@given(body=bodies([{"username": "Fuzz_Ana", "password": "not the password"}]))
@example(body=b'{"username":"Fuzz_Ana","password":"not the password","extra":1}')
@example(body=b'{"username":"Fuzz_Ana","password":null}')
@example(body=b'{"username":"' + b"n" * 70_000 + b'","password":"x"}')
@example(body=b"")
async def test_log_in_bodies(stranger: httpx.AsyncClient, unchanged: Accounts, body: bytes) -> None:
    """POST /api/session with any body but the password: 400 or 401, no session made."""
    stranger.cookies.clear()
    r = await stranger.post("/api/session", content=body)
    answered(r, 400, 401)
    assert "set-cookie" not in r.headers
    await unchanged.check()


@FEWER
@given(body=bodies([{"password": "not the password"}]))
@example(body=b'{"password":"not the password","username":"Fuzz_Ana"}')
@example(body=b"{}")
async def test_delete_account_bodies(
    logged_in: httpx.AsyncClient, unchanged: Accounts, body: bytes
) -> None:
    """DELETE /api/me with the session and any body but the password: 400 or 403, the account and session kept."""
    r = await logged_in.request("DELETE", "/api/me", content=body)
    answered(r, 400, 403)
    await unchanged.check()


session_routes = st.sampled_from(
    [
        ("GET", "/api/me", b""),
        ("DELETE", "/api/me", b'{"password":"' + PASSWORD.encode() + b'"}'),
        ("DELETE", "/api/sessions", b""),
        ("DELETE", "/api/session", b""),
        ("POST", "/api/games", b'{"variant":"duel","rated":true,"clock":{"initial":300}}'),
    ]
)


@FUZZ
@given(route=session_routes, cookie=cookie_values)
@example(route=("GET", "/api/me", b""), cookie="")
async def test_session_cookies(
    stranger: httpx.AsyncClient,
    unchanged: Accounts,
    route: tuple[str, str, bytes],
    cookie: str,
) -> None:
    """Any session cookie but a live one, on every route a session authorizes: 401 (204 for a log-out, which ends nothing), the real session untouched."""
    method, path, body = route
    stranger.cookies.clear()
    headers = {"cookie": f"splendor_session={cookie}", "origin": OWN_ORIGIN}
    r = await stranger.request(method, path, content=body, headers=headers)
    answered(r, 204 if path == "/api/session" else 401)
    await unchanged.check()


@FUZZ
@given(
    route=session_routes.filter(lambda r: r[0] != "GET"),
    origin=header_values.filter(lambda v: v != OWN_ORIGIN.encode()),
)
@example(route=("DELETE", "/api/session", b""), origin=b"null")
@example(route=("DELETE", "/api/sessions", b""), origin=b"http://splendor.test.evil.example")
@example(route=("DELETE", "/api/me", b""), origin=b"https://splendor.test:443")
async def test_origins_of_other_sites(
    logged_in: httpx.AsyncClient,
    unchanged: Accounts,
    route: tuple[str, str, bytes],
    origin: bytes,
) -> None:
    """Any other Origin with the live session, on every route that changes something with it: 403 unauthorized, the session and account kept."""
    method, path, body = route
    r = await logged_in.request(method, path, content=body, headers={"origin": origin})
    answered(r, 403)
    await unchanged.check()


@FUZZ
@given(
    where=st.sampled_from(["player", "leaderboard"]),
    name=st.text(max_size=40).filter(lambda s: s not in ("", ".", "..")),
    limit=st.none() | query_values(),
)
@example(where="player", name="fuzz_ana", limit=None)
@example(where="leaderboard", name="duel", limit="0")
@example(where="leaderboard", name="classic", limit="9" * 40)
async def test_player_and_leaderboard_paths(
    stranger: httpx.AsyncClient,
    unchanged: Accounts,
    where: str,
    name: str,
    limit: str | None,
) -> None:
    """Any name in /api/players/{name} and any variant and limit of /api/leaderboard: 200, 400 or 404 in PROTOCOL.md's shape."""
    params = {} if limit is None else {"limit": limit}
    path = f"/api/{'players' if where == 'player' else 'leaderboard'}/{quote(name, safe='')}"
    r = await stranger.get(path, params=params)
    answered(r, 200, 400, 404)
    await unchanged.check()
