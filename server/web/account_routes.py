"""The HTTP API of accounts (docs/accounts.md): sign up, log in, log out (here or
everywhere), who am I, the account's language, its e-mail address (docs/email.md),
delete the account. The checks every request that uses a
session makes (``check_origin``, ``session_account``) are server/web/sessions.py.

A request that changes something with a session's authority is refused (403
``unauthorized``) when its ``Origin`` is another site's: the cookie is also
``SameSite=Lax``, so browsers do not send it on another site's POST, and the
``Origin`` check stands even where they would.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from catalogs import LANGUAGES
from server.common import wire
from server.common.errors import ServiceError, bad_request
from server.mail.mail import Mail, now_ms, verify_token
from server.players.accounts import (
    COOKIE,
    HINT_COOKIE,
    SESSION_SECONDS,
    check_password,
    check_username,
)
from server.web.request_parts import client_address, json, read_body
from server.web.sessions import account_of_session, check_origin
from server.web.state import parts, running

Handler = Callable[[Request], Awaitable[Response]]

WRONG_LOGIN: Final = "account.wrong_login"


class Credentials(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /api/accounts`` and ``POST /api/session``."""

    username: str
    password: str


class LanguageChoice(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``PUT /api/me/language``: one of the languages of the menu (docs/languages.md)."""

    language: str


class Confirmation(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``DELETE /api/me``: the password again, so a session left open can't delete."""

    password: str


class AddressChoice(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``PUT /api/me/email``: the address to verify (docs/email.md)."""

    address: str


class NotifyChoice(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``PUT /api/me/email/notify``: the e-mails of games and tournaments on or off."""

    notify: bool


class VerifyToken(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /api/email/verify``: the token of a verification link."""

    token: str


def _with_session(response: Response, request: Request, session: str) -> Response:
    """The session cookie (HttpOnly), and its hint for the page (no secret in it)."""
    secure = parts(request).settings.secure_cookies or request.url.scheme == "https"
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
    secure = parts(request).settings.secure_cookies or request.url.scheme == "https"
    for name, httponly in ((COOKIE, True), (HINT_COOKIE, False)):
        response.delete_cookie(name, path="/", secure=secure, httponly=httponly, samesite="lax")
    return response


def _logged_out() -> ServiceError:
    return ServiceError("unauthorized", "account.not_logged_in", status=401)


# ---------------------------------------------------------------------- handlers


async def sign_up(request: Request) -> Response:
    """``POST /api/accounts``: ``201 {"username"}`` and a session."""
    check_origin(request)
    await parts(request).login_limits.attempt(running(request).accounts, client_address(request))
    body = wire.decode(await read_body(request), Credentials)
    check_username(body.username)
    check_password(body.password)
    accounts = running(request).accounts
    username = await accounts.create(body.username, body.password)
    if username is None:
        raise ServiceError("conflict", "account.username_taken", {"username": body.username})
    session = await accounts.new_session(username)
    if session is None:  # deleted at once by another request of this new account
        raise ServiceError("unauthorized", WRONG_LOGIN, status=401)
    return _with_session(json({"username": username}, 201), request, session)


async def log_in(request: Request) -> Response:
    """``POST /api/session``: ``200 {"username"}`` and a session, or 401 (the same
    answer for an unknown username and a wrong password)."""
    check_origin(request)
    body = wire.decode(await read_body(request), Credentials)
    accounts, limits = running(request).accounts, parts(request).login_limits
    attempt = await limits.reserve(accounts, client_address(request), body.username)
    username = await accounts.verify(body.username, body.password)
    if username is None:  # a failure: what its attempt took stays taken
        raise ServiceError("unauthorized", WRONG_LOGIN, status=401)
    await limits.right(accounts, attempt)
    session = await accounts.new_session(username)
    if session is None:  # the account was deleted while the password was verified
        raise ServiceError("unauthorized", WRONG_LOGIN, status=401)
    return _with_session(json({"username": username}), request, session)


async def log_out(request: Request) -> Response:
    """``DELETE /api/session``: this session ends (204, logged in or not)."""
    check_origin(request)
    await running(request).accounts.end_session(request.cookies.get(COOKIE))
    return _without_session(Response(status_code=204), request)


async def log_out_everywhere(request: Request) -> Response:
    """``DELETE /api/sessions``: every session of the account ends (``{"ended": n}``)."""
    check_origin(request)
    username = await account_of_session(request)
    if username is None:
        raise _logged_out()
    ended = await running(request).accounts.end_all_sessions(username)
    await _stop_pairing(request, username)
    await _revoke_seats(request, username)
    return _without_session(json({"ended": ended}), request)


async def _revoke_seats(request: Request, username: str) -> None:
    """The sessions ended, the account's seat tokens are revoked: whoever took one
    with a session (a stolen cookie's too) acts no more; its player gets the seats
    back with a new token when logged in again (server/games/seat_tokens.py)."""
    await running(request).service.seat_tokens.revoke_account(username)


async def _stop_pairing(request: Request, username: str) -> None:
    """An account logged out everywhere (or deleted) stops waiting in quick pairing:
    its waiting socket is told (``conflict``, docs/pairing.md) rather than paired."""
    desk = running(request).pairing
    if desk is not None:
        await desk.store.stop_waiting(username)


async def me(request: Request) -> Response:
    """``GET /api/me``: ``{"username", "ratings", "language"}`` of the session's
    account (``language`` null until its player chooses one), or 401."""
    username = await account_of_session(request)
    if username is None:
        raise _logged_out()
    ratings = await running(request).profiles.ratings_of(username)
    language = await running(request).accounts.language(username)
    return json({"username": username, "ratings": ratings, "language": language})


async def choose_language(request: Request) -> Response:
    """``PUT /api/me/language {"language"}``: the account's pages and messages are in
    that language wherever its player logs in (unless a ``lang`` cookie or ``?lang=``
    says otherwise): ``200 {"language"}``."""
    check_origin(request)
    username = await account_of_session(request)
    if username is None:
        raise _logged_out()
    body = wire.decode(await read_body(request), LanguageChoice)
    if body.language not in LANGUAGES:
        known = ", ".join(LANGUAGES)
        raise bad_request("account.language", known=known, value=body.language[:20])
    if not await running(request).accounts.set_language(username, body.language):
        raise _logged_out()  # deleted meanwhile: its sessions are ending
    return json({"language": body.language})


async def delete_account(request: Request) -> Response:
    """``DELETE /api/me {"password"}``: the account is deleted (204) and logged out
    everywhere; its games stay, its name listed as "deleted player"."""
    check_origin(request)
    username = await account_of_session(request)
    if username is None:
        raise _logged_out()
    body = wire.decode(await read_body(request), Confirmation)
    accounts, limits = running(request).accounts, parts(request).login_limits
    attempt = await limits.reserve(accounts, client_address(request), username, counted=True)
    if await accounts.verify(username, body.password) is None:
        raise ServiceError("unauthorized", "account.wrong_password", status=403)
    await limits.right(accounts, attempt)
    await accounts.delete(username)
    await _stop_pairing(request, username)
    await _revoke_seats(request, username)
    return _without_session(Response(status_code=204), request)


# ---------------------------------------------------------------------- e-mail


def _mail(request: Request) -> Mail:
    """E-mail's parts, or ``not_found`` on a server without ``SPLENDOR_SMTP_URL``."""
    mail = running(request).mail
    if mail is None:
        raise ServiceError("not_found", "email.off")
    return mail


async def _signed_in(request: Request) -> str:
    username = await account_of_session(request)
    if username is None:
        raise _logged_out()
    return username


def _wake_worker(request: Request) -> None:
    worker = running(request).mail_worker
    if worker is not None:
        worker.wake()


async def my_email(request: Request) -> Response:
    """``GET /api/me/email``: ``{"enabled", "address", "verified", "notify"}`` of the
    session's account (``address`` null without one; ``enabled`` false on a server
    that sends no e-mail); only its own player ever reads it."""
    username = await _signed_in(request)
    mail = running(request).mail
    if mail is None:  # the page then asks for no address (and logs no 404)
        return json({"enabled": False, "address": None, "verified": False, "notify": False})
    return json((await mail.addresses.get(username)).wire())


async def set_email(request: Request) -> Response:
    """``PUT /api/me/email {"address"}``: the account's address (a new one replaces
    the old), unverified until the link e-mailed to it is followed."""
    check_origin(request)
    username = await _signed_in(request)
    mail = _mail(request)
    body = wire.decode(await read_body(request), AddressChoice)
    now = now_ms()
    token = await mail.addresses.set(username, body.address, now)
    if token is not None:
        record = await mail.addresses.get(username)
        assert record.address is not None
        await mail.send_verification(username, record.address, token, now)
        _wake_worker(request)
    return json((await mail.addresses.get(username)).wire())


async def remove_email(request: Request) -> Response:
    """``DELETE /api/me/email``: the account holds no address any more (204)."""
    check_origin(request)
    username = await _signed_in(request)
    await _mail(request).addresses.remove(username)
    return Response(status_code=204)


async def resend_verification(request: Request) -> Response:
    """``POST /api/me/email/verification``: the verification e-mail again, with a new
    link (the old one stops working): ``202``, at most one a minute."""
    check_origin(request)
    username = await _signed_in(request)
    mail = _mail(request)
    now = now_ms()
    address, token = await mail.addresses.renew(username, now)
    await mail.send_verification(username, address, token, now)
    _wake_worker(request)
    return json((await mail.addresses.get(username)).wire(), 202)


async def set_notify(request: Request) -> Response:
    """``PUT /api/me/email/notify {"notify"}``: the e-mails of games and tournaments
    on or off (the verification e-mail is sent either way)."""
    check_origin(request)
    username = await _signed_in(request)
    mail = _mail(request)
    body = wire.decode(await read_body(request), NotifyChoice)
    await mail.addresses.set_notify(username, body.notify)
    return json((await mail.addresses.get(username)).wire())


async def verify_email(request: Request) -> Response:
    """``POST /api/email/verify {"token"}``: what the link of a verification e-mail
    does (``GET /mail/verify``), for a program: ``200 {"verified": true}``, or
    ``not_found`` for a token used, replaced, expired or wrong. The token is the
    authority: no session is needed (the link may be opened on another device)."""
    mail = _mail(request)
    body = wire.decode(await read_body(request), VerifyToken)
    await verify_token(mail, body.token)
    return json({"verified": True})


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
        ("/api/me/language", choose_language, "PUT"),
        ("/api/me", delete_account, "DELETE"),
        ("/api/me/email", my_email, "GET"),
        ("/api/me/email", set_email, "PUT"),
        ("/api/me/email", remove_email, "DELETE"),
        ("/api/me/email/verification", resend_verification, "POST"),
        ("/api/me/email/notify", set_notify, "PUT"),
        ("/api/email/verify", verify_email, "POST"),
    ]
    return [Route(path, _not_stored(handler), methods=[method]) for path, handler, method in routes]
