"""Hypothesis over chat text (any Unicode) on a real server: every message is either
kept and told exactly as its NFC, trimmed form, or refused as PROTOCOL.md says (a
``bad_request`` with its ``chat_id``); the socket stays open, nothing else is kept,
and the server logs no traceback and no warning."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from server.common.settings import Settings
from tests.fuzz.test_ws_fuzz import ServerLog, server_log, still_open
from tests.server.ws_helpers import LiveServer, Table, connect, live_server, new_table

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,  # the same examples every run: a failure is never a fluke
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@dataclass
class Room:
    """A live server and a game whose spectators' room the examples talk in."""

    server: LiveServer
    http: httpx.AsyncClient
    table: Table
    log: ServerLog


@pytest.fixture
async def room(redis_client: Any, settings: Settings) -> AsyncIterator[Room]:
    async with (
        live_server(settings) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        table = await new_table(http, players=2, seed=17)
        with server_log() as log:
            yield Room(server, http, table, log)
        assert log.bad == []


def expected(text: str) -> str | None:
    """What the chat keeps of ``text`` by PROTOCOL.md's words, or None if it is refused:
    1-200 characters after NFC and trimming, none a control, format (bidi and
    zero-width), surrogate or line/paragraph separator."""
    normal = unicodedata.normalize("NFC", text).strip()
    if not 1 <= len(normal) <= 200:
        return None
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") for c in normal):
        return None
    return normal


@FUZZ
@given(text=st.text(max_size=260))
@example(text="<b>bold</b> & <script>alert(1)</script>")
@example(text="e\u0301")  # NFC makes it one character
@example(text="\u3000hi\u3000")  # an ideographic space is trimmed
@example(text="abc\u202edef")
@example(text="a\u200db")
@example(text="\ufeff")
@example(text="x" * 201)
@example(text=" " + "x" * 200 + " ")
@example(text="\U0001f600" * 200)
async def test_any_chat_text_is_kept_as_normalized_or_refused(room: Room, text: str) -> None:
    """Any Unicode text from a fresh spectator's socket: the chat message it is told has exactly the normalized text and the room's last kept message is it, or it gets bad_request with its chat_id and nothing is kept; the socket answers a ping after."""
    url = f"/api/games/{room.table.id}/chat"
    before = len((await room.http.get(url, params={"room": "spectators"})).json()["messages"])
    conn = await connect(room.server.ws_url(room.table.id))
    try:
        await conn.send(json.dumps({"type": "chat", "chat_id": "f", "text": text}))
        while True:
            reply = json.loads(await conn.recv())
            if reply["type"] in ("chat", "error"):
                break
        kept = (await room.http.get(url, params={"room": "spectators"})).json()["messages"]
        want = expected(text)
        if want is None:
            assert reply["type"] == "error", (text, reply)
            assert (reply["code"], reply["chat_id"]) == ("bad_request", "f")
            assert reply["reason"]["key"] in ("chat.text_length", "chat.text_hidden")
            assert len(kept) == before
        else:
            assert reply["type"] == "chat", (text, reply)
            assert reply["text"] == want and set(reply) == {
                "type",
                "room",
                "id",
                "seat",
                "name",
                "text",
                "at",
                "guest",
            }
            assert kept[-1] == reply
        await still_open(conn)
    finally:
        await conn.close()
