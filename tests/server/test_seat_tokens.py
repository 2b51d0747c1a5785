"""Seat tokens a session's end reaches (docs/accounts.md, "Seats of an account"): "log
out everywhere" and a deleted account revoke the account's seat tokens, on HTTP and
on websockets, on every process; a logged-in player gets their seat's token back
with the cookie; a seat's link for another device is replaced; the rematch keeps to
the token the finished game's seat holds now. Real servers (uvicorn on 127.0.0.1)
and the session's Redis."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
import websockets

from server.games.archiver import archive_game
from server.games.projection import token_digest
from server.games.service import GameService
from server.store.keys import account_seats_key, seats_key
from server.web.state import running
from tests.server.test_accounts import PASSWORD, client, log_in, settings_for, sign_up
from tests.server.ws_helpers import LiveServer, connect, live_server, receive

RESIGN = {"kind": "resign"}


@pytest.fixture
async def server(redis_client: aioredis.Redis, redis_server: str) -> AsyncIterator[LiveServer]:
    """A live server with no rate limit, on an emptied database."""
    async with live_server(settings_for(redis_server)) as live:
        yield live


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


_ids = iter(range(10**9))


async def command(
    http: httpx.AsyncClient, game_id: str, token: str, action: dict[str, Any]
) -> httpx.Response:
    body = {"command_id": f"c-{next(_ids)}", "action": action}
    return await http.post(f"/api/games/{game_id}/commands", json=body, headers=bearer(token))


async def view(http: httpx.AsyncClient, game_id: str, token: str) -> httpx.Response:
    return await http.get(f"/api/games/{game_id}/view", headers=bearer(token))


async def seat_token(
    http: httpx.AsyncClient, game_id: str, token: str | None = None, **headers: str
) -> httpx.Response:
    sent = {**headers, **(bearer(token) if token else {})}
    return await http.post(f"/api/games/{game_id}/seat-token", headers=sent)


async def account_game(owner: httpx.AsyncClient, guest: httpx.AsyncClient) -> tuple[str, str]:
    """A live Duel: seat 0 the account of ``owner``'s session, seat 1 a guest; the
    game's id and seat 0's token."""
    game = (await owner.post("/api/games", json={"variant": "duel"})).json()
    seat = await owner.post(f"/api/games/{game['id']}/seats", json={})
    assert seat.status_code == 201 and seat.json()["seat"] == 0, seat.text
    other = await guest.post(f"/api/games/{game['id']}/seats", json={"name": "Guest"})
    assert other.status_code == 201, other.text
    return str(game["id"]), str(seat.json()["token"])


async def refused_at_start(server: LiveServer, game_id: str, token: str) -> None:
    """A socket opened with ``token`` gets ``unauthorized`` and is closed with 4403."""
    async with await connect(server.ws_url(game_id, token)) as ws:
        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert message["type"] == "error" and message["code"] == "unauthorized"
        await closed_with(ws, 4403)


async def closed_with(ws: Any, code: int) -> list[dict[str, Any]]:
    """The messages a socket gets until it is closed, which must be with ``code``."""
    got = []
    with pytest.raises(websockets.ConnectionClosed) as closed:
        while True:
            got.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
    assert closed.value.rcvd is not None and closed.value.rcvd.code == code, got
    return got


async def test_log_out_everywhere_revokes_a_seat_taken_with_a_stolen_cookie(
    server: LiveServer,
) -> None:
    """A seat taken with a copy of the owner's cookie: after "log out everywhere" its token is refused 403 on HTTP (a resign, a view) and on the websocket (the open socket is told and closed 4403, a new one refused); logged in again, the owner gets the seat's new token with the cookie and plays with it."""
    async with client(server) as owner, client(server) as thief, client(server) as guest:
        await sign_up(owner, "Own_1")
        thief.cookies.update(owner.cookies)
        game_id, _ = await account_game(thief, guest)  # the thief sits as the account
        stolen = (await seat_token(thief, game_id)).json()["token"]
        async with await connect(server.ws_url(game_id, stolen)) as ws:
            assert (await receive(ws))["type"] == "snapshot"
            r = await owner.delete("/api/sessions")
            assert r.status_code == 200 and r.json() == {"ended": 1}
            told = await closed_with(ws, 4403)
            assert [m["code"] for m in told if m["type"] == "error"] == ["unauthorized"]
        r = await command(thief, game_id, stolen, RESIGN)
        assert r.status_code == 403 and r.json()["code"] == "unauthorized", r.text
        assert (await view(thief, game_id, stolen)).status_code == 403
        await refused_at_start(server, game_id, stolen)
        assert (await seat_token(thief, game_id)).status_code == 401  # no session left
        assert (await owner.get(f"/api/games/{game_id}")).json()["status"] == "live"
        await log_in(owner, "Own_1")
        fresh = await seat_token(owner, game_id)
        assert fresh.status_code == 200 and fresh.json()["seat"] == 0, fresh.text
        assert fresh.headers["cache-control"] == "no-store"
        token = fresh.json()["token"]
        assert (await view(owner, game_id, token)).json()["view"]["you"] == 0
        assert (await command(owner, game_id, token, RESIGN)).status_code == 200


async def test_a_command_on_a_socket_of_a_replaced_token_is_refused(
    server: LiveServer, redis_client: aioredis.Redis
) -> None:
    """A socket whose token was replaced without its signal reaching the hub (the seats hash written alone) has its next command refused by the append itself: ``unauthorized``, the socket closed 4403, nothing appended."""
    async with client(server) as owner, client(server) as guest:
        await sign_up(owner, "Own_2")
        game_id, token = await account_game(owner, guest)
        async with await connect(server.ws_url(game_id, token)) as ws:
            snapshot = await receive(ws)
            await redis_client.hset(seats_key(game_id), "0", token_digest("someone else's"))
            await ws.send(json.dumps({"type": "command", "command_id": "late", "action": RESIGN}))
            told = await closed_with(ws, 4403)
            assert [(m["code"], m["command_id"]) for m in told if m["type"] == "error"] == [
                ("unauthorized", "late")
            ]
        summary = (await owner.get(f"/api/games/{game_id}")).json()
        assert summary["status"] == "live" and summary["version"] == snapshot["version"]


async def test_a_token_replaced_while_its_socket_starts_ends_that_socket(
    server: LiveServer, redis_client: aioredis.Redis
) -> None:
    """A seat's token replaced after its socket's token was checked but before the socket joined the game's hub (while the hub loads) ends the socket too: unauthorized, 4403, no view of the seat kept."""
    async with client(server) as owner, client(server) as guest:
        await sign_up(owner, "Own_3")
        game_id, token = await account_game(owner, guest)
        hubs = running(server.app).hubs
        assert hubs is not None
        load = hubs._hub

        async def replaced_meanwhile(loading: str) -> Any:
            await redis_client.hset(seats_key(loading), "0", token_digest("someone else's"))
            return await load(loading)

        hubs._hub = replaced_meanwhile  # type: ignore[method-assign]
        try:
            async with await connect(server.ws_url(game_id, token)) as ws:
                told = await closed_with(ws, 4403)
        finally:
            hubs._hub = load  # type: ignore[method-assign]
        assert [m["code"] for m in told if m["type"] == "error"] == ["unauthorized"]


