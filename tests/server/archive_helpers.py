"""Finished games for the archive's tests: played to their end through a
``GameService`` by greedy bots, at the pace of people (a clock the test moves)."""

from __future__ import annotations

import contextlib
import json
import random
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis

from bots import choose
from events.base import TimeControl
from server.common.errors import ServiceError
from server.common.wire import decode_action
from server.games.service import GameService

KINDS = [("classic", 2), ("classic", 4), ("duel", 2)]


@dataclass
class Clock:
    """The services' clock: moved by the test, as a person's thinking would."""

    now_ms: int = 1_767_225_600_000
    rng: random.Random = field(default_factory=lambda: random.Random(1))

    def __call__(self) -> int:
        return self.now_ms

    def think(self) -> None:
        self.now_ms += int(min(self.rng.lognormvariate(8.8, 0.9), 90_000))


@dataclass
class Played:
    id: str
    tokens: list[str]


async def play(
    service: GameService, clock: Clock, variant: str, players: int, seed: int, *, timed: bool
) -> Played:
    """A game played to its end (finished, or lost on time) by greedy bots."""
    control = TimeControl(initial=600, increment=5) if timed else None
    game_id = (await service.create_game(variant, players, seed=seed, clock=control))["id"]
    tokens = []
    for i in range(players):
        clock.now_ms += 3_000
        joined = await service.join(game_id, f"Player {i}")
        assert joined.token is not None
        tokens.append(joined.token)
    rng = random.Random(seed)
    for n in range(2_000):
        view = await service.reader.view(game_id, None)
        if view["status"] in ("finished", "aborted"):
            return Played(game_id, tokens)
        seat = view["turn"]["seat"]
        wire = choose("greedy", await service.reader.view(game_id, seat), rng)
        clock.think()
        action = decode_action(variant, json.dumps(wire).encode())
        # Too late, the loss on time is recorded instead.
        with contextlib.suppress(ServiceError):
            await service.submit(game_id, seat, f"move-{n}", action)
    raise AssertionError(f"{game_id} did not end")


async def game_keys(client: aioredis.Redis, game_id: str) -> dict[str, int]:
    """Every key of a game (its hash tag) and its ``MEMORY USAGE`` in bytes."""
    keys = [k async for k in client.scan_iter(match=f"game:{{{game_id}}}:*")]
    return {k.decode(): int(await client.memory_usage(k) or 0) for k in keys}


def timeless(view: dict[str, Any]) -> dict[str, Any]:
    """A view without the moment it was read at (a timed game's clock ``now``)."""
    if view.get("clock"):
        view["clock"] = {k: v for k, v in view["clock"].items() if k != "now"}
    return view


async def everything_read(service: GameService, game_id: str) -> dict[str, Any]:
    """What every reader gets of a game: its summary, record, events and the views at
    every version, as a spectator and as each seat (a seat's events and views too)."""
    summary = await service.reader.summary(game_id)
    seats: list[int | None] = [None, *range(len(summary["seats"]))]
    out: dict[str, Any] = {"summary": summary}
    if summary["status"] == "finished":
        out["record"] = await service.reader.record(game_id)
    for seat in seats:
        out[f"events {seat}"] = await service.reader.events(game_id, seat)
        out[f"events {seat} after 5"] = await service.reader.events(game_id, seat, after=5)
        out[f"views {seat}"] = [
            timeless(await service.reader.view(game_id, seat, v))
            for v in range(1, summary["version"] + 1)
        ]
        out[f"now {seat}"] = timeless(await service.reader.view(game_id, seat))
    out["log"] = await service.reader.log(game_id)
    return out
