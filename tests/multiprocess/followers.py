"""A websocket client for the multi-process tests: it follows a game through a list of
servers, moving on at each 1012 with ``since``, and records what it applied."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from dataclasses import dataclass, field
from typing import Any

import websockets

from client.patch import apply_patch
from tests.multiprocess.servers import ws_url


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
