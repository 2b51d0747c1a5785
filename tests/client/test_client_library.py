"""The Python client against a real server: live views, resume after drops, refusals."""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from bots.moves import moves as game_moves
from client.commands import play_bot, split_game_url, watch
from client.http import ProtocolError, Seat, SplendorHTTP
from client.live import LiveGame
from server.common.settings import Settings
from server.store.embedded_redis import EmbeddedRedis
from server.web.state import running
from tests.ratings.helpers import counted_game, opening_move
from tests.server.ws_helpers import live_server


async def _table(http: SplendorHTTP, seed: int = 3) -> tuple[str, list[Seat]]:
    game = await http.create_game("classic", 2, seed=seed)
    seats = [await http.join(game["id"], name) for name in ("Ana", "Ben")]
    return game["id"], seats


async def _move(http: SplendorHTTP, seats: list[Seat], rng: random.Random) -> int:
    view = await http.view(seats[0].game_id)
    mover = seats[view["turn"]["seat"]]
    legal = game_moves(await http.view(mover.game_id, token=mover.token))
    return await http.command(mover, rng.choice(legal))


async def test_live_view_resumes_after_a_drop_without_missing_a_move(settings: Settings) -> None:
    """A dropped watcher reconnects with `since`, and its view catches up exactly."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game_id, seats = await _table(http)
        rng = random.Random(1)
        async with LiveGame(server.http_url, game_id) as live:
            seen: list[int] = []

            async def record() -> None:
                async for _ in live.updates():
                    seen.append(live.version)

            recorder = asyncio.create_task(record())
            await live.wait_version(await _move(http, seats, rng))
            live.drop()
            for _ in range(10):
                version = await _move(http, seats, rng)
            view = await live.wait_version(version)
            recorder.cancel()
            assert live.reconnects >= 1
            assert view == await http.view(game_id)
            assert seen == sorted(seen) and len(set(seen)) == len(seen)


async def test_presence_is_kept_and_told_again_after_a_drop(settings: Settings) -> None:
    """`LiveGame.presence` follows the server's presence messages: a spectator sees seat 0 come and go; a dropped socket resumes with `since` and is told the presence again."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game_id, seats = await _table(http)
        async with LiveGame(server.http_url, game_id) as spectator:
            await spectator.wait_for(lambda view: spectator.presence == [False, False])
            async with LiveGame(server.http_url, game_id, token=seats[0].token) as ana:
                await ana.wait_for(lambda view: ana.presence == [True, False])
                await spectator.wait_for(lambda view: spectator.presence == [True, False])
                away = spectator.away_since
                assert away is not None and away[0] is None and away[1] is not None
                spectator.presence = None
                spectator.drop()
                await spectator.wait_for(lambda view: spectator.presence == [True, False])
                assert spectator.reconnects >= 1
            await spectator.wait_for(lambda view: spectator.presence == [False, False])


async def test_a_rematch_is_offered_to_the_watchers_and_joined_over_http(
    settings: Settings,
) -> None:
    """Ana resigns; a spectator's `LiveGame.rematch` gets the id when Ben asks for a rematch (`SplendorHTTP.rematch`), Ana joins it with her own seat, seats moved round; a rematch of a live game is refused with conflict."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game_id, (ana, ben) = await _table(http)
        with pytest.raises(ProtocolError) as refused:
            await http.rematch(ana)
        assert refused.value.code == "conflict"
        async with LiveGame(server.http_url, game_id) as spectator:
            await http.command(ana, {"kind": "resign"})
            again = await http.rematch(ben)
            await spectator.wait_for(lambda view: spectator.rematch == again.game_id)
        joined = await http.rematch(ana)
        assert (joined.game_id, joined.seat, again.seat) == (again.game_id, 1, 0)
        summary = await http.game(again.game_id)
        assert summary["status"] == "live" and [s["name"] for s in summary["seats"]] == [
            "Ben",
            "Ana",
        ]


async def test_watch_shows_the_clocks_ticking(settings: Settings) -> None:
    """In a 3+2 game `splendor watch` shows each seat's clock ("⏱") and, while the first mover's window runs, draws it again every second without any message from the server: the mover's clock shows two different readings."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game = await http.create_game("classic", 2, clock={"initial": 180, "increment": 2})
        for name in ("Ana", "Ben"):
            await http.join(game["id"], name)
        mover = (await http.view(game["id"]))["turn"]["seat"]
        name = ("Ana", "Ben")[mover]
        out = io.StringIO()
        watching = asyncio.create_task(
            watch(f"{server.http_url}/#/watch/{game['id']}", out=out, clear=False)
        )

        def readings() -> set[str]:
            return {
                line.split("⏱ ")[1].split(" first move")[0]
                for line in out.getvalue().splitlines()
                if line.startswith(f"> {name}") and "first move" in line
            }

        async def two_readings() -> None:
            while len(readings()) < 2:
                await asyncio.sleep(0.05)

        await asyncio.wait_for(two_readings(), 10)
        assert "⏱ 3:00" in out.getvalue()  # the other seat's bank, not running yet
        watching.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watching


