"""Bad input on the websocket: an error message, nothing changed, the socket stays open
(except a message over 64 KiB, which closes it with 1009)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import websockets

from server.common.settings import Settings
from server.web.state import running
from tests.server.ws_helpers import Watcher, connect, http_view, live_server, new_table


async def answer(watcher: Watcher, message: str | bytes) -> dict[str, Any]:
    """Send one message; return the reply (diffs and snapshots are skipped)."""
    await watcher.conn.send(message)
    while True:
        reply = await watcher.next()
        if reply["type"] not in ("diff", "snapshot"):
            return reply


def command(command_id: Any, action: Any, **extra: Any) -> str:
    return json.dumps({"type": "command", "command_id": command_id, "action": action, **extra})


@pytest.fixture
def settings(redis_server: str) -> Settings:
    """No rate limit: the tests send fast."""
    return Settings(redis_url=redis_server, command_rate=0)


async def test_malformed_messages_get_errors_and_the_socket_stays_open(
    redis_client: Any, settings: Settings
) -> None:
    """Malformed JSON, unknown type, unknown field, wrong types, a spectator's command and a bad action each get PROTOCOL.md's error; nothing changes; ping still works."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=1)
        before = await http_view(http, table.id, None)
        spectator = Watcher("s", await connect(server.ws_url(table.id)))
        assert (await spectator.next())["type"] == "snapshot"

        cases: list[tuple[str | bytes, str, str | None]] = [
            ("{not json", "bad_request", None),
            (b"\xff\xfe binary junk", "bad_request", None),
            ("[1, 2]", "bad_request", None),
            ('{"type": "dance"}', "bad_request", None),
            ('{"kind": "ping"}', "bad_request", None),
            ('{"type": "ping", "extra": 1}', "bad_request", None),
            ('{"type": "resync", "since": 3}', "bad_request", None),
            (command(5, {"kind": "pass"}), "bad_request", None),
            (command("c1", {"kind": "pass"}, expected_version="x"), "bad_request", "c1"),
            (command("c2", {"kind": "pass"}, colour="red"), "bad_request", "c2"),
            ('{"type": "command", "command_id": "c3"}', "bad_request", "c3"),
            (command("c4", {"kind": "pass"}), "unauthorized", "c4"),
        ]
        for message, code, command_id in cases:
            reply = await answer(spectator, message)
            assert reply["type"] == "error", message
            assert reply["code"] == code, (message, reply)
            assert reply.get("command_id") == command_id, (message, reply)
            assert reply["message"]
        assert (await answer(spectator, '{"type": "ping"}')) == {"type": "pong"}
        assert await http_view(http, table.id, None) == before
        await spectator.conn.close()


