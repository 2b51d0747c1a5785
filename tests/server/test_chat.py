"""Table chat on one server process (docs/chat.md): two rooms kept apart, presets,
every limit refused with the socket left open, the operator's switch, the history
after a snapshot, what is kept and for how long, deleted accounts, and who may read
a room over HTTP."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from datetime import datetime

import httpx
import pytest
import redis.asyncio as aioredis

from server.common.settings import Settings
from server.games.chat import RETENTION_MS, SocketChat, new_message
from server.store.keys import chat_key
from server.web.state import running
from tests.server.chat_helpers import chat, refusal, said, settle, told
from tests.server.helpers import auth
from tests.server.ws_helpers import LiveServer, Table, Watcher, connect, live_server, new_table

DAY_MS = 86_400_000


@pytest.fixture
async def server(redis_client: aioredis.Redis, settings: Settings) -> AsyncIterator[LiveServer]:
    """A live server with the chat on, on an emptied database."""
    async with live_server(settings) as live:
        yield live


async def watch(server: LiveServer, table: Table, seat: int | None, name: str = "") -> Watcher:
    """A socket of a seat (or a spectator) on ``table``, past its snapshot."""
    token = None if seat is None else table.tokens[seat]
    watcher = Watcher(name or f"seat{seat}", await connect(server.ws_url(table.id, token)))
    assert (await watcher.next())["type"] == "snapshot"
    return watcher


async def resign(http: httpx.AsyncClient, table: Table, seat: int) -> None:
    r = await http.post(
        f"/api/games/{table.id}/commands",
        json={"command_id": f"resign-{seat}", "action": {"kind": "resign"}},
        headers=auth(table.tokens[seat]),
    )
    assert r.status_code == 200, r.text


async def test_the_players_and_the_spectators_talk_apart_until_the_end(server: LiveServer) -> None:
    """During the game a seat's message reaches both seats and no spectator, a spectator's reaches the spectators and no seat; once the game is over the seats get the spectators' history and their new messages, and the spectators still never read the players."""
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=3)
        ana, bo = await watch(server, table, 0), await watch(server, table, 1)
        spectator, other = await watch(server, table, None), await watch(server, table, None)
        await settle(ana, bo, spectator, other)
        assert [h["room"] for h in told(ana, "chat_history")] == ["players"]
        assert [h["room"] for h in told(spectator, "chat_history")] == ["spectators"]

        await ana.conn.send(chat("a1", "good move, Bo"))
        [message] = await said(bo, 1)
        assert message["room"] == "players" and message["seat"] == 0 and message["name"] == "P0"
        assert message["text"] == "good move, Bo" and "preset" not in message
        assert "account" not in message and message["at"].endswith("Z")
        assert (await said(ana, 1)) == [message]

        await spectator.conn.send(chat("s1", "Bo is winning"))
        [from_spectator] = await said(other, 1)
        assert from_spectator["room"] == "spectators" and from_spectator["seat"] is None
        assert from_spectator["name"].startswith("Guest ") and "guest" in from_spectator
        await settle(ana, bo, spectator)
        assert len(told(ana)) == len(told(bo)) == 1  # no spectator's message for the seats
        assert [m["id"] for m in told(spectator)] == [from_spectator["id"]]  # nor the reverse

        await resign(http, table, 1)
        await settle(ana, spectator)
        histories = told(ana, "chat_history")
        assert histories[-1]["room"] == "spectators"
        assert [m["text"] for m in histories[-1]["messages"]] == ["Bo is winning"]

        await other.conn.send(chat("s2", "gg all"))
        assert (await said(ana, 2))[-1]["text"] == "gg all"
        await bo.conn.send(chat("b1", "well played"))
        assert (await said(ana, 3))[-1]["text"] == "well played"
        await settle(spectator)
        assert [m["text"] for m in told(spectator)] == ["Bo is winning", "gg all"]


