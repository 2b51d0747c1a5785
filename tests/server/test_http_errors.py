"""Bad requests get PROTOCOL.md's status and code, and change nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from server.common.settings import Settings
from server.web.app import create_app
from server.web.state import running
from tests.server.helpers import Table, auth, command_id, new_table, refused, snapshot
from tests.server.test_service import play

LIMIT = 64 * 1024


async def post_raw(
    table: Table, content: bytes | Any, seat: int | None = 0, **headers: str
) -> httpx.Response:
    return await table.http.post(
        f"/api/games/{table.id}/commands",
        content=content,
        headers={**auth(table.tokens[seat] if seat is not None else None), **headers},
    )


@pytest.fixture
async def table(http: httpx.AsyncClient) -> Table:
    return await new_table(http, players=2, seed=99)


async def test_tokens_decide_who_may_act(table: Table, http: httpx.AsyncClient) -> None:
    """No token: 401; a token of no seat of this game or a bad scheme: 403; the other seat's token acts for that seat, whose turn it is not: 409 not_your_turn."""
    before = await snapshot(table)
    mover = await table.mover()
    take = {"kind": "take_three", "colors": ["white", "blue", "green"]}
    other_game = await new_table(http, players=2, seed=1)
    body = {"command_id": command_id(), "action": take}
    url = f"/api/games/{table.id}/commands"
    refused(await http.post(url, json=body), 401, "unauthorized")
    refused(await http.post(url, json=body, headers=auth("x" * 43)), 403, "unauthorized")
    refused(
        await http.post(url, json=body, headers=auth(other_game.tokens[mover])), 403, "unauthorized"
    )
    refused(
        await http.post(url, json=body, headers={"Authorization": "Basic abc"}), 403, "unauthorized"
    )
    refused(await table.command(1 - mover, take), 409, "not_your_turn")
    r = await http.get(f"/api/games/{table.id}/view", headers=auth("nope"))
    refused(r, 403, "unauthorized")
    assert await snapshot(table) == before


async def test_malformed_unknown_and_mistyped_bodies_are_bad_requests(table: Table) -> None:
    """Malformed JSON, unknown fields, wrong types and unknown actions: 400 bad_request."""
    before = await snapshot(table)
    seat = await table.mover()
    good = {"kind": "take_three", "colors": ["white", "blue", "green"]}
    bodies: list[bytes | dict[str, Any]] = [
        b"{not json",
        b"",
        b"[]",
        {"command_id": "a", "action": good, "extra": 1},
        {"command_id": "a", "action": {**good, "extra": 1}},
        {"command_id": "a", "action": {"kind": "teleport"}},
        {"command_id": 7, "action": good},
        {"command_id": "a", "action": good, "expected_version": "4"},
        {"command_id": "a", "action": {"kind": "take_three", "colors": "white"}},
        {"command_id": "a", "action": {"kind": "take_three", "colors": ["purple"]}},
        {"command_id": "", "action": good},
        {"command_id": "a", "action": good, "expected_version": -1},
        {"action": good},
    ]
    for body in bodies:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        refused(await post_raw(table, raw, seat), 400, "bad_request")
    assert await snapshot(table) == before


async def test_bodies_over_64_kib_are_refused_declared_or_streamed(table: Table) -> None:
    """A body over 64 KiB is 400, whether its Content-Length says so or it is streamed."""
    before = await snapshot(table)
    seat = await table.mover()
    big = b'{"command_id": "' + b"x" * LIMIT + b'", "action": {"kind": "pass"}}'
    refused(await post_raw(table, big, seat), 400, "bad_request")

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(big), 4096):
            yield big[start : start + 4096]

    refused(await post_raw(table, chunks(), seat), 400, "bad_request")
    r = await table.http.post("/api/games", content=b" " * (LIMIT + 1))
    refused(r, 400, "bad_request")
    assert await snapshot(table) == before


async def test_rules_refusals_have_their_codes(table: Table) -> None:
    """Illegal action 422; not your turn 409; a stale expected_version 409 conflict."""
    before = await snapshot(table)
    seat = await table.mover()
    version = before[0]["version"]
    refused(
        await table.command(seat, {"kind": "choose_noble", "noble": "n1"}), 422, "illegal_action"
    )
    refused(await table.command(seat, {"kind": "buy", "card": "3-01"}), 422, "illegal_action")
    refused(await table.command(seat, {"kind": "pass"}), 422, "illegal_action")
    take = {"kind": "take_three", "colors": ["white", "blue", "green"]}
    refused(await table.command(1 - seat, take), 409, "not_your_turn")
    refused(await table.command(seat, take, expected_version=version - 1), 409, "conflict")
    refused(await table.command(seat, take, expected_version=version + 1), 409, "conflict")
    assert await snapshot(table) == before


async def test_a_finished_game_refuses_commands(table: Table, app: Starlette) -> None:
    """Any command on a finished game is 409 game_over."""
    await play(running(app).service, table.id, 1000)
    before = await snapshot(table)
    assert before[0]["status"] == "finished"
    for seat in (0, 1):
        refused(await table.command(seat, {"kind": "pass"}), 409, "game_over")
    assert await snapshot(table) == before


