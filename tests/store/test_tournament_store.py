"""A tournament's log in Redis (server/tournaments/store.py, repository.py): appended
only at the version expected, its meta written with its first event, and the record
folded from it equal to the core's replay, whether cached and fast-forwarded or
rebuilt by another process from the log alone; on a Redis Cluster too."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from events.base import TimeControl
from events.tournament.log import Pair, PlayerJoined, PlayersPaired
from events.tournament.standings import create, replay
from server.store.event_store import VersionConflict
from server.tournaments.indexes import CreationRefused, TournamentIndexes
from server.tournaments.repository import TournamentRepository
from server.tournaments.store import TournamentStore, decode_event

CLOCK = TimeControl(initial=180, increment=2)


async def test_an_append_at_a_stale_version_writes_nothing(redis_client: aioredis.Redis) -> None:
    """The first append needs version 0 and writes the meta; an append expecting an older version is a VersionConflict naming the log's version, and the log is unchanged."""
    store = TournamentStore(redis_client)
    created = create("t1", "arena", "duel", CLOCK, 1000, duration_ms=60_000)
    v = await store.append("t1", created, expected_version=0, at_ms=5, meta={"name": "Duel"})
    assert v == 1 and await store.meta("t1") == {"name": "Duel"}
    with pytest.raises(VersionConflict) as lost:
        await store.append("t1", created, expected_version=0, at_ms=6, meta={"name": "Other"})
    assert lost.value.actual == 1
    v = await store.append("t1", [PlayerJoined("ana", 1500.0, 7)], expected_version=1, at_ms=7)
    assert v == 2
    with pytest.raises(VersionConflict):
        await store.append("t1", [PlayerJoined("bo", 1500.0, 8)], expected_version=1, at_ms=8)
    logged = await store.read("t1")
    assert [e.version for e in logged] == [1, 2] and await store.meta("t1") == {"name": "Duel"}
    assert [e.at_ms for e in logged] == [5, 7]


async def test_the_record_is_the_cores_replay_cached_or_rebuilt(
    redis_client: aioredis.Redis,
) -> None:
    """A cached record fast-forwarded event by event, and one folded from the whole log by a fresh repository (a process after a crash), both equal ``replay`` of the log, with the pairing's game ids."""
    store = TournamentStore(redis_client)
    cached = TournamentRepository(store)
    events = [
        *create("t2", "arena", "classic", CLOCK, 0, duration_ms=600_000),
        PlayerJoined("ana", 1500.0, 1),
        PlayerJoined("bo", 1400.0, 2),
        PlayersPaired((Pair("ana", "bo"),), 3),
    ]
    for version, event in enumerate(events):
        await store.append("t2", [event], expected_version=version, at_ms=version)
        await cached.get("t2")
    replayed = replay(decode_event(e.data) for e in await store.read("t2"))
    rebuilt = await TournamentRepository(store).get("t2")
    for record in (await cached.get("t2"), rebuilt):
        assert record.tournament == replayed and record.version == 4
        assert [g.game_id for g in record.in_play()] == ["t2-4-0"]


class ReadThenWait(TournamentStore):
    """A store whose ``made`` reads Redis, says so (``read``), then waits for ``gate``
    before answering: a read under way while something else happens."""

    def __init__(self, client: aioredis.Redis) -> None:
        super().__init__(client)
        self.read_made = asyncio.Event()
        self.gate = asyncio.Event()

    async def made(self, tournament_id: str) -> int:
        value = await super().made(tournament_id)
        self.read_made.set()
        await self.gate.wait()
        return value


async def test_a_made_game_stays_made_when_a_read_of_made_lands_late(
    redis_client: aioredis.Redis,
) -> None:
    """A page's read of ``made`` that started before the director marked the pairing's games made, and answers after it, leaves the cached record's games shown (a page would else miss a game the socket already listed)."""
    store = ReadThenWait(redis_client)
    repository = TournamentRepository(store)
    events = [
        *create("t3", "arena", "classic", CLOCK, 0, duration_ms=600_000),
        PlayerJoined("ana", 1500.0, 1),
        PlayerJoined("bo", 1400.0, 2),
        PlayersPaired((Pair("ana", "bo"),), 3),
    ]
    await store.append("t3", events, expected_version=0, at_ms=3)
    store.gate.set()
    record = await repository.get("t3")
    store.gate.clear()
    store.read_made.clear()
    reading = asyncio.create_task(repository.get("t3"))
    await store.read_made.wait()  # Redis has answered made = 0
    # The director, meanwhile: the games exist, marked in Redis and on the record.
    await store.mark_made("t3", record.last_paired)
    record.made = record.last_paired
    store.gate.set()
    assert await reading is record
    assert [g.game_id for g in record.games if record.shown(g)] == ["t3-4-0"]


async def test_a_tournaments_scripts_run_on_a_cluster(cluster_client: RedisCluster) -> None:
    """On a Redis Cluster: the append (log and meta in the tournament's slot), the fold, an account's creation limits and the move to the finished list each run as one script."""
    store = TournamentStore(cluster_client)  # type: ignore[arg-type]
    created = create("tc1", "swiss", "duel", CLOCK, 0, rounds=3)
    await store.append("tc1", created, expected_version=0, at_ms=1, meta={"name": "Swiss"})
    with pytest.raises(VersionConflict):
        await store.append("tc1", created, expected_version=0, at_ms=2)
    record = await TournamentRepository(store).get("tc1")
    assert record.meta == {"name": "Swiss"} and record.tournament.rounds == 3
    indexes = TournamentIndexes(cluster_client)  # type: ignore[arg-type]
    for tournament_id in ("tc1", "tc2"):
        await indexes.claim_creation("Ana", tournament_id, 10, 0, 2, 5)
        await indexes.listed(tournament_id, 0)
    with pytest.raises(CreationRefused):
        await indexes.claim_creation("Ana", "tc3", 10, 0, 2, 5)
    await indexes.finished("tc1", 20, "Ana")
    assert await indexes.open_ids() == ["tc2"] and await indexes.finished_ids(5) == ["tc1"]
    await indexes.claim_creation("Ana", "tc3", 10, 0, 2, 5)