async def test_player_commands_are_checked_like_http(redis_client: Any, settings: Settings) -> None:
    """A player's bad action, move out of turn, stale version and illegal move get bad_request, not_your_turn, conflict and illegal_action; a good one an ack, and the same command id again the same ack without a second move."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=2)
        view = await http_view(http, table.id, table.tokens[0])
        mover = view["turn"]["seat"]
        version = view["version"]
        sockets = [
            Watcher(f"p{seat}", await connect(server.ws_url(table.id, token)))
            for seat, token in enumerate(table.tokens)
        ]
        for watcher in sockets:
            assert (await watcher.next())["type"] == "snapshot"
        me, other = sockets[mover], sockets[1 - mover]

        reply = await answer(me, command("a", {"kind": "fly"}))
        assert (reply["code"], reply["command_id"]) == ("bad_request", "a")
        reply = await answer(me, command("b", {"kind": "take_two", "color": "purple"}))
        assert (reply["code"], reply["command_id"]) == ("bad_request", "b")
        reply = await answer(other, command("c", {"kind": "take_two", "color": "red"}))
        assert (reply["code"], reply["command_id"]) == ("not_your_turn", "c")
        stale = command("d", {"kind": "take_two", "color": "red"}, expected_version=version - 1)
        reply = await answer(me, stale)
        assert (reply["code"], reply["command_id"]) == ("conflict", "d")
        dear = next(c for c in view["board"]["3"] if c is not None)
        reply = await answer(me, command("e", {"kind": "buy", "card": dear}))
        assert (reply["code"], reply["command_id"]) == ("illegal_action", "e")
        assert (await http_view(http, table.id, None))["version"] == version

        good = command("f", {"kind": "take_two", "color": "red"}, expected_version=version)
        reply = await answer(me, good)
        assert reply == {"type": "ack", "command_id": "f", "version": version + 2}
        assert (await answer(me, good)) == reply  # applied once, answered twice
        assert (await http_view(http, table.id, None))["version"] == version + 2

        # resync: a fresh snapshot at the current version.
        await me.conn.send('{"type": "resync"}')
        while (message := await me.next())["type"] != "snapshot":
            pass
        assert message["version"] == version + 2
        assert message["view"] == await http_view(http, table.id, table.tokens[mover])
        for watcher in sockets:
            await watcher.conn.close()


@pytest.mark.parametrize("uvicorn_limit", [65_536, 16 * 1024 * 1024])
async def test_message_over_64_kib_closes_with_1009(
    redis_client: Any, settings: Settings, uvicorn_limit: int
) -> None:
    """A message just under 64 KiB is only an error; one over it closes the socket with 1009 (message too big), whether uvicorn or the endpoint refuses it."""
    async with (
        live_server(settings, ws_max_size=uvicorn_limit) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        table = await new_table(http, players=2, seed=3)
        watcher = Watcher("s", await connect(server.ws_url(table.id), max_size=None))
        assert (await watcher.next())["type"] == "snapshot"
        near = json.dumps({"type": "ping", "pad": "x" * 65_000})
        assert len(near) <= 65_536
        assert (await answer(watcher, near))["code"] == "bad_request"
        await watcher.conn.send(json.dumps({"type": "ping", "pad": "x" * 66_000}))
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await watcher.next()
        assert watcher.conn.close_code == 1009


@pytest.mark.parametrize(
    ("game", "query", "code", "close"),
    [
        ("nosuchgame", "", "not_found", 4404),
        (None, "?token=not-a-seat-token", "unauthorized", 4403),
        (None, "?since=yesterday", "bad_request", 4400),
        (None, "?since=-1", "bad_request", 4400),
    ],
)
async def test_a_socket_that_cannot_start_gets_one_error_and_a_close_code(
    redis_client: Any, settings: Settings, game: str | None, query: str, code: str, close: int
) -> None:
    """Unknown game, wrong token, bad ``since``: one error message, then close 4000 + status."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=4)
        url = f"ws://{server.host}:{server.port}/ws/games/{game or table.id}{query}"
        conn = await connect(url)
        reply = json.loads(await conn.recv())
        assert reply["type"] == "error" and reply["code"] == code
        with pytest.raises(websockets.ConnectionClosed):
            await conn.recv()
        assert conn.close_code == close


async def test_commands_share_the_seat_rate_limit(redis_client: Any, redis_server: str) -> None:
    """Commands on the socket spend the seat's bucket, as over HTTP: past the burst, rate_limited (with the command id) and nothing applied."""
    settings = Settings(redis_url=redis_server, command_rate=0.01, command_burst=2)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=6)
        view = await http_view(http, table.id, table.tokens[0])
        other = 1 - view["turn"]["seat"]
        watcher = Watcher("p", await connect(server.ws_url(table.id, table.tokens[other])))
        assert (await watcher.next())["type"] == "snapshot"
        codes = []
        for i in range(3):
            reply = await answer(watcher, command(f"r{i}", {"kind": "take_two", "color": "red"}))
            codes.append((reply["code"], reply["command_id"]))
        assert codes == [
            ("not_your_turn", "r0"),
            ("not_your_turn", "r1"),
            ("rate_limited", "r2"),
        ]
        await watcher.conn.close()


async def test_a_hub_stops_with_its_last_socket(redis_client: Any, settings: Settings) -> None:
    """The process keeps a game's hub while sockets watch it, and drops it (and stops tailing the game) when the last one leaves."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        table = await new_table(http, players=2, seed=7)
        hubs = running(server.app).hubs
        first = Watcher("a", await connect(server.ws_url(table.id)))
        second = Watcher("b", await connect(server.ws_url(table.id, table.tokens[0])))
        for watcher in (first, second):
            await watcher.next()
        assert hubs.get(table.id) is not None and hubs.get(table.id).watchers == 2
        await first.conn.close()
        for _ in range(200):
            if hubs.get(table.id).watchers == 1:
                break
            await asyncio.sleep(0.01)
        assert hubs.get(table.id).watchers == 1
        await second.conn.close()
        for _ in range(200):
            if hubs.get(table.id) is None:
                break
            await asyncio.sleep(0.01)
        assert hubs.get(table.id) is None and len(hubs) == 0
