"""The parts of a request that every handler reads the same way, whichever route or
socket it serves: the JSON answer, the client's address and its budgets, the seat a
token holds, the body within its size limit, the bearer token, an integer query
parameter. A module of its own below the routes, so that the HTTP API, the account,
player, seat and QR routes, the metrics and both websockets share them without
importing one another.
"""

from __future__ import annotations

import ipaddress
from typing import Any

import msgspec
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response

from server.common.errors import bad_request, forbidden
from server.web.rate_limits import ClientLimits
from server.web.state import parts, running

__all__ = [
    "bearer_token",
    "budget_key",
    "client_address",
    "client_limits",
    "int_param",
    "json",
    "read_body",
    "seat_for_token",
]

_encoder = msgspec.json.Encoder()


def json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON answer, encoded with msgspec."""
    return Response(_encoder.encode(body), status, headers, media_type="application/json")


def client_address(conn: HTTPConnection) -> str:
    """The client as its budgets count it (rate limits, log-in limits): the peer's
    address (or X-Forwarded-For's, from a trusted proxy), an IPv6 one by its /64. A
    subscriber gets a whole /64 and picks any address in it: counted one by one, its
    addresses would be a fresh address at every request, for free."""
    if not conn.client:
        return "unknown"
    return budget_key(conn.client.host)


def budget_key(host: str) -> str:
    """``host`` as budgets count it: an IPv6 address's /64 (``2001:db8:1:2::/64``), an
    IPv4 one as it is (an IPv4 mapped into IPv6 too), anything else unchanged."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def client_limits(conn: HTTPConnection) -> ClientLimits:
    """The process's budgets of requests per client."""
    return parts(conn).client_limits


async def seat_for_token(
    conn: HTTPConnection, game_id: str, token: str | None, *, verify: bool = True
) -> int | None:
    """The token's seat (None: a spectator), a request's or a websocket's; a token is
    checked within its address's budget of failed authentications (``verify``:
    ``Seats.seat_for_token``)."""
    service = running(conn).service
    if token is None:
        return await service.seats.seat_for_token(game_id, None)
    return await client_limits(conn).authenticate(
        client_address(conn), lambda: service.seats.seat_for_token(game_id, token, verify=verify)
    )


async def read_body(request: Request) -> bytes:
    """The request body, refused (400) past the size limit without reading it all."""
    limit = parts(request).settings.max_body_bytes
    too_large = bad_request("request.body_too_large", most=limit)
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise bad_request("request.length_not_a_number") from None
        if size > limit:
            raise too_large
    body = bytearray()
    async for chunk in request.stream():  # also counted: a length may be absent or lie
        body += chunk
        if len(body) > limit:
            raise too_large
    return bytes(body)


def bearer_token(request: Request) -> str | None:
    """The seat token of ``Authorization: Bearer <token>``, None without the header."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise forbidden("token.header")
    return token.strip()


def int_param(request: Request, name: str, default: int | None) -> int | None:
    """The query parameter ``name`` as an integer, ``default`` when it is absent, and a
    400 when it is not an integer."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise bad_request("request.not_an_integer", name=name, value=raw) from None