async def test_a_preset_is_sent_as_its_name(server: LiveServer) -> None:
    """{"preset": "good_luck"} reaches the room as "preset": "good_luck" with no text, each of the six presets is taken, and "rematch?" too."""
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=4)
        ana, bo = await watch(server, table, 0), await watch(server, table, 1)
        await ana.conn.send(chat("p1", preset="good_luck"))
        [message] = await said(bo, 1)
        assert message["preset"] == "good_luck" and "text" not in message
        for n, preset in enumerate(["hello", "well_played", "thanks", "good_game"]):
            await bo.conn.send(chat(f"b{n}", preset=preset))
        await ana.conn.send(chat("p2", preset="rematch?"))
        presets = [m["preset"] for m in await said(bo, 6)]
        assert sorted(presets) == sorted(
            ["good_luck", "hello", "well_played", "thanks", "good_game", "rematch?"]
        )


BAD = [
    # (message, code, reason key)
    (chat("c1", "x" * 201), "bad_request", "chat.text_length"),
    (chat("c2", "   "), "bad_request", "chat.text_length"),
    (chat("c3", ""), "bad_request", "chat.text_length"),
    (chat("c4", "hi\u0007there"), "bad_request", "chat.text_hidden"),
    (chat("c5", "abc\u202eevil"), "bad_request", "chat.text_hidden"),
    (chat("c6", "ab\u200bcd"), "bad_request", "chat.text_hidden"),
    (chat("c7", "a\nb"), "bad_request", "chat.text_hidden"),
    (chat("c8", preset="you_lose"), "bad_request", "request.invalid_message"),
    (chat("c9", "hi", colour="red"), "bad_request", "request.invalid_message"),
    (json.dumps({"type": "chat", "chat_id": "c10", "text": 5}), "bad_request", None),
    (chat("c11", "hi", preset="hello"), "bad_request", "chat.text_or_preset"),
    (chat("c12"), "bad_request", "chat.text_or_preset"),
    (chat("", "hi"), "bad_request", "chat.chat_id"),
]


async def test_each_bad_message_is_refused_with_its_chat_id_and_the_socket_stays_open(
    server: LiveServer,
) -> None:
    """Too long, empty, a control, bidi or zero-width character, an unknown preset, an unknown field, a wrong type, both or neither of text and preset, an empty chat_id: each gets {"type":"error","code":"bad_request","chat_id",...} with its reason, nobody is told anything, and the socket still answers; 200 characters after trimming are taken."""
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=5)
        ana, bo = await watch(server, table, 0), await watch(server, table, 1)
        for message, code, key in BAD:
            error = await refusal(ana, message)
            assert error["code"] == code, (message, error)
            chat_id = json.loads(message)["chat_id"]
            assert error.get("chat_id") == (chat_id or None), (message, error)
            assert error["message"] and "key" in error["reason"]
            if key is not None:
                assert error["reason"]["key"] == key, (message, error)
        await settle(ana, bo)
        assert told(ana) == told(bo) == []
        await ana.conn.send(chat("ok", "  " + "é" * 200 + "\n"))
        [message] = await said(bo, 1)
        assert message["text"] == "é" * 200


async def test_the_sixth_message_in_ten_seconds_and_a_repeat_are_refused(
    server: LiveServer,
) -> None:
    """A socket's same text twice in a row is refused (bad_request, chat.repeated) and another text then taken; its sixth message within 10 s is rate_limited (rate_limited.chat, a wait in its args); the socket stays open and another socket still talks."""
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=6)
        ana, bo = await watch(server, table, 0), await watch(server, table, 1)
        await ana.conn.send(chat("r1", "one"))
        repeat = await refusal(ana, chat("r2", "one"))
        assert (repeat["code"], repeat["chat_id"]) == ("bad_request", "r2")
        assert repeat["reason"]["key"] == "chat.repeated"
        for n in range(2, 6):
            await ana.conn.send(chat(f"r{n + 1}", f"message {n}"))
        limited = await refusal(ana, chat("r7", "message 6"))
        assert (limited["code"], limited["chat_id"]) == ("rate_limited", "r7")
        assert limited["reason"]["key"] == "rate_limited.chat"
        assert 0 <= limited["reason"]["args"]["wait"] <= 10
        await bo.conn.send(chat("b1", "still here"))
        texts = [m["text"] for m in await said(ana, 6)]
        assert texts == ["one", "message 2", "message 3", "message 4", "message 5", "still here"]


