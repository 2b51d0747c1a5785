"""Tournaments over HTTP (server/web/tournament_routes.py, docs/tournaments.md
"Server"): creating within the limits, joining, pausing and leaving, bad input of each
kind, an arena and a Swiss played through the director, and the websocket's pages."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from events.base import TimeControl
from events.tournament.log import PlayerPaused
from server.common.settings import Settings
from server.tournaments import service as service_module
from server.tournaments.service import TournamentService
from server.tournaments.store import decode_event
from server.web.state import running
from tests.server.tournament_helpers import (
    account,
    created,
    director,
    page,
    page_when,
    resign,
    served_accounts,
)
from tests.server.ws_helpers import connect, live_server


@pytest.fixture
async def ana(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    client = await account(app, "Ana_T")
    yield client
    await client.aclose()


@pytest.fixture
async def bo(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    client = await account(app, "Bo_T")
    yield client
    await client.aclose()


def reason(r: httpx.Response) -> str:
    key: str = r.json()["reason"]["key"]
    return key


async def test_a_signed_in_account_creates_an_arena_listed_as_upcoming(
    ana: httpx.AsyncClient, http: httpx.AsyncClient
) -> None:
    """An account creates an arena starting in a minute: its summary is the contract's, and the list shows it upcoming to anyone."""
    summary = await created(ana, name="Friday duel", duration_min=30)
    assert summary["name"] == "Friday duel" and summary["kind"] == "arena"
    assert summary["clock"] == {"initial": 180, "increment": 2}
    assert summary["ends_ms"] == summary["starts_ms"] + 30 * 60_000
    assert summary["status"] == "upcoming" and summary["players"] == 0
    assert summary["created_by"] == "Ana_T" and summary["rated"] is True
    assert summary["rounds"] is None and summary["round"] == 0
    listed = (await http.get("/api/tournaments")).json()
    assert [t["id"] for t in listed["upcoming"]] == [summary["id"]]
    assert listed["running"] == [] and listed["finished"] == []
    detail = await page(http, summary["id"])
    assert detail["you"] is None and detail["standings"] == [] and detail["podium"] is None
    assert detail["bye"] is None


async def test_an_account_has_at_most_two_open_and_five_a_day(
    app: Starlette, ana: httpx.AsyncClient
) -> None:
    """A third upcoming tournament of one account is refused (409), and once two ended a sixth of the day is refused (429)."""
    first = await created(ana)
    second = await created(ana, kind="swiss", rounds=3)
    r = await ana.post(
        "/api/tournaments", json={"kind": "arena", "variant": "classic", "clock": {"initial": 300}}
    )
    assert r.status_code == 409 and reason(r) == "tournament.too_many_open"
    indexes = running(app).tournaments.indexes
    made = [first, second]
    for _ in range(3):
        for t in made:
            await indexes.finished(t["id"], 1, "Ana_T")
        made = [await created(ana)]
    for t in made:
        await indexes.finished(t["id"], 1, "Ana_T")
    r = await ana.post(
        "/api/tournaments", json={"kind": "arena", "variant": "duel", "clock": {"initial": 60}}
    )
    assert r.status_code == 429 and reason(r) == "rate_limited.tournaments"