async def test_deleting_an_account_revokes_its_seats(server: LiveServer) -> None:
    """After the account is deleted, its seat's token (and its link's copy on another device) is refused 403: commands, views and sockets; the other seat plays on."""
    async with client(server) as owner, client(server) as phone, client(server) as guest:
        await sign_up(owner, "Del_1")
        game_id, token = await account_game(owner, guest)
        assert (await view(phone, game_id, token)).status_code == 200
        r = await owner.request("DELETE", "/api/me", json={"password": PASSWORD})
        assert r.status_code == 204
        for http in (owner, phone):
            r = await command(http, game_id, token, RESIGN)
            assert r.status_code == 403 and r.json()["code"] == "unauthorized"
            assert (await view(http, game_id, token)).status_code == 403
        await refused_at_start(server, game_id, token)
        assert (await seat_token(owner, game_id)).status_code == 401


async def test_a_seats_link_is_replaced_by_its_token(server: LiveServer) -> None:
    """The seat's token gets a new one (Bearer): the old one (the link given out) is refused 403 from then on, on HTTP and on the socket opened with it, while the new one plays; the old one can't make another."""
    async with client(server) as page, client(server) as other:
        game = (await page.post("/api/games", json={"variant": "classic"})).json()
        game_id = game["id"]
        url = f"/api/games/{game_id}/seats"
        link = (await page.post(url, json={"name": "Lou"})).json()["token"]
        await other.post(url, json={"name": "Max"})
        async with await connect(server.ws_url(game_id, link)) as ws:
            assert (await receive(ws))["type"] == "snapshot"
            r = await seat_token(page, game_id, link)
            assert r.status_code == 200 and r.json()["seat"] == 0, r.text
            assert r.headers["cache-control"] == "no-store"
            await closed_with(ws, 4403)
        new = r.json()["token"]
        assert new != link
        assert (await view(other, game_id, link)).status_code == 403
        refused = await command(other, game_id, link, RESIGN)
        assert refused.status_code == 403 and refused.json()["code"] == "unauthorized"
        await refused_at_start(server, game_id, link)
        assert (await seat_token(other, game_id, link)).status_code == 403
        assert (await view(page, game_id, new)).json()["view"]["you"] == 0
        async with await connect(server.ws_url(game_id, new)) as ws:
            assert (await receive(ws))["view"]["you"] == 0
        assert (await command(page, game_id, new, RESIGN)).status_code == 200