def test_a_sockets_budget_is_five_messages_in_any_ten_seconds() -> None:
    """SocketChat at explicit times: five messages at t..t+4 s; the sixth is refused until t + 10 s, told to wait what is left; refused ones do not count; the same text twice in a row is refused, not twice apart."""
    limits, t = SocketChat(), 1_000_000
    for n in range(5):
        limits.check(f"m{n}", t + n * 1000)
        limits.taken(f"m{n}", t + n * 1000)
    with pytest.raises(Exception) as refused:
        limits.check("m5", t + 9_999)
    assert refused.value.reason.key == "rate_limited.chat"  # type: ignore[attr-defined]
    assert refused.value.reason.args["wait"] == 0.0  # type: ignore[attr-defined]
    with pytest.raises(Exception) as refused:
        limits.check("m5", t + 5_000)
    assert refused.value.reason.args["wait"] == 5.0  # type: ignore[attr-defined]
    limits.check("m5", t + 10_000)
    limits.taken("m5", t + 10_000)
    with pytest.raises(Exception) as repeated:
        limits.check("m5", t + 60_000)
    assert repeated.value.reason.key == "chat.repeated"  # type: ignore[attr-defined]
    limits.check("m4", t + 60_000)


@pytest.mark.parametrize("mode", ["off", "presets"])
async def test_the_operator_turns_chat_off_or_to_presets(
    redis_client: aioredis.Redis, settings: Settings, mode: str
) -> None:
    """SPLENDOR_CHAT=off: no history after the snapshot, every message refused (chat.off), GET refused; =presets: text refused (chat.presets_only), presets taken, the history says "mode": "presets"; the socket stays open."""
    async with (
        live_server(settings.with_(chat=mode)) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        table = await new_table(http, players=2, seed=7)
        ana, bo = await watch(server, table, 0), await watch(server, table, 1)
        await settle(ana)
        text = await refusal(ana, chat("t1", "hello"))
        assert text["code"] == "bad_request" and text["chat_id"] == "t1"
        r = await http.get(
            f"/api/games/{table.id}/chat?room=players", headers=auth(table.tokens[0])
        )
        if mode == "off":
            assert told(ana, "chat_history") == []
            assert text["reason"]["key"] == "chat.off"
            preset = await refusal(ana, chat("t2", preset="hello"))
            assert preset["reason"]["key"] == "chat.off"
            assert r.status_code == 400 and r.json()["reason"]["key"] == "chat.off"
        else:
            assert [h["mode"] for h in told(ana, "chat_history")] == ["presets"]
            assert text["reason"]["key"] == "chat.presets_only"
            await ana.conn.send(chat("t2", preset="hello"))
            assert (await said(bo, 1))[0]["preset"] == "hello"
            assert r.status_code == 200
        await settle(ana)


async def test_a_socket_gets_the_last_fifty_messages_after_its_snapshot(
    server: LiveServer, redis_client: aioredis.Redis
) -> None:
    """55 messages kept in the players' room: a seat's socket opened (or reopened) afterwards gets a snapshot then chat_history with the last 50, oldest first; a spectator's gets the spectators' room only; GET gives all 55."""
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=8)
        store = running(server.app).chat
        for n in range(55):
            kept = new_message("players", n % 2, f"P{n % 2}", 1_700_000_000_000 + n, text=f"m{n}")
            await store.post(table.id, kept, None)
        for _ in range(2):  # a socket, and the same seat reconnecting
            ana = await watch(server, table, 0)
            await settle(ana)
            [history] = told(ana, "chat_history")
            assert history["room"] == "players"
            assert [m["text"] for m in history["messages"]] == [f"m{n}" for n in range(5, 55)]
            assert ana.signals[0][0] == 1  # right after the snapshot, with the presence
            await ana.conn.close()
        spectator = await watch(server, table, None)
        await settle(spectator)
        assert [(h["room"], h["messages"]) for h in told(spectator, "chat_history")] == [
            ("spectators", [])
        ]
        r = await http.get(
            f"/api/games/{table.id}/chat?room=players", headers=auth(table.tokens[1])
        )
        assert [m["text"] for m in r.json()["messages"]] == [f"m{n}" for n in range(55)]