@pytest.mark.parametrize(
    ("body", "status", "key"),
    [
        (b"{not json", 400, "request.malformed"),
        (
            b'{"kind": "arena", "variant": "duel", "clock": {"initial": 60}, "colour": 1}',
            400,
            "request.invalid",
        ),
        (
            b'{"kind": "arena", "variant": "duel", "clock": {"initial": "3 min"}}',
            400,
            "request.invalid",
        ),
        (
            b'{"kind": "knockout", "variant": "duel", "clock": {"initial": 60}}',
            400,
            "request.invalid",
        ),
        (
            b'{"kind": "arena", "variant": "duel", "clock": {"per_move": 60}}',
            400,
            "request.invalid",
        ),
        (
            b'{"kind": "arena", "variant": "duel", "clock": {"initial": 60}, "duration_min": 5}',
            400,
            "tournament.duration",
        ),
        (
            b'{"kind": "swiss", "variant": "duel", "clock": {"initial": 60}, "rounds": 12}',
            400,
            "tournament.rounds",
        ),
        (
            b'{"kind": "swiss", "variant": "duel", "clock": {"initial": 60}, "duration_min": 30}',
            400,
            "tournament.kind_settings",
        ),
        (
            b'{"kind": "arena", "variant": "duel", "clock": {"initial": 60}, "starts_in_s": -1}',
            400,
            "tournament.starts_in",
        ),
        (
            b'{"kind": "arena", "variant": "duel", "clock": {"initial": 60}, "name": ""}',
            400,
            "request.name_length",
        ),
    ],
)
async def test_a_bad_creation_is_refused_and_creates_nothing(
    ana: httpx.AsyncClient, body: bytes, status: int, key: str
) -> None:
    """Malformed JSON, an unknown field, a wrong type, a kind or clock not offered, settings out of bounds: 400 with the reason, and nothing listed."""
    r = await ana.post("/api/tournaments", content=body)
    assert r.status_code == status and reason(r) == key, r.text
    listed = (await ana.get("/api/tournaments")).json()
    assert listed == {"upcoming": [], "running": [], "finished": []}


async def test_a_guest_may_read_but_not_create_nor_join(
    ana: httpx.AsyncClient, http: httpx.AsyncClient
) -> None:
    """Without a session creating and joining are 401 tournament.log_in; an unknown id is 404 for reads and actions alike."""
    r = await http.post(
        "/api/tournaments", json={"kind": "arena", "variant": "duel", "clock": {"initial": 60}}
    )
    assert r.status_code == 401 and reason(r) == "tournament.log_in"
    tournament = await created(ana)
    r = await http.post(f"/api/tournaments/{tournament['id']}/join")
    assert r.status_code == 401 and reason(r) == "tournament.log_in"
    for r in (
        await http.get("/api/tournaments/tnope"),
        await ana.post("/api/tournaments/tnope/join"),
        await http.get("/api/tournaments/a{b}"),
    ):
        assert r.status_code == 404 and r.json()["code"] == "not_found"
    r = await ana.post(f"/api/tournaments/{tournament['id']}/join", content=b'{"x": 1}')
    assert r.status_code == 400 and reason(r) == "request.invalid"
    r = await ana.post(f"/api/tournaments/{tournament['id']}/join", content=b"{")
    assert r.status_code == 400 and reason(r) == "request.malformed"
    assert (await page(http, tournament["id"]))["standings"] == []


async def test_join_pause_and_leave(ana: httpx.AsyncClient, bo: httpx.AsyncClient) -> None:
    """A player joins, is refused a second join, pauses, comes back, leaves for good and can't join again; each answer is their part, in the contract's words."""
    tid = (await created(ana))["id"]
    url = f"/api/tournaments/{tid}"
    r = await bo.post(f"{url}/join")
    assert r.status_code == 200
    assert r.json()["you"] == {
        "joined": True,
        "paused": False,
        "paused_for": None,
        "left": False,
        "game_id": None,
    }
    r = await bo.post(f"{url}/join")
    assert r.status_code == 409 and reason(r) == "tournament.already_joined"
    r = await bo.post(f"{url}/pause")
    assert r.status_code == 200 and r.json()["you"]["paused"] is True
    r = await bo.post(f"{url}/pause")
    assert r.status_code == 409 and reason(r) == "tournament.already_paused"
    r = await bo.post(f"{url}/join")
    assert r.status_code == 200 and r.json()["you"]["paused"] is False
    r = await bo.post(f"{url}/leave")
    assert r.status_code == 200 and r.json()["you"]["left"] is True
    r = await bo.post(f"{url}/join", headers={"Accept-Language": "es"})
    assert r.status_code == 409 and reason(r) == "tournament.left_tournament"
    r = await ana.post(f"{url}/leave")
    assert r.status_code == 409 and reason(r) == "tournament.not_in_tournament"
    standings = (await page(ana, tid))["standings"]
    assert [(s["player"], s["left"], s["rating"]) for s in standings] == [("Bo_T", True, 1500)]


