"""A hub folding this process's own move ahead of its append: shown once confirmed,
undone without a trace when the append fails, and never seen half-done."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import pytest
import redis.asyncio as aioredis

from events.game import CLASSIC
from server.games.lobby import Lobby
from server.games.projection import LoggedEvent, encode_event
from server.games.service import GameService
from server.live.hub_registry import HubRegistry
from server.live.hubs import Fold, Hub
from server.live.outbox import Outbox
from server.live.presence import SeatsSeen
from server.live.socket_writers import Batch, SendWire
from server.store.clients import tail_client
from server.store.event_store import StoredEvent
from server.store.keys import meta_key, rematch_signal
from tests.server.test_service import action, mover_and_legal, seated
from tests.server.test_ws_outbox import GatedSocket, rebuild, seeded_log, settle

START = 20  # the hub's version when the tests begin


def other_move(log: Sequence[LoggedEvent], version: int) -> list[LoggedEvent]:
    """Events for ``version + 1`` onwards that differ from the log's: another legal
    action of the same seat, decided on the state at ``version``."""
    state = CLASSIC.fold(e.event for e in log[:version])
    taken = log[version].event
    rng = random.Random(5)
    for choice in CLASSIC.legal_actions(state, state.seat):
        events = CLASSIC.decide(state, state.seat, choice, rng)
        if events[0] != taken:
            return [LoggedEvent(version + 1 + i, 9, e) for i, e in enumerate(events)]
    raise AssertionError("no other legal move")


def watched(hub: Hub, viewers: Sequence[int | None]) -> dict[int | None, GatedSocket]:
    """An open socket per viewer, attached with a snapshot."""
    sockets = {}
    for viewer in viewers:
        socket = sockets[viewer] = GatedSocket()
        socket.gate.set()
        hub.attach(Outbox(hub, viewer, SendWire(socket.send)), None)
    return sockets


async def test_events_folded_ahead_are_written_only_once_confirmed() -> None:
    """Folded ahead, a move changes nothing a socket sees and the hub's version stays; confirmed, every audience gets its diffs, which rebuild its view."""
    log = seeded_log()
    hub = Hub("g", CLASSIC, log[:START])
    sockets = watched(hub, [None, 0, 1])
    await settle()
    move = log[START : START + 2]
    assert hub.fold_ahead(move) is Fold.APPLIED and hub.ahead
    await settle()
    assert hub.version == START
    assert all(len(s.sent) == 1 for s in sockets.values())  # the snapshot alone
    assert hub.confirm(move) is Fold.APPLIED and not hub.ahead
    await settle()
    assert hub.version == START + 2
    for viewer, socket in sockets.items():
        assert [m["version"] for m in socket.sent[1:]] == [START + 1, START + 2]
        assert rebuild(socket.sent) == CLASSIC.view(hub.state, viewer)


async def test_an_undone_move_leaves_no_trace() -> None:
    """A move folded ahead whose append failed sends nothing; the events then appended instead come as diffs from the view before it, and the hub's state is the log's."""
    log = seeded_log()
    hub = Hub("g", CLASSIC, log[:START])
    sockets = watched(hub, [None, 0, 1])
    assert hub.fold_ahead(other_move(log, START)) is Fold.APPLIED
    hub.undo()
    assert not hub.ahead and hub.version == START
    stored = [StoredEvent(e.version, e.at_ms, encode_event(e.event)) for e in log]
    hub.apply(stored[START : START + 6])
    await settle()
    for viewer, socket in sockets.items():
        assert [m["version"] for m in socket.sent[1:]] == list(range(START + 1, START + 7))
        assert rebuild(socket.sent) == CLASSIC.view(hub.state, viewer)
    assert CLASSIC.view(hub.state, None) == CLASSIC.view(
        CLASSIC.fold(e.event for e in log[: START + 6]), None
    )


