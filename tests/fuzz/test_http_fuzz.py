"""Hypothesis over raw bytes for every HTTP endpoint: whatever the body, query, path or
header, the answer is PROTOCOL.md's (a 2xx, or a status with ``{"code", "message"}``),
never a 500, and the game under attack is unchanged (summary and every view)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from server.common.errors import STATUS
from tests.fuzz.strategies import bodies, query_values
from tests.server.helpers import Table, auth, new_table, snapshot

FUZZ = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,  # the same examples every run: a failure is never a fluke
    # One game for every example, on purpose: it must come out of all of them unchanged.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
CODES = {status: {code for code, s in STATUS.items() if s == status} for status in STATUS.values()}
CODES.update({403: {"unauthorized"}, 405: {"bad_request"}, 426: {"bad_request"}})

# Header values as bytes (any Latin-1 text but control characters, as HTTP allows).
header_values = (
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=60)
    .filter(lambda s: s.strip() == s and "\x7f" not in s)
    .map(lambda s: s.encode("latin-1"))
)


def answered(r: httpx.Response, *allowed: int) -> None:
    """``r`` has one of the ``allowed`` statuses; an error has PROTOCOL.md's shape."""
    assert r.status_code in allowed, (r.status_code, r.text)
    if r.status_code >= 400:
        body = r.json()
        assert body["code"] in CODES[r.status_code], body
        assert isinstance(body["message"], str) and body["message"]


@pytest.fixture
async def table(http: httpx.AsyncClient) -> Table:
    """A started 2-player game; the seat whose move it is not is seat ``1 - mover``."""
    return await new_table(http, players=2, seed=41)