async def test_an_arena_pairs_two_accounts_and_their_game_moves_the_standings(
    app: Starlette, ana: httpx.AsyncClient, bo: httpx.AsyncClient
) -> None:
    """Two accounts join a running arena; the director pairs them into a rated game of their accounts; Bo resigns; the next look records Ana's win (2 points) and pairs them again."""
    tid = (await created(ana, starts_in_s=0))["id"]
    for client in (ana, bo):
        assert (await client.post(f"/api/tournaments/{tid}/join")).status_code == 200
    keeper = director(app)
    assert await keeper.advance(tid)
    mine = await page(ana, tid)
    game_id = mine["you"]["game_id"]
    assert game_id is not None and (await page(bo, tid))["you"]["game_id"] == game_id
    assert mine["games"] == [
        {
            "game_id": game_id,
            "first": mine["games"][0]["first"],
            "second": mine["games"][0]["second"],
            "round": 0,
            "status": "live",
            "winner": None,
        }
    ]
    summary = (await ana.get(f"/api/games/{game_id}")).json()
    assert summary["rated"] is True and summary["status"] == "live"
    assert summary["tournament"] == tid  # the table finds its tournament from the summary
    assert sorted(s["account"] for s in summary["seats"]) == ["Ana_T", "Bo_T"]
    of_game = (await ana.get(f"/api/tournaments/of-game/{game_id}")).json()
    assert of_game["tournament"]["id"] == tid
    assert (await ana.get("/api/tournaments/of-game/nothing1")).status_code == 404
    await resign(bo, game_id)
    assert await keeper.advance(tid)
    after = await page(ana, tid)
    lines = {s["player"]: s for s in after["standings"]}
    assert (lines["Ana_T"]["points"], lines["Ana_T"]["wins"], lines["Ana_T"]["rank"]) == (2, 1, 1)
    assert (lines["Bo_T"]["points"], lines["Bo_T"]["games"]) == (0, 1)
    played = next(g for g in after["games"] if g["game_id"] == game_id)
    assert played["status"] == "over" and played["winner"] == "Ana_T"
    # The only two waiting meet again (docs/tournaments.md "Arena").
    assert after["you"]["game_id"] not in (None, game_id)
    history = (await ana.get("/api/players/Ana_T/tournaments")).json()["tournaments"]
    assert [(h["tournament"]["id"], h["rank"], h["points"], h["players"]) for h in history] == [
        (tid, 1, 2, 2)
    ]


async def test_a_deleted_accounts_name_is_masked_on_the_page(
    app: Starlette, ana: httpx.AsyncClient, bo: httpx.AsyncClient
) -> None:
    """Once Bo deletes their account, the tournament's standings, games and podium name them "deleted player"; the log keeps the name."""
    tid = (await created(ana, starts_in_s=0))["id"]
    for client in (ana, bo):
        assert (await client.post(f"/api/tournaments/{tid}/join")).status_code == 200
    await director(app).step(tid)
    r = await bo.request("DELETE", "/api/me", json={"password": "a-long-enough-password"})
    assert r.status_code == 204
    shown = await page(ana, tid)
    assert sorted(s["player"] for s in shown["standings"]) == ["Ana_T", "deleted player"]
    assert {shown["games"][0]["first"], shown["games"][0]["second"]} == {"Ana_T", "deleted player"}
    record = await running(app).tournaments.get(tid)
    assert "Bo_T" in record.tournament.players


async def test_a_game_of_no_tournament_says_so_in_its_summary(http: httpx.AsyncClient) -> None:
    """An ordinary game's summary has `tournament` null (a tournament's game names its tournament: the arena test above)."""
    r = await http.post("/api/games", json={"variant": "duel"})
    assert r.status_code == 201, r.text
    assert r.json()["tournament"] is None
    assert (await http.get(f"/api/games/{r.json()['id']}")).json()["tournament"] is None


