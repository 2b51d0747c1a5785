"""Tournaments over HTTP in tests: accounts, each with its own session, and a game of
a tournament played to its end by a resignation."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import httpx
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection

from server.tournaments.director import Director
from server.web.state import running

PASSWORD = "a-long-enough-password"
_commands = itertools.count()


async def account(app: Starlette, username: str) -> httpx.AsyncClient:
    """An HTTP client of the in-process app holding a new account's session."""
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://splendor.test"
    )
    r = await client.post("/api/accounts", json={"username": username, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return client


def director(app: Starlette) -> Director:
    """A director over the app's services, driven by the test (``advance``)."""
    now = running(app)
    return Director(now.redis, now.tournaments, now.service)


async def created(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    """A tournament created by ``client``'s account; its summary."""
    base: dict[str, Any] = {
        "kind": "arena",
        "variant": "duel",
        "clock": {"initial": 180, "increment": 2},
    }
    r = await client.post("/api/tournaments", json={**base, **body})
    assert r.status_code == 201, r.text
    summary: dict[str, Any] = r.json()["tournament"]
    return summary


async def page(client: httpx.AsyncClient, tournament_id: str) -> dict[str, Any]:
    r = await client.get(f"/api/tournaments/{tournament_id}")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


async def resign(client: httpx.AsyncClient, game_id: str, kind: str = "resign") -> None:
    """The client's account takes its seat's token with its session and resigns (or
    sends another leave action: ``abort``)."""
    r = await client.post(f"/api/games/{game_id}/seat-token")
    assert r.status_code == 200, r.text
    token = r.json()["token"]
    r = await client.post(
        f"/api/games/{game_id}/commands",
        json={"command_id": f"{kind}-{next(_commands)}", "action": {"kind": kind}},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 200, r.text


async def served_accounts(base_url: str, names: tuple[str, ...]) -> list[httpx.AsyncClient]:
    """HTTP clients of a served app, each holding a new account's session."""
    clients = []
    for name in names:
        client = httpx.AsyncClient(base_url=base_url)
        r = await client.post("/api/accounts", json={"username": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        clients.append(client)
    return clients


async def page_when(
    conn: ClientConnection, predicate: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """The first page the tournament's socket sends for which ``predicate`` holds."""
    while True:
        message: dict[str, Any] = json.loads(await conn.recv())
        if predicate(message):
            return message
