"""The HTTP API of PROTOCOL.md, as Starlette routes over the game service.

Every handler checks in the same order, so the answer to a bad request never depends
on what follows it: the rate limit (commands, games created, seats joined), the game
(404), the token (401/403, after the address's budget of failed authentications:
429), the body (400), then the rules (409/422). Nothing is written before all checks
pass.
"""

from __future__ import annotations

import math
from typing import Any, Final

import msgspec
from redis.exceptions import RedisError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from events.game import VARIANTS
from events.reasons import Arg
from server.common import wire
from server.common.errors import (
    ServiceError,
    bad_request,
    forbidden,
    missing_token,
    not_found,
    rate_limited,
    unavailable,
)
from server.games.chat import ROOMS, wire_of
from server.games.lobby import STATUSES, Status
from server.games.projection import token_digest
from server.games.public_records import record_players
from server.games.results import RematchAnswers, RematchResult
from server.games.service import GameService
from server.players.accounts import COOKIE
from server.store.availability import StoreUnavailable
from server.store.clients import ping
from server.web.languages import request_language
from server.web.pairing_socket import http_routes as pairing_http_routes
from server.web.player_routes import routes as player_routes
from server.web.qr_route import qr_code
from server.web.request_parts import (
    bearer_token,
    client_address,
    client_limits,
    int_param,
    json,
    read_body,
    seat_for_token,
)
from server.web.seat_routes import routes as seat_routes
from server.web.sessions import mask_deleted, session_account
from server.web.state import parts, running
from server.web.tournament_routes import routes as tournament_routes
from server.workers.analyser import AnalysisQueue, now_ms

DEFAULT_LIMIT: Final = 50
MAX_LIMIT: Final = 200

_encoder = msgspec.json.Encoder()


def _service(request: Request) -> GameService:
    return running(request).service


def _game_id(request: Request) -> str:
    game_id: str = request.path_params["game_id"]
    return game_id


# ---------------------------------------------------------------------- handlers


async def create_game(request: Request) -> Response:
    client_limits(request).spend_create(client_address(request))
    body = wire.decode(await read_body(request), wire.CreateGame)
    if body.rated and await session_account(request) is None:
        raise missing_token("rated.create_needs_account")
    summary = await _service(request).create_game(
        body.variant, body.players, body.seed, wire.time_control(body.clock), body.rated
    )
    return json(summary, 201)


async def join_seat(request: Request) -> Response:
    client_limits(request).spend_join(client_address(request))
    service = _service(request)
    game_id = _game_id(request)
    await service.reader.variant_of(game_id)  # 404 before looking at the body
    join = wire.decode(await read_body(request), wire.JoinSeat)
    account = None
    if join.name is None and join.bot is None:
        account = await session_account(request)  # {}: the session's account
    if account is not None:
        name, bot = account, None
    else:
        name, bot = wire.player_name(join)
        if bot is None and await service.reader.rated(game_id):
            raise missing_token("seat.rated_needs_account")  # a guest: 401, log in first
    joined = await service.join(game_id, name, bot, account)
    # The session checked again, as for a seat's token by session
    # (server/web/seat_routes.py): one ended meanwhile gets no live token.
    if (
        account is not None
        and joined.token is not None
        and await running(request).accounts.session_account(request.cookies.get(COOKIE)) is None
    ):
        await service.seat_tokens.withdraw(game_id, joined.seat, token_digest(joined.token))
        raise ServiceError("unauthorized", "account.session_ended", status=401)
    return json({"seat": joined.seat, "token": joined.token, "version": joined.version}, 201)


async def list_games(request: Request) -> Response:
    raw_status = request.query_params.get("status")
    if raw_status is not None and raw_status not in STATUSES:
        raise bad_request("request.status", statuses=", ".join(STATUSES), value=raw_status)
    limit = int_param(request, "limit", DEFAULT_LIMIT)
    assert limit is not None
    if not 1 <= limit <= MAX_LIMIT:
        raise bad_request("request.limit", most=MAX_LIMIT, value=limit)
    status: Status | None = raw_status  # narrowed by the check above
    service = _service(request)
    games = await service.listing.list_games(status, limit)
    await mask_deleted(request, [seat for game in games for seat in game["seats"]])
    # Each account's and bot's rating beside its name (server/players/profiles.py).
    games = await running(request).profiles.with_ratings(games)
    await _with_spectators(request, games)
    if await service.listing.rebuilding():
        # Lists may be missing games while the index is rebuilt (server/games/lobby_keeper.py).
        return json({"games": games, "rebuilding": True})
    return json({"games": games})