async def test_a_deleted_creators_name_is_masked_in_every_summary(
    app: Starlette, ana: httpx.AsyncClient, bo: httpx.AsyncClient, http: httpx.AsyncClient
) -> None:
    """Once the arena's creator deletes their account, the list, the page, the table's of-game answer and a player's history name the creator "deleted player"."""
    tid = (await created(bo, starts_in_s=0))["id"]
    assert (await ana.post(f"/api/tournaments/{tid}/join")).status_code == 200
    assert (await bo.post(f"/api/tournaments/{tid}/join")).status_code == 200
    await director(app).step(tid)
    game_id = (await page(ana, tid))["you"]["game_id"]
    r = await bo.request("DELETE", "/api/me", json={"password": "a-long-enough-password"})
    assert r.status_code == 204
    listed = (await http.get("/api/tournaments")).json()
    shown = {
        "list": next(t for t in listed["running"] if t["id"] == tid),
        "page": (await page(ana, tid))["tournament"],
        "of-game": (await http.get(f"/api/tournaments/of-game/{game_id}")).json()["tournament"],
        "history": (await http.get("/api/players/Ana_T/tournaments")).json()["tournaments"][0][
            "tournament"
        ],
    }
    assert {where: s["created_by"] for where, s in shown.items()} == dict.fromkeys(
        shown, "deleted player"
    )


async def test_an_arena_pairs_from_its_start_and_ends_at_its_end(
    app: Starlette, ana: httpx.AsyncClient, bo: httpx.AsyncClient
) -> None:
    """Players who joined an upcoming arena are paired at its start, not before; at its end time the arena ends, the game still in play does not count, the podium stays empty (nobody finished a game), and its creator may create again."""
    summary = await created(ana, starts_in_s=60, duration_min=10)
    tid = summary["id"]
    for client in (ana, bo):
        assert (await client.post(f"/api/tournaments/{tid}/join")).status_code == 200
    service = running(app).tournaments
    keeper = director(app)
    await keeper.step(tid)
    assert (await page(ana, tid))["you"]["game_id"] is None
    service.clock_ms = lambda: summary["starts_ms"] + 1_000
    await keeper.step(tid)
    started = await page(ana, tid)
    assert started["tournament"]["status"] == "running" and started["you"]["game_id"]
    service.clock_ms = lambda: summary["ends_ms"]
    await keeper.step(tid)
    final = await page(ana, tid)
    assert final["tournament"]["status"] == "finished"
    assert [g["status"] for g in final["games"]] == ["live"]
    assert [s["points"] for s in final["standings"]] == [0, 0]
    assert final["podium"] == []  # nobody finished a game: nobody on the podium
    listed = (await ana.get("/api/tournaments")).json()
    assert [t["id"] for t in listed["finished"]] == [tid] and listed["running"] == []
    await created(ana)
    await created(ana)


async def test_a_game_aborted_in_its_first_turn_is_a_forfeit(
    app: Starlette, ana: httpx.AsyncClient, bo: httpx.AsyncClient
) -> None:
    """A paired player aborts their game in its first turn: the other wins it, and the one who aborted is paused until they join again."""
    tid = (await created(ana, starts_in_s=0))["id"]
    for client in (ana, bo):
        assert (await client.post(f"/api/tournaments/{tid}/join")).status_code == 200
    keeper = director(app)
    await keeper.step(tid)
    game_id = (await page(bo, tid))["you"]["game_id"]
    await resign(bo, game_id, "abort")
    await keeper.step(tid)
    after = await page(bo, tid)
    lines = {s["player"]: s for s in after["standings"]}
    assert (lines["Ana_T"]["points"], lines["Bo_T"]["points"]) == (2, 0)
    assert lines["Bo_T"]["paused"] is True and after["you"]["paused"] is True
    assert after["games"][0]["winner"] == "Ana_T" and after["you"]["game_id"] is None


