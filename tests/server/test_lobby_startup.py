"""A lobby and a start-up that don't grow with history (issue 14, item 3), against the
real Redis: the finished list bounded to the games that ended last, older games still
open by id and exported; a start-up with the lobby's keys reads no finished game; a
rebuild from SCAN (in the background, or ``splendor lobby rebuild``) gives the lobby
the live updates gave; the server answers /healthz while the lobby is rebuilt."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from starlette.applications import Starlette

from server import cli
from server.common.settings import Settings
from server.games.archiver import archive_game
from server.games.lobby import STATUSES, Lobby, LobbyEntry
from server.games.service import GameService
from server.store.event_store import EventStore
from server.store.keys import LOBBY_GAMES_KEY, LOBBY_REBUILDING_KEY, events_key
from server.web import state
from server.web.app import create_app
from tests.server.helpers import command_id
from tests.server.test_service import action, seated

KEEP = 3
ALL = 1000  # a limit above every list of these tests


def ticking(start: int = 1_700_000_000_000) -> Callable[[], int]:
    """A clock a minute further at each call: every game is created and ends apart."""
    ticks = iter(range(start, start + 10**12, 60_000))
    return lambda: next(ticks)


async def resign(service: GameService, game_id: str, seat: int = 0) -> None:
    """End a live game at once: ``seat`` resigns."""
    variant = (await service.reader.variant_of(game_id)).name
    await service.submit(game_id, seat, command_id(), action(service, variant, {"kind": "resign"}))


async def finished(service: GameService) -> str:
    game_id, _ = await seated(service)
    await resign(service, game_id)
    return game_id


async def lists(service: GameService) -> dict[str, list[dict[str, Any]]]:
    """Every list of the lobby, aborted included."""
    return {status: await service.listing.list_games(status, ALL) for status in STATUSES}


def ids(games: list[dict[str, Any]]) -> list[str]:
    return [g["id"] for g in games]


@contextlib.asynccontextmanager
async def running(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    """The app's lifespan and an in-process HTTP client to it."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://lobby.test") as http:
            yield http


async def test_the_finished_list_keeps_the_games_that_ended_last(store: EventStore) -> None:
    """With a bound of 3, five finished games list the three that ended last, newest first; the others leave the index."""
    service = GameService(store, Lobby(store.client, KEEP), clock_ms=ticking())
    games = [await finished(service) for _ in range(5)]
    assert ids(await service.listing.list_games("finished", ALL)) == games[:1:-1]
    listed = await store.client.hkeys(LOBBY_GAMES_KEY)
    assert {g.decode() for g in listed} == set(games[2:])


async def test_a_game_is_listed_by_its_end_not_its_creation(store: EventStore) -> None:
    """A game created first but ended last is the one a bound of 1 keeps."""
    service = GameService(store, Lobby(store.client, 1), clock_ms=ticking())
    early, _ = await seated(service)
    late, _ = await seated(service)
    await resign(service, late)
    await resign(service, early)
    assert ids(await service.listing.list_games("finished", ALL)) == [early]
    assert ids(await service.listing.list_games(None, ALL)) == [early]


async def test_aborted_games_are_bounded_too(store: EventStore) -> None:
    """Aborted games, listed only when asked for, keep the same bound."""
    service = GameService(store, Lobby(store.client, 2), clock_ms=ticking())
    aborted = []
    for _ in range(4):
        game_id, _ = await seated(service)
        await service.submit(
            game_id, 0, command_id(), action(service, "classic", {"kind": "abort"})
        )
        aborted.append(game_id)
    assert ids(await service.listing.list_games("aborted", ALL)) == aborted[:1:-1]


