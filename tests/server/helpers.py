"""Playing over HTTP in tests: a table of seats with tokens, and a seeded chooser."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any

import httpx

from bots.moves import moves as game_moves

_ids = itertools.count()


def command_id() -> str:
    return f"cmd-{next(_ids)}"


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A seeded choice that makes games end soon: the best buy, else a random action
    (blind reserves included, so redaction is exercised)."""
    buys = [a for a in legal if a["kind"] == "buy"]
    if buys and rng.random() < 0.9:
        return buys[-1]
    return rng.choice(legal)


@dataclass
class Table:
    """A game created and filled over HTTP: its id and each seat's token."""

    http: httpx.AsyncClient
    id: str
    tokens: list[str] = field(default_factory=list)

    async def view(self, seat: int | None = None, version: int | None = None) -> dict[str, Any]:
        params = {} if version is None else {"version": version}
        token = None if seat is None else self.tokens[seat]
        r = await self.http.get(f"/api/games/{self.id}/view", params=params, headers=auth(token))
        assert r.status_code == 200, r.text
        view: dict[str, Any] = r.json()["view"]
        return view

    async def command(
        self, seat: int | None, action: dict[str, Any], **extra: Any
    ) -> httpx.Response:
        body = {"command_id": command_id(), "action": action, **extra}
        token = None if seat is None else self.tokens[seat]
        return await self.http.post(
            f"/api/games/{self.id}/commands", json=body, headers=auth(token)
        )

    async def mover(self) -> int:
        view = await self.view(0)
        seat: int = view["turn"]["seat"]
        return seat

    async def play(self, rng: random.Random, moves: int) -> int:
        """Play up to ``moves`` seeded moves (fewer if the game ends); returns the version."""
        version = 0
        for _ in range(moves):
            seat = await self.mover()
            view = await self.view(seat)
            if view["status"] != "live":
                return int(view["version"])
            r = await self.command(seat, choose(game_moves(view), rng))
            assert r.status_code == 200, r.text
            version = r.json()["version"]
        return version


async def snapshot(table: Table) -> list[Any]:
    """Everything a client can read of a game: summary, each seat's and a spectator's view."""
    summary = (await table.http.get(f"/api/games/{table.id}")).json()
    return [summary, await table.view(0), await table.view(1), await table.view(None)]


def refused(r: httpx.Response, status: int, code: str) -> None:
    """``r`` is PROTOCOL.md's error: that status, ``{"code": code, "message": str}``."""
    assert r.status_code == status, r.text
    body = r.json()
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"]


async def new_table(
    http: httpx.AsyncClient, players: int = 2, seed: int = 7, variant: str = "classic"
) -> Table:
    r = await http.post("/api/games", json={"variant": variant, "players": players, "seed": seed})
    assert r.status_code == 201, r.text
    table = Table(http, r.json()["id"])
    for i in range(players):
        r = await http.post(f"/api/games/{table.id}/seats", json={"name": f"P{i}"})
        assert r.status_code == 201, r.text
        assert r.json()["seat"] == i
        table.tokens.append(r.json()["token"])
    return table
