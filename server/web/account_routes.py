"""The HTTP API of accounts (docs/accounts.md): sign up, log in, log out (here or
everywhere), who am I, delete the account; and the checks every request that uses a
session makes (``check_origin``, ``session_account``).

A request that changes something with a session's authority is refused (403
``unauthorized``) when its ``Origin`` is another site's: the cookie is also
``SameSite=Lax``, so browsers do not send it on another site's POST, and the
``Origin`` check stands even where they would.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, cast

import msgspec
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from server.common import wire
from server.common.errors import ServiceError, rate_limited
from server.common.settings import Settings
from server.players.accounts import (
    COOKIE,
    HINT_COOKIE,
    SESSION_SECONDS,
    USERNAME,
    Accounts,
    account_of_session,
    check_origin,
    check_password,
    check_username,
)
from server.web.api_routes import client_address, json, read_body

if TYPE_CHECKING:
    from server.players.pairing_desk import Desk

RatingsOf = Callable[[str], Awaitable[dict[str, Any]]]
"""``app.state.ratings_of(username)``: the account's ratings per variant, for
``GET /api/me`` (set by the ratings read model; ``{}`` without one)."""

Handler = Callable[[Request], Awaitable[Response]]

WRONG_LOGIN: Final = "Wrong username or password."


class Credentials(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /api/accounts`` and ``POST /api/session``."""

    username: str
    password: str


