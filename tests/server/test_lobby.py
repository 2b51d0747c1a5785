"""The lobby read model: open, live and finished lists, kept by the service and
rebuilt from the streams when lost or behind."""

from __future__ import annotations

import redis.asyncio as aioredis

from server.games.lobby import Lobby, LobbyEntry
from server.games.service import GameService
from server.store.event_store import EventStore
from server.store.keys import LOBBY_GAMES_KEY
from tests.server.test_service import play, seated


def ids(summaries: list[dict[str, object]]) -> list[object]:
    return [s["id"] for s in summaries]


async def test_games_move_from_open_to_live_to_finished_newest_first(service: GameService) -> None:
    """Each list holds its games newest first; a game moves as it starts and ends."""
    older = (await service.create_game("classic", 2, 1))["id"]
    newer = (await service.create_game("classic", 3, 2))["id"]
    assert ids(await service.listing.list_games("open", 10)) == [newer, older]
    assert ids(await service.listing.list_games("open", 1)) == [newer]
    live, _ = await seated(service, seed=4)
    assert ids(await service.listing.list_games("live", 10)) == [live]
    summary = (await service.listing.list_games("live", 10))[0]
    assert summary == await service.reader.summary(live)
    assert {s["points"] for s in summary["seats"]} == {0}
    await play(service, live, 600)
    assert (await service.reader.summary(live))["status"] == "finished"
    assert ids(await service.listing.list_games("finished", 10)) == [live]
    assert ids(await service.listing.list_games("live", 10)) == []
    assert ids(await service.listing.list_games(None, 10)) == [live, newer, older]


async def test_the_lobby_is_rebuilt_from_the_streams_when_it_is_lost(store: EventStore) -> None:
    """With every lobby key deleted, start() folds the streams back into the same lists."""
    service = GameService(store, Lobby(store.client))
    await service.listing.start()
    await service.listing.ready()
    open_id = (await service.create_game("duel", 2, 1))["id"]
    live_id, _ = await seated(service)
    await play(service, live_id, 5)
    before = {s: await service.listing.list_games(s, 50) for s in ("open", "live", "finished")}
    await Lobby(store.client).forget()
    assert await service.listing.list_games("live", 50) == []
    restarted = GameService(store, Lobby(store.client))
    await restarted.listing.start()
    await restarted.listing.ready()
    after = {s: await restarted.listing.list_games(s, 50) for s in ("open", "live", "finished")}
    assert ids(after["open"]) == [open_id]
    assert after["live"] == [await service.reader.summary(live_id)]
    # Lists are refreshed when what they show changes, not at every move: only the
    # version may be behind, and a rebuild has it exact.
    drop_version = [{k: v for k, v in g.items() if k != "version"} for g in before["live"]]
    assert drop_version == [{k: v for k, v in g.items() if k != "version"} for g in after["live"]]


async def test_a_game_indexed_behind_its_stream_is_caught_up_at_start(store: EventStore) -> None:
    """Moves appended without a lobby update (a process died in between), up to the game's end, are indexed at the next start."""
    service = GameService(store, Lobby(store.client))
    await service.listing.start()
    await service.listing.ready()
    game_id, _ = await seated(service)
    unindexed = GameService(store, lobby=None)
    version = await play(unindexed, game_id, 1000)
    assert ids(await service.listing.list_games("live", 5)) == [game_id]
    restarted = GameService(store, Lobby(store.client))
    await restarted.listing.start()
    await restarted.listing.ready()
    assert ids(await restarted.listing.list_games("live", 5)) == []
    [entry] = await restarted.listing.list_games("finished", 5)
    assert entry["version"] == version and entry["result"] is not None


async def test_lists_follow_points_and_status_not_every_move(service: GameService) -> None:
    """A move that changes no listed field leaves the entry; points or status update it."""
    game_id, _ = await seated(service)
    listed = (await service.listing.list_games("live", 1))[0]
    for _ in range(200):
        await play(service, game_id, 1)
        summary = await service.reader.summary(game_id)
        now = (await service.listing.list_games(summary["status"], 1))[0]
        assert now["seats"] == summary["seats"] and now["status"] == summary["status"]
        assert now["version"] <= summary["version"]
        if summary["status"] == "finished":
            assert now == summary
            break
        listed = now
    assert listed["version"] >= 4


async def test_an_older_summary_never_overwrites_a_newer_one(redis_client: aioredis.Redis) -> None:
    """Updates carry their version: a late update from another process is ignored."""
    lobby = Lobby(redis_client)
    newer = LobbyEntry("g1", "live", 1000, 9, {"id": "g1", "version": 9})
    older = LobbyEntry("g1", "open", 1000, 3, {"id": "g1", "version": 3})
    assert await lobby.update(newer)
    assert not await lobby.update(older)
    assert await lobby.newest("live", 5) == [{"id": "g1", "version": 9}]
    assert await lobby.newest("open", 5) == []
    assert await redis_client.hget(LOBBY_GAMES_KEY, "g1") == b'{"id":"g1","version":9}'


async def test_a_stream_that_cannot_be_read_does_not_stop_the_start(store: EventStore) -> None:
    """A game stream of junk is left out of the lobby; the other games are listed."""
    service = GameService(store, Lobby(store.client))
    good = (await service.create_game("classic", 2, 1))["id"]
    await store.append("junk", [b"\x00not json"], expected_version=0, command_id=None, at_ms=0)
    await Lobby(store.client).forget()
    restarted = GameService(store, Lobby(store.client))
    await restarted.listing.start()
    await restarted.listing.ready()
    assert ids(await restarted.listing.list_games("open", 10)) == [good]


async def test_a_finished_game_is_dated_by_its_end(store: EventStore) -> None:
    """A summary's ended_at is null while the game runs and the time of its last event once it is over (lists date finished games by it)."""
    ticks = iter(range(1_700_000_000_000, 1_800_000_000_000, 60_000))  # a minute a call
    service = GameService(store, Lobby(store.client), clock_ms=lambda: next(ticks))
    game_id, _ = await seated(service, seed=4)
    assert (await service.reader.summary(game_id))["ended_at"] is None
    await play(service, game_id, 600)
    summary = await service.reader.summary(game_id)
    last = (await service.reader.events(game_id, None, 0))[-1]
    assert summary["status"] == "finished"
    assert summary["ended_at"] == last["at"] and summary["ended_at"] > summary["created_at"]
    assert (await service.listing.list_games("finished", 1))[0]["ended_at"] == summary["ended_at"]
