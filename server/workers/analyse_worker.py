"""``splendor analyse``: analysers alone, on any machine that reaches the servers'
Redis (docs/analysis.md "Analysers on other machines").

The process plays no bot and serves nothing: ``workers`` analysers take the queue's
games first come first served (server/workers/analyser.py), each searching in a
process of its own, so the worker uses at most ``workers`` cores plus its own
event loop's, all at ``nice`` 19. A SIGTERM closes the analysers and ends their
search processes; a game one of them held stays leased, with the positions it
wrote, and any analyser takes it over when the lease ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os

from server.common.settings import Settings
from server.games.lobby import Lobby
from server.games.service import GameService
from server.store.availability import REDIS_CONNECT_S
from server.store.clients import open_client
from server.store.durability import Durability
from server.store.event_store import EventStore
from server.workers.analyser import Analyser, AnalysisQueue
from server.workers.bot_runner import WORKERS_GRACE_S, analysing, end_workers

__all__ = ["run_analysers"]

log = logging.getLogger(__name__)

CONNECTIONS = 16  # a few commands an analyser at a time, for each one


async def run_analysers(settings: Settings, workers: int) -> None:
    """Analyse the queued games of the servers sharing ``settings.redis_url`` with
    ``workers`` analysers, until cancelled."""
    redis_url = settings.redis_url
    if not redis_url:
        raise ValueError("an analysis worker needs the servers' Redis URL")
    with contextlib.suppress(OSError):
        os.nice(19)  # the worker's own loop too: whatever shares the machine goes first
    client = await open_client(
        redis_url, max_connections=CONNECTIONS * workers, socket_connect_timeout=REDIS_CONNECT_S
    )
    service = GameService(EventStore(client, Durability.of(settings)), Lobby(client))
    queue = AnalysisQueue(client, settings.analysis)
    analysers = [
        Analyser(service, queue, iterations=settings.analysis_budget) for _ in range(workers)
    ]
    log.info("%d analyser(s) on %s", workers, redis_url)
    try:
        async with analysing(analysers):
            await asyncio.Event().wait()  # until cancelled (SIGTERM, Ctrl-C)
    finally:
        await asyncio.to_thread(end_workers, WORKERS_GRACE_S)
        await client.aclose()