async def test_a_forfeits_pause_says_so_and_a_chosen_one_does_not(
    app: Starlette, ana: httpx.AsyncClient, bo: httpx.AsyncClient
) -> None:
    """The one the director pauses for a forfeited game is "paused_for": "forfeit" in the standings and their part, one who pauses by choice is null, and joining again clears it; a pause logged without a reason (an older log) reads as chosen."""
    tid = (await created(ana, starts_in_s=0))["id"]
    for client in (ana, bo):
        assert (await client.post(f"/api/tournaments/{tid}/join")).status_code == 200
    keeper = director(app)
    await keeper.step(tid)
    await resign(bo, (await page(bo, tid))["you"]["game_id"], "abort")
    await keeper.step(tid)
    assert (await ana.post(f"/api/tournaments/{tid}/pause")).json()["you"]["paused_for"] is None
    after = await page(bo, tid)
    lines = {s["player"]: (s["paused"], s["paused_for"]) for s in after["standings"]}
    assert lines == {"Ana_T": (True, None), "Bo_T": (True, "forfeit")}
    assert after["you"]["paused_for"] == "forfeit"
    back = (await bo.post(f"/api/tournaments/{tid}/join")).json()["you"]
    assert (back["paused"], back["paused_for"]) == (False, None)
    old = decode_event(b'{"type":"PlayerPaused","player":"Bo_T","at_ms":1}')
    assert isinstance(old, PlayerPaused) and old.reason is None


async def test_a_swiss_of_three_gives_a_bye_each_round(app: Starlette) -> None:
    """Three accounts play a Swiss of 3 rounds: each round pairs two and gives the third a bye (2 points, named as the page's "bye"), no one twice; after the last round the Swiss ends with a podium of three."""
    clients = [await account(app, name) for name in ("Cy_S", "Di_S", "Ed_S")]
    by_name = dict(zip(("Cy_S", "Di_S", "Ed_S"), clients, strict=True))
    tid = (await created(clients[0], kind="swiss", rounds=3, starts_in_s=0))["id"]
    for client in clients:
        assert (await client.post(f"/api/tournaments/{tid}/join")).status_code == 200
    keeper = director(app)
    byes = []
    for round_ in (1, 2, 3):
        assert await keeper.advance(tid)
        now = await page(clients[0], tid)
        assert now["tournament"]["round"] == round_
        [game] = [g for g in now["games"] if g["status"] == "live"]
        assert game["round"] == round_
        byes.append(({"Cy_S", "Di_S", "Ed_S"} - {game["first"], game["second"]}).pop())
        assert now["bye"] == byes[-1]
        await resign(by_name[game["second"]], game["game_id"])
    assert await keeper.advance(tid)
    final = await page(clients[0], tid)
    assert sorted(byes) == ["Cy_S", "Di_S", "Ed_S"]
    assert final["tournament"]["status"] == "finished" and final["tournament"]["round"] == 3
    assert sorted(final["podium"]) == ["Cy_S", "Di_S", "Ed_S"]
    assert all("buchholz" in s and "sonneborn_berger" in s for s in final["standings"])
    assert sum(s["points"] for s in final["standings"]) == 3 * 2 + 3 * 2
    listed = (await clients[0].get("/api/tournaments")).json()
    assert [t["id"] for t in listed["finished"]] == [tid]
    for client in clients:
        await client.aclose()