async def test_the_chat_is_kept_seven_days_from_the_games_end(
    server: LiveServer, redis_client: aioredis.Redis
) -> None:
    """While the game is live its rooms have no expiry; when it ends each kept room gets one at its end + 7 days, and a room first written after the end gets the same; a game that ended 8 days ago has its rooms deleted, one that ended 6 days ago keeps them one more day."""
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=9)
        ana = await watch(server, table, 0)
        await ana.conn.send(chat("k1", "live"))
        await said(ana, 1)
        players = chat_key(table.id, "players")
        assert await redis_client.pttl(players) == -1
        await resign(http, table, 0)
        ended = (await http.get(f"/api/games/{table.id}/events")).json()["events"][-1]["at"]
        ended_ms = _ms(ended)
        left = await redis_client.pttl(players)
        assert ended_ms + RETENTION_MS - _now_ms() - 5_000 <= left <= RETENTION_MS
        spectator = await watch(server, table, None)
        await spectator.conn.send(chat("k2", "after the end"))
        await said(spectator, 1)
        spectators_left = await redis_client.pttl(chat_key(table.id, "spectators"))
        assert abs(spectators_left - left) < 5_000

        store = running(server.app).chat
        now = _now_ms()
        await store.ended(table.id, now - 6 * DAY_MS)
        assert 0 < await redis_client.pttl(players) <= DAY_MS
        await store.ended(table.id, now - 8 * DAY_MS)
        assert await redis_client.exists(players, chat_key(table.id, "spectators")) == 0


async def test_a_deleted_accounts_messages_are_shown_as_deleted_player(
    server: LiveServer, redis_client: aioredis.Redis
) -> None:
    """Ana sits with her account and talks, then deletes her account: GET gives her message as "deleted player" (no account field), and a socket opened on a hub made afresh gets its history so too; the message's text is kept."""
    async with (
        httpx.AsyncClient(base_url=server.http_url) as http,
        httpx.AsyncClient(base_url=server.http_url) as ana_http,
    ):
        r = await ana_http.post(
            "/api/accounts", json={"username": "Ana_C", "password": "pw-123456"}
        )
        assert r.status_code == 201, r.text
        r = await http.post("/api/games", json={"variant": "classic", "players": 2, "seed": 10})
        table = Table(r.json()["id"], [])
        for client, body in ((ana_http, {}), (http, {"name": "Bo"})):
            r = await client.post(f"/api/games/{table.id}/seats", json=body)
            assert r.status_code == 201, r.text
            table.tokens.append(r.json()["token"])
        ana = await watch(server, table, 0)
        await ana.conn.send(chat("d1", "hello from Ana"))
        [message] = await said(ana, 1)
        assert message["name"] == "Ana_C"
        await ana.conn.close()
        r = await ana_http.request("DELETE", "/api/me", json={"password": "pw-123456"})
        assert r.status_code in (200, 204), r.text

        r = await http.get(
            f"/api/games/{table.id}/chat?room=players", headers=auth(table.tokens[1])
        )
        [shown] = r.json()["messages"]
        assert shown["name"] == "deleted player" and "account" not in shown
        assert shown["text"] == "hello from Ana"
        bo = await watch(server, table, 1)  # the hub was dropped with its last socket
        await settle(bo)
        [history] = told(bo, "chat_history")
        assert [m["name"] for m in history["messages"]] == ["deleted player"]


