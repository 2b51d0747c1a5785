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
from dataclasses import dataclass
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
    LoginBudget,
    LoginTicket,
    account_of_session,
    check_origin,
    check_password,
    check_username,
)
from server.web.api_routes import client_address, json, read_body

if TYPE_CHECKING:
    from server.games.service import GameService
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


@dataclass(frozen=True)
class Attempt:
    """What ``LoginLimits.reserve`` took for one password check."""

    address: str
    ticket: LoginTicket | None
    counted: bool  # a deletion's confirmation: its address counts it whatever its outcome


class LoginLimits:
    """The limits on guessing passwords (docs/accounts.md "Log-in limits"), all in
    Redis so that every process counts them: per client address, failed log-ins,
    sign-ups and deletions; per account and address, failed log-ins (strict); per
    account, failed log-ins from any address, past which the account backs off for
    the addresses that failed on it, not for one with no recent failure there (so
    nobody can keep an owner out by failing on purpose)."""

    def __init__(self, settings: Settings) -> None:
        self.address_rate = settings.login_rate
        self.address_burst = settings.login_burst
        self.budget = LoginBudget.of(settings)

    async def attempt(self, accounts: Accounts, address: str) -> None:
        """Count a sign-up on its address, or raise ``rate_limited``."""
        wait = await accounts.spend_address(address, self.address_rate, self.address_burst)
        if wait is not None:
            raise rate_limited(wait, "sign-ups, deletions and failed log-ins from your address")

    async def reserve(
        self, accounts: Accounts, address: str, username: str, *, counted: bool = False
    ) -> Attempt:
        """Take what checking ``username``'s password costs if it proves wrong, before
        it is checked (attempts sent at once can't all pass), or raise
        ``rate_limited`` (nothing taken, whatever the password: the answer must not
        tell a right one from a wrong one). ``counted``: the address counts the
        attempt whatever its outcome (a deletion's confirmation)."""
        wait = await accounts.spend_address(address, self.address_rate, self.address_burst)
        if wait is not None:
            raise rate_limited(wait, "failed log-ins from your address")
        if not USERNAME.fullmatch(username):  # no account has it: the address counts it
            return Attempt(address, None, counted)
        ticket = await accounts.reserve_login(username, address, self.budget)
        if ticket.wait is None:
            return Attempt(address, ticket, counted)
        if not counted:
            await accounts.refund_address(address, self.address_rate, self.address_burst)
        if ticket.why == "pair":
            raise rate_limited(ticket.wait, "failed log-ins to this account from your address")
        raise rate_limited(ticket.wait, "failed log-ins to this account")

    async def right(self, accounts: Accounts, attempt: Attempt) -> None:
        """The password was right: give back what its attempt took (only failures
        count, so an owner who logs in often never runs out)."""
        if not attempt.counted:
            await accounts.refund_address(attempt.address, self.address_rate, self.address_burst)
        if attempt.ticket is not None:
            await accounts.refund_login(attempt.ticket, self.budget)


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
    await _login_limits(request).attempt(_accounts(request), client_address(request))
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
    accounts, limits = _accounts(request), _login_limits(request)
    attempt = await limits.reserve(accounts, client_address(request), body.username)
    username = await accounts.verify(body.username, body.password)
    if username is None:  # a failure: what its attempt took stays taken
        raise ServiceError("unauthorized", WRONG_LOGIN, 401)
    await limits.right(accounts, attempt)
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
    await _revoke_seats(request, username)
    return _without_session(json({"ended": ended}), request)


async def _revoke_seats(request: Request, username: str) -> None:
    """The sessions ended, the account's seat tokens are revoked: whoever took one
    with a session (a stolen cookie's too) acts no more; its player gets the seats
    back with a new token when logged in again (server/players/seat_tokens.py)."""
    service = cast("GameService", request.app.state.service)
    await service.seat_tokens.revoke_account(username)


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
    accounts, limits = _accounts(request), _login_limits(request)
    attempt = await limits.reserve(accounts, client_address(request), username, counted=True)
    if await accounts.verify(username, body.password) is None:
        raise ServiceError("unauthorized", "Wrong password.", 403)
    await limits.right(accounts, attempt)
    await accounts.delete(username)
    await _stop_pairing(request, username)
    await _revoke_seats(request, username)
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
