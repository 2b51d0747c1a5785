"""Accounts against a real server (uvicorn on 127.0.0.1) and the session's Redis: sign
up, log in, log out (here and everywhere), the cookie, duplicate names, the login
rate limits, the ``Origin`` check, deletion, and no password kept or logged in clear
(docs/accounts.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
import uvicorn

from server import cli
from server.common.settings import Settings
from server.games.archiver import archive_game
from server.web.app import create_app
from server.web.connections import server_options
from server.web.logs import RedactSecrets
from server.web.state import parts, running
from tests.ratings.helpers import counted_game, play_turns_http
from tests.server import helpers
from tests.server.ws_helpers import LiveServer, Watcher, connect, listening_socket, live_server

PASSWORD = "Tr0ub4dor&3-quite-long"


def settings_for(redis_server: str, **changes: Any) -> Settings:
    return Settings(redis_url=redis_server).without_rate_limits().with_(**changes)


@contextlib.asynccontextmanager
async def client(
    server: LiveServer, address: str = "127.0.0.1"
) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the server (its own cookie jar), connecting from ``address``."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=server.http_url, transport=transport) as http:
        yield http


@pytest.fixture
async def server(redis_client: aioredis.Redis, redis_server: str) -> AsyncIterator[LiveServer]:
    """A live server with no rate limit, on an emptied database."""
    async with live_server(settings_for(redis_server)) as live:
        yield live


async def sign_up(
    http: httpx.AsyncClient,
    username: str,
    password: str = PASSWORD,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    body = {"username": username, "password": password}
    return await http.post("/api/accounts", json=body, headers=headers)


async def log_in(
    http: httpx.AsyncClient, username: str, password: str = PASSWORD
) -> httpx.Response:
    return await http.post("/api/session", json={"username": username, "password": password})


async def test_sign_up_gives_a_session_in_an_http_only_lax_cookie(server: LiveServer) -> None:
    """Sign-up answers 201 {"username"} with an HttpOnly, SameSite=Lax cookie (not Secure over http); /api/me then names the account."""
    async with client(server) as http:
        r = await sign_up(http, "Ana_Lu")
        assert r.status_code == 201 and r.json() == {"username": "Ana_Lu"}
        session, hint = r.headers.get_list("set-cookie")
        assert session.startswith("splendor_session=")
        attributes = {a.strip().split("=")[0].lower() for a in session.split(";")[1:]}
        assert {"httponly", "samesite", "path", "max-age"} <= attributes
        assert "samesite=lax" in session.lower() and "secure" not in attributes
        # The page's hint that it holds a session: readable, and no secret in it.
        assert hint.startswith("splendor_account=1;") and "httponly" not in hint.lower()
        me = await http.get("/api/me")
        assert me.status_code == 200 and me.json()["username"] == "Ana_Lu"
        # ratings: docs/ratings.md; language: docs/languages.md (none chosen yet).
        assert set(me.json()) == {"username", "ratings", "language"}
        assert me.json()["language"] is None


async def test_the_cookie_is_secure_behind_https(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """With SPLENDOR_SECURE_COOKIES, or behind a trusted proxy that says the request came over https (X-Forwarded-Proto), both cookies are Secure; an untrusted client's X-Forwarded-Proto changes nothing."""
    https = {"X-Forwarded-Proto": "https"}
    secure = settings_for(redis_server, secure_cookies=True)
    async with live_server(secure) as live, client(live) as http:
        r = await sign_up(http, "Sec_1")
        assert all(_secure(c) for c in r.headers.get_list("set-cookie"))
    proxied = settings_for(redis_server, trusted_proxies=("127.0.0.1",))
    async with live_server(proxied) as live:
        async with client(live) as http:
            r = await sign_up(http, "Sec_2", headers=https)
            assert all(_secure(c) for c in r.headers.get_list("set-cookie"))
        async with client(live, "127.0.0.2") as http:  # not the proxy: not believed
            r = await sign_up(http, "Sec_3", headers=https)
            assert not any(_secure(c) for c in r.headers.get_list("set-cookie"))


