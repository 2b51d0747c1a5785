"""uvicorn's httptools protocol with a request timeout and head size limits (see
``server.web.connections``): it overrides uvicorn's parser callbacks and reads its
internals (``parser``, ``url``, ``cycle``...), so ``server.web.socket_fast_paths``
checks they are there before ``splendor serve`` uses it, and uses uvicorn's own h11
protocol otherwise.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import httptools
import msgspec
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from events.reasons import Reason
from server.common.sentences import sentence
from server.web.head_limits import (
    MAX_HEAD_BYTES,
    MAX_HEADER_BYTES,
    MAX_HEADER_LINE,
    MAX_HEADERS,
    MAX_REQUEST_TARGET,
)
from server.web.security_headers import RAW_HEADERS

__all__ = ["GuardedHttpProtocol", "error_response"]


class _Refused(Exception):
    """Raised from a parser callback to stop parsing a request refused for its size."""


def error_response(status: int, reason: Reason) -> bytes:
    """A whole HTTP response in the API's error shape, closing the connection, with
    the security headers every answer carries (server/web/security_headers.py). In
    English: the request's head, which would say another language, is what was
    refused."""
    body = msgspec.json.encode(
        {"code": "bad_request", "message": sentence(reason, "en"), "reason": reason.to_wire()}
    )
    return b"".join(
        [
            STATUS_LINE[status],
            b"content-type: application/json\r\n",
            b"content-length: %d\r\n" % len(body),
            b"content-language: en\r\n",
            RAW_HEADERS,
            b"connection: close\r\n\r\n",
            body,
        ]
    )


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a request timeout and head size limits."""

    request_timeout: ClassVar[float] = 10.0

    @classmethod
    def with_timeout(cls, seconds: float) -> type[GuardedHttpProtocol]:
        """This protocol with another request timeout (uvicorn takes a class)."""
        return type(cls.__name__, (cls,), {"request_timeout": seconds})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._request_timer: asyncio.TimerHandle | None = None
        self._in_head = True  # the head of a request is being read
        self._head_bytes = 0
        self._header_lines = 0
        self._header_bytes = 0
        self._began = False  # a byte of the current request has come
        self._refusal: tuple[int, Reason] | None = None

    # -- the connection

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._start_clock()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_clock()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        # uvicorn's, with the refusals for size: a refusal raised in a callback stops
        # the parser before the request reaches the app.
        if self._refusal is not None or self.parser is None:
            return
        self._unset_keepalive_if_required()
        if self._in_head:
            self._head_bytes += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        except httptools.HttpParserError:
            if self._refusal is not None:
                self._refuse(*self._refusal)
                return
            self.logger.warning("Invalid HTTP request received.")
            self._refuse(400, Reason("http.bad_request"))  # the API's error shape, not text
            return
        if self._in_head and self._head_bytes > MAX_HEAD_BYTES:
            self._refuse(431, Reason("http.headers_too_large", {"most": MAX_HEADER_BYTES}))

    def handle_websocket_upgrade(self) -> None:
        self._stop_clock()  # the upgrade request is whole; the socket has pings
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]  # it holds our callbacks: a cycle

    # -- parser callbacks

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._began = True
        self._in_head = True
        self._header_lines = 0
        self._header_bytes = 0
        if self._request_timer is None:
            self._start_clock()

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > MAX_REQUEST_TARGET:
            self._refusal = (414, Reason("http.target_too_long", {"most": MAX_REQUEST_TARGET}))
            raise _Refused

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_lines += 1
        if self._header_lines > MAX_HEADERS:
            self._refusal = (431, Reason("http.too_many_headers", {"most": MAX_HEADERS}))
            raise _Refused
        line = len(name) + len(value) + 2
        if line > MAX_HEADER_LINE:
            self._refusal = (431, Reason("http.header_line_too_long", {"most": MAX_HEADER_LINE}))
            raise _Refused
        self._header_bytes += line
        if self._header_bytes > MAX_HEADER_BYTES:
            self._refusal = (431, Reason("http.headers_too_large", {"most": MAX_HEADER_BYTES}))
            raise _Refused
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._head_bytes = 0
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._stop_clock()
        self._began = False
        super().on_message_complete()

    # -- the clock

    def _start_clock(self) -> None:
        self._request_timer = self.loop.call_later(self.request_timeout, self._timed_out)

    def _stop_clock(self) -> None:
        timer, self._request_timer = self._request_timer, None
        if timer is not None:
            timer.cancel()

    def _timed_out(self) -> None:
        self._request_timer = None
        if self.transport.is_closing():
            return
        answered = self.cycle is not None and self.cycle.response_started
        if self._began and not answered:
            timeout = Reason("http.too_slow", {"most": self.request_timeout})
            self._refuse(408, timeout)
        else:
            self.transport.close()

    def _refuse(self, status: int, reason: Reason) -> None:
        self._refusal = (status, reason)
        self._stop_clock()
        self.transport.write(error_response(status, reason))
        self.transport.close()