async def test_a_game_past_the_bound_still_opens_by_id_and_exports(
    redis_client: aioredis.Redis, settings: Settings
) -> None:
    """A finished game the list no longer holds is served by id: its view, events and export, as a listed game's."""
    app = create_app(settings.with_(finished_games=1), plugins=False)
    async with running(app) as http:
        service: GameService = state.running(app).service
        old = await finished(service)
        new = await finished(service)
        listed = (await http.get("/api/games", params={"status": "finished"})).json()
        assert ids(listed["games"]) == [new]
        summary = await http.get(f"/api/games/{old}")
        assert summary.status_code == 200 and summary.json()["status"] == "finished"
        assert (await http.get(f"/api/games/{old}/view")).json()["view"]["status"] == "finished"
        assert (await http.get(f"/api/games/{old}/events")).json()["events"]
        export = await http.get(f"/api/games/{old}/export")
        assert export.status_code == 200 and export.json()["id"] == old


async def test_start_up_with_the_lobby_keys_reads_no_finished_game(
    redis_client: aioredis.Redis, redis_server: str, settings: Settings
) -> None:
    """A start-up that finds the lobby built sends Redis no SCAN and reads no finished game's keys; only the games listed open or live are refreshed."""
    service = GameService(EventStore(redis_client), Lobby(redis_client))
    await service.listing.start()
    await service.listing.ready()
    done = [await finished(service) for _ in range(3)]
    live, _ = await seated(service)
    await service.listing.aclose()
    commands: list[str] = []
    monitoring = aioredis.from_url(redis_server)

    async def watch() -> None:
        async with monitoring.monitor() as m:
            async for command in m.listen():
                commands.append(str(command["command"]))

    watching = asyncio.create_task(watch())
    try:
        while not commands:  # MONITOR is on once it has seen a command
            await redis_client.ping()
            await asyncio.sleep(0.01)
        app = create_app(settings)  # the hubs, the bots' runner and the timekeeper too
        async with running(app) as http:
            await state.running(app).service.listing.ready()
            assert (await http.get("/healthz")).status_code == 200
            await redis_client.ping()
            await asyncio.sleep(0.1)  # MONITOR's last lines
    finally:
        watching.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watching
        await monitoring.aclose()
    assert not [c for c in commands if c.upper().startswith("SCAN")]
    for game_id in done:
        assert not [c for c in commands if f"{{{game_id}}}" in c]
    assert [c for c in commands if events_key(live) in c]  # the live game was refreshed


async def test_a_live_game_behind_the_lobby_is_caught_up_after_start(store: EventStore) -> None:
    """A game ended without its lobby update (a process died) is listed finished once the start-up's refresh is done."""
    service = GameService(store, Lobby(store.client))
    live, _ = await seated(service)
    await resign(GameService(store, lobby=None), live)
    assert ids(await service.listing.list_games("live", ALL)) == [live]
    restarted = GameService(store, Lobby(store.client))
    await restarted.listing.start()
    await restarted.listing.ready()
    assert ids(await restarted.listing.list_games("finished", ALL)) == [live]
    assert await restarted.listing.list_games("live", ALL) == []


async def played(service: GameService) -> dict[str, str]:
    """Games of every kind: open, live, finished (more than the bound), aborted, a
    Duel, a rematch offered, archived ones; by what they are."""
    games = {"open": (await service.create_game("duel", 2, 1))["id"]}
    for n in range(KEEP + 2):
        games[f"finished {n}"] = await finished(service)
    games["live"], _ = await seated(service, "duel", seed=5)
    games["aborted"], _ = await seated(service)
    await service.submit(
        games["aborted"], 0, command_id(), action(service, "classic", {"kind": "abort"})
    )
    offered, tokens = await seated(service)
    await resign(service, offered)
    games["offered"] = offered
    games["rematch"] = (await service.rematch(offered, tokens[1])).id
    for kind in (f"finished {KEEP + 1}", "aborted"):  # stored at rest: found as archives
        assert await archive_game(service, games[kind])
    return games