async def test_the_websocket_sends_the_page_on_connect_and_after_a_change(
    settings: Settings, redis_client: Any
) -> None:
    """A socket on a tournament gets its page at once, a pong to a ping, and a new page when a player joins; an unknown id gets not_found and 4404."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        r = await http.post(
            "/api/accounts", json={"username": "Fay_W", "password": "a-long-enough-password"}
        )
        assert r.status_code == 201
        r = await http.post(
            "/api/tournaments",
            json={"kind": "arena", "variant": "duel", "clock": {"initial": 180, "increment": 2}},
        )
        tid = r.json()["tournament"]["id"]
        url = f"ws://{server.host}:{server.port}/ws/tournaments/{tid}"
        conn = await connect(url)
        first = json.loads(await conn.recv())
        assert first["type"] == "tournament" and first["standings"] == [] and "you" not in first
        await conn.send('{"type":"ping"}')
        assert json.loads(await conn.recv()) == {"type": "pong"}
        assert (await http.post(f"/api/tournaments/{tid}/join")).status_code == 200
        changed = json.loads(await conn.recv())
        assert [s["player"] for s in changed["standings"]] == ["Fay_W"]
        await conn.close()
        unknown = await connect(f"ws://{server.host}:{server.port}/ws/tournaments/tnope")
        error = json.loads(await unknown.recv())
        assert error["type"] == "error" and error["code"] == "not_found"
        await unknown.wait_closed()
        assert unknown.close_code == 4404


async def test_a_served_arena_pairs_and_records_by_itself(
    settings: Settings, redis_client: Any
) -> None:
    """On a served app the director needs no one: two accounts join, the socket shows their game, one resigns, and the socket shows the result and the standings changed."""
    async with live_server(settings) as server:
        clients = await served_accounts(server.http_url, ("Gus_L", "Hal_L"))
        tid = (await created(clients[0], starts_in_s=0))["id"]
        conn = await connect(f"ws://{server.host}:{server.port}/ws/tournaments/{tid}")

        for client in clients:
            assert (await client.post(f"/api/tournaments/{tid}/join")).status_code == 200
        live = await page_when(conn, lambda m: any(g["status"] == "live" for g in m["games"]))
        game_id = live["games"][0]["game_id"]
        loser = clients[("Gus_L", "Hal_L").index(live["games"][0]["second"])]
        await resign(loser, game_id)
        over = await page_when(conn, lambda m: any(g["status"] == "over" for g in m["games"]))
        winner = live["games"][0]["first"]
        assert over["standings"][0]["player"] == winner and over["standings"][0]["points"] == 2
        await conn.close()
        for client in clients:
            await client.aclose()


async def test_a_creation_that_fails_gives_its_slot_back(
    app: Starlette, ana: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two creations whose log cannot be written (its meta key holds a string) leave the account its two open tournaments and its day's count."""
    redis = running(app).redis
    await redis.set("tournament:{tbroken0001}:meta", "not a hash")
    monkeypatch.setattr(service_module, "new_tournament_id", lambda: "tbroken0001")
    body = {"kind": "arena", "variant": "duel", "clock": {"initial": 60}}
    for _ in range(2):
        r = await ana.post("/api/tournaments", json=body)
        assert r.status_code == 500
    monkeypatch.undo()
    assert await redis.zcard("tournaments:creator:{ana_t}:made") == 0
    await created(ana)
    await created(ana)


async def test_a_deleted_accounts_history_is_gone_as_its_profile(
    app: Starlette, ana: httpx.AsyncClient, bo: httpx.AsyncClient, http: httpx.AsyncClient
) -> None:
    """Once Bo deletes their account, their tournament history answers 404 player.deleted as their profile does, and its index is gone, also after the arena ends."""
    summary = await created(ana, starts_in_s=0, duration_min=10)
    tid = summary["id"]
    for client in (ana, bo):
        assert (await client.post(f"/api/tournaments/{tid}/join")).status_code == 200
    keeper = director(app)
    await keeper.step(tid)
    r = await bo.request("DELETE", "/api/me", json={"password": "a-long-enough-password"})
    assert r.status_code == 204
    running(app).tournaments.clock_ms = lambda: summary["ends_ms"]
    await keeper.step(tid)
    assert (await page(ana, tid))["tournament"]["status"] == "finished"
    for path in ("/api/players/Bo_T", "/api/players/Bo_T/tournaments"):
        r = await http.get(path)
        assert (r.status_code, reason(r)) == (404, "player.deleted")
    assert not await running(app).redis.exists("player:{bo_t}:tournaments")
    assert len((await http.get("/api/players/Ana_T/tournaments")).json()["tournaments"]) == 1


