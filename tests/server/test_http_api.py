"""The HTTP API's contract: concurrent and repeated commands, lists, catalog, health
and the web page, as PROTOCOL.md writes them."""

from __future__ import annotations

import asyncio

import httpx
import redis.asyncio as aioredis

from server.store.keys import events_key
from tests.server.helpers import auth, command_id, new_table


async def test_twenty_concurrent_conflicting_commands_apply_exactly_one(
    http: httpx.AsyncClient, redis_client: aioredis.Redis
) -> None:
    """20 commands for the same turn sent at once: one is applied, the rest get conflict (with expected_version) or not_your_turn; the stream has no gap or dup."""
    table = await new_table(http, players=2, seed=42)
    seat = await table.mover()
    view = await table.view(seat)
    takes = [a for a in view["legal"] if a["kind"] == "take_three"]

    async def send(i: int) -> httpx.Response:
        extra = {"expected_version": view["version"]} if i % 2 else {}
        return await table.command(seat, takes[i % len(takes)], **extra)

    answers = await asyncio.gather(*(send(i) for i in range(20)))
    ok = [r for r in answers if r.status_code == 200]
    assert len(ok) == 1
    refusals = {(r.status_code, r.json()["code"]) for r in answers if r.status_code != 200}
    assert refusals <= {(409, "conflict"), (409, "not_your_turn")}
    entries = await redis_client.xrange(events_key(table.id))
    versions = [int(entry_id.split(b"-")[0]) for entry_id, _ in entries]
    assert versions == list(range(1, ok[0].json()["version"] + 1))
    assert (await table.view(None))["version"] == versions[-1]


async def test_a_command_sent_twice_is_applied_once_and_answered_the_same(
    http: httpx.AsyncClient,
) -> None:
    """The same command_id twice: one append, two identical 200 answers."""
    table = await new_table(http, players=2, seed=8)
    seat = await table.mover()
    body = {
        "command_id": command_id(),
        "action": {"kind": "take_three", "colors": ["red", "green", "black"]},
    }
    url = f"/api/games/{table.id}/commands"
    first = await http.post(url, json=body, headers=auth(table.tokens[seat]))
    after_first = await table.view(None)
    second = await http.post(url, json=body, headers=auth(table.tokens[seat]))
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json() == {"version": 6}
    assert await table.view(None) == after_first
    assert after_first["players"][seat]["tokens"]["red"] == 1


async def test_created_games_and_seats_answer_as_the_protocol_says(
    http: httpx.AsyncClient,
) -> None:
    """POST /api/games is 201 with id/variant/players/status; seats 201 with seat and token (none for a bot); the summary lists seats with their bots."""
    r = await http.post("/api/games", json={"variant": "classic", "players": 3})
    assert r.status_code == 201
    created = r.json()
    assert {k: created[k] for k in ("variant", "players", "status")} == {
        "variant": "classic",
        "players": 3,
        "status": "open",
    }
    seats = f"/api/games/{created['id']}/seats"
    human = await http.post(seats, json={"name": "  Ana   Lu "})
    bot = await http.post(seats, json={"bot": "mcts"})
    assert human.status_code == bot.status_code == 201
    assert human.json()["seat"] == 0 and len(human.json()["token"]) >= 43
    assert bot.json()["seat"] == 1 and bot.json()["token"] is None
    summary = (await http.get(f"/api/games/{created['id']}")).json()
    assert summary["seats"] == [
        {"seat": 0, "name": "Ana Lu", "bot": None, "account": None, "points": 0},
        {"seat": 1, "name": "MCTS bot", "bot": "mcts", "account": None, "points": 0},
    ]
    assert summary["status"] == "open" and summary["version"] == 3 and summary["result"] is None
    duel = await http.post("/api/games", json={"variant": "duel"})
    assert duel.status_code == 201 and duel.json()["players"] == 2


async def test_lists_are_newest_first_by_status(http: httpx.AsyncClient) -> None:
    """GET /api/games?status=... lists summaries newest first, at most limit of them."""
    first = (await http.post("/api/games", json={"variant": "classic", "players": 2})).json()
    second = (await http.post("/api/games", json={"variant": "duel", "players": 2})).json()
    live = await new_table(http, players=2)
    listed = (await http.get("/api/games", params={"status": "open"})).json()["games"]
    assert [g["id"] for g in listed] == [second["id"], first["id"]]
    one = (await http.get("/api/games", params={"status": "open", "limit": 1})).json()
    assert [g["id"] for g in one["games"]] == [second["id"]]
    playing = (await http.get("/api/games", params={"status": "live"})).json()["games"]
    assert [g["id"] for g in playing] == [live.id]
    assert playing[0] == (await http.get(f"/api/games/{live.id}")).json()
    everything = (await http.get("/api/games")).json()["games"]
    assert [g["id"] for g in everything] == [live.id, second["id"], first["id"]]


async def test_catalogs_health_and_the_web_page_are_served(http: httpx.AsyncClient) -> None:
    """The catalog of each variant (with its rules' numbers), /healthz, and client/web/index.html at /."""
    classic = (await http.get("/api/catalog/classic")).json()
    assert len(classic["cards"]) == 90 and len(classic["nobles"]) == 10
    assert classic["cards"]["1-07"].keys() == {"level", "color", "points", "cost"}
    duel = (await http.get("/api/catalog/duel")).json()
    assert "royals" in duel
    # The rules' numbers the page explains refusals with, from the rules' constants.
    assert classic["rules"]["take_two_minimum"] == 4 and classic["rules"]["max_reserved"] == 3
    assert duel["rules"]["royal_thresholds"] == [3, 6] and duel["rules"]["crowns_to_win"] == 10
    assert classic["rules"]["open_game_seconds"] == duel["rules"]["open_game_seconds"] == 1800
    assert classic["rules"]["abandon_seconds"] == duel["rules"]["abandon_seconds"] == 60
    assert classic["rules"]["abandon_realtime_seconds"] == 30
    assert (await http.get("/healthz")).json() == {"status": "ok"}
    page = await http.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
