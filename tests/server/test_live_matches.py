"""Live matches through the server (RULES.md part 3, PROTOCOL.md "Live matches"):
games created with a clock, seeded games marked, resign and abort over HTTP and the
websocket, a move after the flag refused and the loss on time recorded once, aborted
games out of the lobby's lists."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from events.base import TimeControl
from server.common.settings import Settings
from server.common.wire import decode_action
from server.games.lobby import Lobby
from server.games.service import GameService
from server.store.event_store import EventStore
from server.store.keys import commands_key
from tests.server.helpers import Table, auth, new_table
from tests.server.ws_helpers import connect, live_server
from tests.server.ws_helpers import new_table as ws_table


async def timed_table(http: httpx.AsyncClient, clock: dict[str, int], players: int = 2) -> Table:
    r = await http.post(
        "/api/games", json={"variant": "classic", "players": players, "clock": clock}
    )
    assert r.status_code == 201, r.text
    real_time = {"increment": 0} if "initial" in clock else {}
    assert (
        r.json()["clock"]
        == {"per_move": None, "increment": None, "initial": None} | real_time | clock
    )
    table = Table(http, r.json()["id"])
    for i in range(players):
        r = await http.post(f"/api/games/{table.id}/seats", json={"name": f"P{i}"})
        table.tokens.append(r.json()["token"])
    return table


async def test_a_game_is_created_with_a_clock_and_shows_it(http: httpx.AsyncClient) -> None:
    """POST /api/games with a real-time clock: the summary and every view show it; an unseeded game is not marked seeded."""
    table = await timed_table(http, {"initial": 180, "increment": 2})
    summary = (await http.get(f"/api/games/{table.id}")).json()
    assert summary["clock"] == {"initial": 180, "increment": 2, "per_move": None}
    assert summary["seeded"] is False
    view = await table.view(0)
    assert view["clock"]["remaining"] == [180_000, 180_000]
    assert view["clock"]["initial"] == 180 and view["clock"]["now"].endswith("Z")
    assert [p["out"] for p in view["players"]] == [None, None]


async def test_a_seeded_game_is_marked_and_an_untimed_one_has_no_clock(
    http: httpx.AsyncClient,
) -> None:
    """A game created with a seed says seeded in its summary and views; without a clock, clock is null."""
    table = await new_table(http, players=2, seed=5)
    summary = (await http.get(f"/api/games/{table.id}")).json()
    assert summary["seeded"] is True and summary["clock"] is None
    view = await table.view(None)
    assert view["seeded"] is True and view["clock"] is None


@pytest.mark.parametrize(
    "clock",
    [
        {"initial": 0},
        {"initial": 60, "per_move": 60},
        {"increment": 2},
        {"per_move": 0},
        {"initial": 60, "increment": 999},
        {"initial": 60, "bank": 2},
    ],
)
async def test_a_bad_clock_is_refused(http: httpx.AsyncClient, clock: dict[str, int]) -> None:
    """A clock out of bounds, half given, mixing both kinds, or with an unknown field: bad_request, and no game."""
    before = (await http.get("/api/games")).json()["games"]
    r = await http.post("/api/games", json={"variant": "classic", "clock": clock})
    assert r.status_code == 400 and r.json()["code"] == "bad_request", r.text
    assert (await http.get("/api/games")).json()["games"] == before


async def test_resign_over_http_from_the_seat_not_to_move(http: httpx.AsyncClient) -> None:
    """The seat not to move resigns over HTTP: the other wins, reason resign, ranks, the seat marked out; the summary shows the result."""
    table = await new_table(http, players=2, seed=3, variant="duel")
    other = 1 - await table.mover()
    r = await table.command(other, {"kind": "resign"})
    assert r.status_code == 200, r.text
    view = await table.view(None)
    assert view["status"] == "finished"
    assert view["result"]["winners"] == [1 - other] and view["result"]["reason"] == "resign"
    assert view["result"]["ranks"][other] == 2
    assert view["players"][other]["out"] == "resign"
    summary = (await http.get(f"/api/games/{table.id}")).json()
    assert summary["result"]["reason"] == "resign"
    r = await table.command(1 - other, {"kind": "resign"})
    assert r.status_code == 409 and r.json()["code"] == "game_over"


async def test_abort_takes_a_game_out_of_the_lobby_lists(http: httpx.AsyncClient) -> None:
    """abort while allowed: status aborted, no result; the game leaves the live list and all-games list, and is listed under status=aborted."""
    table = await new_table(http, players=2, seed=9)
    listed = (await http.get("/api/games", params={"status": "live"})).json()["games"]
    assert table.id in [g["id"] for g in listed]
    assert {"kind": "abort"} in (await table.view(0))["legal"]
    r = await table.command(0, {"kind": "abort"})
    assert r.status_code == 200, r.text
    view = await table.view(None)
    assert view["status"] == "aborted" and view["result"] is None
    for status in ("open", "live", "finished"):
        games = (await http.get("/api/games", params={"status": status})).json()["games"]
        assert table.id not in [g["id"] for g in games]
    assert table.id not in [g["id"] for g in (await http.get("/api/games")).json()["games"]]
    aborted = (await http.get("/api/games", params={"status": "aborted"})).json()["games"]
    assert [g["id"] for g in aborted] == [table.id] and aborted[0]["status"] == "aborted"


async def test_abort_is_refused_after_the_first_turns(http: httpx.AsyncClient) -> None:
    """Once both seats made their first move, abort is not listed and is refused with illegal_action."""
    table = await new_table(http, players=2, seed=9)
    for _ in range(2):
        seat = await table.mover()
        action = next(a for a in (await table.view(seat))["legal"] if a["kind"] == "take_three")
        assert (await table.command(seat, action)).status_code == 200
    assert {"kind": "abort"} not in (await table.view(0))["legal"]
    r = await table.command(0, {"kind": "abort"})
    assert r.status_code == 422 and r.json()["code"] == "illegal_action"


async def test_a_move_after_the_flag_is_refused_and_the_loss_recorded_once(
    store: EventStore, redis_client: aioredis.Redis
) -> None:
    """With the service's clock set past the mover's bank, its move is refused (illegal_action) and TimeRanOut is appended under the command id clock:<seat>:<version>; expire after that finds nothing due."""
    now = [1_700_000_000_000]
    service = GameService(store, Lobby(store.client), clock_ms=lambda: now[0])
    summary = await service.create_game("classic", 2, None, TimeControl(initial=10, increment=0))
    game_id = summary["id"]
    for name in ("A", "B"):
        await service.join(game_id, name)
    for color in ("white", "green"):  # the first turns
        view = await service.reader.view(game_id, None)
        seat = view["turn"]["seat"]
        wire = json.dumps({"kind": "take_two", "color": color}).encode()
        action = decode_action("classic", wire)
        now[0] += 1000
        await service.submit(game_id, seat, f"m{seat}", action)
    seat = (await service.reader.view(game_id, None))["turn"]["seat"]
    version = (await service.reader.view(game_id, None))["version"]
    now[0] += 10_000
    action = decode_action("classic", b'{"kind": "take_two", "color": "blue"}')
    with pytest.raises(Exception, match="Your time ran out") as refused:
        await service.submit(game_id, seat, "late", action)
    assert getattr(refused.value, "code", None) == "illegal_action"
    log = await service.reader.log(game_id)
    assert [type(e.event).__name__ for e in log[version:]] == ["TimeRanOut", "GameEnded"]
    assert await redis_client.hget(commands_key(game_id), f"clock:{seat}:{version}")
    assert await service.expire(game_id) is None
    view = await service.reader.view(game_id, None)
    assert view["result"]["reason"] == "time" and view["players"][seat]["out"] == "time"


async def test_resign_over_the_websocket(redis_client: Any, redis_server: str) -> None:
    """A resign command over the websocket is acked, and every socket gets the Resigned diff with the seat out and the result."""
    settings = Settings(redis_url=redis_server, command_rate=0)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await ws_table(http, players=2, seed=4)
        async with await connect(server.ws_url(table.id, table.tokens[1])) as player:
            snapshot = json.loads(await player.recv())
            assert snapshot["type"] == "snapshot"
            await player.send(
                json.dumps({"type": "command", "command_id": "bye", "action": {"kind": "resign"}})
            )
            seen: list[dict[str, Any]] = []
            while not any(m.get("type") == "ack" for m in seen) or not any(
                m.get("event", {}).get("type") == "GameEnded" for m in seen
            ):
                seen.append(json.loads(await player.recv()))
            diffs = [m for m in seen if m["type"] == "diff"]
            assert [d["event"]["type"] for d in diffs] == ["Resigned", "GameEnded"]
            ops = [op for d in diffs for op in d["patch"]]
            assert {"op": "replace", "path": "/status", "value": "finished"} in ops
        view = (await http.get(f"/api/games/{table.id}/view", headers=auth(None))).json()["view"]
        assert view["players"][1]["out"] == "resign" and view["result"]["reason"] == "resign"


async def test_a_websocket_snapshot_reads_the_clock_when_sent(
    redis_client: Any, redis_server: str
) -> None:
    """A live timed game's snapshot has its clock read when it is sent: the running seat's remaining is its bank less the time since its turn began, to the millisecond of the snapshot's now."""
    settings = Settings(redis_url=redis_server, command_rate=0)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await timed_table(http, {"initial": 60})
        for n, colors in enumerate((["white", "blue", "red"], ["green", "black", "red"])):
            seat = await table.mover()
            take = {"kind": "take_three", "colors": colors}
            assert (await table.command(seat, take)).status_code == 200, n
        events = (await http.get(f"/api/games/{table.id}/events")).json()["events"]
        began = iso_ms_of(events[-1]["at"])
        async with await connect(server.ws_url(table.id)) as spectator:
            snapshot = json.loads(await spectator.recv())
        clock = snapshot["view"]["clock"]
        running = clock["running"]
        assert running == events[-1]["next_seat"]
        assert clock["remaining"][running] == 60_000 - (iso_ms_of(clock["now"]) - began)
        assert clock["remaining"][1 - running] == 60_000


