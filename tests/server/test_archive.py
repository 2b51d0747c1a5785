"""Finished games archived (server/store/archive_format.py, server/games/archiver.py) against real Redis:
every read the same before and after, by the process that archived, by one that had
the game cached from before its end and by one reading it cold; archived once
whoever asks; a late command gets game_over; the bytes a game keeps at rest."""

from __future__ import annotations

import asyncio
import io
import json
import statistics

import httpx
import pytest
import redis.asyncio as aioredis
from starlette.applications import Starlette

from server.common.errors import ServiceError
from server.games.archiver import ArchiveQueue, Archiver, archive_game
from server.games.lobby import Lobby
from server.games.public_records import parse_record
from server.games.service import GameService
from server.store.event_store import EventStore
from server.store.keys import archive_key, commands_key, events_key, meta_key, seats_key
from server.tools.export_import import export_games
from server.web.state import running
from tests.server.archive_helpers import KINDS, Clock, everything_read, game_keys, play
from tests.server.helpers import auth, command_id, refused

AT_REST_LIMIT = 2_500  # bytes per finished game, mean over the kinds (issue 14)


def _service(client: aioredis.Redis, clock: Clock) -> GameService:
    return GameService(EventStore(client), Lobby(client), clock_ms=clock)


@pytest.mark.parametrize(("variant", "players"), KINDS, ids=["classic-2", "classic-4", "duel"])
async def test_an_archived_game_reads_as_its_stream_did(
    redis_client: aioredis.Redis, variant: str, players: int
) -> None:
    """Summary, record, events and every version's views (spectator and each seat) are equal before and after: in the process that archived, in one that cached the game before its end, and cold."""
    clock = Clock()
    playing = _service(redis_client, clock)
    early = _service(redis_client, clock)  # another process, which saw the game begin
    game = await play(playing, clock, variant, players, seed=players, timed=variant == "duel")
    middle = (await playing.reader.summary(game.id))["version"] // 2
    await early.reader.view(game.id, None, middle)
    cached = early.repository.cached(game.id)
    assert cached is not None
    cached.log[middle:] = []  # cached at the middle, as if read then
    cached.state = cached.state_at(middle)
    before = await everything_read(playing, game.id)

    assert await archive_game(playing, game.id)
    keys = await game_keys(redis_client, game.id)
    assert sorted(keys) == [archive_key(game.id), meta_key(game.id)]

    for reader in (playing, early, _service(redis_client, clock)):
        assert await everything_read(reader, game.id) == before
        # Its seats' tokens are still theirs (read from the archive), others not.
        with pytest.raises(ServiceError, match="token"):
            await reader.seats.seat_for_token(game.id, "not-a-token-of-this-game")
        for seat, token in enumerate(game.tokens):
            assert await reader.seats.seat_for_token(game.id, token) == seat


async def test_two_processes_archive_a_game_once(redis_client: aioredis.Redis) -> None:
    """Services archiving one game at once: one of them does it, and it reads the same in both."""
    clock = Clock()
    first, second = _service(redis_client, clock), _service(redis_client, clock)
    game = await play(first, clock, "classic", 2, seed=3, timed=False)
    before = await everything_read(second, game.id)
    done = await asyncio.gather(archive_game(first, game.id), archive_game(second, game.id))
    assert sorted(done) == [False, True]
    assert not await archive_game(first, game.id)
    assert await everything_read(first, game.id) == before
    assert await everything_read(second, game.id) == before


async def test_only_a_game_over_is_archived(redis_client: aioredis.Redis) -> None:
    """An open or live game is not archived: nothing changes."""
    service = _service(redis_client, Clock())
    game_id = (await service.create_game("classic", 2))["id"]
    assert not await archive_game(service, game_id)
    await service.join(game_id, "Ana")
    await service.join(game_id, "Bo")
    assert not await archive_game(service, game_id)
    assert await redis_client.exists(events_key(game_id), seats_key(game_id)) == 2


async def test_the_archiver_archives_games_when_due(redis_client: aioredis.Redis) -> None:
    """A game is noted at its end for its end + SPLENDOR_ARCHIVE_AFTER; two archivers ticking past that time archive it once, and not before."""
    clock = Clock()
    service = _service(redis_client, clock)
    queue = ArchiveQueue(redis_client, after_s=600)
    service.hooks.archives = queue
    game = await play(service, clock, "duel", 2, seed=4, timed=False)
    ended = (await service.reader.log(game.id))[-1].at_ms
    assert await queue.all() == {game.id: ended + 600_000}
    other = _service(redis_client, clock)
    archivers = [Archiver(s, queue, clock_ms=clock) for s in (service, other)]
    clock.now_ms = ended + 599_999
    assert [await a.tick() for a in archivers] == [0, 0]
    clock.now_ms = ended + 600_000
    await asyncio.gather(*(a.tick() for a in archivers))
    assert sum(a.archived for a in archivers) == 1
    assert await queue.all() == {}
    assert await redis_client.exists(archive_key(game.id))


