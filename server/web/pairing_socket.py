"""Quick pairing's websocket: ``/ws/pairing?variant=…&clock=…&name=…[&players=…]
[&rated=…][&ticket=…]``, and ``GET /api/pairing/pools``: who waits where.

The socket is the player's place in the pool: it gets ``waiting`` (with its ticket)
at once, then ``paired`` (the game, its seat and its seat token) when the desk has
made the game, and is closed with 1000. ``{"type": "cancel"}`` leaves the pool
(``cancelled``, then 1000), unless the pairing came first (then ``paired`` answers
it). A socket that drops leaves its entry for the grace (``GRACE_MS``): connecting
again with ``ticket`` takes the same place back, or gets the ``paired`` made
meanwhile. An account (a session cookie) waits in the rated pool unless it asks
for the casual one (``rated=0``), which guests and accounts share; a guest waits in
the casual one. ``{"type": "fill"}`` accepts bots in the seats a table of three or
four has left. docs/pairing.md has every message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

import msgspec
from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from server.common import wire
from server.common.background import in_task
from server.common.errors import ServiceError, bad_request, missing_token, unavailable
from server.common.wire import iso_time
from server.games.service import GameService
from server.players.pairing_desk import Desk, Ticket, ratings_of
from server.players.pairing_pools import Paired, PairingStore, new_ticket, seat_token
from server.players.pairing_rules import CLOCKS, GRACE_MS, POOLS, Pool, pool_of
from server.store.availability import StoreUnavailable
from server.store.clients import RedisClient
from server.web.drain import CLOSE_RESTART, RESTART_REASON
from server.web.game_socket import PingMessage
from server.web.languages import request_language
from server.web.request_parts import client_address, json
from server.web.sessions import session_account
from server.web.state import parts, running

__all__ = ["http_routes", "routes", "running_pairing_desk"]

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES: Final = 4096
CLOSE_DONE: Final = 1000
_encode = msgspec.json.Encoder().encode
_CLOCK_NAMES: Final = ", ".join(f"{i // 60}+{s}" for i, s in CLOCKS)
POOLS_FRESH_S: Final = 1.0  # A process answers the pools' counts from memory this long.


class CancelMessage(
    msgspec.Struct, frozen=True, tag="cancel", tag_field="type", forbid_unknown_fields=True
):
    pass


class FillMessage(
    msgspec.Struct, frozen=True, tag="fill", tag_field="type", forbid_unknown_fields=True
):
    pass


_decode_message = msgspec.json.Decoder(CancelMessage | PingMessage | FillMessage).decode


def _error(error: ServiceError, lang: str) -> str:
    """PROTOCOL.md's ``error`` message, its sentence in the socket's language."""
    return _encode({"type": "error", **error.to_wire(lang)}).decode()


async def account_of(websocket: WebSocket) -> str | None:
    """The account of the socket's session cookie (None: a guest); another site's page
    can't use the session (``Origin``: 403 ``unauthorized``, docs/accounts.md)."""
    return await session_account(websocket)


def chosen_pool(websocket: WebSocket, account: str | None) -> Pool:
    """The pool a socket asks for (``variant``, ``clock``, ``players``: 2 unless
    given): rated for an account unless it asks ``rated=0``, casual for a guest (a
    guest asking ``rated=1`` is refused)."""
    params = websocket.query_params
    variant = params.get("variant", "")
    # A "+" left unescaped in a query string reads as a space: "5 3" is 5+3.
    clock = params.get("clock", "").replace(" ", "+")
    raw_players = params.get("players", "2")
    players = int(raw_players) if raw_players in ("2", "3", "4") else 0
    asked = params.get("rated")
    if asked == "1" and account is None:
        raise missing_token("pairing.rated_needs_account")
    rated = account is not None and asked != "0"
    pool = pool_of(variant, players, clock, rated)
    if pool is None and pool_of(variant, 2, clock, rated) is not None:
        raise bad_request("pairing.players", value=raw_players, variant=variant)
    if pool is None:
        raise bad_request("pairing.no_pool", clocks=_CLOCK_NAMES, variant=variant, clock=clock)
    return pool


def _name(websocket: WebSocket, account: str | None) -> str:
    if account is not None:
        return account
    name, _ = wire.player_name(wire.JoinSeat(name=websocket.query_params.get("name", "")))
    return name