def _secure(cookie: str) -> bool:
    return "secure" in {a.strip().lower() for a in cookie.split(";")}


async def test_log_out_revokes_the_session_itself(server: LiveServer) -> None:
    """After logging out, /api/me is 401 even for a client that kept the old cookie: the session is gone from Redis, not only from the browser."""
    async with client(server) as http, client(server) as thief:
        await sign_up(http, "Bo_1")
        thief.cookies.update(http.cookies)
        assert (await thief.get("/api/me")).status_code == 200
        r = await http.delete("/api/session")
        assert r.status_code == 204
        assert {c.split("=")[0] for c in r.headers.get_list("set-cookie")} == {
            "splendor_session",
            "splendor_account",
        }  # both cleared (Max-Age=0)
        assert "splendor_session" not in http.cookies
        assert (await http.get("/api/me")).status_code == 401
        gone = await thief.get("/api/me")
        assert gone.status_code == 401 and gone.json()["code"] == "unauthorized"


async def test_log_in_again_and_wrong_passwords(server: LiveServer) -> None:
    """Logging in gives a new session; a wrong password and an unknown username get the same 401 answer and no cookie."""
    async with client(server) as http:
        await sign_up(http, "Cy_2")
        await http.delete("/api/session")
        r = await log_in(http, "cy_2")  # any case logs in; the name stays as typed
        assert r.status_code == 200 and r.json() == {"username": "Cy_2"}
        assert (await http.get("/api/me")).json()["username"] == "Cy_2"
        before = http.cookies["splendor_session"]
        await log_in(http, "Cy_2")  # again: a new session (the other ends on its own)
        assert http.cookies["splendor_session"] != before
    async with client(server) as other:
        wrong = await log_in(other, "Cy_2", "not the password")
        unknown = await log_in(other, "Nobody_9", "not the password")
        assert wrong.status_code == unknown.status_code == 401
        assert (
            wrong.json()
            == unknown.json()
            == {
                "code": "unauthorized",
                "message": "Wrong username or password.",
                "reason": {"key": "account.wrong_login", "args": {}},
            }
        )
        assert "set-cookie" not in wrong.headers and "set-cookie" not in unknown.headers
        assert (await other.get("/api/me")).status_code == 401


async def test_usernames_are_unique_whatever_their_case(server: LiveServer) -> None:
    """A username taken in another case is 409 conflict; names and passwords out of bounds are 400 and make nothing."""
    async with client(server) as http:
        assert (await sign_up(http, "Di_Ana")).status_code == 201
        taken = await sign_up(http, "dI_aNA", "another password")
        assert taken.status_code == 409 and taken.json()["code"] == "conflict"
        for name in ("ab", "a" * 21, "Ana Lu", "Ana.Lu", "Änne", ""):
            r = await sign_up(http, name)
            assert r.status_code == 400 and r.json()["code"] == "bad_request", name
        assert (await sign_up(http, "Short_pw", "1234567")).status_code == 400
        unknown_field = await http.post(
            "/api/accounts", json={"username": "Ok_name", "password": PASSWORD, "admin": True}
        )
        assert unknown_field.status_code == 400
        assert (await log_in(http, "Ok_name")).status_code == 401  # nothing was made
    async with client(server) as first:
        assert (await log_in(first, "DI_ANA")).json() == {"username": "Di_Ana"}


async def test_log_out_everywhere_ends_every_session(server: LiveServer) -> None:
    """Two devices logged in to one account: "log out everywhere" from one ends both sessions; another account's session stays."""
    async with client(server) as phone, client(server) as laptop, client(server) as other:
        await sign_up(phone, "Eve_3")
        await log_in(laptop, "Eve_3")
        await sign_up(other, "Fay_4")
        r = await laptop.delete("/api/sessions")
        assert r.status_code == 200 and r.json() == {"ended": 2}
        assert (await phone.get("/api/me")).status_code == 401
        assert (await laptop.get("/api/me")).status_code == 401
        assert (await other.get("/api/me")).status_code == 200
        assert (await laptop.delete("/api/sessions")).status_code == 401


