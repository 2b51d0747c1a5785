"""Durability on a primary left with no replica (killed, not restarted): strict
``replica`` refuses appends with a reason of their own and still confirms reads,
``replica-if-any`` writes them and counts them; both wait again once a new replica
is online."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from server.common.errors import unavailable
from server.common.settings import Settings
from server.store.availability import is_store_down
from server.store.durability import (
    RECHECK_S,
    REPLICA_LAG_S,
    WARN_EVERY_S,
    Durability,
    NoReplica,
    NotDurable,
    Replicas,
    good_replicas,
)
from server.store.event_store import EventStore
from server.store.keys import events_key
from tests.replica_helpers import Replicated, replicated_redis

TIMEOUT_MS = 200


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Replicated]:
    """A primary and a replica of this test's own: the test kills the replica."""
    with replicated_redis(tmp_path / "replicated") as pair:
        yield pair


@pytest.fixture
async def client(pair: Replicated) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(pair.url)
    try:
        yield client
    finally:
        await client.aclose()


async def _append(store: EventStore, game_id: str, version: int, command_id: str) -> int:
    result = await store.append(
        game_id, [b"e%d" % version], expected_version=version, command_id=command_id, at_ms=1
    )
    return result.version


async def test_replica_if_any_writes_without_a_replica_and_waits_again_for_a_new_one(
    pair: Replicated, client: aioredis.Redis, tmp_path: Path
) -> None:
    """replica-if-any: with the replica killed, appends are answered (one WAIT timed out, then none is sent), counted as unreplicated and read back; once a fresh replica is online, appends wait for it again (each is on it when answered) and the count stays."""
    store = EventStore(client, Durability(timeout_ms=TIMEOUT_MS, strict=False))
    assert await _append(store, "g", 0, "c0") == 1
    assert pair.replica_length(events_key("g")) == 1
    pair.kill_replica()
    for version in range(1, 4):
        assert await _append(store, "g", version, f"c{version}") == version + 1
    assert store.durability is not None
    assert store.durability.seen.unreplicated == {"": 3}
    await store.durable(["g"])  # nothing to wait for: read as it is
    assert [e.data for e in await store.read("g")] == [b"e0", b"e1", b"e2", b"e3"]
    pair.new_replica(tmp_path / "fresh")
    await _wait_known(store, 1)
    for version in range(4, 6):
        assert await _append(store, "g", version, f"c{version}") == version + 1
        assert pair.replica_length(events_key("g")) == version + 1
    assert store.durability.seen.unreplicated == {"": 3}


async def test_strict_refuses_appends_without_a_replica_and_still_confirms_reads(
    pair: Replicated, client: aioredis.Redis, tmp_path: Path
) -> None:
    """replica (strict): with the replica killed, an append is refused as NoReplica (a store-down error whose answer is ``unavailable`` with the reason store.no_replica), the next ones without being written; reads are confirmed at once; once a fresh replica is online the refused command, sent again, is applied once and is on the replica."""
    store = EventStore(client, Durability(timeout_ms=TIMEOUT_MS, strict=True))
    assert await _append(store, "s", 0, "c0") == 1
    pair.kill_replica()
    # The first append after the loss is written, then its WAIT finds no replica.
    with pytest.raises(NoReplica) as refused:
        await _append(store, "s", 1, "m1")
    assert is_store_down(refused.value)
    error = unavailable(refused.value)
    assert (error.code, error.status, error.reason.key) == ("unavailable", 503, "store.no_replica")
    written = pair.primary_length(events_key("s"))
    for _ in range(3):  # now known to have none: refused before anything is written
        with pytest.raises(NoReplica):
            await _append(store, "s", written, "m2")
    assert pair.primary_length(events_key("s")) == written
    await store.durable(["s"])  # reads are served
    assert len(await store.read("s")) == written
    pair.new_replica(tmp_path / "fresh")
    await _wait_known(store, 1)
    again = await _append(store, "s", 1, "m1")
    assert again == 2
    assert pair.replica_length(events_key("s")) == written
    assert store.durability is not None and store.durability.seen.unreplicated == {}


