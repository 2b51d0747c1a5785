"""An outbox under a socket that stops reading: bounded, never a gap, replies kept."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import jsonpatch

from events.game import CLASSIC
from server.hub import Hub, Outbox
from server.projection import LoggedEvent, encode_event
from server.store import StoredEvent


def seeded_log(seed: int = 9) -> list[LoggedEvent]:
    """The log of a whole random two-player classic game."""
    rng = random.Random(seed)
    state = CLASSIC.new_state()
    log: list[LoggedEvent] = []

    def add(events: list[Any]) -> None:
        for event in events:
            CLASSIC.evolve(state, event)
            log.append(LoggedEvent(len(log) + 1, 1_700_000_000_000 + len(log), event))

    add(CLASSIC.create("g", 2))
    for i in range(2):
        add(CLASSIC.join(state, f"p{i}", None, rng))
    while state.status == "live":
        add(
            CLASSIC.decide(
                state, state.seat, rng.choice(CLASSIC.legal_actions(state, state.seat)), rng
            )
        )
    return log


class GatedSocket:
    """A socket's send side that takes messages only while its gate is open."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.sent: list[dict[str, Any]] = []

    async def send(self, text: str) -> None:
        await self.gate.wait()
        self.sent.append(json.loads(text))


def rebuild(messages: list[dict[str, Any]], start: dict[str, Any] | None = None) -> dict[str, Any]:
    """The view after a socket's snapshots and diffs, checking that no version is skipped."""
    view, version = start, None if start is None else start["version"]
    for message in messages:
        if message["type"] == "snapshot":
            view, version = message["view"], message["version"]
        elif message["type"] == "diff":
            assert version is not None and message["version"] == version + 1
            view, version = jsonpatch.apply_patch(view, message["patch"]), message["version"]
    assert view is not None
    return view


async def test_overflow_drops_diffs_then_sends_one_snapshot() -> None:
    """More than ``limit`` diffs behind, a socket's diffs are dropped; once it reads it gets a snapshot of the version then and the diffs after it, no gap."""
    log = seeded_log()
    hub = Hub("g", CLASSIC, log[:20])
    socket = GatedSocket()
    outbox = Outbox(hub, None, socket.send, limit=4)
    hub.attach(outbox, None)
    outbox.start()
    stored = [StoredEvent(e.version, e.at_ms, encode_event(e.event)) for e in log]
    await asyncio.sleep(0)  # the writer takes the first snapshot and is stuck sending it
    hub.apply(stored[20:40])
    await asyncio.sleep(0)
    assert outbox.resets == 1 and outbox.needs_snapshot
    await outbox.reply('{"type": "pong"}')  # replies are never dropped
    socket.gate.set()
    for _ in range(100):
        await asyncio.sleep(0)
    hub.apply(stored[40:43])  # fewer than the limit: all of them go out
    for _ in range(100):
        await asyncio.sleep(0)
    kinds = [(m["type"], m.get("version")) for m in socket.sent]
    assert kinds[:3] == [("snapshot", 20), ("pong", None), ("snapshot", 40)]
    assert [v for _, v in kinds[3:]] == [41, 42, 43]
    assert rebuild(socket.sent) == CLASSIC.view(hub.state, None)
    await outbox.stop()


async def test_overflow_during_a_catch_up_ends_it_with_a_snapshot() -> None:
    """A socket replaying from ``since`` that falls too far behind the live game stops replaying and starts over from a snapshot."""
    log = seeded_log()
    hub = Hub("g", CLASSIC, log[:60])
    socket = GatedSocket()
    outbox = Outbox(hub, 1, socket.send, limit=3)
    hub.attach(outbox, 0)
    outbox.start()
    stored = [StoredEvent(e.version, e.at_ms, encode_event(e.event)) for e in log]
    await asyncio.sleep(0)  # the writer is stuck on the first replayed diff
    hub.apply(stored[60:70])
    assert outbox.resets == 1
    socket.gate.set()
    for _ in range(100):
        await asyncio.sleep(0)
    versions = [(m["type"], m["version"]) for m in socket.sent]
    assert versions == [("diff", 1), ("snapshot", 70)]
    empty = CLASSIC.view(CLASSIC.new_state(), 1)
    assert rebuild(socket.sent, empty) == CLASSIC.view(hub.state, 1)
    await outbox.stop()
