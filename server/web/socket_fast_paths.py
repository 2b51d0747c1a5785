"""The sockets' fast path: uvicorn's websockets-sansio and httptools protocols extended
(``server.live.websocket_protocol``, ``server.web.http_protocol``), used only if the
installed uvicorn still has what they read and override. Public path: uvicorn's own
``websockets-sansio`` and ``h11`` protocols (``server.live.socket_writers.SendWire``
through ASGI's ``websocket.send``; the head bounded by h11's own limit; no request
timeout).

The choice is made, and logged once, by ``server.store.fast_paths.choose``, as the
Redis fast path's is; ``SPLENDOR_PUBLIC_PATHS=1`` forces the public path.
"""

from __future__ import annotations

from typing import Any, Final

from server.store.fast_paths import choose, missing_members
from server.web.head_limits import MAX_HEAD_BYTES

__all__ = ["uvicorn_fast", "uvicorn_protocols", "uvicorn_shortfall"]

# What our protocols use of uvicorn's: methods (called or overridden), and attributes
# their code reads that uvicorn's code assigns.
WS_METHODS: Final = (
    "data_received",
    "send_receive_event_to_app",
    "handle_connect",
    "handle_parser_exception",
    "connection_lost",
    "start_keepalive",
)
WS_ATTRIBUTES: Final = (
    "transport",
    "conn",
    "frames",
    "curr_msg_data_type",
    "handshake_initiated",
    "handshake_complete",
    "close_sent",
    "disconnected",
    "writable",
    "queue",
    "scope",
    "request",
    "response",
)
HTTP_METHODS: Final = (
    "connection_made",
    "connection_lost",
    "data_received",
    "handle_websocket_upgrade",
    "on_message_begin",
    "on_url",
    "on_header",
    "on_headers_complete",
    "on_message_complete",
    "_unset_keepalive_if_required",
    "_should_upgrade",
    "_unsupported_upgrade_warning",
)
HTTP_ATTRIBUTES: Final = ("parser", "url", "cycle", "loop", "transport", "logger")


def uvicorn_shortfall(ws_class: type | None = None, http_class: type | None = None) -> str | None:
    """What ``server.live.websocket_protocol`` and ``server.web.http_protocol`` need and
    the installed uvicorn lacks (None: nothing)."""
    try:
        from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
        from uvicorn.protocols.websockets.websockets_sansio_impl import (
            WebSocketsSansIOProtocol,
        )

        import server.live.websocket_protocol
        import server.web.http_protocol  # noqa: F401  # their own imports work
    except ImportError as e:
        return f"cannot import them ({e})"
    ws_class = ws_class or WebSocketsSansIOProtocol
    http_class = http_class or HttpToolsProtocol
    missing = missing_members(ws_class, WS_METHODS, WS_ATTRIBUTES) + missing_members(
        http_class, HTTP_METHODS, HTTP_ATTRIBUTES
    )
    if missing:
        return "missing " + ", ".join(missing)
    if not all(status in STATUS_LINE for status in (400, 408, 414, 431)):
        return "httptools_impl.STATUS_LINE lacks a status it answers"
    return None


def uvicorn_fast() -> bool:
    """Whether this process runs uvicorn with our protocols."""
    return choose("uvicorn_protocols", "uvicorn", uvicorn_shortfall)


def uvicorn_protocols(request_timeout: float) -> dict[str, Any]:
    """uvicorn's ``http`` and ``ws`` options: ours, or uvicorn's own."""
    if uvicorn_fast():
        # Imported only after the check: on a uvicorn without what they extend, their
        # imports fail, and the public path is taken instead.
        from server.live.websocket_protocol import FrameWritingProtocol
        from server.web.http_protocol import GuardedHttpProtocol

        return {
            "http": GuardedHttpProtocol.with_timeout(request_timeout),
            "ws": FrameWritingProtocol,
        }
    return {
        "http": "h11",
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "ws": "websockets-sansio",
    }
