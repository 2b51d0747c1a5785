"""A websocket client for the multi-process tests: it follows a game through a list of
servers, moving on at each 1012 with ``since``, and records what it applied; and a game
played by such clients across a process's SIGTERM (``play_across_a_stop``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import subprocess
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets

from bots.moves import moves as game_moves
from client.patch import apply_patch
from tests.multiprocess.servers import ws_url
from tests.server.ws_helpers import choose, http_view, new_table


@dataclass
class Follower:
    """A websocket client written for these tests: it follows a game through a list of
    servers, moving to the next on 1012 with ``since``, resending unanswered commands,
    and records every version it applied and who closed it how."""

    name: str
    bases: list[str]
    game_id: str
    token: str | None = None
    view: dict[str, Any] | None = None
    version: int = -1
    applied: list[int] = field(default_factory=list)  # versions, snapshots included
    snapshots: int = 0
    closes: list[tuple[str, int | None]] = field(default_factory=list)  # (base, code)
    answers: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (base, ack/error)
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    at: int = 0
    conn: Any = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    stopped: bool = False

    def url(self) -> str:
        url = ws_url(self.bases[self.at], self.game_id, self.token)
        if self.version >= 0:
            url += ("&" if "?" in url else "?") + f"since={self.version}"
        return url

    async def run(self) -> None:
        while not self.stopped:
            base = self.bases[self.at]
            served = False
            async with websockets.connect(self.url(), open_timeout=10) as conn:
                self.conn = conn
                for message in list(self.pending.values()):
                    await conn.send(json.dumps(message))
                try:
                    async for raw in conn:
                        served = True
                        self.take(base, json.loads(raw))
                except websockets.ConnectionClosed:
                    pass
                self.closes.append((base, conn.close_code))
            if self.stopped:
                return
            assert conn.close_code == 1012, (self.name, conn.close_code)
            self.at = (self.at + 1) % len(self.bases)
            if not served:  # turned away by a process draining (behind a balancer)
                await asyncio.sleep(0.05)

    def take(self, base: str, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "snapshot":
            self.snapshots += 1
            self.view, self.version = message["view"], message["version"]
            self.applied.append(self.version)
        elif kind == "diff":
            assert self.view is not None and message["version"] == self.version + 1, (
                self.name,
                self.version,
                message["version"],
            )
            self.view = apply_patch(self.view, message["patch"])
            self.version = message["version"]
            self.applied.append(self.version)
        elif kind in ("ack", "error") and message.get("command_id"):
            self.answers.append((base, message))
            self.pending.pop(message["command_id"], None)
        self.changed.set()

    async def send(self, action: dict[str, Any], command_id: str | None = None) -> str:
        command_id = command_id or f"{self.name}-{len(self.answers)}-{random.random()}"
        message = {"type": "command", "command_id": command_id, "action": action}
        self.pending[command_id] = message
        with contextlib.suppress(websockets.ConnectionClosed):  # else sent on the next
            await self.conn.send(json.dumps(message))
        return command_id

    async def until(self, check: Any, timeout: float = 30) -> None:
        async def waiting() -> None:
            while not check():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(waiting(), timeout)

    async def stop(self) -> None:
        self.stopped = True
        await self.conn.close()


@dataclass
class StopOutcome:
    """What ``play_across_a_stop`` saw: the clients, the acked commands, the last version."""

    everyone: list[Follower]
    acked: dict[str, int]  # command id -> the version it was acknowledged at
    final: int


async def play_across_a_stop(
    http: httpx.AsyncClient,
    bases: list[str],
    stopping: subprocess.Popen[bytes],
    *,
    seed: int,
    before: int = 4,
    after: int = 6,
) -> StopOutcome:
    """A 2-player game made through ``http``, its two players and two spectators
    following it through ``bases``; ``before`` moves, then ``stopping`` (a ``splendor
    serve``) sent SIGTERM and waited for, then ``after`` more moves; returns once every
    client has the last version and is stopped."""
    table = await new_table(http, players=2, seed=seed)
    players = [
        Follower(f"p{seat}", bases, table.id, token) for seat, token in enumerate(table.tokens)
    ]
    everyone = [*players, Follower("s0", bases, table.id), Follower("s1", bases, table.id)]
    runs = [asyncio.create_task(f.run()) for f in everyone]
    for follower in everyone:
        await follower.until(lambda f=follower: f.view is not None)
    rng = random.Random(seed)

    async def move() -> None:
        for _ in range(100):
            view = await http_view(http, table.id, None)
            mover = players[view["turn"]["seat"]]
            await mover.until(lambda m=mover, v=view["version"]: m.version >= v)
            if mover.version == view["version"]:
                break
            # Through a balancer the view may come from a process still behind the
            # mover's: ask again rather than wait for a version already passed.
            await asyncio.sleep(0.05)
        assert mover.view is not None and mover.version == view["version"]
        command_id = await mover.send(choose(game_moves(mover.view), rng))
        await mover.until(lambda: command_id not in mover.pending)

    for _ in range(before):
        await move()
    stopping.send_signal(signal.SIGTERM)
    await asyncio.wait_for(asyncio.to_thread(stopping.wait), 30)
    for _ in range(after):
        await move()

    final = (await http.get(f"/api/games/{table.id}")).json()["version"]
    for follower in everyone:
        await follower.until(lambda f=follower: f.version == final)
    for follower in everyone:
        await follower.stop()
    await asyncio.gather(*runs)
    answers = [m for p in players for _, m in p.answers]
    acked = {m["command_id"]: m["version"] for m in answers if m["type"] == "ack"}
    assert len(acked) == before + after
    for follower in everyone:
        # One snapshot, then every version once, in order, to the last; the right view.
        assert follower.snapshots == 1, follower.name
        start = follower.applied[0]
        assert follower.applied == list(range(start, final + 1)), follower.name
        assert follower.view == await http_view(http, table.id, follower.token)
    return StopOutcome(everyone, acked, final)