async def game_summary(request: Request) -> Response:
    summary = await _service(request).reader.summary(_game_id(request))
    await mask_deleted(request, summary["seats"])
    # A rated game shows its seats' ratings, and once finished whether it moved them and
    # each seat's change (server/players/profiles.py); a casual game shows none.
    profiles = running(request).profiles
    rated = summary.get("rated") is True
    [summary] = await (profiles.with_ratings if rated else profiles.with_decisions)([summary])
    await _with_spectators(request, [summary])
    return json(summary)


async def _with_spectators(request: Request, games: list[dict[str, Any]]) -> None:
    """Each live game's summary says how many watch it (PROTOCOL.md, "Audience"), on
    every process: from this process's hub of the game, else from Redis."""
    live = [game for game in games if game.get("status") == "live"]
    if not live:
        return
    hubs = running(request).hubs
    counts = [0] * len(live) if hubs is None else await hubs.spectators([g["id"] for g in live])
    for game, count in zip(live, counts, strict=True):
        game["spectators"] = count


async def game_view(request: Request) -> Response:
    service = _service(request)
    game_id = _game_id(request)
    version = int_param(request, "version", None)
    viewer = await seat_for_token(request, game_id, bearer_token(request))
    view = await service.reader.view(game_id, viewer, version)
    await mask_deleted(request, view["players"])
    return json({"version": view["version"], "view": view})


async def game_events(request: Request) -> Response:
    service = _service(request)
    game_id = _game_id(request)
    after = int_param(request, "after", 0)
    assert after is not None
    viewer = await seat_for_token(request, game_id, bearer_token(request))
    events = await service.reader.events(game_id, viewer, after)
    await mask_deleted(request, [e for e in events if e["type"] == "PlayerJoined"])
    return json({"events": events})


async def game_chat(request: Request) -> Response:
    """A chat room's kept messages, oldest first, to whoever may read it (docs/chat.md):
    ``players`` to the seats (Bearer), ``spectators`` to anyone without a token, and to
    the seats once the game is over."""
    service = _service(request)
    game_id = _game_id(request)
    room = request.query_params.get("room", "")
    if room not in ROOMS:
        raise bad_request("chat.room", room=room[:40], known=", ".join(ROOMS))
    if parts(request).settings.chat == "off":
        raise bad_request("chat.off")
    viewer = await seat_for_token(request, game_id, bearer_token(request))
    if room == "players" and viewer is None:
        raise missing_token()
    if room == "spectators" and viewer is not None:
        status = (await service.reader.summary(game_id))["status"]
        if status not in ("finished", "aborted"):
            raise forbidden("chat.spectators_during_game")
    messages = (await running(request).chat.read(game_id, (room,)))[room]
    await mask_deleted(request, messages)
    return json({"messages": [wire_of(m) for m in messages]})


async def game_export(request: Request) -> Response:
    """A finished game's public record (docs/export.md), as a file to save."""
    game_id = _game_id(request)
    record = await _service(request).reader.record(game_id)
    await mask_deleted(request, record_players(record))
    # An id is ASCII letters, digits, - and _ (is_game_id): safe in the header as is.
    return json(record, headers={"Content-Disposition": f'attachment; filename="{game_id}.json"'})


async def _finished_game(request: Request) -> str:
    """The id of the request's game: 404 unknown, 409 not finished (nothing to analyse)."""
    game_id = _game_id(request)
    summary = await _service(request).reader.summary(game_id)
    if summary["status"] != "finished":
        raise ServiceError(
            "conflict", "analysis.not_finished", {"game": game_id, "status": summary["status"]}
        )
    return game_id


async def _analysis_state(queue: AnalysisQueue, game_id: str, pending: int = 200) -> Response:
    """A game's analysis as far as it goes: done (its body), queued or being analysed
    (``pending``, where it is, with the status ``pending``), or neither
    (``not_requested``, or ``off``)."""
    body = await queue.result(game_id)
    if body is not None:
        return Response(body, media_type="application/json")
    state = await queue.state(game_id, now_ms())
    if state is not None:
        return json(state, pending)
    body = await queue.result(game_id)  # done between the two looks
    if body is not None:
        return Response(body, media_type="application/json")
    return json({"status": "off" if queue.mode == "off" else "not_requested"})


async def game_analysis(request: Request) -> Response:
    """A finished game's analysis (docs/analysis.md): done, pending (where it is in
    the queue), or not requested. In ``every`` mode a game not queued is queued."""
    game_id = await _finished_game(request)
    queue = running(request).analysis_queue
    if queue.mode == "every" and await queue.result(game_id) is None:
        await queue.add(game_id, now_ms())
    return await _analysis_state(queue, game_id)


