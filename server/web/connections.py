"""Connections before they are requests or sockets: how long a client may take to send
a request, how large its head may be, and the options ``splendor serve`` gives uvicorn.

uvicorn's HTTP protocol (httptools) times out only the wait between two requests
(keep-alive): a client that sends nothing, or half a request, is held forever, and a
request line or headers of any size are read into memory.
``server.web.http_protocol.GuardedHttpProtocol`` (used when ``server.web.socket_fast_paths``
allows: it extends uvicorn's internals) adds:

- a **request timeout**: the whole request (line, headers, body) must arrive within
  ``request_timeout`` seconds of the connection's opening, or of the request's first
  byte after a keep-alive wait. Then the connection is closed, after a ``408`` if part
  of a request had come (nothing is answered to a client that sent nothing). A
  websocket's opening handshake is its upgrade request: the same clock.
- **size limits** on the head (``server.web.head_limits``): a request target over
  ``MAX_REQUEST_TARGET`` bytes is answered ``414``; more than ``MAX_HEADERS`` headers,
  a header line over ``MAX_HEADER_LINE`` bytes or header lines over
  ``MAX_HEADER_BYTES`` in all, ``431``. Both in the API's error shape (``bad_request``), then the connection is closed. So is a
  request httptools cannot parse (``400``), where uvicorn answered in plain text.

It also drops its parser once a connection is upgraded to a websocket: the parser
holds the protocol's callbacks, a reference cycle that uvicorn breaks only for
connections that end as HTTP, which left every websocket's objects to the cyclic
collector (docs/operations.md, "Memory").

On uvicorn's own protocols (the public path) the head is bounded by h11's
``h11_max_incomplete_event_size`` (a ``400`` in plain text), and there is no request
timeout (docs/operations.md, "Fast paths").

Once upgraded, a websocket is kept alive by pings (``ws_ping_interval``): a client
that does not answer one within ``ws_ping_timeout`` is closed. A socket that sends
nothing but answers pings is a spectator, not an idle connection: it is never timed
out (docs/operations.md, "Timeouts").
"""

from __future__ import annotations

from typing import Any

from server.common.settings import MAX_BODY_BYTES, Settings
from server.web.socket_fast_paths import uvicorn_protocols

__all__ = ["server_options"]


def server_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options for ``settings`` (besides host, port and logging): our
    protocols, the timeouts, and whom to trust for ``X-Forwarded-For``."""
    trusted = settings.trusted_proxies
    return {
        # Ours, or uvicorn's own when they can't be used (server/web/socket_fast_paths.py).
        **uvicorn_protocols(settings.request_timeout),
        # A frame above 64 KiB is refused (close 1009); diffs are encoded once per
        # audience, and per-socket compression would redo that work for every socket.
        "ws_max_size": MAX_BODY_BYTES,
        "ws_per_message_deflate": False,
        "ws_ping_interval": settings.ws_ping_interval,
        "ws_ping_timeout": settings.ws_ping_timeout,
        "timeout_keep_alive": settings.keep_alive_timeout,
        # The rate limits key clients by the peer's address: X-Forwarded-For is read
        # only from the proxies named (none by default).
        "proxy_headers": bool(trusted),
        "forwarded_allow_ips": list(trusted) if trusted else None,
    }