async def test_a_seat_token_by_session_is_the_accounts_seat_only(server: LiveServer) -> None:
    """With the cookie: the account's seat of the game gets a token (logged in on a second client, no link); no session 401, an account without a seat there 404, another site's Origin 403, no game 404, an archived game 409."""
    async with client(server) as first, client(server) as second, client(server) as stranger:
        await sign_up(first, "Two_1")
        await log_in(second, "Two_1")
        await sign_up(stranger, "Str_1")
        game_id, token = await account_game(first, stranger)
        r = await seat_token(second, game_id)
        assert r.status_code == 200 and r.json()["seat"] == 0
        assert (await view(second, game_id, r.json()["token"])).json()["view"]["you"] == 0
        assert (await view(first, game_id, token)).status_code == 403  # one token a seat
        async with httpx.AsyncClient(base_url=server.http_url) as guest:
            assert (await seat_token(guest, game_id)).status_code == 401
        assert (await seat_token(stranger, game_id)).status_code == 404
        evil = await seat_token(second, game_id, Origin="http://evil.example")
        assert evil.status_code == 403 and evil.json()["code"] == "unauthorized"
        assert (await seat_token(second, "nosuchgame")).status_code == 404
        assert (await command(second, game_id, r.json()["token"], RESIGN)).status_code == 200
        service: GameService = running(server.app).service
        assert await archive_game(service, game_id)
        archived = await seat_token(second, game_id)
        assert archived.status_code == 409 and archived.json()["code"] == "conflict"


async def test_a_seat_whose_token_was_never_written_is_the_accounts_by_session(
    server: LiveServer, redis_client: aioredis.Redis
) -> None:
    """An account's join appended but its token never written (the process died, or Redis failed, right after the append): the account gets the seat's token with its session and plays it, instead of being locked out (409 for good)."""
    async with client(server) as owner, client(server) as guest:
        await sign_up(owner, "Lost_1")
        game_id, _ = await account_game(owner, guest)
        await redis_client.hdel(seats_key(game_id), "0")  # as if never written
        running(server.app).service.repository.forget(game_id)
        r = await seat_token(owner, game_id)
        assert r.status_code == 200, r.text
        assert r.json()["seat"] == 0
        assert (await view(owner, game_id, r.json()["token"])).json()["view"]["you"] == 0
        assert (await command(owner, game_id, r.json()["token"], RESIGN)).status_code == 200


async def test_a_seat_joined_while_logging_out_everywhere_keeps_no_live_token(
    server: LiveServer,
) -> None:
    """An account joins a game with its session while "log out everywhere" runs between the join's append and its token's write: the join is answered 401 (the session ended) and its token is refused; the owner, logged in again, gets the seat with its session."""
    async with client(server) as owner, client(server) as thief, client(server) as guest:
        await sign_up(owner, "Race_1")
        await log_in(thief, "Race_1")
        game = (await guest.post("/api/games", json={"variant": "duel"})).json()
        store = running(server.app).service.store
        set_seat = store.set_seat

        async def logged_out_meanwhile(*args: Any) -> None:
            assert (await owner.delete("/api/sessions")).status_code == 200
            await set_seat(*args)

        store.set_seat = logged_out_meanwhile  # type: ignore[method-assign]
        try:
            joined = await thief.post(f"/api/games/{game['id']}/seats", json={})
        finally:
            store.set_seat = set_seat  # type: ignore[method-assign]
        assert joined.status_code == 401, joined.text
        assert joined.json()["code"] == "unauthorized"
        await log_in(owner, "Race_1")
        back = await seat_token(owner, game["id"])
        assert back.status_code == 200 and back.json()["seat"] == 0


async def test_the_accounts_list_of_seats_is_unlisted_when_archived(
    server: LiveServer, redis_client: aioredis.Redis
) -> None:
    """A seat an account takes is listed under the account's hash tag; archiving the game unlists it."""
    async with client(server) as owner, client(server) as guest:
        await sign_up(owner, "Lst_1")
        game_id, token = await account_game(owner, guest)
        key = account_seats_key("Lst_1")
        assert key.startswith("{accounts}:")
        assert await redis_client.hgetall(key) == {game_id.encode(): b"0"}
        assert (await command(owner, game_id, token, RESIGN)).status_code == 200
        service: GameService = running(server.app).service
        assert await archive_game(service, game_id)
        assert await redis_client.hgetall(key) == {}


