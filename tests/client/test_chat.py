"""The Python client's table chat against a real server (docs/chat.md): ``say`` and
what ``LiveGame.chat`` keeps, refusals as ``ProtocolError``, and ``SplendorHTTP.chat``."""

from __future__ import annotations

import pytest

from client.http import ProtocolError, SplendorHTTP
from client.live import LiveGame
from server.common.settings import Settings
from tests.server.ws_helpers import live_server


async def test_seats_and_spectators_talk_in_their_rooms(settings: Settings) -> None:
    """Ana's say() returns her message as the room was told it and Ben's LiveGame keeps it in chat["players"]; the spectator's say() reaches chat["spectators"] and never a seat's; a preset is kept as its name; SplendorHTTP.chat reads each room with the right token."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game = await http.create_game("classic", 2, seed=5)
        ana_seat, ben_seat = [await http.join(game["id"], name) for name in ("Ana", "Ben")]
        async with (
            LiveGame(server.http_url, game["id"], token=ana_seat.token) as ana,
            LiveGame(server.http_url, game["id"], token=ben_seat.token) as ben,
            LiveGame(server.http_url, game["id"]) as spectator,
        ):
            await ana.wait_for(lambda view: ana.chat_mode == "on")
            assert ana.chat == {"players": []} and spectator.chat == {"spectators": []}
            said = await ana.say("  good luck, Ben  ")
            assert (said["text"], said["seat"], said["name"]) == ("good luck, Ben", 0, "Ana")
            await ben.wait_for(lambda view: len(ben.chat["players"]) == 1)
            assert ben.chat["players"] == [said]
            thanks = await ben.say(preset="thanks")
            assert thanks["preset"] == "thanks" and "text" not in thanks
            watcher = await spectator.say("who wins?")
            assert watcher["room"] == "spectators" and watcher["seat"] is None
            assert list(spectator.chat) == ["spectators"]
            assert "spectators" not in ana.chat
            assert [
                m["id"] for m in await http.chat(game["id"], "players", token=ben_seat.token)
            ] == [
                said["id"],
                thanks["id"],
            ]
            assert [m["id"] for m in await http.chat(game["id"])] == [watcher["id"]]


async def test_a_refused_message_raises_with_its_reason(settings: Settings) -> None:
    """say() of a text with a bidi override raises ProtocolError bad_request (chat.text_hidden), the same text twice raises chat.repeated, and the socket stays usable: the next say() is taken."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game = await http.create_game("classic", 2, seed=6)
        ana_seat = await http.join(game["id"], "Ana")
        async with LiveGame(server.http_url, game["id"], token=ana_seat.token) as ana:
            with pytest.raises(ProtocolError) as refused:
                await ana.say("abc\u202edef")
            assert refused.value.code == "bad_request" and refused.value.key == "chat.text_hidden"
            await ana.say("hello")
            with pytest.raises(ProtocolError) as repeated:
                await ana.say("hello")
            assert repeated.value.key == "chat.repeated"
            assert (await ana.say("hello again"))["text"] == "hello again"
            with pytest.raises(ValueError):
                await ana.say("text", preset="hello")