async def test_requests_from_another_site_are_refused(server: LiveServer) -> None:
    """A sign-up, log-in, log-out, rated game or account seat sent with another site's Origin is 403 and changes nothing; the server's own Origin is accepted."""
    evil = {"Origin": "http://evil.example"}
    own = {"Origin": server.http_url}
    async with client(server) as http:
        r = await http.post(
            "/api/accounts", json={"username": "Gus_5", "password": PASSWORD}, headers=evil
        )
        assert r.status_code == 403 and r.json()["code"] == "unauthorized"
        assert "set-cookie" not in r.headers
        assert (await log_in(http, "Gus_5")).status_code == 401  # no account was made
        r = await http.post(
            "/api/accounts", json={"username": "Gus_5", "password": PASSWORD}, headers=own
        )
        assert r.status_code == 201
        cross = {"Sec-Fetch-Site": "cross-site"}
        assert (await http.delete("/api/session", headers=cross)).status_code == 403
        assert (await http.delete("/api/session", headers=evil)).status_code == 403
        assert (await http.get("/api/me")).status_code == 200  # still logged in
        rated = {"variant": "classic", "rated": True, "clock": {"initial": 180, "increment": 2}}
        assert (await http.post("/api/games", json=rated, headers=evil)).status_code == 403
        game = (await http.post("/api/games", json={"variant": "classic"})).json()
        seat = await http.post(f"/api/games/{game['id']}/seats", json={}, headers=evil)
        assert seat.status_code == 403
        assert (await http.get(f"/api/games/{game['id']}")).json()["seats"] == []
        assert (
            await http.post(
                "/api/session", json={"username": "Gus_5", "password": PASSWORD}, headers=evil
            )
        ).status_code == 403


