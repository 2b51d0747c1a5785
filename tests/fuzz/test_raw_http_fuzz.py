"""Hypothesis over the raw bytes of HTTP requests (the request line and headers, before
any route sees them), against a live server: every answer is an HTTP status below 500
in the API's error shape, and the server closes the connection or keeps it usable."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from server.common.errors import STATUS
from server.common.settings import Settings
from tests.server.test_connection_timeouts import send_raw, status_and_body
from tests.server.ws_helpers import LiveServer, live_server

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
ANSWERS = set(STATUS.values()) | {200, 201, 403, 405, 408, 414, 426, 431}
END = b"Host: t\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"

methods = st.sampled_from([b"GET", b"POST", b"PUT", b"DELETE", b"HEAD", b"OPTIONS", b"BREW"])
no_line_end = st.binary(max_size=60).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))
paths = st.one_of(
    st.from_regex(rb"\A[A-Za-z0-9/%._~?&=+-]{0,40}\Z"),
    st.sampled_from([b"games", b"games/nosuchgame/view?version=%ff", b"games?limit=-1"]),
    no_line_end.map(lambda b: b.replace(b" ", b"%20")),
)
request_lines = st.one_of(
    no_line_end,
    st.builds(
        lambda method, path, version: method + b" /api/" + path + b" HTTP/" + version,
        methods,
        paths,
        st.sampled_from([b"1.1", b"1.1", b"1.0", b"2", b"9.9", b"", b"1.1x"]),
    ),
)
header_names = st.one_of(
    st.sampled_from([b"Authorization", b"Content-Type", b"Accept", b"X-Forwarded-For", b"Cookie"]),
    st.from_regex(rb"\A[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}\Z"),
    no_line_end,
)
header_lines = st.lists(
    st.builds(lambda name, value: name + b": " + value, header_names, no_line_end), max_size=4
)


@pytest.fixture
async def server(redis_client: Any, redis_server: str) -> AsyncIterator[LiveServer]:
    """A live server with a 1 s request timeout (a request left incomplete ends soon)."""
    settings = Settings(redis_url=redis_server, request_timeout=1.0).without_rate_limits()
    async with live_server(settings) as live:
        yield live


@FUZZ
@given(line=request_lines, headers=header_lines)
@example(line=b"\xff\xfe\x00", headers=[])
@example(line=b"GET /api/games/%ff%fe HTTP/1.1", headers=[b"Authorization: Bearer \xff"])
@example(line=b"POST /api/games HTTP/1.1", headers=[b"Content-Type: \x00\x01"])
async def test_any_request_head_is_answered_in_the_api_shape(
    server: LiveServer, line: bytes, headers: list[bytes]
) -> None:
    """Any request line and header lines (bytes of any value but line ends): a status below 500 with {"code", "message", "reason"} for an error, then the connection closed."""
    head = line + b"\r\n" + b"".join(h + b"\r\n" for h in headers) + END
    answer = await send_raw(server, head)
    assert answer.startswith(b"HTTP/1.1 "), answer[:80]
    status = int(answer.split(b" ")[1])
    assert status in ANSWERS, answer[:200]
    if status >= 400 and line.startswith(b"HEAD "):  # the answer to HEAD has no body
        assert b"content-type: application/json" in answer.lower()
    elif status >= 400:
        _, error = status_and_body(answer)
        assert set(error) == {"code", "message", "reason"} and error["code"] in STATUS