async def test_a_snapshot_asked_for_while_ahead_waits_for_the_confirmed_version() -> None:
    """A resync while a move is folded ahead is answered once the move is confirmed, with a snapshot of the confirmed version, never of the move ahead alone."""
    log = seeded_log()
    hub = Hub("g", CLASSIC, log[:START])
    socket = watched(hub, [None])[None]
    move = log[START : START + 2]
    hub.fold_ahead(move)
    outbox = next(iter(hub.outboxes()))
    outbox.reset()
    await settle()
    assert len(socket.sent) == 1  # no snapshot yet
    hub.confirm(move)
    await settle()
    assert [(m["type"], m["version"]) for m in socket.sent[1:]] == [("snapshot", START + 2)]
    undone = other_move(log, START + 2)
    hub.fold_ahead(undone)
    outbox.reset()
    await settle()
    hub.undo()
    await settle()
    assert [(m["type"], m["version"]) for m in socket.sent[2:]] == [("snapshot", START + 2)]
    assert rebuild(socket.sent) == CLASSIC.view(hub.state, None)


async def test_events_read_while_ahead_are_left_for_a_second_read() -> None:
    """Events the tailer delivers while a move is folded ahead are not applied on top of it; the hub says they were missed, and takes them when read again."""
    log = seeded_log()
    hub = Hub("g", CLASSIC, log[:START])
    socket = watched(hub, [None])[None]
    hub.fold_ahead(other_move(log, START))
    stored = [StoredEvent(e.version, e.at_ms, encode_event(e.event)) for e in log]
    assert hub.apply(stored[START : START + 2]) is Fold.DEFERRED_AHEAD
    assert hub.version == START
    hub.undo()
    assert hub.apply(stored[START : START + 2]) is Fold.APPLIED
    await settle()
    assert rebuild(socket.sent) == CLASSIC.view(hub.state, None)
    assert hub.version == START + 2


@asynccontextmanager
async def hubs_of(service: GameService, redis_client: aioredis.Redis) -> AsyncIterator[HubRegistry]:
    """A process's hubs over ``service``, tailing with notifications, as the app has them."""

    async def load(game: str) -> tuple[Any, Sequence[LoggedEvent]]:
        return await service.reader.variant_of(game), await service.reader.log(game)

    hubs = HubRegistry(load, tail_client(redis_client), redis_client, tail_mode="notify")
    try:
        yield hubs
    finally:
        await hubs.close()


class ListWire:
    """A wire that keeps the messages written to it, decoded (but ``presence``)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def write(self, batch: Batch) -> None:
        messages = (json.loads(p) for p in batch.payloads)
        self.sent.extend(m for m in messages if m["type"] not in ("presence", "audience"))

    def offer(self, batch: Batch, limit: int) -> bool:
        self.write(batch)
        return True

    def buffered(self) -> int:
        return 0

    async def drained(self, below: int) -> None:
        return None

    def close(self, last: Batch | None = None) -> None:
        if last is not None:
            self.write(last)

    async def flushed(self) -> None:
        return None


async def test_a_failed_append_shows_the_move_another_process_made_instead(
    redis_client: aioredis.Redis, service: GameService
) -> None:
    """Hubs folding a move ahead that loses to another process's append show the other move, read from the stream; a socket opened meanwhile waits, then starts from a confirmed version."""
    game_id, _ = await seated(service)
    async with hubs_of(service, redis_client) as hubs:
        spectator = ListWire()
        await hubs.watch(game_id, None, None, spectator)
        await asyncio.sleep(0.2)  # subscribed
        log = await service.reader.log(game_id)
        seat, legal = await mover_and_legal(service, game_id)
        state = CLASSIC.fold(e.event for e in log)
        decided = CLASSIC.decide(
            state, seat, action(service, "classic", legal[0]), random.Random(1)
        )
        ours = [LoggedEvent(len(log) + 1 + i, 1, e) for i, e in enumerate(decided)]
        hubs.pipeline.appending(game_id, ours)
        player = ListWire()
        late = asyncio.create_task(hubs.watch(game_id, seat, None, player))
        theirs = action(service, "classic", legal[-1])
        await GameService(service.store, Lobby(service.store.client)).submit(
            game_id, seat, "theirs", theirs
        )
        await asyncio.sleep(0.3)
        assert not late.done()  # waits while the hub is ahead
        hubs.pipeline.append_failed(game_id)
        await asyncio.wait_for(late, 5)
        final = await service.store.version(game_id)
        for _ in range(100):
            if spectator.sent[-1]["version"] == final and player.sent[-1]["version"] == final:
                break
            await asyncio.sleep(0.05)
        assert rebuild(spectator.sent) == await service.reader.view(game_id, None)
        assert rebuild(player.sent) == await service.reader.view(game_id, seat)
        assert player.sent[0]["type"] == "snapshot"