async def test_a_command_to_an_archived_game_gets_game_over(
    app: Starlette, http: httpx.AsyncClient, redis_client: aioredis.Redis
) -> None:
    """Over HTTP, on an archived game: a seat's move and resign get game_over (its token is still its seat's), a wrong token is refused, events, export and the seat's view answer as before, and its seats can make its rematch."""
    service: GameService = running(app).service
    game = await play(service, Clock(), "classic", 2, seed=6, timed=False)
    path = f"/api/games/{game.id}"
    before = [(await http.get(path + suffix)).json() for suffix in ("/events", "/export")]
    seat_view = (await http.get(path + "/view", headers=auth(game.tokens[1]))).json()
    assert await archive_game(service, game.id)
    service.repository.drop_cache()
    assert not await redis_client.exists(commands_key(game.id))
    assert [(await http.get(path + suffix)).json() for suffix in ("/events", "/export")] == before
    assert (await http.get(path + "/view", headers=auth(game.tokens[1]))).json() == seat_view
    for action in ({"kind": "take_three", "colors": ["white", "blue", "red"]}, {"kind": "resign"}):
        r = await http.post(
            path + "/commands",
            json={"command_id": command_id(), "action": action},
            headers=auth(game.tokens[0]),
        )
        refused(r, 409, "game_over")
    r = await http.post(
        path + "/commands",
        json={"command_id": command_id(), "action": {"kind": "resign"}},
        headers=auth("not-a-token-of-this-game"),
    )
    assert r.status_code == 403
    # Its seats can still make its rematch: both get the same game, which starts.
    made = [(await http.post(path + "/rematch", headers=auth(t))).json() for t in game.tokens]
    assert made[0]["id"] == made[1]["id"]
    assert (await http.get(path)).json()["rematch"] == made[0]["id"]
    assert (await http.get(f"/api/games/{made[0]['id']}")).json()["status"] == "live"


async def test_bytes_per_finished_game_at_rest(redis_client: aioredis.Redis) -> None:
    """MEMORY USAGE of all of a finished game's keys once archived, mean over classic 2p, 4p and Duel (timed and not): at most 2,500 bytes."""
    clock = Clock()
    service = _service(redis_client, clock)
    by_kind: dict[str, list[int]] = {}
    live: list[int] = []
    for i, (variant, players) in enumerate(KINDS * 2):
        game = await play(service, clock, variant, players, seed=10 + i, timed=i % 2 == 0)
        live.append(sum((await game_keys(redis_client, game.id)).values()))
        assert await archive_game(service, game.id)
        at_rest = sum((await game_keys(redis_client, game.id)).values())
        by_kind.setdefault(f"{variant} {players}p", []).append(at_rest)
    means = {kind: statistics.mean(sizes) for kind, sizes in by_kind.items()}
    print(f"bytes at rest per game: {means}; live-shaped: {statistics.mean(live):.0f}")
    assert statistics.mean(means.values()) <= AT_REST_LIMIT, means


async def test_an_imported_game_is_noted_for_its_archive(redis_client: aioredis.Redis) -> None:
    """A game written by `splendor import` (GameService.restore) is noted to be archived after its end, as a game played here is."""
    clock = Clock()
    service = _service(redis_client, clock)
    game = await play(service, clock, "classic", 2, seed=21, timed=False)
    record = await service.reader.record(game.id)
    ended = (await service.reader.log(game.id))[-1].at_ms
    await redis_client.flushdb()
    importing = _service(redis_client, clock)
    queue = importing.hooks.archives = ArchiveQueue(redis_client, after_s=60)
    assert await importing.restore(parse_record(json.dumps(record).encode()))
    assert await queue.all() == {game.id: ended + 60_000}


async def test_a_lobby_rebuild_notes_games_over_whose_note_was_lost(
    redis_client: aioredis.Redis,
) -> None:
    """A game over that was never noted (its process died, or it ended where no note was written) is noted when a lobby rebuild (splendor lobby rebuild, or a start without the lobby) reads it."""
    clock = Clock()
    game = await play(_service(redis_client, clock), clock, "duel", 2, seed=22, timed=False)
    ended = (await _service(redis_client, clock).reader.log(game.id))[-1].at_ms
    rebuilding = _service(redis_client, clock)
    queue = rebuilding.hooks.archives = ArchiveQueue(redis_client, after_s=600)
    assert await queue.all() == {}
    assert rebuilding.listing.keeper is not None
    await rebuilding.listing.keeper.rebuild()
    assert await queue.all() == {game.id: ended + 600_000}


async def test_a_game_that_cannot_be_read_is_left_as_it_is(redis_client: aioredis.Redis) -> None:
    """A due game whose stream this server can't read is dropped from the due set, its keys untouched; the games the archiver reads are not kept in the cache."""
    clock = Clock()
    service = _service(redis_client, clock)
    queue = ArchiveQueue(redis_client, after_s=0)
    store = EventStore(redis_client)
    await store.append("broken", [b"not json"], expected_version=0, command_id=None, at_ms=1)
    await queue.add("broken", 1)
    game = await play(_service(redis_client, clock), clock, "classic", 2, seed=23, timed=False)
    await queue.add(game.id, 1)
    archiver = Archiver(service, queue, clock_ms=clock)
    assert await archiver.tick() == 2
    assert archiver.archived == 1
    assert await queue.all() == {}
    assert await redis_client.exists(events_key("broken"))
    assert service.repository.cached_games() == 0


async def test_splendor_export_writes_archived_games_as_before(
    redis_client: aioredis.Redis,
) -> None:
    """`splendor export` finds archived games (store.game_ids scans archives too) and writes the same lines as before they were archived."""
    clock = Clock()
    service = _service(redis_client, clock)
    for seed in (31, 32):
        await play(service, clock, "classic", 2, seed=seed, timed=False)
    before = io.BytesIO()
    assert await export_games(service, before) == (2, 0)
    for game_id in await service.store.game_ids():
        assert await archive_game(service, game_id)
    after = io.BytesIO()
    assert await export_games(_service(redis_client, clock), after) == (2, 0)
    assert after.getvalue() == before.getvalue()
