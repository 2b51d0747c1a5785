"""Security headers on every HTTP answer (docs/operations.md, "Security headers").

``SecurityHeaders`` is a plain ASGI middleware around the whole app (outside the last
resort, so a 500 gets them too). On every answer it sets:

- ``Content-Security-Policy``: the page loads scripts, styles, images and
  connections from its own origin only (no inline script or style, no ``eval``),
  images also from ``blob:`` (the QR code of "continue on another device" is drawn
  from the server's SVG through an object URL), no plugin, no ``<base>``, forms
  sent to this origin only, and **no page of any origin may frame it**
  (``frame-ancestors 'none'``: clickjacking of a live table's controls).
- ``X-Frame-Options: DENY``: the same refusal for browsers that predate
  ``frame-ancestors``.
- ``X-Content-Type-Options: nosniff``: a script or a style is used only when its
  type says so, and an answer is never sniffed into something else.
- ``Referrer-Policy: no-referrer``: a link followed from the page tells nothing
  of it (a seat link's fragment is never sent anyway; this also covers the path).
- ``Strict-Transport-Security`` when the request came over https, as uvicorn sees
  it: a direct TLS connection, or ``X-Forwarded-Proto: https`` from a trusted proxy
  (``SPLENDOR_TRUSTED_PROXIES``). Over plain http it would mean nothing (browsers
  ignore it) and is not sent.
- ``Cache-Control: no-store`` on every answer that may carry a secret or what only
  its requester may see, generically rather than route by route: a request with an
  ``Authorization`` header (a seat token, the metrics token) or a ``token`` in its
  query string; a request to the API (``/api/``, ``/ws/``, ``/metrics``) carrying
  the session cookie; an answer that sets a cookie; and an answer to any method but
  GET and HEAD (they create seats, games and sessions and answer their tokens).
  The web page's own files stay cacheable (revalidated by their ``ETag``) even for
  a logged-in player: they are the same for everyone.

Websockets pass through untouched: the live path pays one comparison a connection.
"""

from __future__ import annotations

from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.players.accounts import COOKIE

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "HSTS",
    "RAW_HEADERS",
    "SecurityHeaders",
    "private_request",
]

CONTENT_SECURITY_POLICY: Final = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' blob:",
        # 'self' covers ws: and wss: of the page's own host and port (CSP level 3).
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HSTS: Final = "max-age=31536000"

_ALWAYS: Final[list[tuple[bytes, bytes]]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
_HSTS: Final = (b"strict-transport-security", HSTS.encode())
_NO_STORE: Final = (b"cache-control", b"no-store")
_OVER_HTTPS: Final = [*_ALWAYS, _HSTS]
_REPLACED: Final = frozenset(name for name, _ in [*_ALWAYS, _HSTS, _NO_STORE])

RAW_HEADERS: Final = b"".join(b"%s: %s\r\n" % header for header in _ALWAYS)
"""The headers every answer carries, as lines of an HTTP head (for answers written
on the connection itself, below the app: server/web/http_protocol.py)."""

_API_PREFIXES: Final = ("/api/", "/ws/", "/metrics")
_SESSION: Final = COOKIE.encode() + b"="
_CACHEABLE_METHODS: Final = frozenset(("GET", "HEAD"))


def private_request(scope: Scope) -> bool:
    """Whether the answer to this request must not be stored by any cache: it is
    authorized by a token or a session, or it changes something (see the module)."""
    if scope.get("method") not in _CACHEABLE_METHODS:
        return True
    query: bytes = scope.get("query_string", b"")
    if query.startswith(b"token=") or b"&token=" in query:
        return True
    api = scope["path"].startswith(_API_PREFIXES)
    for name, value in scope["headers"]:
        if name == b"authorization":
            return True
        if api and name == b"cookie" and _SESSION in value:
            return True
    return False


class SecurityHeaders:
    """ASGI middleware: the security headers on every HTTP answer (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = _OVER_HTTPS if scope.get("scheme") == "https" else _ALWAYS
        private = private_request(scope)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers", [])
                kept = [(n, v) for n, v in headers if n.lower() not in _REPLACED]
                no_store = private or any(n.lower() == b"set-cookie" for n, _ in headers)
                if not no_store:
                    # A route's own Cache-Control stands when no rule above needs no-store.
                    kept += [(n, v) for n, v in headers if n.lower() == b"cache-control"]
                message = {
                    **message,
                    "headers": [*kept, *extra, *([_NO_STORE] if no_store else [])],
                }
            await send(message)

        await self.app(scope, receive, send_with_headers)
