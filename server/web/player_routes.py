"""``GET /api/players/{username}`` and ``GET /api/leaderboard/{variant}``: players'
profiles and the leaderboards, read from ``server.players.profiles`` and ``server.players.ratings``
(docs/http-api.md, docs/ratings.md)."""

from __future__ import annotations

import re
from typing import Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from bots import BOTS
from server.common.errors import bad_request, not_found
from server.common.wire import iso_time
from server.players.accounts import Accounts
from server.players.profiles import Profiles
from server.players.rating_model import VARIANTS
from server.web.request_parts import int_param, json
from server.web.sessions import mask_deleted
from server.web.state import running

PROFILE_GAMES: Final = 100
PROFILE_HISTORY: Final = 500
"""The graph's points: a player's last 500 rated games of a variant."""
LEADERBOARD_LIMIT: Final = 100
_PLAYER: Final = re.compile(r"[A-Za-z0-9_-]{1,40}|bot:[a-z]{1,20}")


def _profiles(request: Request) -> Profiles:
    return running(request).profiles


def _accounts(request: Request) -> Accounts:
    return running(request).accounts


async def player(request: Request) -> Response:
    """A player's profile: ratings per variant, history, record, newest games."""
    username: str = request.path_params["username"]
    missing = not_found("player.not_found", player=username)
    if not _PLAYER.fullmatch(username):
        raise missing
    pid = username.lower()
    bot = pid.startswith("bot:")
    if bot and pid.removeprefix("bot:") not in BOTS:
        raise missing
    account = None if bot else await _accounts(request).get(pid)
    if account is not None and account.deleted_ms is not None:
        raise not_found("player.deleted", player=username)
    profiles = _profiles(request)
    played, won = await profiles.record(pid)
    ratings = await profiles.ratings_of(pid)
    if not bot and account is None and played == 0:
        raise missing  # neither an account here nor a player of a game here
    games = await profiles.games(pid, PROFILE_GAMES)
    await mask_deleted(request, [seat for game in games for seat in game.get("seats") or []])
    name = pid if account is None else account.username  # as it was typed at sign-up
    for game in games if account is None and not bot else ():
        seats = game.get("seats") or []  # an account of imported games: its seat's name
        if game["seat"] < len(seats):
            name = seats[game["seat"]]["name"]
            break
    history = {
        variant: [
            {
                **_point(c.game, c.at),
                "rating": c.rating,
                "delta": c.delta,
                "rank": c.rank,
                "of": c.of,
            }
            for c in await profiles.ratings.history(variant, pid, PROFILE_HISTORY)
        ]
        for variant in VARIANTS
    }
    return json(
        {
            "username": name,
            "bot": bot,
            "ratings": ratings,
            "record": {"games": played, "wins": won},
            "history": history,
            "games": games,
        }
    )


def _point(game: str, at_ms: int) -> dict[str, str]:
    return {"game": game, "at": iso_time(at_ms)}


async def leaderboard(request: Request) -> Response:
    """The best players of a variant, best first."""
    variant: str = request.path_params["variant"]
    if variant not in VARIANTS:
        raise not_found("leaderboard.not_found", variant=variant, known=", ".join(VARIANTS))
    limit = int_param(request, "limit", LEADERBOARD_LIMIT)
    assert limit is not None
    if not 1 <= limit <= LEADERBOARD_LIMIT:
        raise bad_request("request.limit", most=LEADERBOARD_LIMIT, value=limit)
    ratings = _profiles(request).ratings
    # Deleted accounts leave the leaderboard (docs/accounts.md): read further to fill it.
    asked, deleted = limit, set[str]()
    while True:
        rows = await ratings.leaderboard(variant, asked)
        deleted = await _accounts(request).deleted_among(
            {pid for pid, _, _ in rows if not pid.startswith("bot:")}
        )
        if len(rows) - len(deleted) >= limit or len(rows) < asked or asked >= 4 * limit:
            break
        asked = min(asked + len(deleted) * 2, 4 * limit)
    rows = [row for row in rows if row[0] not in deleted][:limit]
    return json(
        {
            "players": [
                {
                    "username": pid if pid.startswith("bot:") else name,
                    "rating": skill.rating,
                    "games": skill.games,
                    "bot": pid.startswith("bot:"),
                }
                for pid, name, skill in rows
            ]
        }
    )


def routes() -> list[BaseRoute]:
    return [
        Route("/api/players/{username}", player, methods=["GET"]),
        Route("/api/leaderboard/{variant}", leaderboard, methods=["GET"]),
    ]
