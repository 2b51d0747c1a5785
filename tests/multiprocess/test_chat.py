"""Table chat across two ``splendor serve`` processes on one Redis (docs/chat.md): a
message written on one process reaches the readers of its room on the other, and
only them; the seats read the spectators once the game is over; the history and
``GET /chat`` are the same from either process."""

from __future__ import annotations

from typing import Any

import httpx

from tests.multiprocess.servers import served, ws_url
from tests.server.chat_helpers import chat, refusal, said, settle, told
from tests.server.helpers import auth
from tests.server.ws_helpers import Table, Watcher, connect, new_table


async def watch(base: str, table: Table, seat: int | None, name: str) -> Watcher:
    token = None if seat is None else table.tokens[seat]
    watcher = Watcher(name, await connect(ws_url(base, table.id, token)))
    assert (await watcher.next())["type"] == "snapshot"
    return watcher


async def test_each_room_reaches_its_readers_on_the_other_process_only(
    redis_client: Any, redis_server: str
) -> None:
    """Seat 0 on A, seat 1 and a spectator on B, a spectator on A: a seat's message on A reaches seat 1 on B and no spectator; a spectator's on B reaches the spectator on A and no seat; after the end (resign through A) seat 0 on A gets the spectators' history and B's spectators' new messages, and the spectators still never read the players; a refusal on B leaves its socket open."""
    async with (
        served(redis_server) as a,
        served(redis_server) as b,
        httpx.AsyncClient(base_url=a.base) as http,
    ):
        table = await new_table(http, players=2, seed=31)
        ana = await watch(a.base, table, 0, "ana@a")
        bo = await watch(b.base, table, 1, "bo@b")
        spectator_b = await watch(b.base, table, None, "s@b")
        spectator_a = await watch(a.base, table, None, "s@a")

        await ana.conn.send(chat("a1", "hello from A"))
        [message] = await said(bo, 1)
        assert (message["text"], message["seat"], message["room"]) == ("hello from A", 0, "players")
        await spectator_b.conn.send(chat("s1", "hello from B's stands"))
        [seen] = await said(spectator_a, 1)
        assert seen["text"] == "hello from B's stands" and seen["seat"] is None
        await said(ana, 1)
        await said(spectator_b, 1)
        # Each process has handled both signals: the players' reached B's seat, the
        # spectators' reached A's spectator, and the sockets read past them.
        await settle(ana, bo, spectator_a, spectator_b)
        assert [m["room"] for m in told(ana)] == [m["room"] for m in told(bo)] == ["players"]
        assert [m["room"] for m in told(spectator_a)] == ["spectators"]
        assert [m["room"] for m in told(spectator_b)] == ["spectators"]

        error = await refusal(bo, chat("b1", "\u202ehidden"))
        assert (error["code"], error["chat_id"]) == ("bad_request", "b1")

        r = await http.post(
            f"/api/games/{table.id}/commands",
            json={"command_id": "end", "action": {"kind": "resign"}},
            headers=auth(table.tokens[1]),
        )
        assert r.status_code == 200, r.text
        while not any(h["room"] == "spectators" for h in told(ana, "chat_history")):
            await ana.next_any()
        [history] = [h for h in told(ana, "chat_history") if h["room"] == "spectators"]
        assert [m["text"] for m in history["messages"]] == ["hello from B's stands"]
        await spectator_b.conn.send(chat("s2", "gg from B"))
        assert (await said(ana, 2))[-1]["text"] == "gg from B"
        await bo.conn.send(chat("b2", "thanks, gg"))
        assert (await said(ana, 3))[-1]["text"] == "thanks, gg"
        await said(spectator_a, 2)
        await settle(spectator_a, spectator_b)
        assert [m["text"] for m in told(spectator_a)] == ["hello from B's stands", "gg from B"]

        late = await watch(b.base, table, 0, "ana@b")
        await settle(late)
        rooms = {h["room"]: [m["text"] for m in h["messages"]] for h in told(late, "chat_history")}
        assert rooms == {
            "players": ["hello from A", "thanks, gg"],
            "spectators": ["hello from B's stands", "gg from B"],
        }
        for base in (a.base, b.base):
            async with httpx.AsyncClient(base_url=base) as other:
                r = await other.get(
                    f"/api/games/{table.id}/chat",
                    params={"room": "players"},
                    headers=auth(table.tokens[1]),
                )
                assert [m["text"] for m in r.json()["messages"]] == rooms["players"]
        for watcher in (ana, bo, spectator_a, spectator_b, late):
            await watcher.conn.close()
