"""How large a request's head may be (``server.web.connections`` says what is answered
past each limit). A module of its own, below both the protocol that enforces the limits
(``server.web.http_protocol``) and the options that choose that protocol
(``server.web.socket_fast_paths``), so neither imports the other for them.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "MAX_HEADERS",
    "MAX_HEADER_BYTES",
    "MAX_HEADER_LINE",
    "MAX_HEAD_BYTES",
    "MAX_REQUEST_TARGET",
]

# Below the websockets library's own limits (8192 bytes a line, 128 headers), so an
# upgrade request that passes here is read whole by it too.
MAX_REQUEST_TARGET: Final = 8000
MAX_HEADER_LINE: Final = 8000
MAX_HEADERS: Final = 100
MAX_HEADER_BYTES: Final = 16 * 1024  # every header line, in all
# The raw bytes of a head not yet whole: the largest head allowed, and some room.
MAX_HEAD_BYTES: Final = MAX_REQUEST_TARGET + MAX_HEADER_BYTES + 1024