def iso_ms_of(iso: str) -> int:
    from datetime import datetime

    return round(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


async def test_a_rematch_keeps_the_time_control(http: httpx.AsyncClient) -> None:
    """The rematch of a timed game has the same clock (RULES.md part 3) and is not seeded."""
    table = await timed_table(http, {"per_move": 86_400})
    assert (await table.command(0, {"kind": "resign"})).status_code == 200
    r = await http.post(f"/api/games/{table.id}/rematch", headers=auth(table.tokens[0]))
    assert r.status_code == 201, r.text
    summary = (await http.get(f"/api/games/{r.json()['id']}")).json()
    assert summary["clock"] == {"initial": None, "increment": None, "per_move": 86_400}
    assert summary["seeded"] is False


async def test_time_alone_aborts_an_open_game_and_a_first_move_not_made(
    store: EventStore,
) -> None:
    """GameService.expire with the service's clock set past the deadlines: an open game nobody filled for 30 minutes is aborted as expired (and listed only as aborted); a live game whose first mover let 30 s pass is aborted as first_move; a game with nothing due is left alone."""
    now = [1_700_000_000_000]
    lobby = Lobby(store.client)
    service = GameService(store, lobby, clock_ms=lambda: now[0])
    blitz = TimeControl(initial=180, increment=2)
    waiting = (await service.create_game("classic", 3, None, blitz))["id"]
    await service.join(waiting, "A")
    started = (await service.create_game("duel", 2, None, blitz))["id"]
    await service.join(started, "A")
    await service.join(started, "B")
    now[0] += 29_999
    assert await service.expire(started) is None
    now[0] += 1
    assert await service.expire(started) is not None
    view = await service.reader.view(started, None)
    assert view["status"] == "aborted"
    assert type((await service.reader.log(started))[-1].event).__name__ == "GameAborted"
    now[0] += 30 * 60_000
    assert await service.expire(waiting) is not None
    assert (await service.reader.view(waiting, None))["status"] == "aborted"
    assert [g["id"] for g in await lobby.newest("open", 10)] == []
    assert {g["id"] for g in await lobby.newest("aborted", 10)} == {waiting, started}
    again = await service.expire(waiting)
    assert again is None