class Unchanged:
    """The game's summary and views, taken once and compared after each example."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.before: list[Any] | None = None

    async def check(self) -> None:
        now = await snapshot(self.table)
        if self.before is None:
            self.before = now
        assert now == self.before


@pytest.fixture
async def unchanged(table: Table) -> Unchanged:
    guard = Unchanged(table)
    await guard.check()
    return guard


GAMES = [
    {"variant": "classic", "players": 2, "seed": 1},
    {"variant": "duel"},
    {"variant": "classic", "players": 3, "clock": {"initial": 300, "increment": 2}},
    {"variant": "duel", "clock": {"per_move": 86_400}},
]
content_types = st.sampled_from(
    [b"application/json", b"text/plain", b"application/x-www-form-urlencoded", b"", b"a/b; c=\xff"]
)


@FUZZ
@given(
    body=bodies(GAMES),
    kind=content_types,
)
@example(body=b'{"variant":"cl\xffassic"}', kind=b"application/json")
@example(body=b"[" * 990 + b"]" * 990, kind=b"application/json")
@example(body=b'{"variant":"classic","seed":' + b"[" * 990 + b"]" * 990 + b"}", kind=b"")
async def test_create_game_bodies(
    http: httpx.AsyncClient, unchanged: Unchanged, body: bytes, kind: bytes
) -> None:
    """POST /api/games with any body and content type: 201 (a game) or 400 bad_request."""
    r = await http.post("/api/games", content=body, headers={"content-type": kind})
    answered(r, 201, 400)
    await unchanged.check()


@FUZZ
@given(body=bodies([{"name": "Ana"}, {"bot": "greedy"}]))
@example(body=b'{"name":"a\xff"}')
@example(body=b'{"name":' + b"[" * 1000 + b"]" * 1000 + b"}")
async def test_seat_bodies(
    http: httpx.AsyncClient, table: Table, unchanged: Unchanged, body: bytes
) -> None:
    """POST /seats of a full game with any body: 400 bad_request, or 422 (no seat left) for a good one."""
    r = await http.post(f"/api/games/{table.id}/seats", content=body)
    answered(r, 400, 422)
    await unchanged.check()


COMMANDS = [
    {"command_id": "c-1", "action": {"kind": "take_two", "color": "red"}},
    {
        "command_id": "c-2",
        "expected_version": 4,
        "action": {"kind": "take_three", "colors": ["white", "blue", "red"]},
    },
    {"command_id": "c-3", "action": {"kind": "reserve", "level": 1}},
    {"command_id": "c-4", "action": {"kind": "buy", "card": "1-01", "payment": {"red": 1}}},
]


@FUZZ
@given(body=bodies(COMMANDS), who=st.sampled_from(["other seat", "no token", "wrong token"]))
@example(body=b'{"command_id":"\xff","action":{}}', who="other seat")
@example(body=b'{"command_id":"x","action":' + b"[" * 3000 + b"]" * 3000 + b"}", who="other seat")
@example(body=b'{"command_id":"x","action":{"kind":"\xff"}}', who="other seat")
@example(body=b"", who="other seat")
async def test_command_bodies(
    http: httpx.AsyncClient, table: Table, unchanged: Unchanged, body: bytes, who: str
) -> None:
    """POST /commands with any body, by the seat not to move, no one, or a wrong token: 400, 401, 403, 409 or 422, and no move."""
    mover = (await table.view(0))["turn"]["seat"]
    token = {"other seat": table.tokens[1 - mover], "no token": None, "wrong token": "x" * 43}[who]
    r = await http.post(f"/api/games/{table.id}/commands", content=body, headers=auth(token))
    expected = {"other seat": (400, 409, 422), "no token": (401,), "wrong token": (403,)}[who]
    answered(r, *expected)
    await unchanged.check()


@FUZZ
@given(
    where=st.sampled_from(
        ["view?version", "events?after", "list?limit", "list?status", "socket?since"]
    ),
    value=query_values(),
)
@example(where="view?version", value="abc")
@example(where="events?after", value="-1")
@example(where="list?limit", value="")
async def test_query_parameters(
    http: httpx.AsyncClient, table: Table, unchanged: Unchanged, where: str, value: str
) -> None:
    """Any value of version, after, limit and status: 200, or 400 bad_request, or 404 for a version the game has not reached."""
    page, name = where.split("?")
    path = {"view": f"/api/games/{table.id}/view", "events": f"/api/games/{table.id}/events"}
    url = path.get(page, "/api/games")
    r = await http.get(url, params={name: value}, headers=auth(table.tokens[0]))
    if page == "socket":  # a websocket's parameter on an HTTP list: ignored
        answered(r, 200)
    else:
        answered(r, 200, 400, 404)
    await unchanged.check()


endpoints = st.sampled_from(
    [
        ("GET", ""),
        ("GET", "/view"),
        ("GET", "/events"),
        ("POST", "/seats"),
        ("POST", "/commands"),
        ("POST", "/rematch"),
        ("POST", "/seat-token"),
        ("GET", "/commands"),
        ("DELETE", ""),
        ("PUT", "/view"),
    ]
)


@FUZZ
@given(
    game_id=st.text(max_size=80).filter(lambda s: s not in ("", ".", "..")),
    endpoint=endpoints,
    token=st.none() | header_values,
)
@example(game_id="\x00", endpoint=("POST", "/seats"), token=None)
@example(game_id="a" * 5000, endpoint=("GET", ""), token=None)
async def test_game_paths_and_tokens(
    http: httpx.AsyncClient,
    unchanged: Unchanged,
    game_id: str,
    endpoint: tuple[str, str],
    token: bytes | None,
) -> None:
    """Any game id in the path, any endpoint and method, any Authorization header: 404 for no such game (or 405 for a method the path does not take), never anything else."""
    method, suffix = endpoint
    headers = {} if token is None else {"authorization": token}
    path = f"/api/games/{quote(game_id, safe='')}{suffix}"
    r = await http.request(method, path, headers=headers, content=b'{"name": "Ana"}')
    if "/" in game_id:  # decoded, it is more than one segment: no route's path
        answered(r, 404, 405)
    elif (method, suffix) in {("GET", "/commands"), ("DELETE", ""), ("PUT", "/view")}:
        answered(r, 405)
    else:
        answered(r, 401, 403, 404)  # a game found only when the id names one: none here
    await unchanged.check()


@FUZZ
@given(
    header=header_values,
    seat_path=st.sampled_from(["/view", "/events", "/rematch", "/seat-token", ""]),
)
async def test_authorization_headers_on_a_real_game(
    http: httpx.AsyncClient, table: Table, unchanged: Unchanged, header: bytes, seat_path: str
) -> None:
    """Any Authorization header on a real game's summary, view, events, rematch and seat token: the summary as always, else 403 unauthorized (no header names a seat here); never a seat's view nor a token."""
    method = "POST" if seat_path in ("/rematch", "/seat-token") else "GET"
    path = f"/api/games/{table.id}{seat_path}"
    r = await http.request(method, path, headers={"authorization": header})
    if seat_path == "":
        answered(r, 200)  # the summary is public: the header is not read
    else:
        answered(r, 403)
    if seat_path == "/view" and r.status_code == 200:
        assert r.json()["view"]["you"] is None
    await unchanged.check()