async def test_a_slow_replica_is_still_waited_for_in_either_mode(
    pair: Replicated, client: aioredis.Redis
) -> None:
    """A replica that is there but paused (SIGSTOP) is not "no replica": both modes answer NotDurable, and reads are held back, as without the new mode."""
    for strict in (True, False):
        store = EventStore(client, Durability(timeout_ms=TIMEOUT_MS, strict=strict))
        game = f"slow{strict}"
        await _append(store, game, 0, "c0")
        pair.pause_replica()
        try:
            with pytest.raises(NotDurable):
                await _append(store, game, 1, "c1")
            with pytest.raises(NotDurable):
                await store.durable([game])
        finally:
            pair.resume_replica()
        assert store.durability is not None and store.durability.seen.unreplicated == {}


async def _wait_known(store: EventStore, replicas: int) -> None:
    """Until the store's knowledge of the primary is renewed (``RECHECK_S``) and counts
    ``replicas``: bounded by the number of questions, not by time."""
    assert store.durability is not None
    for _ in range(200):
        if store.durability.seen.known("") is None and await store._replicas("") >= replicas:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the new replica was never counted")


def test_good_replicas_counts_the_online_replicas_that_acknowledge() -> None:
    """INFO replication's replicas count when online and acknowledging within REPLICA_LAG_S, from its text or redis-py's dict."""
    text = (
        "# Replication\r\nrole:master\r\nconnected_slaves:3\r\n"
        "slave0:ip=127.0.0.1,port=7001,state=online,offset=10,lag=0\r\n"
        "slave1:ip=127.0.0.1,port=7002,state=wait_bgsave,offset=0,lag=0\r\n"
        f"slave2:ip=127.0.0.1,port=7003,state=online,offset=9,lag={REPLICA_LAG_S + 1}\r\n"
        "master_repl_offset:10\r\n"
    )
    assert good_replicas(text) == 1
    assert good_replicas(text.encode()) == 1
    parsed = {"role": "master", "slave0": {"state": "online", "lag": 1}, "slave_read_only": 1}
    assert good_replicas(parsed) == 1
    assert good_replicas("# Replication\r\nrole:master\r\nconnected_slaves:0\r\n") == 0


def test_the_modes_of_the_setting() -> None:
    """SPLENDOR_DURABILITY: unset is replica-if-any on a Redis Cluster and off on one Redis; replica is strict, replica-if-any is not."""
    assert Durability.of(Settings()) is None
    on_cluster = Durability.of(Settings(), cluster=True)
    assert on_cluster is not None and on_cluster.mode == "replica-if-any"
    for mode, strict in (("replica", True), ("replica-if-any", False)):
        chosen = Durability.of(Settings.from_env({"SPLENDOR_DURABILITY": mode}), cluster=True)
        assert chosen is not None and chosen.strict is strict and chosen.mode == mode
    off = Settings.from_env({"SPLENDOR_DURABILITY": "off"})
    assert Durability.of(off, cluster=True) is None


async def test_a_primary_without_replicas_is_asked_again_after_a_second_and_warned_of_once_a_minute(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Replicas, on a clock of the test's: a count of 0 is believed for RECHECK_S, a count above 0 until asked again; appends written without a replica are counted by node and warned of at most once every WARN_EVERY_S a node, with the number since the last warning."""
    now = [100.0]
    seen = Replicas(clock=lambda: now[0])

    async def answer(count: int) -> int:
        return count

    assert seen.known("n1") is None
    assert await seen.ask("n1", lambda: answer(0)) == 0
    assert await seen.ask("n2", lambda: answer(2)) == 2
    now[0] += RECHECK_S
    assert (seen.known("n1"), seen.known("n2")) == (0, 2)
    now[0] += 0.01
    assert (seen.known("n1"), seen.known("n2")) == (None, 2)
    now[0] = 1000.0  # whole seconds: the spacing below is exact
    with caplog.at_level(logging.WARNING, logger="server.store.durability"):
        seen.written_without("n1")
        seen.written_without("n1")
        now[0] += WARN_EVERY_S - 1
        seen.written_without("n1")
        now[0] += 1
        seen.written_without("n1")
        seen.written_without("n3")
    warned = [r.getMessage() for r in caplog.records if "written without" in r.getMessage()]
    assert len(warned) == 3
    assert "n1 has no replica: 1 append(s)" in warned[0]
    assert "n1 has no replica: 3 append(s)" in warned[1]
    assert "n3 has no replica: 1 append(s)" in warned[2]
    assert seen.unreplicated == {"n1": 4, "n3": 1}