async def test_refusals_surface_as_errors_with_their_code(settings: Settings) -> None:
    """Illegal, out-of-turn and stale commands raise ProtocolError with PROTOCOL.md's code."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game_id, seats = await _table(http)
        view = await http.view(game_id)
        mover, other = seats[view["turn"]["seat"]], seats[1 - view["turn"]["seat"]]
        async with LiveGame(server.http_url, game_id, token=other.token) as live:
            with pytest.raises(ProtocolError) as refused:
                await live.send({"kind": "take_two", "color": "red"})
            assert refused.value.code == "not_your_turn"
        async with LiveGame(server.http_url, game_id, token=mover.token) as live:
            with pytest.raises(ProtocolError) as refused:
                await live.send({"kind": "buy", "card": "3-01"})
            assert refused.value.code == "illegal_action"
            with pytest.raises(ProtocolError) as refused:
                await live.send({"kind": "pass"}, expected_version=1)
            assert refused.value.code == "conflict"
        with pytest.raises(ProtocolError) as refused:
            await http.command(Seat(game_id, 0, "not-a-token"), {"kind": "pass"})
        assert (refused.value.code, refused.value.status) == ("unauthorized", 403)
        assert (await http.view(game_id))["version"] == view["version"]


async def test_a_command_sent_during_a_drop_is_applied_once(settings: Settings) -> None:
    """A command whose answer was lost is sent again with its id and applied once."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game_id, seats = await _table(http)
        view = await http.view(game_id)
        mover = seats[view["turn"]["seat"]]
        async with LiveGame(server.http_url, game_id, token=mover.token) as live:
            action = game_moves(live.view)[0] if live.view else {}
            live.drop()
            version = await live.send(action, command_id="once")
            again = await http.command(mover, action, command_id="once")
        assert version == again
        events = await http.events(game_id)
        assert [e["version"] for e in events] == list(range(1, version + 1))


async def test_a_command_met_by_a_redis_outage_is_kept_and_applied_once(
    tmp_path: Path,
) -> None:
    """A command the server answers `unavailable` (its Redis made a replica of nothing: writes refused, reads served) stays pending, goes again with its id on each new socket, and is applied once when Redis takes writes again."""
    redis = await asyncio.to_thread(EmbeddedRedis(tmp_path / "redis").start)
    settings = Settings(redis_url=redis.url).without_rate_limits()
    admin = aioredis.from_url(redis.url)
    try:
        async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
            game_id, seats = await _table(http)
            mover = seats[(await http.view(game_id))["turn"]["seat"]]
            async with LiveGame(server.http_url, game_id, token=mover.token) as live:
                action = game_moves(live.view)[0] if live.view else {}
                before, reconnects = live.version, live.reconnects
                await admin.replicaof("127.0.0.1", "1")  # READONLY from now on
                sending = asyncio.create_task(live.send(action, command_id="through"))
                while live.reconnects == reconnects:  # refused, and its socket closed
                    await asyncio.sleep(0.05)
                assert not sending.done()
                await admin.replicaof("NO", "ONE")
                version = await sending
            events = await http.events(game_id)
        assert version == before + len(events[before:]) and version > before
        assert [e["version"] for e in events] == list(range(1, version + 1))
    finally:
        await admin.aclose()
        await asyncio.to_thread(redis.stop)


async def test_watch_draws_the_table_until_the_game_ends(
    settings: Settings,
) -> None:
    """`splendor watch` follows a bots' game from its page address to the end."""
    settings = settings.with_(bot_delay=0.0)
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game = await http.create_game("classic", 2, seed=9)
        await http.add_bot(game["id"], "greedy")
        await http.add_bot(game["id"], "random")
        out = io.StringIO()
        url = f"{server.http_url}/#/watch/{game['id']}"
        assert await asyncio.wait_for(watch(url, out=out, clear=False), 120) == 0
        assert "game over:" in out.getvalue()
        assert "Greedy bot [greedy] (● here)" in out.getvalue()  # bots are always present