async def request_analysis(request: Request) -> Response:
    """Ask for a finished game's analysis (docs/analysis.md): queued once, at the time
    of the first request (a repeat changes nothing), within the asker's budget."""
    account = await session_account(request)
    who = f"account:{account}" if account is not None else f"ip:{client_address(request)}"
    client_limits(request).spend_analysis(who)
    game_id = await _finished_game(request)
    queue = running(request).analysis_queue
    if queue.mode == "off":
        raise ServiceError("conflict", "analysis.off", {})
    if await queue.result(game_id) is None:
        await queue.add(game_id, now_ms())
    return await _analysis_state(queue, game_id, 202)


async def submit_command(request: Request) -> Response:
    service = _service(request)
    game_id = _game_id(request)
    token = bearer_token(request)
    wait = parts(request).rate_limiter.allow(
        f"token:{token}" if token else f"ip:{client_address(request)}"
    )
    if wait is not None:
        raise rate_limited(wait)
    variant = await service.reader.variant_of(game_id)
    if token is None:
        raise missing_token()
    # The seats as cached: the append checks the token is still the seat's.
    seat = await seat_for_token(request, game_id, token, verify=False)
    assert seat is not None
    command = wire.decode(await read_body(request), wire.Command)
    wire.check_command(command)
    action = wire.decode_action(variant.name, bytes(command.action))
    result = await service.submit(
        game_id, seat, command.command_id, action, command.expected_version, token_digest(token)
    )
    return json({"version": result.version})


async def rematch(request: Request) -> Response:
    service = _service(request)
    game_id = _game_id(request)
    token = bearer_token(request)
    if token is None:
        result = await service.rematch(game_id, None)  # 401
    else:  # checked within the address's budget of failed authentications

        async def rematch_for_token() -> RematchResult:
            await _refuse_deleted_account(request, game_id, token)
            return await service.rematch(game_id, token)

        result = await client_limits(request).authenticate(
            client_address(request), rematch_for_token
        )
    return json({"id": result.id, "seat": result.seat, "token": result.token}, 201)


async def decline_rematch(request: Request) -> Response:
    """A seat declines the finished game's rematch (docs/http-api.md)."""
    service = _service(request)
    game_id = _game_id(request)
    token = bearer_token(request)
    if token is None:
        answers = await service.decline_rematch(game_id, None)  # 401
    else:  # checked within the address's budget of failed authentications

        async def decline_for_token() -> RematchAnswers:
            return await service.decline_rematch(game_id, token)

        answers = await client_limits(request).authenticate(
            client_address(request), decline_for_token
        )
    return json({"id": answers.id, "accepted": answers.accepted, "declined": answers.declined})


async def _refuse_deleted_account(request: Request, game_id: str, token: str) -> None:
    """A rated game's seat whose account was deleted plays no rated rematch (its
    player still holds the seat token, not the account): 403 ``unauthorized``."""
    service = _service(request)
    if not await service.reader.rated(game_id):
        return
    seat = await service.seats.seat_for_token(game_id, token)
    seats = {s["seat"]: s for s in (await service.reader.summary(game_id))["seats"]}
    account = seats[seat]["account"] if seat in seats else None
    if account is None:
        return
    if await running(request).accounts.deleted_among({account}):
        raise forbidden("account.deleted_unrated", account=account)


async def catalog(request: Request) -> Response:
    name: str = request.path_params["variant"]
    cached = parts(request).catalogs
    body = cached.get(name)
    if body is None:
        rules = VARIANTS.get(name)
        if rules is None:
            raise not_found("variant.none", variant=name, known=", ".join(sorted(VARIANTS)))
        body = cached[name] = _encoder.encode(rules.catalog())
    return Response(body, media_type="application/json")


async def healthz(request: Request) -> Response:
    """200 while Redis answers; else 503 with PROTOCOL.md's error shape and why: the
    status ``draining`` from the moment the process was told to stop (server/web/drain.py),
    ``unavailable`` while Redis can't be reached. Unlike a request, the health check
    answers ``unavailable`` for any failed ping, a fault included: it asks whether this
    process can serve, not whose fault it is that it can't."""
    if parts(request).drain.draining:
        lang = await request_language(request, account=False)
        draining = ServiceError("unavailable", "server.draining")
        body = {"status": "draining", **draining.to_wire(lang)}
        return json(body, 503, {"Content-Language": lang})
    try:
        await ping(_service(request).store.client)
    except RedisError as e:
        lang = await request_language(request, account=False)
        keeper = running(request).redis_keeper
        embedded = keeper.state() if keeper is not None else ""
        body = {"status": "unavailable", **unavailable(e).to_wire(lang)}
        if embedded:  # the embedded Redis's own state, for the operator (in English)
            body["message"] = f"{body['message']} {embedded}"
        return json(body, 503, {"Retry-After": "1", "Content-Language": lang})
    return json({"status": "ok"})


ALL_METHODS: Final = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