async def test_a_rebuild_from_scan_gives_the_lobby_the_live_updates_gave(
    store: EventStore,
) -> None:
    """Lost lobby keys are rebuilt in the background from a SCAN of every game, streams and archives: every list (aborted too) and the bound as the live updates left them."""
    service = GameService(store, Lobby(store.client, KEEP), clock_ms=ticking())
    await played(service)
    before = await lists(service)
    assert len(before["finished"]) == KEEP
    await Lobby(store.client).forget()
    await store.client.hset(LOBBY_GAMES_KEY, "gone", b"{}")  # an entry whose game has no key
    restarted = GameService(store, Lobby(store.client, KEEP))
    await restarted.listing.start()
    await restarted.listing.ready()
    assert await lists(restarted) == before
    assert not await store.client.hexists(LOBBY_GAMES_KEY, "gone")
    assert not await restarted.listing.rebuilding()


async def test_splendor_lobby_rebuild_mends_the_index_in_place(
    store: EventStore, redis_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`splendor lobby rebuild` beside a running service gives the same lists, with a game whose lobby update was lost put right and an entry without a game dropped."""
    service = GameService(store, Lobby(store.client, KEEP), clock_ms=ticking())
    games = await played(service)
    behind, _ = await seated(service)
    await resign(GameService(store, lobby=None), behind)  # its lobby update lost
    await Lobby(store.client).update(LobbyEntry("gone", "live", 1, 1, {"id": "gone"}))
    before = await lists(service)
    monkeypatch.setenv("SPLENDOR_FINISHED_GAMES", str(KEEP))  # the servers' bound
    code = await asyncio.to_thread(cli.main, ["lobby", "rebuild", "--redis-url", redis_server])
    assert code == 0
    after = await lists(service)
    assert ids(after["live"]) == [games["live"]]  # "gone" dropped, "behind" finished
    assert ids(after["finished"]) == [behind, *ids(before["finished"])[: KEEP - 1]]
    assert after["open"] == before["open"] and after["aborted"] == before["aborted"]


async def test_the_server_answers_while_the_lobby_is_rebuilt(
    redis_client: aioredis.Redis, settings: Settings
) -> None:
    """With the lobby's keys lost, the server is healthy at once and its lists say rebuilding, while another process holds the rebuild and while this one is halfway through it."""
    service = GameService(EventStore(redis_client), Lobby(redis_client))
    games = [await finished(service) for _ in range(3)]
    await Lobby(redis_client).forget()
    await redis_client.set(LOBBY_REBUILDING_KEY, b"another process", px=60_000)
    app = create_app(settings, plugins=False)
    async with running(app) as http:
        keeper = state.running(app).service.listing.keeper
        assert (await http.get("/healthz")).json() == {"status": "ok"}
        listed = (await http.get("/api/games", params={"status": "finished"})).json()
        assert listed == {"games": [], "rebuilding": True}
        gate = asyncio.Event()
        halfway = asyncio.Event()
        entry_of: Callable[[str], Awaitable[LobbyEntry | None]] = keeper._entry_of

        async def gated(game_id: str) -> LobbyEntry | None:
            if game_id == sorted(games)[1]:
                halfway.set()
                await gate.wait()
            return await entry_of(game_id)

        keeper._entry_of = gated
        await redis_client.delete(LOBBY_REBUILDING_KEY)  # the other process is gone
        await asyncio.wait_for(halfway.wait(), 10)
        for _ in range(500):  # the games read beside the held one are indexed
            assert (await http.get("/healthz")).json() == {"status": "ok"}
            listed = (await http.get("/api/games", params={"status": "finished"})).json()
            if len(listed["games"]) == len(games) - 1:
                break
            await asyncio.sleep(0.01)
        assert listed["rebuilding"] is True and len(listed["games"]) == len(games) - 1
        gate.set()
        await state.running(app).service.listing.ready()
        listed = (await http.get("/api/games", params={"status": "finished"})).json()
        assert "rebuilding" not in listed and sorted(ids(listed["games"])) == sorted(games)
