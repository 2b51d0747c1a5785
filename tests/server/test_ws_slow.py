"""A socket that stops reading never slows the others, and starts over from a snapshot."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import httpx

from server.common.settings import Settings
from server.live.hub_registry import HubRegistry
from server.web.state import running
from tests.server.ws_helpers import (
    LiveServer,
    StalledSocket,
    Table,
    Watcher,
    connect,
    http_view,
    live_server,
    new_table,
)

PLAYERS = 4  # a four-player game sends a spectator ~110 KB: more than the buffers hold
SPREAD_BOUND_S = 5.0  # coarse: every socket has each version within this of the first


async def play_watched(server: LiveServer, table: Table, seed: int) -> list[Watcher]:
    """Four players and two spectators on sockets, through the whole game."""
    players = [
        Watcher(f"p{seat}", await connect(server.ws_url(table.id, token)), seed=seed, play=True)
        for seat, token in enumerate(table.tokens)
    ]
    spectators = [Watcher(f"s{i}", await connect(server.ws_url(table.id))) for i in range(2)]
    everyone = players + spectators
    await asyncio.wait_for(asyncio.gather(*(w.run() for w in everyone)), 240)
    return everyone


def worst_spread(watchers: list[Watcher]) -> float:
    """The longest time between the first and the last socket getting one version."""
    versions = set.intersection(*(set(w.received_at) for w in watchers))
    return max(
        max(w.received_at[v] for w in watchers) - min(w.received_at[v] for w in watchers)
        for v in versions
    )


async def test_a_stalled_socket_does_not_delay_the_others(
    redis_client: Any, redis_server: str
) -> None:
    """With a spectator that reads nothing, every other socket still gets every diff promptly (within a coarse bound, as without it); the stalled one's diffs are dropped, and when it reads again it gets a snapshot and the diffs after it."""
    settings = Settings(redis_url=redis_server, command_rate=0, ws_buffer=8192)
    # A small send buffer on the listening socket (inherited by accepted ones) keeps
    # the kernel from absorbing megabytes for the stalled client.
    async with (
        live_server(settings, sndbuf=4096) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        calm_table = await new_table(http, players=PLAYERS, seed=21)
        calm = await play_watched(server, calm_table, seed=21)
        calm_spread = worst_spread(calm)

        table = await new_table(http, players=PLAYERS, seed=21)
        stalled = StalledSocket(server.ws_url(table.id))
        await stalled.open()
        others = await play_watched(server, table, seed=21)
        stalled_spread = worst_spread(others)
        final = others[0].version
        assert final is not None
        assert calm_spread < SPREAD_BOUND_S, calm_spread
        assert stalled_spread < SPREAD_BOUND_S, (stalled_spread, calm_spread)

        # The server dropped the stalled socket's diffs when its queue overflowed.
        hubs = cast(HubRegistry, running(server.app).hubs)
        hub = hubs.get(table.id)
        assert hub is not None
        assert max(o.resets for o in hub.outboxes()) >= 1

        # Reading again: a snapshot at a later version, then diffs in order to the end.
        late = Watcher("stalled", conn=cast(Any, None))
        await stalled.read_into(late, final, timeout=30)
        assert len(late.snapshots) >= 2, late.snapshots
        assert late.snapshots[-1] > late.snapshots[0]
        assert late.view == await http_view(http, table.id, None)
        stalled.close()
        for watcher in calm + others:
            await watcher.conn.close()