async def test_an_accounts_failures_from_many_addresses_count_together(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Failed log-ins to one account from three addresses spend its burst of 3 together; the next takes the back-off's first slot, then each address that failed gets 429 (the right password too); a new address's right password still logs in (docs/accounts.md "Log-in limits"; more in test_login_limits.py)."""
    settings = settings_for(
        redis_server,
        login_rate=0.001,
        login_burst=6,
        account_address_login_rate=0.001,
        account_address_login_burst=5,
        account_login_rate=0.001,
        account_login_burst=3,
        new_address_login_rate=0.001,
        new_address_login_burst=3,
    )
    async with live_server(settings) as live:
        async with client(live, "127.0.0.9") as http:
            await sign_up(http, "Hal_6")
        for i in range(4):  # three addresses, the first twice
            async with client(live, f"127.0.0.{10 + i % 3}") as http:
                assert (await log_in(http, "Hal_6", "wrong guess")).status_code == 401
        for i in range(3):
            async with client(live, f"127.0.0.{10 + i}") as http:
                r = await log_in(http, "Hal_6")
                assert r.status_code == 429 and r.json()["code"] == "rate_limited"
                assert "this account" in r.json()["message"]
                assert int(r.headers["retry-after"]) >= 1 and "set-cookie" not in r.headers
        async with client(live, "127.0.0.20") as http:
            assert (await log_in(http, "Hal_6")).status_code == 200


async def test_a_rated_game_is_made_and_joined_by_accounts(server: LiveServer) -> None:
    """A rated game needs a session, a clock and no seed; {} with a session seats the account (its username as the name, a seat token as usual); a guest is refused 401, a bot may sit, an account sits once."""
    clock = {"initial": 180, "increment": 2}
    async with client(server) as ana, client(server) as guest, client(server) as bo:
        rated = {"variant": "classic", "players": 3, "rated": True, "clock": clock}
        r = await guest.post("/api/games", json=rated)
        assert r.status_code == 401 and r.json()["code"] == "unauthorized"
        await sign_up(ana, "Ana_R")
        await sign_up(bo, "Bo_R")
        for bad in ({"seed": 3}, {"clock": None}):
            r = await ana.post("/api/games", json={**rated, **bad})
            assert r.status_code == 400 and r.json()["code"] == "bad_request", bad
        assert (await guest.get("/api/games", params={"status": "open"})).json()["games"] == []
        game = (await ana.post("/api/games", json=rated)).json()
        assert game["rated"] is True and game["seeded"] is False
        url = f"/api/games/{game['id']}/seats"
        seat = await ana.post(url, json={})
        assert seat.status_code == 201 and seat.json()["seat"] == 0 and seat.json()["token"]
        twice = await ana.post(url, json={})
        assert twice.status_code == 422 and "one seat an account" in twice.json()["message"]
        refused = await guest.post(url, json={"name": "Guest"})
        assert refused.status_code == 401 and "rated" in refused.json()["message"]
        assert (await guest.post(url, json={})).status_code == 400  # no session: name or bot
        assert (await guest.post(url, json={"bot": "greedy"})).status_code == 201
        assert (await bo.post(url, json={})).status_code == 201
        summary = (await guest.get(f"/api/games/{game['id']}")).json()
        assert summary["status"] == "live" and summary["rated"] is True
        assert [(s["name"], s["bot"], s["account"]) for s in summary["seats"]] == [
            ("Ana_R", None, "Ana_R"),
            ("Greedy bot", "greedy", None),
            ("Bo_R", None, "Bo_R"),
        ]
        view = (await guest.get(f"/api/games/{game['id']}/view")).json()["view"]
        assert view["rated"] is True and view["players"][2]["account"] == "Bo_R"
        events = (await guest.get(f"/api/games/{game['id']}/events")).json()["events"]
        joined = [e for e in events if e["type"] == "PlayerJoined"]
        assert [e["account"] for e in joined] == ["Ana_R", None, "Bo_R"]
        casual = (await ana.post("/api/games", json={"variant": "duel"})).json()
        guest_seat = await ana.post(f"/api/games/{casual['id']}/seats", json={"name": "Incognito"})
        assert guest_seat.status_code == 201  # logged in, a casual game: a guest seat still


async def test_a_deleted_account_is_listed_as_deleted_player(server: LiveServer) -> None:
    """Deleting needs the password; then the sessions end, the name can't be signed up again, and the account's games list its seat as "deleted player" (the events untouched)."""
    async with client(server) as ivy, client(server) as other, client(server) as reader:
        await sign_up(ivy, "Ivy_7")
        await log_in(other, "Ivy_7")
        game = (await ivy.post("/api/games", json={"variant": "classic"})).json()
        await ivy.post(f"/api/games/{game['id']}/seats", json={})
        await ivy.post(f"/api/games/{game['id']}/seats", json={"bot": "random"})
        wrong = await ivy.request("DELETE", "/api/me", json={"password": "not it at all"})
        assert wrong.status_code == 403 and (await ivy.get("/api/me")).status_code == 200
        r = await ivy.request("DELETE", "/api/me", json={"password": PASSWORD})
        assert r.status_code == 204
        assert (await ivy.get("/api/me")).status_code == 401
        assert (await other.get("/api/me")).status_code == 401
        assert (await log_in(reader, "Ivy_7")).status_code == 401
        assert (await sign_up(reader, "ivy_7")).status_code == 409
        seats = (await reader.get(f"/api/games/{game['id']}")).json()["seats"]
        assert (seats[0]["name"], seats[0]["account"]) == ("deleted player", None)
        listed = (await reader.get("/api/games")).json()["games"][0]["seats"][0]
        assert listed["name"] == "deleted player"
        view = (await reader.get(f"/api/games/{game['id']}/view")).json()["view"]
        assert view["players"][0]["name"] == "deleted player"
        events = (await reader.get(f"/api/games/{game['id']}/events")).json()["events"]
        assert events[1]["name"] == "deleted player" and events[1]["account"] is None
    stored = [e async for e in _stream_names(server, game["id"])]
    assert b"Ivy_7" in stored[0]  # the log itself is not rewritten


async def test_a_deleted_accounts_finished_game_is_exported_and_watched_as_deleted_player(
    server: LiveServer, tmp_path: Path
) -> None:
    """A finished game of a deleted account: its download (GET /export) and `splendor export` name its seat "deleted player", account null, in the header's seats and its PlayerJoined event, and so does a websocket's snapshot; the other seat keeps its name."""
    async with client(server) as ivy, client(server) as reader:
        await sign_up(ivy, "Ivy_8")
        game_id = (await ivy.post("/api/games", json={"variant": "classic"})).json()["id"]
        token = (await ivy.post(f"/api/games/{game_id}/seats", json={})).json()["token"]
        await reader.post(f"/api/games/{game_id}/seats", json={"name": "Bo"})
        resign = {"command_id": "c1", "action": {"kind": "resign"}}
        r = await ivy.post(
            f"/api/games/{game_id}/commands", json=resign, headers=helpers.auth(token)
        )
        assert r.status_code == 200, r.text
        before = (await reader.get(f"/api/games/{game_id}/export")).json()
        assert before["seats"][0]["name"] == "Ivy_8"
        r = await ivy.request("DELETE", "/api/me", json={"password": PASSWORD})
        assert r.status_code == 204
        downloaded = (await reader.get(f"/api/games/{game_id}/export")).json()
    spectator = Watcher("s", await connect(server.ws_url(game_id)))
    players = (await spectator.next())["view"]["players"]
    await spectator.conn.close()
    assert [(p["name"], p.get("account")) for p in players] == [
        ("deleted player", None),
        ("Bo", None),
    ]
    out = tmp_path / "games.jsonl"
    url = parts(server.app).settings.redis_url
    assert await asyncio.to_thread(cli.main, ["export", "--redis-url", url, "--out", str(out)]) == 0
    (exported,) = [json.loads(line) for line in out.read_text().splitlines()]
    for record in (downloaded, exported):
        seats = [(s["name"], s["account"]) for s in record["seats"]]
        assert seats == [("deleted player", None), ("Bo", None)]
        joined = [e for e in record["events"] if e["type"] == "PlayerJoined"]
        assert [(e["name"], e["account"]) for e in joined] == seats
        assert "Ivy_8" not in json.dumps(record)


async def _stream_names(server: LiveServer, game_id: str) -> AsyncIterator[bytes]:
    service = running(server.app).service
    for entry in await service.store.read(game_id, after=1):
        if b"PlayerJoined" in entry.data:
            yield entry.data


class _Captured(logging.Handler):
    """The server's lines (not the test's HTTP client's), through the filter every
    handler of the server's log configuration has (server.web.logs.log_config)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.addFilter(RedactSecrets())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(("httpx", "httpcore")):
            self.lines.append(self.format(record))


@contextlib.contextmanager
def captured_logs() -> Iterator[_Captured]:
    """Every log line of the process at debug level, formatted, while inside."""
    root = logging.getLogger()
    handler, level = _Captured(), root.level
    # uvicorn's loggers stop propagating once a server configured them (earlier tests).
    loggers = [root, *(logging.getLogger(n) for n in ("uvicorn", "uvicorn.access"))]
    for logger in loggers:
        logger.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
        root.setLevel(level)


@contextlib.asynccontextmanager
async def debug_server(settings: Settings) -> AsyncIterator[LiveServer]:
    """The server at debug level with its access log, its lines going to the root logger."""
    app = create_app(settings)
    sock = listening_socket()
    options = server_options(settings)
    config = uvicorn.Config(
        app, log_level="debug", access_log=True, log_config=None, lifespan="on", **options
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        yield LiveServer("127.0.0.1", sock.getsockname()[1], app)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 15)
        sock.close()


async def test_no_password_is_stored_or_logged_in_clear(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """After sign-up, log-ins right and wrong and a deletion, neither the passwords nor a session id are in any Redis key's dump, the saved RDB file or the server's debug log."""
    secret, wrong, other = (
        "Zebra-Quartz-Kettle-91",
        "Wrong-Guess-Lantern-27",
        "Other-Pass-Violet-55",
    )
    with captured_logs() as logs:
        async with debug_server(settings_for(redis_server)) as live:
            async with client(live) as http:
                await sign_up(http, "Jo_Secret", secret)
                session = http.cookies["splendor_session"]
                await log_in(http, "Jo_Secret", wrong)
                await log_in(http, "Jo_Secret", secret)
                await log_in(http, "Nobody_x", wrong)
                await sign_up(http, "Kim_Gone", other)
                await http.request("DELETE", "/api/me", json={"password": other})
                assert (await http.get("/api/me")).status_code == 401
            keys = [k async for k in redis_client.scan_iter(count=1000)]
            assert b"{accounts}:jo_secret" in keys
            dumps = b"".join([await redis_client.dump(k) or b"" for k in keys])
            await redis_client.save()
            folder = (await redis_client.config_get("dir"))["dir"]
            files = b"".join(p.read_bytes() for p in Path(folder).rglob("*") if p.is_file())
    log_text = "\n".join(logs.lines)
    assert "POST /api/session" in log_text  # the access log was on
    for secret_bytes in (secret.encode(), wrong.encode(), other.encode(), session.encode()):
        assert secret_bytes not in dumps
        assert secret_bytes not in files
        assert secret_bytes.decode() not in log_text
    assert b"$argon2id$" in dumps  # what is kept: the hash


async def test_a_deleted_account_leaves_the_leaderboard_and_its_profile(
    server: LiveServer,
) -> None:
    """After a rated game between two accounts, each listed on the leaderboard by it (its 10th counted game, its 5th opponent), deleting one takes it off the leaderboard (the other stays), its profile answers 404, and the other's profile lists it as "deleted player"."""
    async with client(server) as kay, client(server) as lee, client(server) as reader:
        await sign_up(kay, "Kay_8")
        await sign_up(lee, "Lee_8")
        for player in ("Kay_8", "Lee_8"):  # 9 counted games against 4 others each
            for rival in ["Ru_1", "Ru_2", "Ru_3", "Ru_4"] * 2 + ["Ru_1"]:
                await counted_game(running(server.app).service, "duel", [player, rival])
        rated = {"variant": "duel", "rated": True, "clock": {"initial": 300, "increment": 3}}
        game = (await kay.post("/api/games", json=rated)).json()
        token = (await kay.post(f"/api/games/{game['id']}/seats", json={})).json()["token"]
        lees = (await lee.post(f"/api/games/{game['id']}/seats", json={})).json()["token"]
        await play_turns_http(reader, game["id"], [token, lees])
        resign = {"command_id": "resign-1", "action": {"kind": "resign"}}
        r = await kay.post(
            f"/api/games/{game['id']}/commands",
            json=resign,
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status_code == 200, r.text
        board = (await reader.get("/api/leaderboard/duel")).json()["players"]
        assert {p["username"] for p in board} >= {"Kay_8", "Lee_8"}
        await kay.request("DELETE", "/api/me", json={"password": PASSWORD})
        board = (await reader.get("/api/leaderboard/duel")).json()["players"]
        assert "Lee_8" in {p["username"] for p in board}
        assert "Kay_8" not in {p["username"] for p in board}
        gone = await reader.get("/api/players/Kay_8")
        assert gone.status_code == 404 and gone.json()["code"] == "not_found"
        profile = (await reader.get("/api/players/lee_8")).json()
        names = [s["name"] for s in profile["games"][0]["seats"]]
        assert "deleted player" in names and "Lee_8" in names


async def test_one_name_signed_up_at_once_on_two_servers_makes_one_account(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Eight sign-ups of one name in different cases, sent at once to two servers on one Redis: exactly one is 201, the others 409, and the account is the winner's (its case, its password)."""
    names = ["Race_Me", "race_me", "RACE_ME", "rAcE_mE"] * 2
    async with (
        live_server(settings_for(redis_server)) as one,
        live_server(settings_for(redis_server)) as two,
    ):
        clients = [contextlib.AsyncExitStack() for _ in names]
        https = [
            await stack.enter_async_context(client(one if i % 2 else two))
            for i, stack in enumerate(clients)
        ]
        answers = await asyncio.gather(
            *(
                sign_up(http, name, f"{PASSWORD}-{i}")
                for i, (http, name) in enumerate(zip(https, names, strict=True))
            )
        )
        statuses = sorted(r.status_code for r in answers)
        assert statuses == [201] + [409] * (len(names) - 1)
        winner = next(i for i, r in enumerate(answers) if r.status_code == 201)
        async with client(two) as http:
            assert (await log_in(http, "race_me", f"{PASSWORD}-{winner}")).json() == {
                "username": names[winner]
            }
        for stack in clients:
            await stack.aclose()


async def test_a_deleted_account_plays_no_rated_rematch(server: LiveServer) -> None:
    """After a rated Duel, archived (its seats' tokens final: not revoked with the account, docs/accounts.md), the seat of an account deleted since is refused the rematch (403 unauthorized: its player still holds the seat token, not the account); the other account's call is answered as usual."""
    async with client(server) as mo, client(server) as ned:
        await sign_up(mo, "Mo_9")
        await sign_up(ned, "Ned_9")
        rated = {"variant": "duel", "rated": True, "clock": {"initial": 300, "increment": 3}}
        game = (await mo.post("/api/games", json=rated)).json()
        url = f"/api/games/{game['id']}"
        tokens = [(await c.post(f"{url}/seats", json={})).json()["token"] for c in (mo, ned)]
        resign = {"command_id": "resign-1", "action": {"kind": "resign"}}
        r = await mo.post(
            f"{url}/commands", json=resign, headers={"Authorization": f"Bearer {tokens[0]}"}
        )
        assert r.status_code == 200, r.text
        assert await archive_game(running(server.app).service, game["id"])
        assert (
            await mo.request("DELETE", "/api/me", json={"password": PASSWORD})
        ).status_code == 204
        refused = await mo.post(f"{url}/rematch", headers={"Authorization": f"Bearer {tokens[0]}"})
        assert refused.status_code == 403 and refused.json()["code"] == "unauthorized"
        assert "deleted" in refused.json()["message"]
        assert (await mo.get(url)).json().get("rematch") is None  # nothing made
        made = await ned.post(f"{url}/rematch", headers={"Authorization": f"Bearer {tokens[1]}"})
        assert made.status_code == 201, made.text


async def test_account_answers_are_never_stored_by_a_cache(server: LiveServer) -> None:
    """Sign-up, log-in, /api/me, log out everywhere, log out and deletion answer with Cache-Control: no-store (they carry the session cookie or name the account)."""
    async with client(server) as http:
        answers = [await sign_up(http, "Nos_1")]
        answers.append(await http.get("/api/me"))
        answers.append(await log_in(http, "Nos_1"))
        answers.append(await http.delete("/api/sessions"))
        answers.append(await http.delete("/api/session"))
        await log_in(http, "Nos_1")
        answers.append(await http.request("DELETE", "/api/me", json={"password": PASSWORD}))
        assert [r.status_code for r in answers] == [201, 200, 200, 200, 204, 204]
        assert all(r.headers.get("cache-control") == "no-store" for r in answers)