async def test_a_socket_waiting_on_a_hub_ahead_whose_last_socket_leaves_gets_a_fresh_hub(
    redis_client: aioredis.Redis, service: GameService
) -> None:
    """A socket that waits for a hub ahead to settle is not left waiting when the hub's last socket leaves meanwhile: it gets a hub loaded afresh, which shows the append once it ends."""
    game_id, _ = await seated(service)
    async with hubs_of(service, redis_client) as hubs:
        first = await hubs.watch(game_id, None, None, ListWire())
        log = await service.reader.log(game_id)
        seat, legal = await mover_and_legal(service, game_id)
        state = CLASSIC.fold(e.event for e in log)
        decided = CLASSIC.decide(
            state, seat, action(service, "classic", legal[0]), random.Random(1)
        )
        ours = [LoggedEvent(len(log) + 1 + i, 1, e) for i, e in enumerate(decided)]
        hubs.pipeline.appending(game_id, ours)
        wire = ListWire()
        late = asyncio.create_task(hubs.watch(game_id, None, None, wire))
        await asyncio.sleep(0.2)
        assert not late.done()  # waits while the hub is ahead
        await hubs.leave(first)
        outbox = await asyncio.wait_for(late, 5)
        assert outbox.hub is not first.hub and wire.sent[0]["version"] == len(log)
        hubs.pipeline.appended(game_id, ours)
        assert outbox.hub.version == len(log) + len(ours)
        assert [m["version"] for m in wire.sent[1:]] == [m.version for m in ours]


async def test_a_hub_that_fails_ahead_is_dropped_settled_and_a_new_socket_gets_a_fresh_hub(
    redis_client: aioredis.Redis, service: GameService
) -> None:
    """A hub that fails while folding a move ahead closes its sockets and is dropped settled (nothing waiting on it is left waiting); the next socket gets a hub loaded afresh."""
    game_id, _ = await seated(service)
    async with hubs_of(service, redis_client) as hubs:
        closed: list[int] = []

        async def close(code: int, reason: str) -> None:
            closed.append(code)

        await hubs.watch(game_id, None, None, ListWire(), close)
        hub = hubs.get(game_id)
        assert hub is not None
        log = await service.reader.log(game_id)
        state = CLASSIC.fold(e.event for e in log)
        seat, legal = await mover_and_legal(service, game_id)
        good = CLASSIC.decide(state, seat, action(service, "classic", legal[0]), random.Random(1))
        broken = [LoggedEvent(len(log) + 1, 1, good[0]), LoggedEvent(len(log) + 2, 1, "?")]
        hubs.pipeline.appending(game_id, broken)  # the second event fails in the rules
        await asyncio.wait_for(hub.settled(), 1)
        assert not hub.ahead and hubs.get(game_id) is None
        await asyncio.sleep(0)
        assert closed == [1011]
        fresh = ListWire()
        outbox = await hubs.watch(game_id, None, None, fresh)
        assert outbox.hub is not hub and fresh.sent[0]["version"] == len(log)


async def test_a_signal_handled_while_a_hub_is_made_has_its_game_read_again(
    redis_client: aioredis.Redis, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rematch made while a hub is being made, its signal handled after the hub's first read was answered without it (replies and signals come on two connections), still reaches the hub at once: a game signalled while loading is read again once its hub is made."""
    game_id, _ = await seated(service)
    async with hubs_of(service, redis_client) as hubs:
        first_read = hubs.hub_presence.presence.read

        async def read_then_signalled(game: str) -> tuple[SeatsSeen, str | None]:
            answer = await first_read(game)
            await redis_client.hset(meta_key(game), "rematch", "next")
            hubs.hub_presence._signalled(game, rematch_signal("next"))
            return answer

        monkeypatch.setattr(hubs.hub_presence.presence, "read", read_then_signalled)
        await hubs.watch(game_id, None, None, ListWire())
        monkeypatch.setattr(hubs.hub_presence.presence, "read", first_read)
        hub = hubs.get(game_id)
        assert hub is not None
        for _ in range(100):  # well within a beat: no periodic read has come yet
            if hub.rematch == "next":
                break
            await asyncio.sleep(0.02)
        assert hub.rematch == "next"