async def test_an_accounts_creations_of_past_days_are_not_kept(
    app: Starlette, ana: httpx.AsyncClient
) -> None:
    """The index of an account's creations keeps only the day's: a creation the next day drops the previous day's two."""
    service = running(app).tournaments
    day = 1_800_000_000_000
    service.clock_ms = lambda: day
    made = [await created(ana), await created(ana)]
    for t in made:
        await service.indexes.finished(t["id"], day, "Ana_T")
    service.clock_ms = lambda: day + 86_400_000
    third = await created(ana)
    kept = await running(app).redis.zrange("tournaments:creator:{ana_t}:made", 0, -1)
    assert [k.decode() for k in kept] == [third["id"]]


async def test_the_list_is_capped_and_read_once_a_second(app: Starlette) -> None:
    """With 55 upcoming and 105 running tournaments the list shows the 50 soonest and the 100 running with the most players first; another process's creation shows after a second, this process's at once."""
    service = running(app).tournaments
    now = 1_800_000_000_000
    service.clock_ms = lambda: now
    clock = TimeControl(initial=180, increment=2)
    for i in range(55):
        await service.open(
            f"tup{i:03}",
            "arena",
            "duel",
            clock,
            now + 60_000 * (55 - i),
            name="",
            created_by=None,
            duration_ms=600_000,
        )
    for i in range(105):
        await service.open(
            f"trun{i:03}",
            "arena",
            "duel",
            clock,
            now - 1_000 * (i + 1),
            name="",
            created_by=None,
            duration_ms=600_000,
        )
    await service.join("trun104", "somebody")
    listed = await service.listing()
    assert [t["id"] for t in listed["upcoming"]] == [f"tup{i:03}" for i in range(54, 4, -1)]
    assert len(listed["running"]) == 100 and listed["running"][0]["id"] == "trun104"
    elsewhere = TournamentService(running(app).redis, clock_ms=lambda: now)
    await elsewhere.open(
        "tother", "arena", "duel", clock, now + 5_000, name="", created_by=None, duration_ms=600_000
    )
    assert "tother" not in [t["id"] for t in (await service.listing())["upcoming"]]
    service.clock_ms = lambda: now + 1_000
    assert (await service.listing())["upcoming"][0]["id"] == "tother"
    await service.open(
        "tmine", "arena", "duel", clock, now + 5_001, name="", created_by=None, duration_ms=600_000
    )
    assert [t["id"] for t in (await service.listing())["upcoming"][:2]] == ["tother", "tmine"]


async def test_a_players_history_is_read_once_a_second(app: Starlette) -> None:
    """A player's history is answered from memory for a second: a tournament joined on another process shows after it."""
    service = running(app).tournaments
    now = 1_800_000_000_000
    service.clock_ms = lambda: now
    elsewhere = TournamentService(running(app).redis, clock_ms=lambda: now)
    clock = TimeControl(initial=180, increment=2)
    for tid in ("thist1", "thist2"):
        await service.open(
            tid, "arena", "duel", clock, now, name="", created_by=None, duration_ms=600_000
        )
    await service.join("thist1", "Cy_H")
    assert len(await service.history("Cy_H")) == 1
    await elsewhere.join("thist2", "Cy_H")
    assert len(await service.history("cy_h")) == 1
    service.clock_ms = lambda: now + 1_000
    assert [h["tournament"]["id"] for h in await service.history("Cy_H")] == ["thist2", "thist1"]


async def test_a_tournament_created_without_a_name_stores_none(
    app: Starlette, ana: httpx.AsyncClient
) -> None:
    """Created without a name, a tournament stores no name and its summary's name is "" (readers name it in their words), where a name given is kept."""
    unnamed = await created(ana)
    named = await created(ana, name="Friday duel")
    assert (unnamed["name"], named["name"]) == ("", "Friday duel")
    meta = await running(app).tournaments.store.meta(unnamed["id"])
    assert meta["name"] == ""
    assert (await page(ana, unnamed["id"]))["tournament"]["name"] == ""