async def test_unknown_games_and_routes_are_404(http: httpx.AsyncClient, table: Table) -> None:
    """Every game route answers 404 not_found for an unknown id, as do unknown API paths."""
    before = await snapshot(table)
    for method, path in [
        ("GET", "/api/games/nosuchgame"),
        ("GET", "/api/games/nosuchgame/view"),
        ("GET", "/api/games/nosuchgame/events"),
        ("POST", "/api/games/nosuchgame/seats"),
        ("POST", "/api/games/nosuchgame/commands"),
        ("GET", "/api/games/bad%7Bid%7D"),
        ("GET", "/api/catalog/chess"),
        ("GET", "/api/nothing/here"),
        ("POST", "/api/nothing/here"),
        ("DELETE", "/api/nothing/here"),
    ]:
        r = await http.request(method, path, json={"name": "A"}, headers=auth(table.tokens[0]))
        refused(r, 404, "not_found")
    assert await snapshot(table) == before


async def test_known_paths_with_another_method_are_405(
    http: httpx.AsyncClient, table: Table
) -> None:
    """A path of the API with a method it does not take is 405 bad_request with Allow (as docs/http-api.md says), whatever the game; a websocket's path over plain HTTP is 426."""
    before = await snapshot(table)
    for method, path, allow in [
        ("DELETE", f"/api/games/{table.id}", "GET, HEAD"),
        ("GET", f"/api/games/{table.id}/commands", "POST"),
        ("GET", "/api/games/nosuchgame/commands", "POST"),
        ("PUT", f"/api/games/{table.id}/seats", "POST"),
        ("POST", f"/api/games/{table.id}/view", "GET, HEAD"),
        ("PATCH", "/api/games", "GET, HEAD, POST"),
        ("POST", "/api/catalog/classic", "GET, HEAD"),
    ]:
        r = await http.request(method, path, headers=auth(table.tokens[0]))
        refused(r, 405, "bad_request")
        assert r.headers["allow"] == allow, (method, path)
    r = await http.get(f"/ws/games/{table.id}")
    refused(r, 426, "bad_request")
    assert r.headers["upgrade"] == "websocket"
    assert await snapshot(table) == before


async def test_query_parameters_are_checked(http: httpx.AsyncClient, table: Table) -> None:
    """Versions below 1 or not numbers are 400, past the end 404; bad lists are 400."""
    before = await snapshot(table)
    version = before[0]["version"]
    base = f"/api/games/{table.id}"
    refused(await http.get(f"{base}/view", params={"version": 0}), 400, "bad_request")
    refused(await http.get(f"{base}/view", params={"version": "x"}), 400, "bad_request")
    refused(await http.get(f"{base}/view", params={"version": version + 1}), 404, "not_found")
    refused(await http.get(f"{base}/events", params={"after": -1}), 400, "bad_request")
    assert (await http.get(f"{base}/events", params={"after": version})).json() == {"events": []}
    refused(await http.get("/api/games", params={"status": "paused"}), 400, "bad_request")
    refused(await http.get("/api/games", params={"limit": 0}), 400, "bad_request")
    refused(await http.get("/api/games", params={"limit": 1000}), 400, "bad_request")
    assert await snapshot(table) == before


async def test_bad_games_and_seats_are_refused(http: httpx.AsyncClient, table: Table) -> None:
    """Creating with a bad variant/size/field is 400; a bad seat body 400; a full game 422."""
    before = await snapshot(table)
    for body in (
        {"variant": "chess", "players": 2},
        {"variant": "classic", "players": 5},
        {"variant": "duel", "players": 4},
        {"variant": "classic", "players": "2"},
        {"variant": "classic", "players": 2, "colour": "red"},
    ):
        refused(await http.post("/api/games", json=body), 400, "bad_request")
    seats = f"/api/games/{table.id}/seats"
    for body in ({"name": "A", "bot": "greedy"}, {}, {"bot": "genius"}, {"name": " "}, {"name": 3}):
        refused(await http.post(seats, json=body), 400, "bad_request")
    refused(await http.post(seats, json={"name": "Late"}), 422, "illegal_action")
    assert await snapshot(table) == before
    assert (await http.get("/api/games", params={"status": "open"})).json() == {"games": []}


async def test_commands_beyond_the_rate_are_429(redis_client: Any, redis_server: str) -> None:
    """A client over its token bucket gets 429 rate_limited with Retry-After, and the refused command changes nothing."""
    app = create_app(
        Settings(redis_url=redis_server, command_rate=0.5, command_burst=2), plugins=False
    )
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
            table = await new_table(http, players=2, seed=3)
            seat = await table.mover()
            pass_ = {"kind": "pass"}
            refused(await table.command(seat, pass_), 422, "illegal_action")
            refused(await table.command(seat, pass_), 422, "illegal_action")
            before = await snapshot(table)
            take = {"kind": "take_three", "colors": ["white", "blue", "green"]}
            r = await table.command(seat, take)
            refused(r, 429, "rate_limited")
            assert int(r.headers["retry-after"]) >= 1
            assert await snapshot(table) == before
            other = await table.command(1 - seat, pass_)  # another seat has its own bucket
            refused(other, 409, "not_your_turn")
