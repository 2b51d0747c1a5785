"""SPLENDOR_DURABILITY=replica end to end: two ``splendor serve`` on a Redis primary
with a real replica. A move is acknowledged once the replica has it; with the replica
stopped the player gets the lost-connection answer, no spectator is shown the move,
and the Python client's resend once the replica is back yields exactly one event."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from bots.moves import moves as game_moves
from client.live import LiveGame
from client.patch import apply_patch
from server.store.keys import events_key
from tests.multiprocess.servers import served, ws_url
from tests.replica_helpers import Replicated, replicated_redis
from tests.server.ws_helpers import choose, new_table

TIMEOUT_MS = 300
ENV = {"SPLENDOR_DURABILITY": "replica", "SPLENDOR_DURABILITY_TIMEOUT_MS": str(TIMEOUT_MS)}


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Replicated]:
    with replicated_redis(tmp_path) as pair:
        yield pair


@dataclass
class Spectator:
    """A spectator's socket that records every version it applies."""

    base: str
    game_id: str
    view: dict[str, Any] | None = None
    version: int = -1
    applied: list[int] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        async with websockets.connect(ws_url(self.base, self.game_id)) as conn:
            async for raw in conn:
                message = json.loads(raw)
                if message["type"] == "snapshot":
                    self.view, self.version = message["view"], message["version"]
                elif message["type"] == "diff":
                    assert self.view is not None and message["version"] == self.version + 1
                    self.view = apply_patch(self.view, message["patch"])
                    self.version = message["version"]
                else:
                    continue
                self.applied.append(self.version)
                self.changed.set()

    async def reach(self, version: int) -> None:
        async def waiting() -> None:
            while self.version < version:
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(waiting(), 30)


async def test_a_move_waits_for_the_replica_and_is_resent_when_it_is_away(
    pair: Replicated,
) -> None:
    """Acks come once the replica has the move; replica stopped: the mover's socket gets
    ``unavailable`` (4503), the move is in the primary's log but no spectator (on
    either process) is shown it nor can a view be read; replica back: LiveGame's
    resend is acknowledged, and everyone sees that version exactly once."""
    async with (
        served(pair.url, ENV) as a,
        served(pair.url, ENV) as b,
        httpx.AsyncClient(base_url=a.base) as http_a,
        httpx.AsyncClient(base_url=b.base) as http_b,
    ):
        table = await new_table(http_a, players=2, seed=5)
        stream = events_key(table.id)
        players = [
            LiveGame(base, table.id, token=token, max_reconnect_delay=0.5)
            for base, token in zip((a.base, b.base), table.tokens, strict=True)
        ]
        spectators = [Spectator(a.base, table.id), Spectator(b.base, table.id)]
        runs = [asyncio.create_task(s.run()) for s in spectators]
        rng = random.Random(5)
        try:
            for player in players:
                await player.connect()

            async def mover() -> LiveGame:
                version = max(p.version for p in players)
                for player in players:
                    await player.wait_version(version)
                assert players[0].view is not None
                return players[players[0].view["turn"]["seat"]]

            for _ in range(4):
                player = await mover()
                assert player.view is not None
                version = await player.send(choose(game_moves(player.view), rng))
                assert pair.replica_length(stream) >= version  # acked: on the replica

            player = await mover()
            assert player.view is not None
            before = player.version
            for spectator in spectators:
                await spectator.reach(before)
            pair.pause_replica()
            sending = asyncio.create_task(player.send(choose(game_moves(player.view), rng)))
            while 4503 not in player.close_codes:  # the lost-connection answer
                await asyncio.sleep(0.02)
            written = pair.primary_length(stream)
            assert written > before  # written, not durable
            await asyncio.sleep(3 * TIMEOUT_MS / 1000)  # the tailers' reads held back
            assert [s.version for s in spectators] == [before, before]
            assert (await http_b.get(f"/api/games/{table.id}/view")).status_code == 503

            pair.resume_replica()
            assert await asyncio.wait_for(sending, 30) == written
            for spectator in spectators:
                await spectator.reach(written)
            assert pair.primary_length(stream) == written == pair.replica_length(stream)
            for spectator in spectators:
                # Every version once, in order, from the snapshot on.
                first = spectator.applied[0]
                assert spectator.applied == list(range(first, written + 1))
        finally:
            for run in runs:
                run.cancel()
                with contextlib.suppress(asyncio.CancelledError, websockets.ConnectionClosed):
                    await run
            for player in players:
                await player.close()