class Confirmation(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``DELETE /api/me``: the password again, so a session left open can't delete."""

    password: str


class LoginLimits:
    """Attempts (log-ins, sign-ups, deletions) per client address, and log-ins per
    account: both in Redis, so that they count across every process (unlike the
    game limits of server/web/rate_limits.py, a password guessed is worth guarding the same
    whichever process is asked)."""

    def __init__(self, settings: Settings) -> None:
        self.address_rate = settings.login_rate
        self.address_burst = settings.login_burst
        self.account_rate = settings.account_login_rate
        self.account_burst = settings.account_login_burst

    async def spend(self, accounts: Accounts, address: str, username: str | None = None) -> None:
        """Count an attempt, or raise ``rate_limited`` (nothing else is done then; one
        refused for its account has counted for its address)."""
        wait = await accounts.spend_address(address, self.address_rate, self.address_burst)
        if wait is not None:
            raise rate_limited(wait, "log-in attempts from your address")
        if username is not None and USERNAME.fullmatch(username):
            wait = await accounts.spend_login(username, self.account_rate, self.account_burst)
            if wait is not None:
                raise rate_limited(wait, "log-in attempts for this account")


def _accounts(conn: HTTPConnection) -> Accounts:
    return cast(Accounts, conn.app.state.accounts)


def _settings(conn: HTTPConnection) -> Settings:
    return cast(Settings, conn.app.state.settings)


def _login_limits(conn: HTTPConnection) -> LoginLimits:
    state = conn.app.state
    limits = getattr(state, "login_limits", None)
    if limits is None:
        limits = state.login_limits = LoginLimits(_settings(conn))
    return cast(LoginLimits, limits)


def _with_session(response: Response, request: Request, session: str) -> Response:
    """The session cookie (HttpOnly), and its hint for the page (no secret in it)."""
    secure = _settings(request).secure_cookies or request.url.scheme == "https"
    for name, value, httponly in ((COOKIE, session, True), (HINT_COOKIE, "1", False)):
        response.set_cookie(
            name,
            value,
            max_age=SESSION_SECONDS,
            path="/",
            secure=secure,
            httponly=httponly,
            samesite="lax",
        )
    return response


def _without_session(response: Response, request: Request) -> Response:
    secure = _settings(request).secure_cookies or request.url.scheme == "https"
    for name, httponly in ((COOKIE, True), (HINT_COOKIE, False)):
        response.delete_cookie(name, path="/", secure=secure, httponly=httponly, samesite="lax")
    return response


def _logged_out() -> ServiceError:
    return ServiceError("unauthorized", "You are not logged in.", 401)


# ---------------------------------------------------------------------- handlers


async def sign_up(request: Request) -> Response:
    """``POST /api/accounts``: ``201 {"username"}`` and a session."""
    check_origin(request)
    await _login_limits(request).spend(_accounts(request), client_address(request))
    body = wire.decode(await read_body(request), Credentials)
    check_username(body.username)
    check_password(body.password)
    accounts = _accounts(request)
    username = await accounts.create(body.username, body.password)
    if username is None:
        raise ServiceError("conflict", f"The username {body.username} is taken.")
    session = await accounts.new_session(username)
    if session is None:  # deleted at once by another request of this new account
        raise ServiceError("unauthorized", WRONG_LOGIN, 401)
    return _with_session(json({"username": username}, 201), request, session)


async def log_in(request: Request) -> Response:
    """``POST /api/session``: ``200 {"username"}`` and a session, or 401 (the same
    answer for an unknown username and a wrong password)."""
    check_origin(request)
    body = wire.decode(await read_body(request), Credentials)
    await _login_limits(request).spend(_accounts(request), client_address(request), body.username)
    accounts = _accounts(request)
    username = await accounts.verify(body.username, body.password)
    if username is None:
        raise ServiceError("unauthorized", WRONG_LOGIN, 401)
    session = await accounts.new_session(username)
    if session is None:  # the account was deleted while the password was verified
        raise ServiceError("unauthorized", WRONG_LOGIN, 401)
    return _with_session(json({"username": username}), request, session)


async def log_out(request: Request) -> Response:
    """``DELETE /api/session``: this session ends (204, logged in or not)."""
    check_origin(request)
    await _accounts(request).end_session(request.cookies.get(COOKIE))
    return _without_session(Response(status_code=204), request)


async def log_out_everywhere(request: Request) -> Response:
    """``DELETE /api/sessions``: every session of the account ends (``{"ended": n}``)."""
    check_origin(request)
    username = await account_of_session(request)
    if username is None:
        raise _logged_out()
    ended = await _accounts(request).end_all_sessions(username)
    await _stop_pairing(request, username)
    return _without_session(json({"ended": ended}), request)


async def _stop_pairing(request: Request, username: str) -> None:
    """An account logged out everywhere (or deleted) stops waiting in quick pairing:
    its waiting socket is told (``conflict``, docs/pairing.md) rather than paired."""
    desk = cast("Desk | None", getattr(request.app.state, "pairing", None))
    if desk is not None:
        await desk.store.stop_waiting(username)


async def me(request: Request) -> Response:
    """``GET /api/me``: ``{"username", "ratings"}`` of the session's account, or 401."""
    username = await account_of_session(request)
    if username is None:
        raise _logged_out()
    ratings_of: RatingsOf | None = getattr(request.app.state, "ratings_of", None)
    ratings = await ratings_of(username) if ratings_of is not None else {}
    return json({"username": username, "ratings": ratings})


async def delete_account(request: Request) -> Response:
    """``DELETE /api/me {"password"}``: the account is deleted (204) and logged out
    everywhere; its games stay, its name listed as "deleted player"."""
    check_origin(request)
    username = await account_of_session(request)
    if username is None:
        raise _logged_out()
    body = wire.decode(await read_body(request), Confirmation)
    await _login_limits(request).spend(_accounts(request), client_address(request), username)
    accounts = _accounts(request)
    if await accounts.verify(username, body.password) is None:
        raise ServiceError("unauthorized", "Wrong password.", 403)
    await accounts.delete(username)
    await _stop_pairing(request, username)
    return _without_session(Response(status_code=204), request)


def _not_stored(handler: Handler) -> Handler:
    """``Cache-Control: no-store`` on the handler's answers: they set or clear the
    session cookie or name the session's account, and no cache (a shared proxy's,
    the browser's) may keep one for another request."""

    async def answer(request: Request) -> Response:
        response = await handler(request)
        response.headers["Cache-Control"] = "no-store"
        return response

    return answer


def account_routes() -> list[BaseRoute]:
    """The routes of docs/accounts.md."""
    routes: list[tuple[str, Handler, str]] = [
        ("/api/accounts", sign_up, "POST"),
        ("/api/session", log_in, "POST"),
        ("/api/session", log_out, "DELETE"),
        ("/api/sessions", log_out_everywhere, "DELETE"),
        ("/api/me", me, "GET"),
        ("/api/me", delete_account, "DELETE"),
    ]
    return [Route(path, _not_stored(handler), methods=[method]) for path, handler, method in routes]
