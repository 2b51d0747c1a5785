"""An outbox under a socket that stops reading: bounded, never a gap, replies kept."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import jsonpatch

from events.game import CLASSIC
from server.games.projection import LoggedEvent, encode_event
from server.live.hubs import Hub
from server.live.outbox import Outbox
from server.live.socket_writers import SendWire
from server.store.event_store import StoredEvent


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
    """A socket's send side that takes messages only while its gate is open: all of
    them in ``every``, those but ``presence`` in ``sent``."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.every: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []

    async def send(self, text: str) -> None:
        await self.gate.wait()
        message = json.loads(text)
        self.every.append(message)
        if message["type"] not in ("presence", "audience"):
            self.sent.append(message)


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


LIMIT = 3000  # bytes behind: a few diffs of a two-player game


async def settle() -> None:
    """Let every ready task run (the wire's sender, an outbox's catch-up)."""
    for _ in range(100):
        await asyncio.sleep(0)


async def test_overflow_drops_diffs_then_sends_one_snapshot() -> None:
    """More than ``limit`` bytes behind, a socket's diffs are dropped; once it reads it gets a snapshot of the version then and the diffs after it, no gap; a reply waits for room but is never dropped."""
    log = seeded_log()
    hub = Hub("g", CLASSIC, log[:20])
    socket = GatedSocket()
    outbox = Outbox(hub, None, SendWire(socket.send), limit=LIMIT)
    hub.attach(outbox, None)
    stored = [StoredEvent(e.version, e.at_ms, encode_event(e.event)) for e in log]
    for entry in stored[20:40]:  # one append (one batch) at a time
        hub.apply([entry])
        await settle()
    assert outbox.resets == 1 and outbox.needs_snapshot
    pong = asyncio.create_task(outbox.reply(b'{"type": "pong"}'))
    await settle()
    assert not pong.done()  # waiting for the socket to drain
    socket.gate.set()
    await settle()
    await pong
    for entry in stored[40:43]:
        hub.apply([entry])
        await settle()
    kinds = [(m["type"], m.get("version")) for m in socket.sent]
    assert kinds[0] == ("snapshot", 20) and ("pong", None) in kinds
    feed = [k for k in kinds if k[0] != "pong"]
    late = feed.index(("snapshot", 40))
    assert [v for _, v in feed[1:late]] == list(range(21, 21 + late - 1))
    assert [v for _, v in feed[late + 1 :]] == [41, 42, 43]
    assert rebuild([m for m in socket.sent if m["type"] != "pong"]) == CLASSIC.view(hub.state, None)
    await outbox.stop()


async def test_overflow_during_a_catch_up_ends_it_with_a_snapshot() -> None:
    """A socket replaying from ``since`` that falls too far behind the live game stops replaying and starts over from a snapshot."""
    log = seeded_log()
    hub = Hub("g", CLASSIC, log[:60])
    socket = GatedSocket()
    outbox = Outbox(hub, 1, SendWire(socket.send), limit=LIMIT)
    hub.attach(outbox, 0)
    await settle()  # the catch-up writes until the wire is full, and waits
    stored = [StoredEvent(e.version, e.at_ms, encode_event(e.event)) for e in log]
    for entry in stored[60:70]:
        hub.apply([entry])
    assert outbox.resets == 1
    socket.gate.set()
    await settle()
    versions = [(m["type"], m["version"]) for m in socket.sent]
    assert versions[-1] == ("snapshot", 70)
    assert [v for _, v in versions[:-1]] == list(range(1, len(versions)))
    empty = CLASSIC.view(CLASSIC.new_state(), 1)
    assert rebuild(socket.sent, empty) == CLASSIC.view(hub.state, 1)
    await outbox.stop()


async def test_a_resync_sends_a_snapshot_and_diffs_follow_it() -> None:
    """``reset`` (a client's resync) sends a snapshot of the hub's version and the seats' presence, and the next diffs follow it."""
    log = seeded_log()
    hub = Hub("g", CLASSIC, log[:30])
    socket = GatedSocket()
    socket.gate.set()
    outbox = Outbox(hub, 0, SendWire(socket.send), limit=LIMIT)
    hub.attach(outbox, None)
    await settle()
    outbox.reset()
    stored = [StoredEvent(e.version, e.at_ms, encode_event(e.event)) for e in log]
    hub.apply(stored[30:33])  # before the snapshot's task ran: covered by it
    await settle()
    hub.apply(stored[33:35])
    await settle()
    versions = [(m["type"], m.get("version")) for m in socket.every]
    assert versions == [
        ("snapshot", 30),
        ("presence", None),
        ("audience", None),
        ("snapshot", 33),
        ("presence", None),
        ("audience", None),
        ("diff", 34),
        ("diff", 35),
    ]
    assert outbox.resets == 0
    assert rebuild(socket.sent) == CLASSIC.view(hub.state, 0)
    await outbox.stop()


async def test_an_abandoned_socket_on_asgi_send_gets_its_last_message_before_the_close() -> None:
    """On ASGI's ``websocket.send`` (the public path) a socket abandoned with a last message drops what waited, sends that message, and only then is closed."""
    log = seeded_log()
    hub = Hub("g", CLASSIC, log[:20])
    socket = GatedSocket()
    closes: list[tuple[int, str, int]] = []

    async def close(code: int, reason: str) -> None:
        closes.append((code, reason, len(socket.every)))

    outbox = Outbox(hub, None, SendWire(socket.send), limit=LIMIT, close=close)
    hub.attach(outbox, None)
    stored = [StoredEvent(e.version, e.at_ms, encode_event(e.event)) for e in log]
    hub.apply([stored[20]])
    await settle()
    outbox.abandon(4503, "unavailable", b'{"type": "error", "code": "unavailable"}')
    await settle()
    assert closes == []  # the last message is not sent yet: no close before it
    socket.gate.set()
    await settle()
    assert socket.every[-1] == {"type": "error", "code": "unavailable"}
    assert [m["type"] for m in socket.every] == ["snapshot", "error"]
    assert closes == [(4503, "unavailable", 2)]
