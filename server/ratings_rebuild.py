"""``splendor ratings rebuild``: the ratings folded again from every finished game of
the log, in end order (principle 5: the log is the truth, the ratings a read model).

Every game stream is read; each finished game is listed again on its players'
profiles (idempotent) and each finished rated game is counted, in the order of its
last event's time (then its id), in memory (``server.skill.RatingBook``); each
variant's ratings are then written whole in place of the old ones. Run it with no
game ending meanwhile (a game counted live while it runs may be lost from the
ratings until the next rebuild): after a restore from backup, an import, or a change
of the rating model. docs/ratings.md.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

import msgspec

from server.errors import ServiceError
from server.profiles import Profiles
from server.ratings import rated_game
from server.service import GameService
from server.settings import SettingsError
from server.skill import RatedGame
from server.transfer import TransferError, configured_redis, games_on, redis_arguments, settings_of


async def rebuild(service: GameService, profiles: Profiles) -> dict[str, int]:
    """Fold every finished rated game again; returns the games counted per variant."""
    rated: list[RatedGame] = []
    for game_id in await service.store.game_ids():
        try:
            finished = await service.finished_game(game_id)
        except (ServiceError, msgspec.DecodeError, msgspec.ValidationError, KeyError, ValueError):
            continue  # not a game this server reads: the lobby leaves it out too
        if finished is None:
            continue
        game, summary = finished
        await profiles.add_game(game, summary)
        found = rated_game(game)
        if found is not None:
            rated.append(found)
    return await profiles.ratings.rebuild(rated)


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