def _ticket(websocket: WebSocket) -> str:
    ticket = websocket.query_params.get("ticket") or ""
    if ticket == "":
        return new_ticket()
    if not 16 <= len(ticket) <= 64 or not ticket.isascii():
        raise bad_request("pairing.ticket")
    return ticket


def paired_message(held: Ticket, paired: Paired) -> str:
    """What the player is told of its game: the seat token only its ticket gives."""
    message: dict[str, Any] = {
        "type": "paired",
        "game": paired.game,
        "seat": paired.seat,
        "token": seat_token(held.ticket),
        "rated": paired.rated,
        "opponent": {"name": paired.opponent, "rating": paired.opponent_rating},
        "others": [{"name": o.name, "rating": o.rating, "bot": o.bot} for o in paired.others],
    }
    return _encode(message).decode()


class PairingSession:
    """One waiting socket: its ticket, its messages, its end."""

    def __init__(self, websocket: WebSocket, desk: Desk, held: Ticket, lang: str = "en") -> None:
        self.websocket = websocket
        self.desk = desk
        self.held = held
        self.lang = lang  # of its error messages (server/web/languages.py)
        self.cancelling = False  # the player sent cancel: the reader answers it

    async def close_for_restart(self) -> None:
        """The process drains: 1012; the client comes back with its ticket elsewhere."""
        await _close(self.websocket, CLOSE_RESTART, RESTART_REASON)

    async def run(self) -> None:
        reader = asyncio.ensure_future(self._read())
        try:
            waits: set[asyncio.Future[Any]] = {reader, self.held.paired}
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if self.held.paired.done() and not self.held.paired.cancelled():
                error = self.held.paired.exception()
                if isinstance(error, ServiceError):  # the account waits elsewhere now
                    await _close(
                        self.websocket, 4000 + error.status, error.code, _error(error, self.lang)
                    )
                else:
                    message = paired_message(self.held, self.held.paired.result())
                    await _close(self.websocket, CLOSE_DONE, "paired", message)
            elif self.cancelling:
                # Leaving the pool forgot the ticket (its future cancelled): the
                # reader is sending "cancelled" and closing; let it finish.
                with contextlib.suppress(asyncio.CancelledError):
                    await reader
            elif self.held.paired.cancelled() and not reader.done():
                # Another socket took this ticket's place.
                await _close(self.websocket, CLOSE_DONE, "replaced by another connection")
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            self.desk.forget(self.held)

    async def _read(self) -> None:
        while True:
            message = await self.websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("text") or message.get("bytes") or b""
            raw = raw.encode() if isinstance(raw, str) else raw
            if len(raw) > MAX_MESSAGE_BYTES:
                await self._send(
                    _error(
                        bad_request("request.message_too_large", most=MAX_MESSAGE_BYTES),
                        self.lang,
                    )
                )
                continue
            try:
                decoded = wire.decode_with(_decode_message, raw, "message")
            except ServiceError as e:
                await self._send(_error(e, self.lang))
                continue
            if isinstance(decoded, PingMessage):
                await self._send('{"type":"pong"}')
                continue
            if isinstance(decoded, FillMessage):
                try:
                    if await self.desk.fill(self.held):
                        await self._send('{"type":"filling"}')
                except ServiceError as e:
                    await self._send(_error(e, self.lang))
                continue
            self.cancelling = True
            if await self.desk.cancel(self.held):
                await _close(self.websocket, CLOSE_DONE, "cancelled", '{"type":"cancelled"}')
            else:
                await self._too_late_to_cancel()
            return

    async def _too_late_to_cancel(self) -> None:
        """Cancel came after the claim: the pairing it lost to is told within a tick
        or two; if nothing comes the entry had left the pool: cancelled."""
        with contextlib.suppress(TimeoutError, asyncio.CancelledError, ServiceError):
            await asyncio.wait_for(asyncio.shield(self.held.paired), 2.0)
        if not self.held.paired.done():
            await _close(self.websocket, CLOSE_DONE, "cancelled", '{"type":"cancelled"}')

    async def _send(self, text: str) -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await self.websocket.send_text(text)


