"""The session a request or websocket carries, as the handlers ask for it.

``account_of_session(conn)``: the username of the session, or None (a guest).
``session_account(conn)``: the same for a request that changes something, its
``Origin`` checked first (``check_origin``: 403 ``unauthorized`` for another site's
page; scheme, host and port are compared with the server's own as the client reached
it). ``mask_deleted(conn, entries)``: names of deleted accounts masked in what a
handler answers. The accounts themselves are server/players/accounts.py; this is
where a connection meets them.
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

from server.common.errors import forbidden
from server.players.accounts import COOKIE, accounts_named, mask_entries
from server.web.state import parts, running

__all__ = [
    "account_of_session",
    "check_origin",
    "mask_deleted",
    "own_origin",
    "parse_origin",
    "session_account",
]


async def account_of_session(conn: HTTPConnection) -> str | None:
    """The username (as typed at sign-up; ``account_id`` gives its id) of the account
    whose session cookie a request or websocket carries, or None: a guest, or a
    session that ended (logged out, expired, the account deleted)."""
    return await running(conn).accounts.session_account(conn.cookies.get(COOKIE))


Origin = tuple[str, str, int | None]
"""An origin as compared: scheme, host (lowercase) and port (the scheme's default
when the text names none)."""

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
# A websocket's scheme is its page's: ws is reached from http pages, wss from https.
_PAGE_SCHEMES: Final = {"ws": "http", "wss": "https"}


def parse_origin(text: str) -> Origin | None:
    """``scheme://host[:port]`` as compared, or None for anything else (``null``, a
    path, a port that is no number)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname or parts.path not in ("", "/"):
        return None
    if parts.query or parts.fragment or parts.username is not None:
        return None
    return parts.scheme, parts.hostname, port or _DEFAULT_PORTS.get(parts.scheme)


def own_origin(conn: HTTPConnection) -> Origin | None:
    """This server's origin as the client reached it: the request's scheme (behind a
    trusted proxy, its ``X-Forwarded-Proto``, which uvicorn applies for
    ``SPLENDOR_TRUSTED_PROXIES`` only) and the ``Host`` it was sent to (proxies pass
    it on: docs/deploy)."""
    host = conn.headers.get("host")
    if not host:
        return None
    scheme = conn.url.scheme
    return parse_origin(f"{_PAGE_SCHEMES.get(scheme, scheme)}://{host}")


def check_origin(conn: HTTPConnection) -> None:
    """Refuse (403) a request sent by another site's page: its ``Origin`` is neither
    this server's (``own_origin``: scheme, host and port) nor one of
    ``allowed_origins``. Without ``Origin`` (not a browser, which always sends it on
    POST and DELETE) a ``Sec-Fetch-Site`` other than same-origin is refused too."""
    origin = conn.headers.get("origin")
    if origin is None:
        site = conn.headers.get("sec-fetch-site")
        if site is None or site in ("same-origin", "none"):
            return
        raise forbidden("account.other_site", site=site)
    given = parse_origin(origin)
    if given is not None:
        if given == own_origin(conn):
            return
        allowed = parts(conn).settings.allowed_origins
        if any(given == parse_origin(a) for a in allowed):
            return
    raise forbidden("account.other_site", site=origin[:100])


async def session_account(conn: HTTPConnection) -> str | None:
    """``account_of_session`` for a request that changes something: its ``Origin``
    is checked first when it carries a session cookie."""
    if COOKIE in conn.cookies:
        check_origin(conn)
    return await account_of_session(conn)


async def mask_deleted(conn: HTTPConnection, entries: list[dict[str, Any]]) -> None:
    """``mask_entries`` by the app's accounts."""
    usernames = accounts_named(entries)
    if usernames:
        deleted = await running(conn).accounts.deleted_among(usernames)
        mask_entries(entries, deleted)