async def api_not_found(request: Request) -> Response:
    """Any request under ``/api/`` no route took: ``405`` (with ``Allow``) when the path
    is an endpoint's with another method, else ``404``. (It matches every method, so
    Starlette's own 405 for a known path never comes: the answer is decided here.)"""
    path = request.url.path
    allowed = sorted(
        {
            method
            for route in request.app.router.routes
            if isinstance(route, Route)
            and route.endpoint is not api_not_found
            and route.methods
            and route.path_regex.fullmatch(path)
            for method in route.methods
        }
    )
    if allowed:
        raise HTTPException(405, headers={"Allow": ", ".join(allowed)})
    raise not_found("route.not_found", method=request.method, path=path)


async def websocket_only(request: Request) -> Response:
    """A plain HTTP request to a websocket's path: 426, in the API's shape."""
    raise HTTPException(426, headers={"Upgrade": "websocket"})


# ---------------------------------------------------------------------- errors


async def on_service_error(request: Request, exc: Exception) -> Response:
    """A refusal in PROTOCOL.md's shape, its sentence in the request's language
    (server/web/languages.py), which ``Content-Language`` names."""
    if not isinstance(exc, ServiceError):
        raise exc
    error = exc
    # With Redis out of reach the account's language is not looked up (it is in Redis).
    lang = await request_language(request, account=error.code != "unavailable")
    headers = {"Content-Language": lang}
    if error.retry_after is not None:
        headers["Retry-After"] = str(max(1, math.ceil(error.retry_after)))
    return json(error.to_wire(lang), error.status, headers)


async def on_store_unavailable(request: Request, exc: Exception) -> Response:
    """Redis can't be reached (``StoreUnavailable``, server/store/availability.py): 503
    ``unavailable``. Any other Redis error has no handler: it is a fault of ours, left
    to the last resort (a 500)."""
    return await on_service_error(request, unavailable(exc))


async def on_http_exception(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no such route or file, wrong method) and the routes'
    ``HTTPException`` (405, 426) in the API's shape, with a reason."""
    if not isinstance(exc, HTTPException):
        raise exc
    error = _http_refusal(request, exc)
    lang = await request_language(request)
    headers = {**(exc.headers or {}), "Content-Language": lang}
    return json(error.to_wire(lang), exc.status_code, headers)


def _http_refusal(request: Request, http: HTTPException) -> ServiceError:
    path, method = request.url.path, request.method
    status = http.status_code
    if status == 404:
        return ServiceError("not_found", "route.nothing_here", {"path": path}, 404)
    if status == 405:
        allowed = (http.headers or {}).get("Allow", "")
        args: dict[str, Arg] = {"path": path, "method": method, "allowed": allowed}
        return ServiceError("bad_request", "route.method", args, 405)
    if status == 426:
        return ServiceError("bad_request", "route.websocket_only", {"path": path}, 426)
    return ServiceError("bad_request", "http.error", {"detail": str(http.detail)}, status)


EXCEPTION_HANDLERS: Final = {
    ServiceError: on_service_error,
    HTTPException: on_http_exception,
    StoreUnavailable: on_store_unavailable,
}


def api_routes() -> list[BaseRoute]:
    """Every route of PROTOCOL.md's HTTP table, plus ``/healthz``, players' profiles
    and leaderboards."""
    return [
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games", list_games, methods=["GET"]),
        Route("/api/games/{game_id}", game_summary, methods=["GET"]),
        Route("/api/games/{game_id}/seats", join_seat, methods=["POST"]),
        Route("/api/games/{game_id}/view", game_view, methods=["GET"]),
        Route("/api/games/{game_id}/events", game_events, methods=["GET"]),
        Route("/api/games/{game_id}/export", game_export, methods=["GET"]),
        Route("/api/games/{game_id}/chat", game_chat, methods=["GET"]),
        Route("/api/games/{game_id}/analysis", game_analysis, methods=["GET"]),
        Route("/api/games/{game_id}/analysis", request_analysis, methods=["POST"]),
        Route("/api/games/{game_id}/commands", submit_command, methods=["POST"]),
        Route("/api/games/{game_id}/rematch", rematch, methods=["POST"]),
        Route("/api/games/{game_id}/rematch/decline", decline_rematch, methods=["POST"]),
        Route("/api/catalog/{variant}", catalog, methods=["GET"]),
        Route("/api/qr", qr_code, methods=["POST"]),
        Route("/healthz", healthz, methods=["GET", "HEAD"]),
        *player_routes(),
        *seat_routes(),
        *pairing_http_routes,
        *tournament_routes(),
        Route("/api/{rest:path}", api_not_found, methods=ALL_METHODS),
        Route("/ws/{rest:path}", websocket_only, methods=ALL_METHODS),
    ]
