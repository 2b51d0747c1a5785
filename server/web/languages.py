"""The language of every answer (PROTOCOL.md "Languages", docs/languages.md): which one
a request gets, the page's catalogs, and the web page served in its language.

``request_language`` is the one negotiation: ``?lang=`` > the ``lang`` cookie (the
page's language menu sets it) > the signed-in account's language > the
``Accept-Language`` header > English. ``GET /`` writes the result into the page's
``<html lang dir>`` as it is served, so the page never shows English first;
``GET /i18n/{lang}.json`` is a language's page catalog, compiled from the same
``.po`` files as the server's messages.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Final

from redis.exceptions import RedisError
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import Scope

from catalogs import (
    DOMAINS,
    LANGUAGES,
    PSEUDO,
    known_language,
    negotiate,
    page_catalog,
    text_direction,
    translations,
)
from server.common.errors import not_found
from server.players.accounts import COOKIE
from server.web.state import running

__all__ = ["LANG_COOKIE", "language_routes", "load_catalogs", "request_language"]

LANG_COOKIE: Final = "lang"
"""The cookie of the page's language menu: the chosen language's tag."""
SERVED: Final = frozenset((*LANGUAGES, PSEUDO))
_HTML_TAG: Final = re.compile(rb"<html\b[^>]*>", re.IGNORECASE)


def load_catalogs() -> None:
    """Read every language's catalogs (once a process: they are kept in memory), so
    that a broken ``.po`` file stops the server at start rather than a request."""
    for lang in SERVED:
        for domain in DOMAINS:
            translations(lang, domain)
        page_catalog(lang)


def chosen_language(conn: HTTPConnection) -> str | None:
    """The language the request names itself (``?lang=``, else the cookie), if any."""
    return known_language(conn.query_params.get("lang")) or known_language(
        conn.cookies.get(LANG_COOKIE)
    )


def scope_language(scope: Scope) -> str:
    """The language of a request known only by its ASGI scope (the last resort's
    500): ``?lang=``, the cookie, ``Accept-Language``; English if even that fails."""
    try:
        conn = HTTPConnection(scope)
        return negotiate(chosen_language(conn), accept=conn.headers.get("accept-language"))
    except Exception:  # a request too broken to read: the answer is still given
        return "en"


async def request_language(conn: HTTPConnection, *, account: bool = True) -> str:
    """The language to answer ``conn`` in (see the module); kept on the connection's
    state, so a request negotiates once however many messages it gets. The account's
    language is read from Redis only when neither ``?lang=`` nor the cookie decides,
    for a request with a session, and never with ``account=False`` (Redis is out of
    reach: the answer says so in the language of the rest)."""
    found: str | None = getattr(conn.state, "lang", None)
    if found is not None:
        return found
    chosen = chosen_language(conn)
    looked_up = chosen is None and account and COOKIE in conn.cookies
    accounts = await _account_language(conn) if looked_up else None
    found = negotiate(chosen, accounts, accept=conn.headers.get("accept-language"))
    if looked_up or chosen is not None or COOKIE not in conn.cookies:
        conn.state.lang = found
    return found


async def _account_language(conn: HTTPConnection) -> str | None:
    """The language the session's account chose, None for none (or no way to know)."""
    try:
        accounts = running(conn).accounts
    except RuntimeError:  # the lifespan has not started: no accounts yet
        return None
    try:
        username = await accounts.session_account(conn.cookies.get(COOKIE))
        return None if username is None else await accounts.language(username)
    except (RedisError, OSError):
        return None  # the refusal or page is answered anyway, from the other sources


async def page_messages(request: Request) -> Response:
    """``GET /i18n/{lang}.json``: the page's catalog of a language, revalidated by its
    ETag (it changes only with the server's files)."""
    lang: str = request.path_params["lang"]
    if lang not in SERVED:
        raise not_found("language.unknown", lang=lang, known=", ".join(sorted(SERVED)))
    catalog = page_catalog(lang)
    headers = {"ETag": catalog.etag, "Cache-Control": "no-cache", "Content-Language": lang}
    if catalog.etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(catalog.body, media_type="application/json", headers=headers)


def _with_language(html: bytes, lang: str) -> bytes:
    """The page's ``<html>`` tag with ``lang`` and its writing direction."""
    tag = f'<html lang="{lang}" dir="{text_direction(lang)}">'.encode()
    return _HTML_TAG.sub(lambda _: tag, html, count=1)


def language_routes(web: Path) -> list[BaseRoute]:
    """``/i18n/{lang}.json`` and the web page's ``/`` (and ``/index.html``) in the
    request's language; the page's other files are static."""
    index = web / "index.html"

    async def page(request: Request) -> Response:
        lang = await request_language(request)
        body = _with_language(index.read_bytes(), lang)
        etag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
        headers = {
            "ETag": etag,
            "Content-Language": lang,
            # The same URL answers in the language of the cookie or of Accept-Language.
            "Vary": "Accept-Language, Cookie",
        }
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="text/html", headers=headers)

    return [
        Route("/i18n/{lang}.json", page_messages, methods=["GET"]),
        Route("/", page, methods=["GET"]),
        Route("/index.html", page, methods=["GET"]),
    ]