async def _close(websocket: WebSocket, code: int, reason: str, last: str | None = None) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        if last is not None:
            await websocket.send_text(last)
        await websocket.close(code, reason)


async def pairing_socket(websocket: WebSocket) -> None:
    """``/ws/pairing``: wait in a pool until paired or cancelled."""
    desk, drain = running(websocket).pairing, parts(websocket).drain
    assert desk is not None, "the pairing socket's route is served with its desk"
    await websocket.accept()
    if drain.draining:
        await _close(websocket, CLOSE_RESTART, RESTART_REASON)
        return
    lang = await request_language(websocket)
    try:
        # Each socket may make a seat: priced as one (docs/http-api.md, "Rate limits").
        parts(websocket).client_limits.spend_join(client_address(websocket))
        account = await account_of(websocket)
        pool = chosen_pool(websocket, account)
        name = _name(websocket, account)
        ticket = _ticket(websocket)
        held = await desk.join(pool, ticket, name, account)
        # The session checked again once the wait is named the account's: a "log out
        # everywhere" meanwhile either found it and took it out, or ended the session
        # before this look, and the wait is cancelled here (as a seat's token is).
        if account is not None and await account_of(websocket) is None:
            await desk.cancel(held)
            raise ServiceError("unauthorized", "account.session_ended", status=401)
    except ServiceError as e:
        await _close(websocket, 4000 + e.status, e.code, _error(e, lang))
        return
    except RedisError as e:
        if isinstance(e, StoreUnavailable):  # told first, as on the other sockets
            failure = unavailable(e)
            await _close(websocket, 4000 + failure.status, failure.code, _error(failure, lang))
            return
        log.warning("pairing socket not started, Redis failed: %r", e)
        await _close(websocket, 1011, "The server failed; reconnect.")
        return
    session = PairingSession(websocket, desk, held, lang)
    if not drain.admit(session):
        desk.forget(held)
        await _close(websocket, CLOSE_RESTART, RESTART_REASON)
        return
    waiting = {
        "type": "waiting",
        "pool": pool.name,
        "variant": pool.variant,
        "players": pool.players,
        "clock": pool.clock,
        "rated": pool.rated,
        "ticket": ticket,
        "since": iso_time(held.waiting.since_ms),
        "rating": held.waiting.rating if pool.rated else None,
        "grace_ms": GRACE_MS,
        "offer_after_ms": round(parts(websocket).settings.pairing_offer_after * 1000),
    }
    try:
        if not held.paired.done():
            await session._send(_encode(waiting).decode())
        await session.run()
    finally:
        drain.leave(session)


@asynccontextmanager
async def running_pairing_desk(client: RedisClient, service: GameService) -> AsyncIterator[Desk]:
    """The process's pairing desk, ticking for as long as the context lasts."""
    desk = Desk(PairingStore(client), service, ratings=ratings_of(client))
    async with in_task(desk.run(), name="pairing desk"):
        yield desk


async def pairing_pools(request: Request) -> Response:
    """``GET /api/pairing/pools``: how many wait in each pool, and how many people
    play now, on every process (a desk answers from memory for ``POOLS_FRESH_S``)."""
    now = time.monotonic()
    running_now = running(request)
    desk = running_now.pairing
    answer = None if desk is None else desk.pools_answer
    if answer is not None and now - answer[0] < POOLS_FRESH_S:
        return Response(answer[1], media_type="application/json")
    store = desk.store if desk is not None else PairingStore(running_now.redis)
    sizes = await store.sizes(POOLS)
    hubs = running_now.hubs
    playing = 0 if hubs is None else await hubs.hub_presence.presence.playing_everywhere()
    body = {
        "pools": [
            {
                "variant": pool.variant,
                "players": pool.players,
                "clock": pool.clock,
                "rated": pool.rated,
                "waiting": waiting,
            }
            for pool, waiting in zip(POOLS, sizes, strict=True)
        ],
        "playing": playing,
    }
    response = json(body)
    if desk is not None:
        desk.pools_answer = (now, bytes(response.body))
    return response


routes: list[BaseRoute] = [WebSocketRoute("/ws/pairing", pairing_socket)]
http_routes: list[BaseRoute] = [Route("/api/pairing/pools", pairing_pools, methods=["GET"])]
