"""The tournaments' HTTP routes (docs/http-api.md "Tournaments", docs/tournaments.md):
create, list, read, join, pause and leave, a game's tournament and a player's
history. Checks come in the API's order: the tournament (404), the session (401,
and 403 for another site's page), the body (400), then the tournament's rules (409)."""

from __future__ import annotations

import re
from typing import Final

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from server.common import wire
from server.common.errors import ServiceError, missing_token, not_found
from server.tournaments import views
from server.tournaments.record import tournament_of_game
from server.tournaments.requests import CreateTournament
from server.tournaments.service import TournamentService
from server.web.request_parts import json, read_body
from server.web.sessions import account_of_session, session_account
from server.web.state import running

__all__ = ["routes"]

_PLAYER: Final = re.compile(r"[A-Za-z0-9_-]{1,40}")


class NoBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The body of join, pause and leave: none, or ``{}``."""


def _service(request: Request) -> TournamentService:
    return running(request).tournaments


def _id(request: Request) -> str:
    tournament_id: str = request.path_params["tournament_id"]
    return tournament_id


async def _signed_in(request: Request) -> str:
    account = await session_account(request)
    if account is None:
        raise missing_token("tournament.log_in")
    return account


async def create(request: Request) -> Response:
    account = await _signed_in(request)
    body = wire.decode(await read_body(request), CreateTournament)
    service = _service(request)
    record = await service.create(account, body)
    return json({"tournament": views.summary(record, service.clock_ms())}, 201)


async def listing(request: Request) -> Response:
    return json(await _service(request).listing())


async def tournament(request: Request) -> Response:
    service = _service(request)
    record = await service.get(_id(request))
    body = await service.page(record)
    body["you"] = views.you(record, await account_of_session(request))
    return json(body)


async def _action(request: Request, what: str) -> Response:
    service = _service(request)
    tournament_id = _id(request)
    await service.get(tournament_id)  # 404 first
    account = await _signed_in(request)
    raw = await read_body(request)
    if raw.strip():
        wire.decode(raw, NoBody)
    act = {"join": service.join, "pause": service.pause, "leave": service.leave}[what]
    record = await act(tournament_id, account)
    return json({"you": views.you(record, account)})


async def join(request: Request) -> Response:
    return await _action(request, "join")


async def pause(request: Request) -> Response:
    return await _action(request, "pause")


async def leave(request: Request) -> Response:
    return await _action(request, "leave")


async def of_game(request: Request) -> Response:
    game_id: str = request.path_params["game_id"]
    missing = not_found("tournament.no_game", game=game_id[:64])
    made = tournament_of_game(game_id)
    if made is None:
        raise missing
    service = _service(request)
    try:
        record = await service.get(made[0])
    except ServiceError:
        raise missing from None
    if record.entry_of(game_id) is None:
        raise missing
    return json({"tournament": await service.summary(record)})


async def history(request: Request) -> Response:
    username: str = request.path_params["username"]
    if not _PLAYER.fullmatch(username):
        raise not_found("player.not_found", player=username[:64])
    account = await running(request).accounts.get(username.lower())
    if account is not None and account.deleted_ms is not None:
        raise not_found("player.deleted", player=username)  # as its profile answers
    return json({"tournaments": await _service(request).history(username)})


def routes() -> list[BaseRoute]:
    return [
        Route("/api/tournaments", create, methods=["POST"]),
        Route("/api/tournaments", listing, methods=["GET"]),
        Route("/api/tournaments/of-game/{game_id}", of_game, methods=["GET"]),
        Route("/api/tournaments/{tournament_id}", tournament, methods=["GET"]),
        Route("/api/tournaments/{tournament_id}/join", join, methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/pause", pause, methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/leave", leave, methods=["POST"]),
        Route("/api/players/{username}/tournaments", history, methods=["GET"]),
    ]