async def test_a_revoked_token_claims_no_rematch(server: LiveServer) -> None:
    """A finished game's token revoked by "log out everywhere" is refused the rematch (403), and so is the rematch seat it claimed before; the owner, logged in again, gets the rematch's seat with the session (the finished game's renewed token does not write a seat that has a token)."""
    async with client(server) as owner, client(server) as thief, client(server) as guest:
        await sign_up(owner, "Rem_1")
        game_id, token = await account_game(owner, guest)
        assert (await command(owner, game_id, token, RESIGN)).status_code == 200
        url = f"/api/games/{game_id}/rematch"
        claimed = await thief.post(url, headers=bearer(token))
        assert claimed.status_code == 201, claimed.text
        rematch_id, rematch_token = claimed.json()["id"], claimed.json()["token"]
        assert (await view(thief, rematch_id, rematch_token)).status_code == 200
        await owner.delete("/api/sessions")
        refused = await thief.post(url, headers=bearer(token))
        assert refused.status_code == 403 and refused.json()["code"] == "unauthorized"
        assert (await view(thief, rematch_id, rematch_token)).status_code == 403
        await log_in(owner, "Rem_1")
        renewed = (await seat_token(owner, game_id)).json()["token"]
        # The rematch's seat has a token (revoked): only its own ways change it now, so
        # the finished game's token, even renewed, does not write it again...
        again = await owner.post(url, headers=bearer(renewed))
        assert again.status_code == 403 and again.json()["code"] == "unauthorized"
        direct = await seat_token(owner, rematch_id)  # ...the session takes it back
        assert direct.status_code == 200, direct.text
        seat = direct.json()["seat"]
        assert (await view(owner, rematch_id, direct.json()["token"])).json()["view"]["you"] == seat
        stolen = await thief.post(url, headers=bearer(token))
        assert stolen.status_code == 403 and stolen.json()["code"] == "unauthorized"


async def test_a_rematch_seats_new_link_is_not_undone_by_the_finished_games_token(
    server: LiveServer,
) -> None:
    """A rematch seat given a new token (its "new link") stays that token's: whoever still holds the finished game's token asking for the rematch again is refused (403), and the old rematch token stays refused."""
    async with client(server) as owner, client(server) as other, client(server) as guest:
        await sign_up(owner, "Rem_2")
        game_id, token = await account_game(owner, guest)
        assert (await command(owner, game_id, token, RESIGN)).status_code == 200
        url = f"/api/games/{game_id}/rematch"
        claimed = await owner.post(url, headers=bearer(token))
        assert claimed.status_code == 201, claimed.text
        rematch_id, first = claimed.json()["id"], claimed.json()["token"]
        fresh = await owner.post(f"/api/games/{rematch_id}/seat-token", headers=bearer(first))
        assert fresh.status_code == 200, fresh.text
        again = await other.post(url, headers=bearer(token))
        assert again.status_code == 403 and again.json()["code"] == "unauthorized"
        assert (await view(other, rematch_id, first)).status_code == 403
        assert (await view(owner, rematch_id, fresh.json()["token"])).status_code == 200


async def test_revocation_reaches_every_process(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Two processes on one Redis: the seat's token cached by the second (its socket open, a view read) is refused there as soon as the first revokes it: the socket closed 4403, a view and a command 403; the new token works on both."""
    settings = settings_for(redis_server)
    async with (
        live_server(settings) as one,
        live_server(settings) as two,
        client(one) as owner,
        client(two) as there,
        client(one) as guest,
    ):
        await sign_up(owner, "Mp_1")
        game_id, token = await account_game(owner, guest)
        assert (await view(there, game_id, token)).status_code == 200
        async with await connect(two.ws_url(game_id, token)) as ws:
            assert (await receive(ws))["type"] == "snapshot"
            await owner.delete("/api/sessions")
            await closed_with(ws, 4403)
        assert (await view(there, game_id, token)).status_code == 403
        assert (await command(there, game_id, token, RESIGN)).status_code == 403
        await log_in(owner, "Mp_1")
        fresh = (await seat_token(owner, game_id)).json()["token"]
        assert (await view(there, game_id, fresh)).status_code == 200
        assert (await command(there, game_id, fresh, RESIGN)).status_code == 200
