"""``splendor lobby rebuild``: rebuild the lobby's index from every game's keys.

For an operator: after restoring games' keys by hand, or when the lists look wrong.
It runs beside the servers, which keep serving: the index is rebuilt in place (an
entry only moves forward, so live moves meanwhile are kept), entries of games whose
keys are gone are dropped, and the finished list is bounded as the servers bound it
(``SPLENDOR_FINISHED_GAMES``: give the command the servers' environment). One process
rebuilds at a time (server/games/lobby_keeper.py): this waits while another does.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from redis.exceptions import RedisError

from server.common.settings import SettingsError
from server.tools.export_import import (
    TransferError,
    configured_redis,
    games_on,
    redis_arguments,
    settings_of,
)

ACTIONS = ("rebuild",)


def lobby_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action", choices=ACTIONS, help="rebuild: index every game again from a SCAN of its keys"
    )
    redis_arguments(parser)


def lobby_command(args: argparse.Namespace) -> int:
    """``splendor lobby rebuild``: the figures go to standard error."""

    async def run(url: str) -> int:
        async with games_on(url, settings.finished_games, settings.archive_after) as service:
            assert service.listing.keeper is not None
            count = await service.listing.keeper.rebuild()
            return count or 0

    started = time.monotonic()
    try:
        settings = settings_of(args)
        with configured_redis(settings, create=False) as url:
            count = asyncio.run(run(url))
    except (TransferError, SettingsError, RedisError, OSError) as e:
        print(f"splendor lobby: {e or type(e).__name__}", file=sys.stderr)
        return 2
    print(
        f"splendor lobby: rebuilt from {count} games in {time.monotonic() - started:.1f} s",
        file=sys.stderr,
    )
    return 0
