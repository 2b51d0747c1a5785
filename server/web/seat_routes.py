"""``POST /api/games/{id}/seat-token``: a new token for a seat you hold, the one it
replaces refused from then on (docs/http-api.md, docs/accounts.md "Seats of an
account").

Two authorities, two uses:

- **The seat's token** (``Authorization: Bearer``): the seat gets a new token, the
  one sent is refused from then on. The page's "new link" for another device:
  the link given out carries the old token.
- **The session** (the cookie, no ``Authorization``): the account's seat of the game
  gets a new token. How a logged-in player sits at their table in a browser that
  holds no token, and how they get their seats back after "log out everywhere"
  revoked them. Checked like every request that acts with a session's authority
  (``Origin``, server/web/sessions.py).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from server.common.errors import ServiceError, missing_token, not_found
from server.games.projection import token_digest
from server.games.service import GameService
from server.players.accounts import COOKIE
from server.web.request_parts import bearer_token, client_address, json
from server.web.sessions import session_account
from server.web.state import parts, running

__all__ = ["routes", "seat_token"]


def _service(request: Request) -> GameService:
    return running(request).service


async def seat_token(request: Request) -> Response:
    """``200 {"seat", "token"}``: the seat's new token (``Cache-Control: no-store``)."""
    service = _service(request)
    game_id: str = request.path_params["game_id"]
    token = bearer_token(request)
    if token is not None:
        seat, fresh = await parts(request).client_limits.authenticate(
            client_address(request), lambda: _by_token(service, game_id, token)
        )
    else:
        seat, fresh = await _by_session(request, service, game_id)
    return json({"seat": seat, "token": fresh}, headers={"Cache-Control": "no-store"})


async def _by_token(service: GameService, game_id: str, token: str) -> tuple[int, str]:
    """The token's seat gets a new token, if the token is still the seat's."""
    seat = await service.seats.seat_for_token(game_id, token)
    assert seat is not None
    return seat, await service.seats.issue_token(game_id, seat, replacing=token_digest(token))


async def _by_session(request: Request, service: GameService, game_id: str) -> tuple[int, str]:
    """The session's account's seat gets a new token.

    The seat is listed as the account's before its token is written, and the session
    is checked again after: a "log out everywhere" running meanwhile either revokes
    the token written here or ended the session before the check, and the token is
    withdrawn (server/games/seat_tokens.py)."""
    await service.reader.variant_of(game_id)  # 404 first
    username = await session_account(request)  # 403 for another site's page
    if username is None:
        raise missing_token("token.log_in_for_seat")
    seat = await service.seats.account_seat(game_id, username)
    if seat is None:
        raise not_found("seat.not_of_account", username=username, game=game_id)
    await service.seat_tokens.record(username, game_id, seat)
    fresh = await service.seats.issue_token(game_id, seat)
    if await running(request).accounts.session_account(request.cookies.get(COOKIE)) is None:
        await service.seat_tokens.withdraw(game_id, seat, token_digest(fresh))
        raise ServiceError("unauthorized", "account.session_ended", status=401)
    return seat, fresh


def routes() -> list[BaseRoute]:
    return [Route("/api/games/{game_id}/seat-token", seat_token, methods=["POST"])]