async def test_a_signed_in_spectator_talks_as_its_account(server: LiveServer) -> None:
    """A spectator with a session talks under its account's name, with no guest number; a guest is "Guest <n>" with n its number."""
    async with (
        httpx.AsyncClient(base_url=server.http_url) as http,
        httpx.AsyncClient(base_url=server.http_url) as cy_http,
    ):
        r = await cy_http.post(
            "/api/accounts", json={"username": "Cy_Watch", "password": "pw-123456"}
        )
        assert r.status_code == 201, r.text
        table = await new_table(http, players=2, seed=11)
        cookie = f"splendor_session={cy_http.cookies['splendor_session']}"
        cy = Watcher(
            "cy", await connect(server.ws_url(table.id), additional_headers={"Cookie": cookie})
        )
        guest = await watch(server, table, None)
        await cy.conn.send(chat("w1", "hi, I am Cy"))
        await guest.conn.send(chat("w2", "hi Cy"))
        first, second = await said(guest, 2)
        assert (first["name"], first.get("guest")) == ("Cy_Watch", None)
        assert second["name"] == f"Guest {second['guest']}"


async def test_who_may_read_a_room_over_http(server: LiveServer) -> None:
    """GET /api/games/{id}/chat: players' room with a seat token 200, without 401, another game's token 403; spectators' room without a token 200, with a seat token 403 while live and 200 once over; an unknown room 400, an unknown game 404."""
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=12)
        other = await new_table(http, players=2, seed=13)
        url = f"/api/games/{table.id}/chat"

        async def status(room: str, token: str | None, path: str = url) -> int:
            return (await http.get(path, params={"room": room}, headers=auth(token))).status_code

        assert await status("players", table.tokens[0]) == 200
        assert await status("players", None) == 401
        assert await status("players", other.tokens[0]) == 403
        assert await status("spectators", None) == 200
        assert await status("spectators", table.tokens[1]) == 403
        assert await status("lobby", None) == 400
        assert await status("spectators", None, "/api/games/nosuchgame/chat") == 404
        await resign(http, table, 1)
        assert await status("spectators", table.tokens[1]) == 200
        assert await status("players", None) == 401
        body = (await http.get(url, params={"room": "spectators"})).json()
        assert body == {"messages": []}


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


async def test_a_message_whose_signal_was_lost_is_sent_once_signals_are_back(
    server: LiveServer, redis_client: aioredis.Redis
) -> None:
    """A message kept in the players' room while no process heard of it (its signal lost with the signals' connection): when the connection is made again (Signals' on_reconnect, HubPresence._reread_all, as tests/server/test_signals.py shows it called) the hubs read their rooms again, and both seats get it, once; a message sent after that arrives as ever."""
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=14)
        ana, bo = await watch(server, table, 0), await watch(server, table, 1)
        await ana.conn.send(chat("l1", "before"))
        await said(bo, 1)
        lost = new_message("players", 1, "P1", _now_ms(), text="lost in transit")
        await redis_client.rpush(chat_key(table.id, "players"), json.dumps(lost))
        hubs = running(server.app).hubs
        assert hubs is not None
        hubs.hub_presence._reread_all()
        assert [m["text"] for m in await said(ana, 2)] == ["before", "lost in transit"]
        assert [m["text"] for m in await said(bo, 2)] == ["before", "lost in transit"]
        assert "account" not in told(bo)[1]
        await bo.conn.send(chat("l2", "after"))
        assert [m["text"] for m in await said(ana, 3)] == ["before", "lost in transit", "after"]
        await settle(ana, bo)
        assert len(told(ana)) == len(told(bo)) == 3
