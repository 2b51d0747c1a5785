"""POST /api/games/{id}/rematch: one rematch per finished game, seats moved round by
one, each seat joined once with its own token, the same answer when called again."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator
from datetime import datetime

import httpx
import pytest
import redis.asyncio as aioredis
from starlette.applications import Starlette

from bots.moves import moves as game_moves
from server.common.settings import Settings
from server.common.wire import decode_action
from server.games.service import GameService
from server.games.timekeeper import Deadlines
from server.store.keys import meta_key
from server.web.app import create_app
from server.web.state import running
from tests.server.helpers import Table, auth, choose, new_table


async def finished_table(
    app: Starlette,
    http: httpx.AsyncClient,
    players: int = 2,
    bots: dict[int, str] | None = None,
    clock: dict[str, int] | None = None,
) -> Table:
    """A seeded game played to its end (every seat's moves sent through the service,
    bots' too: the bot runner is off in these tests)."""
    body: dict[str, object] = {"variant": "classic", "players": players, "seed": 5}
    if clock is not None:
        body["clock"] = clock
    r = await http.post("/api/games", json=body)
    table = Table(http, r.json()["id"])
    for seat in range(players):
        body = {"bot": bots[seat]} if bots and seat in bots else {"name": f"P{seat}"}
        joined = (await http.post(f"/api/games/{table.id}/seats", json=body)).json()
        table.tokens.append(joined["token"])
    service: GameService = running(app).service
    rng = random.Random(5)
    while (view := await service.reader.view(table.id, None))["status"] != "finished":
        seat = view["turn"]["seat"]
        legal = game_moves(await service.reader.view(table.id, seat))
        action = decode_action("classic", json.dumps(choose(legal, rng)).encode())
        await service.submit(table.id, seat, f"m-{view['version']}", action)
    return table


async def rematch(http: httpx.AsyncClient, game_id: str, token: str | None) -> httpx.Response:
    return await http.post(f"/api/games/{game_id}/rematch", headers=auth(token))


@contextlib.asynccontextmanager
async def second_app(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """Another app on the same Redis: a second server process, in this one."""
    other: Starlette = create_app(settings, plugins=False)
    async with other.router.lifespan_context(other):
        transport = httpx.ASGITransport(app=other)
        async with httpx.AsyncClient(transport=transport, base_url="http://b.test") as client:
            yield client


async def test_two_seats_at_once_make_one_rematch_with_seats_moved_round(
    app: Starlette, http: httpx.AsyncClient, settings: Settings, redis_client: aioredis.Redis
) -> None:
    """Both seats of a finished game ask for a rematch at the same moment, through two server apps: one game is made, seat i of the old game sits at seat (i+1) mod 2, each gets a token that acts for its new seat, and the game starts (not seeded: its seed is not the old one's)."""
    table = await finished_table(app, http)
    async with second_app(settings) as other:
        first, second = await asyncio.gather(
            rematch(http, table.id, table.tokens[0]), rematch(other, table.id, table.tokens[1])
        )
    assert first.status_code == second.status_code == 201, (first.text, second.text)
    a, b = first.json(), second.json()
    assert a["id"] == b["id"] != table.id
    assert (a["seat"], b["seat"]) == (1, 0)
    new_id = a["id"]
    summary = (await http.get(f"/api/games/{new_id}")).json()
    assert summary["status"] == "live" and summary["rematch_of"] == table.id
    assert [s["name"] for s in summary["seats"]] == ["P1", "P0"]
    for answer in (a, b):
        view = (await http.get(f"/api/games/{new_id}/view", headers=auth(answer["token"]))).json()
        assert view["view"]["you"] == answer["seat"]
    old_seed = await redis_client.hget(meta_key(table.id), "seed")
    assert await redis_client.hget(meta_key(new_id), "seed") not in (None, old_seed)


async def test_a_rematch_keeps_the_time_control_and_is_not_seeded(
    app: Starlette, http: httpx.AsyncClient
) -> None:
    """The rematch of a seeded 5+3 game is a 5+3 game too, and not seeded (a new seed); waiting for its players, its open game's expiry is scheduled though no seat is taken yet."""
    table = await finished_table(app, http, clock={"initial": 300, "increment": 3})
    old = (await http.get(f"/api/games/{table.id}")).json()
    assert old["seeded"] is True
    new_id = (await rematch(http, table.id, table.tokens[0])).json()["id"]
    summary = (await http.get(f"/api/games/{new_id}")).json()
    assert summary["clock"] == old["clock"] and summary["clock"] is not None
    assert summary["seeded"] is False
    # Nobody joined yet (seat 0 waits for P1): open, it expires as any open game does,
    # its deadline with the timekeeper.
    assert summary["status"] == "open" and summary["seats"] == []
    created = datetime.fromisoformat(summary["created_at"]).timestamp() * 1000
    deadline = (await Deadlines(running(app).redis).all())[new_id]
    assert deadline == round(created) + 30 * 60 * 1000


async def test_calling_again_gives_the_same_answer_and_the_old_game_points_to_it(
    app: Starlette,
    http: httpx.AsyncClient,
) -> None:
    """The same seat asking twice gets the same id, seat and token; the finished game's summary, view and lobby entry then carry "rematch"; the rematch waits, unlisted, for the other seat (P1, at seat 0, is joined already)."""
    table = await finished_table(app, http)
    first = await rematch(http, table.id, table.tokens[1])
    again = await rematch(http, table.id, table.tokens[1])
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    new_id = first.json()["id"]
    assert first.json()["seat"] == 0
    summary = (await http.get(f"/api/games/{table.id}")).json()
    assert summary["rematch"] == new_id and summary["rematch_of"] is None
    view = (await http.get(f"/api/games/{table.id}/view")).json()["view"]
    assert view["rematch"] == new_id
    finished = (await http.get("/api/games", params={"status": "finished"})).json()["games"]
    assert [g["rematch"] for g in finished if g["id"] == table.id] == [new_id]
    waiting = (await http.get(f"/api/games/{new_id}")).json()
    assert waiting["status"] == "open" and [s["name"] for s in waiting["seats"]] == ["P1"]
    listed = (await http.get("/api/games", params={"status": "open"})).json()["games"]
    assert new_id not in [g["id"] for g in listed]


async def test_bots_are_seated_at_once_and_strangers_cannot_join(
    app: Starlette, http: httpx.AsyncClient
) -> None:
    """In a 3-seat game with a bot, the bot's new seat is filled with the first call (and every seat before it that can be); a stranger's POST /seats is refused with illegal_action; the game starts when the last human calls."""
    table = await finished_table(app, http, players=3, bots={1: "random"})
    game = table.id
    # Old seat 2 (P2) asks first: it goes to seat 0, the bot (old 1) to seat 2.
    first = (await rematch(http, game, table.tokens[2])).json()
    assert first["seat"] == 0
    summary = (await http.get(f"/api/games/{first['id']}")).json()
    assert [(s["name"], s["bot"]) for s in summary["seats"]] == [("P2", None)]
    stranger = await http.post(f"/api/games/{first['id']}/seats", json={"name": "Eve"})
    assert stranger.status_code == 422 and stranger.json()["code"] == "illegal_action"
    last = (await rematch(http, game, table.tokens[0])).json()
    assert last["id"] == first["id"] and last["seat"] == 1
    summary = (await http.get(f"/api/games/{first['id']}")).json()
    assert summary["status"] == "live"
    assert [(s["name"], s["bot"]) for s in summary["seats"]] == [
        ("P2", None),
        ("P0", None),
        ("Random bot", "random"),
    ]


async def test_a_rematch_loaded_as_soon_as_its_log_exists_is_known_as_a_rematch(
    app: Starlette, http: httpx.AsyncClient, settings: Settings
) -> None:
    """Another process that loads the rematch the moment its first event is written knows whose rematch it is: a stranger's join there is refused as on the process that made it."""
    table = await finished_table(app, http)
    service: GameService = running(app).service
    append = service.store.append
    refusals: list[httpx.Response] = []

    async with second_app(settings) as other:

        async def then_look(game_id: str, *args: object, **kwargs: object) -> object:
            version = await append(game_id, *args, **kwargs)  # type: ignore[arg-type]
            if game_id != table.id:  # the rematch's first event, just written
                refusals.append(
                    await other.post(f"/api/games/{game_id}/seats", json={"name": "Eve"})
                )
            return version

        service.store.append = then_look  # type: ignore[assignment]
        try:
            made = await rematch(http, table.id, table.tokens[0])
        finally:
            service.store.append = append  # type: ignore[method-assign]
    assert made.status_code == 201, made.text
    [stranger] = refusals
    assert stranger.status_code == 422 and stranger.json()["code"] == "illegal_action"


@pytest.mark.parametrize(
    ("token_of", "status", "code"),
    [(None, 401, "unauthorized"), ("wrong", 403, "unauthorized"), (0, 409, "conflict")],
)
async def test_a_rematch_needs_a_seat_token_of_a_finished_game(
    http: httpx.AsyncClient, token_of: int | str | None, status: int, code: str
) -> None:
    """No token gets 401, a token that is no seat's 403, a live game's seat 409 conflict; nothing is made."""
    table = await new_table(http)
    token = table.tokens[token_of] if isinstance(token_of, int) else token_of
    r = await rematch(http, table.id, token)
    assert (r.status_code, r.json()["code"]) == (status, code)
    assert (await http.get(f"/api/games/{table.id}")).json()["rematch"] is None
    missing = await rematch(http, "nosuchgame", table.tokens[0])
    assert missing.status_code == 404


async def decline(http: httpx.AsyncClient, game_id: str, token: str | None) -> httpx.Response:
    return await http.post(f"/api/games/{game_id}/rematch/decline", headers=auth(token))


async def test_a_seat_declines_the_rematch_and_every_answer_is_final(
    app: Starlette, http: httpx.AsyncClient, settings: Settings
) -> None:
    """Seat 0 offers a rematch (it accepts); seat 1 declines it through another server app: both answers are told ({"id","accepted":[0],"declined":[1]}), declining again gives the same, seat 1 can no longer join (409 rematch.declined) nor seat 0 decline (409 rematch.accepted), and nobody sits in the rematch, which waits to expire."""
    table = await finished_table(app, http)
    offered = (await rematch(http, table.id, table.tokens[0])).json()
    async with second_app(settings) as other:
        r = await decline(other, table.id, table.tokens[1])
    assert r.status_code == 200, r.text
    assert r.json() == {"id": offered["id"], "accepted": [0], "declined": [1]}
    assert (await decline(http, table.id, table.tokens[1])).json() == r.json()
    late = await rematch(http, table.id, table.tokens[1])
    assert (late.status_code, late.json()["reason"]["key"]) == (409, "rematch.declined")
    back = await decline(http, table.id, table.tokens[0])
    assert (back.status_code, back.json()["reason"]["key"]) == (409, "rematch.accepted")
    summary = (await http.get(f"/api/games/{offered['id']}")).json()
    assert summary["status"] == "open" and summary["seats"] == []


async def test_the_bots_accept_a_rematch_at_once(app: Starlette, http: httpx.AsyncClient) -> None:
    """In a 3-seat game with a bot, the first call answers for the bot too: the decline of another seat says the bot (seat 1) and the caller (seat 2) accepted."""
    table = await finished_table(app, http, players=3, bots={1: "random"})
    await rematch(http, table.id, table.tokens[2])
    r = await decline(http, table.id, table.tokens[0])
    assert r.json()["accepted"] == [1, 2] and r.json()["declined"] == [0]


@pytest.mark.parametrize(
    ("case", "status", "key"),
    [
        ("no token", 401, "token.missing"),
        ("a stranger's token", 403, None),
        ("live game", 409, "rematch.not_over"),
        ("nothing offered", 409, "rematch.not_offered"),
    ],
)
async def test_a_decline_needs_a_seat_of_a_finished_game_with_a_rematch_offered(
    app: Starlette, http: httpx.AsyncClient, case: str, status: int, key: str | None
) -> None:
    """No token gets 401, a token that is no seat's 403, a live game's seat 409 (not over), a finished game with no rematch 409 (nothing to decline); nothing is written."""
    table = await (new_table(http) if case == "live game" else finished_table(app, http))
    token = {"no token": None, "a stranger's token": "wrong"}.get(case, table.tokens[0])
    r = await decline(http, table.id, token)
    assert r.status_code == status, r.text
    if key is not None:
        assert r.json()["reason"]["key"] == key
    assert (await http.get(f"/api/games/{table.id}")).json()["rematch"] is None
    assert (await decline(http, "nosuchgame", table.tokens[0])).status_code == 404