async def test_watch_shows_who_is_here_and_who_is_away(settings: Settings) -> None:
    """`splendor watch` redraws when a player comes or goes: "● here" while a seat has a socket open, "○ away" once it is closed."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game_id, seats = await _table(http)
        out = io.StringIO()
        watching = asyncio.create_task(
            watch(f"{server.http_url}/#/watch/{game_id}", out=out, clear=False)
        )

        async def drawn(text: str, after: int = 0) -> None:
            while text not in out.getvalue()[after:]:
                await asyncio.sleep(0.02)

        await asyncio.wait_for(drawn("Ana (○ away)"), 20)
        async with LiveGame(server.http_url, game_id, token=seats[0].token):
            await asyncio.wait_for(drawn("Ana (● here)"), 20)
            at = len(out.getvalue())
        await asyncio.wait_for(drawn("Ana (○ away)", at), 20)
        watching.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watching


async def test_an_outside_bot_joins_and_plays_to_the_end(
    settings: Settings,
) -> None:
    """`splendor bot` takes a seat over the wire and plays against a server bot."""
    settings = settings.with_(bot_delay=0.0)
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        game = await http.create_game("classic", 2, seed=4)
        await http.add_bot(game["id"], "greedy")
        code = await asyncio.wait_for(play_bot(server.http_url, game["id"], "greedy"), 120)
        assert code == 0
        summary = await http.game(game["id"])
        assert summary["status"] == "finished"
        # The outside bot asks for the name a server bot of its level has: it gets one of its own.
        assert [s["name"] for s in summary["seats"]] == ["Greedy bot", "Greedy bot 2"]


def test_game_addresses_are_understood() -> None:
    """Page addresses, API addresses and a base URL with --game all name the game."""
    assert split_game_url("http://h:8/#/watch/abc") == ("http://h:8", "abc")
    assert split_game_url("http://h:8/#/play/x-1") == ("http://h:8", "x-1")
    assert split_game_url("http://h:8/api/games/g1") == ("http://h:8", "g1")
    assert split_game_url("http://h:8/", "g2") == ("http://h:8", "g2")
    with pytest.raises(ValueError):
        split_game_url("http://h:8/")


async def test_the_client_logs_in_and_plays_a_rated_game_as_its_account(
    settings: Settings,
) -> None:
    """SplendorHTTP signs up, makes a rated game and joins it as its account beside a bot; logged out it is a guest again and a guest's seat in a rated game is refused."""
    async with live_server(settings) as server, SplendorHTTP(server.http_url) as http:
        assert await http.me() is None
        assert await http.sign_up("Py_Client", "a-long-enough-password") == "Py_Client"
        assert (await http.me() or {})["username"] == "Py_Client"
        game = await http.create_game("duel", 2, clock={"initial": 300, "increment": 3}, rated=True)
        seat = await http.join(game["id"])
        await http.add_bot(game["id"], "random")
        summary = await http.game(game["id"])
        assert summary["rated"] and summary["seats"][seat.seat]["account"] == "Py_Client"
        await http.log_out()
        assert await http.me() is None
        other = await http.create_game("duel", 2, clock={"initial": 300, "increment": 3})
        assert (await http.join(other["id"], "Guest")).token
        with pytest.raises(ProtocolError) as refused:
            await http.create_game("duel", 2, clock={"initial": 300}, rated=True)
        assert refused.value.status == 401
        assert await http.log_in("py_client", "a-long-enough-password") == "Py_Client"
        await http.log_out(everywhere=True)
        assert await http.me() is None


async def test_a_rated_game_shows_in_the_clients_profiles_and_leaderboard(
    settings: Settings,
) -> None:
    """Two clients logged in to two accounts play a rated Duel, two turns each, that
    one resigns: `player` gives the winner above 1500 and the loser below (both
    provisional); once each has 9 more counted games against 4 others, `leaderboard`
    lists both; `player` of a bot level or an unknown name answers as the API does."""
    async with (
        live_server(settings) as server,
        SplendorHTTP(server.http_url) as ada,
        SplendorHTTP(server.http_url) as bob,
    ):
        await ada.sign_up("Ada", "long enough pw")
        await bob.sign_up("Bob", "long enough pw")
        game = await ada.create_game("duel", clock={"initial": 180, "increment": 2}, rated=True)
        seats = [await ada.join(game["id"]), await bob.join(game["id"])]
        while (view := await ada.view(game["id"]))["turn"]["number"] <= 4:  # two turns each
            mover = seats[view["turn"]["seat"]]
            legal = (await ada.view(game["id"], token=mover.token))["legal"]
            await (ada, bob)[mover.seat].command(mover, opening_move(legal))
        await bob.command(seats[1], {"kind": "resign"})
        won, lost = await ada.player("ada"), await ada.player("Bob")
        assert won["ratings"]["duel"]["rating"] > 1500 > lost["ratings"]["duel"]["rating"]
        assert (
            won["ratings"]["duel"]["provisional"] is lost["ratings"]["duel"]["provisional"] is True
        )
        assert await bob.leaderboard("duel") == []
        for player in ("Ada", "Bob"):
            for rival in ["Cy", "Di", "Ed", "Flo"] * 2 + ["Cy"]:
                await counted_game(running(server.app).service, "duel", [player, rival])
        board = await bob.leaderboard("duel")
        assert [(p["username"], p["games"]) for p in board] == [("Ada", 10), ("Bob", 10)]
        assert (await ada.player("bot:greedy"))["bot"] is True
        with pytest.raises(ProtocolError) as missing:
            await ada.player("nobody")
        assert missing.value.status == 404
