"""``splendor ratings rebuild``: the ratings folded again from every finished game of
the log, in end order, with the live rules (principle 5: the log is the truth, the
ratings a read model); and ``mend_recent``, what every server process does once at start: count the recent
finished rated games that a process stopped (or a Redis failure) kept from counting.

Every game stream is read; each finished game is listed again on its players'
profiles (idempotent) and each finished rated game is decided, in the order of its
last event's time (then its id), in memory (``server.players.rating_model.RatingBook``: the same
early-end, daily-pair and leaderboard rules as the live script); each
variant's ratings are then written whole in place of the old ones. Run it with no
game ending meanwhile (a game counted live while it runs may be lost from the
ratings until the next rebuild): after a restore from backup, an import, or a change
of the rating model. docs/ratings.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import AsyncIterator
from typing import Any, Final

import msgspec

from server.common.background import in_task
from server.common.errors import ServiceError
from server.common.settings import SettingsError
from server.games.service import GameService
from server.players.profiles import Profiles
from server.players.rating_model import VARIANTS, RatedGame
from server.players.ratings import rated_game
from server.tools.export_import import (
    TransferError,
    configured_redis,
    games_on,
    redis_arguments,
    settings_of,
)

log = logging.getLogger(__name__)

MEND_GAMES: Final = 1000
"""How many of the newest finished games a starting process checks (the lobby keeps
``SPLENDOR_FINISHED_GAMES``, 1,000 by default)."""


async def rebuild(service: GameService, profiles: Profiles) -> dict[str, int]:
    """Fold every finished rated game again; returns the games counted per variant."""
    rated: list[RatedGame] = []
    for game_id in await service.store.game_ids():
        try:
            finished = await service.reader.finished_game(game_id)
        except (ServiceError, msgspec.DecodeError, msgspec.ValidationError, KeyError, ValueError):
            continue  # Not a game this server reads, which the lobby leaves out too.
        if finished is None:
            continue
        game, summary = finished
        await profiles.add_game(game, summary)
        found = rated_game(game)
        if found is not None:
            rated.append(found)
    return await profiles.ratings.rebuild(rated)


async def mend_recent(service: GameService, profiles: Profiles, limit: int = MEND_GAMES) -> int:
    """Count, in end order, the rated games among the lobby's ``limit`` newest finished
    ones that the ratings have not decided (a process that appended a game's end and
    died, or lost Redis, before counting it); returns how many. Idempotent, and safe
    beside live counting: a game counted meanwhile is counted once."""
    if service.lobby is None:
        return 0
    rated = [
        s
        for s in await service.lobby.newest("finished", limit)
        if s.get("rated") and not s.get("seeded")
    ]
    missing: list[dict[str, Any]] = []
    for variant in VARIANTS:
        ids = [s["id"] for s in rated if s["variant"] == variant]
        left = set(await profiles.ratings.undecided(variant, ids))
        missing += [s for s in rated if s["id"] in left]
    for summary in sorted(missing, key=lambda s: (s.get("ended_at") or "", s["id"])):
        finished = await service.reader.finished_game(summary["id"])
        if finished is not None:
            await profiles.game_finished(*finished)
    if missing:
        log.warning("ratings: %d finished rated games counted late", len(missing))
    return len(missing)


@contextlib.asynccontextmanager
async def mending(service: GameService, profiles: Profiles) -> AsyncIterator[None]:
    """``mend_recent`` in the background while the app serves (cancelled at exit)."""

    async def run() -> None:
        try:
            await mend_recent(service, profiles)
        except Exception:  # After a Redis failure, the next start (or a rebuild) mends them.
            log.exception("ratings: mending recent games failed")

    async with in_task(run(), name="ratings-mend"):
        yield


def arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    again = actions.add_parser(
        "rebuild",
        help="fold the ratings again from every finished game, in end order",
        description="Fold the ratings again from every finished game, in end order.",
    )
    redis_arguments(again)


def command(args: argparse.Namespace) -> int:
    """``splendor ratings rebuild``: prints how many games each variant counted."""

    async def run(url: str) -> dict[str, int]:
        async with games_on(url) as service:
            return await rebuild(service, Profiles(service.store.client))

    try:
        with configured_redis(settings_of(args), create=False) as url:
            counts = asyncio.run(run(url))
    except (TransferError, SettingsError, OSError) as e:
        print(f"splendor ratings: {e or type(e).__name__}", file=sys.stderr)
        return 2
    told = ", ".join(f"{variant} {count}" for variant, count in counts.items())
    print(f"splendor ratings: rebuilt from the finished rated games ({told})", file=sys.stderr)
    return 0
