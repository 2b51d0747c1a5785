"""The websocket of PROTOCOL.md: ``/ws/games/{id}?token=…&since=N``.

A socket watches one game. It gets a snapshot (or, with ``since``, the diffs it
missed), then one diff per event, through the process's hub of that game
(``server.live.hubs``). It may send commands, which go through the game service exactly as
``POST /commands`` does (same checks in the same order, same idempotency, same
errors), ``resync`` for a fresh snapshot, ``ping``, and ``chat`` messages
(server/games/chat.py: checked here, kept and signalled to every process's hubs).

A message that cannot be understood gets an ``error`` and the socket stays open. A
message larger than 64 KiB closes it with 1009 (the server is also run with
``ws_max_size=65536`` so uvicorn refuses it before it is read whole). A socket that
cannot start (unknown game, bad token, bad ``since``) gets one ``error`` and is closed
with 4000 + the HTTP status of that error (4400, 4403, 4404); so is a seat's socket
once its token is replaced (``unauthorized``, 4403: server/games/seat_tokens.py).
docs/live.md tells all.

``server.web.app.create_app`` picks this module up by itself: ``routes`` and ``lifespan``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, Final, TypeVar

import msgspec
from redis.exceptions import MaxConnectionsError, RedisError
from starlette.routing import BaseRoute, WebSocketRoute
from starlette.types import Receive, Scope
from starlette.types import Send as ASGISend
from starlette.websockets import WebSocket, WebSocketDisconnect

from events.game import Variant
from server.common import wire
from server.common.errors import ServiceError, bad_request, missing_token, rate_limited, unavailable
from server.common.settings import ChatMode, Settings
from server.games.chat import (
    HISTORY,
    MAX_CHAT_ID,
    ROOMS,
    ChatStore,
    Preset,
    SocketChat,
    chat_text,
    check_chat_id,
    new_message,
    wire_of,
)
from server.games.projection import LoggedEvent, token_digest
from server.games.service import GameService
from server.live.hub_registry import HubRegistry
from server.live.hubs import CLOSE_INTERNAL, Hub
from server.live.outbox import Outbox
from server.live.socket_writers import Inbox, Wire, inbox_for, wire_for
from server.players.accounts import (
    COOKIE,
    accounts_named,
    deleted_among,
    mask_entries,
    masked_log,
)
from server.store.availability import StoreUnavailable
from server.store.clients import RedisClient, tail_client
from server.web.drain import CLOSE_RESTART, RESTART_REASON, Drain
from server.web.languages import request_language
from server.web.rate_limits import RateLimiter
from server.web.request_parts import seat_for_token
from server.web.sessions import session_account
from server.web.state import parts, running

__all__ = ["MAX_MESSAGE_BYTES", "live_hubs", "routes"]

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES: Final = 64 * 1024
CLOSE_TOO_BIG: Final = 1009
POOL_RETRIES: Final = 20  # ~1 s in all

T = TypeVar("T")


class CommandMessage(
    msgspec.Struct, frozen=True, tag="command", tag_field="type", forbid_unknown_fields=True
):
    command_id: str
    action: msgspec.Raw
    expected_version: int | None = None


class ResyncMessage(
    msgspec.Struct, frozen=True, tag="resync", tag_field="type", forbid_unknown_fields=True
):
    pass


class PingMessage(
    msgspec.Struct, frozen=True, tag="ping", tag_field="type", forbid_unknown_fields=True
):
    pass


class ChatMessage(
    msgspec.Struct, frozen=True, tag="chat", tag_field="type", forbid_unknown_fields=True
):
    chat_id: str
    text: str | None = None
    preset: Preset | None = None


ClientMessage = CommandMessage | ResyncMessage | PingMessage | ChatMessage

_decode_message = msgspec.json.Decoder(ClientMessage).decode
_encode = msgspec.json.Encoder().encode
_PONG: Final = b'{"type":"pong"}'


def _error(
    error: ServiceError, lang: str, command_id: str | None = None, id_field: str = "command_id"
) -> bytes:
    """PROTOCOL.md's ``error`` message, its sentence in the socket's language, with
    the id of the command (or ``chat_id`` of the chat message) it refuses."""
    message: dict[str, Any] = {"type": "error", **error.to_wire(lang)}
    if command_id is not None:
        message[id_field] = command_id
    return _encode(message)


class _IdsOnly(msgspec.Struct, frozen=True):
    """What ``_ids_of`` reads of a refused message (other fields skipped)."""

    type: Any = None
    command_id: Any = None
    chat_id: Any = None


_decode_ids = msgspec.json.Decoder(_IdsOnly).decode


def _ids_of(raw: bytes) -> tuple[str, str] | None:
    """The id field and id of a command or chat message refused as malformed, if it
    has a usable one: ``("command_id", id)`` or ``("chat_id", id)``."""
    try:
        data = wire.decode_with(_decode_ids, raw)
    except ServiceError:
        return None
    if data.type == "command":
        found, most, field = data.command_id, wire.MAX_COMMAND_ID, "command_id"
    elif data.type == "chat":
        found, most, field = data.chat_id, MAX_CHAT_ID, "chat_id"
    else:
        return None
    usable = isinstance(found, str) and 0 < len(found) <= most
    return (field, found) if usable else None


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


async def _pool_retry(call: Callable[[], Awaitable[T]]) -> T:
    """``call()``, tried again a few times while the Redis pool has no free connection.

    That error comes before anything is sent to Redis (and commands are idempotent
    by their id anyway): a burst of sockets should wait a moment, not be dropped.
    The store gives it as ``StoreUnavailable`` caused by redis-py's ``MaxConnectionsError``.
    """
    for attempt in range(POOL_RETRIES):
        try:
            return await call()
        except StoreUnavailable as e:
            if not isinstance(e.cause, MaxConnectionsError) or attempt == POOL_RETRIES - 1:
                raise
            await asyncio.sleep(0.005 * (attempt + 1))
    raise AssertionError("unreachable")


def _since(raw: str | None) -> int | None:
    if raw is None or raw == "":
        return None
    try:
        since = int(raw)
    except ValueError:
        raise bad_request("request.since", value=raw) from None
    if since < 0:
        raise bad_request("request.since_negative")
    return since


class _Session:
    """One socket's reading side: what the client sends, answered in order."""

    def __init__(
        self,
        websocket: WebSocket,
        service: GameService,
        limiter: RateLimiter,
        outbox: Outbox[Hub],
        token: str | None,
        inbox: Inbox | None = None,
        drain: Drain | None = None,
        chat: ChatStore | None = None,
        chat_mode: ChatMode = "off",
        account: str | None = None,
    ) -> None:
        self.websocket = websocket
        self.chat = chat if chat_mode != "off" else None
        self.chat_mode = chat_mode
        self._chat_limits: SocketChat | None = None  # made at the socket's first line
        # A spectator's name in chat (name, account, guest): its account's if it is
        # signed in, else a guest's, drawn at its first message.
        self.speaker: tuple[str, str | None, int | None] | None = (
            None if account is None else (account, account, None)
        )
        self.drain = drain or Drain()
        self.inbox = inbox
        self.service = service
        self.limiter = limiter
        self.outbox = outbox
        self.token = token
        self.digest = None if token is None else token_digest(token)
        self.game_id = outbox.hub.game_id
        self.variant = outbox.hub.variant.name

    @property
    def chat_limits(self) -> SocketChat:
        """The socket's chat limits, made when it first chats: most sockets of a big
        audience never do, and the limits' deque costs 760 bytes."""
        if self._chat_limits is None:
            self._chat_limits = SocketChat()
        return self._chat_limits

    async def run(self) -> None:
        inbox = self.inbox
        while True:
            if inbox is not None:
                received = await inbox.get()
                if received is None:
                    return
                raw = received
            else:
                message = await self.websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                text = message.get("text")
                raw = text.encode() if text is not None else (message.get("bytes") or b"")
            if len(raw) > MAX_MESSAGE_BYTES:
                await _close(
                    self.websocket,
                    CLOSE_TOO_BIG,
                    f"A message may have at most {MAX_MESSAGE_BYTES} bytes.",
                )
                return
            await self._handle(raw)

    async def _handle(self, raw: bytes) -> None:
        try:
            message = wire.decode_with(_decode_message, raw, "message")
        except ServiceError as e:
            ids = _ids_of(raw)
            refusal = _error(e, self.outbox.lang, *(() if ids is None else (ids[1], ids[0])))
            await self.outbox.reply(refusal)
            return
        if isinstance(message, PingMessage):
            await self.outbox.reply(_PONG)
        elif isinstance(message, ResyncMessage):
            self.outbox.reset()
        elif isinstance(message, ChatMessage):
            await self._chat(message)
        elif self.drain.take_command():
            try:
                await self._command(message)
            finally:
                self.drain.command_done()
        # else the process is draining: the command is left unanswered, and the client
        # sends it again (same command_id) on the socket it opens elsewhere.

    async def _chat(self, message: ChatMessage) -> None:
        """A chat message, checked and kept (its room's readers are sent it by their
        hubs, this socket's too), or refused with ``chat_id``: the socket stays open."""
        chat_id = message.chat_id
        usable_id = chat_id if 0 < len(chat_id) <= MAX_CHAT_ID else None
        try:
            if self.chat is None:
                raise bad_request("chat.off")
            check_chat_id(chat_id)
            if (message.text is None) == (message.preset is None):
                raise bad_request("chat.text_or_preset")
            text: str | None = None
            if message.text is not None:
                if self.chat_mode == "presets":
                    raise bad_request("chat.presets_only")
                text = chat_text(message.text)
                said = "text:" + text
            else:
                said = f"preset:{message.preset}"
            now = _now_ms()
            self.chat_limits.check(said, now)
            hub, viewer = self.outbox.hub, self.outbox.viewer
            if viewer is None:
                name, account, guest = self._spectator()
            else:
                player = hub.state.players[viewer]
                name, account, guest = player.name, player.account, None
            kept = new_message(
                "spectators" if viewer is None else "players",
                viewer,
                name,
                now,
                text=text,
                preset=message.preset,
                account=account,
                guest=guest,
            )
            await self.chat.post(self.game_id, kept, hub.ended_ms)
            self.chat_limits.taken(said, now)
        except ServiceError as e:
            await self.outbox.reply(_error(e, self.outbox.lang, usable_id, "chat_id"))
        except RedisError as e:  # Not kept: the client may send it again.
            log.warning("a chat message of %s not kept: %r", self.game_id, e)
            await self.outbox.reply(_error(unavailable(e), self.outbox.lang, usable_id, "chat_id"))

    def _spectator(self) -> tuple[str, str | None, int | None]:
        """A spectator's name in chat: its account's, when the socket came with a
        session from the server's own pages (``_spectator_account``), else
        ``Guest <n>``, n drawn once a socket (docs/chat.md)."""
        if self.speaker is None:
            guest = 1000 + secrets.randbelow(9000)
            self.speaker = (f"Guest {guest}", None, guest)
        return self.speaker

    async def close_for_restart(self) -> None:
        """The process is draining: 1012, after what was written (answers included)."""
        await self.outbox.wire.drained(0)
        await _close(self.websocket, CLOSE_RESTART, RESTART_REASON)

    async def _command(self, message: CommandMessage) -> None:
        command_id = message.command_id
        try:
            if self.token is None:
                raise missing_token("token.spectator")
            wait = self.limiter.allow(f"token:{self.token}")
            if wait is not None:
                raise rate_limited(wait)
            seat = self.outbox.viewer
            assert seat is not None
            wire.check_command(wire.Command(command_id, message.action, message.expected_version))
            action = wire.decode_action(self.variant, bytes(message.action))
            result = await _pool_retry(
                lambda: self.service.submit(
                    self.game_id, seat, command_id, action, message.expected_version, self.digest
                )
            )
        except ServiceError as e:
            refusal = _error(e, self.outbox.lang, command_id if command_id else None)
            if e.code == "unauthorized" and self.digest is not None:
                # The seat's token was replaced: this socket sees the seat's view no
                # more either. Told why, and closed (4403) like a socket refused at start.
                self.outbox.abandon(4000 + e.status, e.code, refusal)
                return
            await self.outbox.reply(refusal)
            return
        except StoreUnavailable as e:
            # Answered, then the socket is closed (``_close_for_store``): the client
            # sends the command again on the socket it opens next.
            await self.outbox.reply(_error(unavailable(e), self.outbox.lang, command_id))
            raise
        ack = {"type": "ack", "command_id": command_id, "version": result.version}
        await self.outbox.reply(_encode(ack))


async def _close(websocket: WebSocket, code: int, reason: str, last: bytes | None = None) -> None:
    """Send ``last`` (if any) and close, unless the client has gone already."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        if last is not None:
            await websocket.send_text(last.decode())
        await websocket.close(code, reason)


async def _close_for_store(websocket: WebSocket, error: RedisError, lang: str) -> None:
    """Redis can't be reached (``StoreUnavailable``, server/store/availability.py):
    ``unavailable`` and 4503, so the client backs off and reconnects. Any other Redis
    error is a fault of ours: 1011."""
    if isinstance(error, StoreUnavailable):
        failure = unavailable(error)
        await _close(websocket, 4000 + failure.status, failure.code, _error(failure, lang))
    else:
        log.error("Redis refused a call of a socket: %r", error)
        await _close(websocket, CLOSE_INTERNAL, "The server failed; reconnect.")


async def _spectator_account(websocket: WebSocket) -> str | None:
    """The account a spectator's socket is signed in as, if any: its session cookie
    sent from this server's own pages (another site's page watches unnamed)."""
    if COOKIE not in websocket.cookies:
        return None  # A guest: no read of Redis.
    try:
        return await session_account(websocket)
    except ServiceError:
        return None


async def game_socket(websocket: WebSocket, wire: Wire, inbox: Inbox | None = None) -> None:
    """``/ws/games/{game_id}``: a player (``?token=``) or a spectator watching a game.
    Its messages come from ``inbox`` when the server offers one, else from ASGI."""
    app_parts, now = parts(websocket), running(websocket)
    service, hubs, drain = now.service, now.hubs, app_parts.drain
    assert hubs is not None, "the game socket's route is served with its hubs (live_hubs)"
    game_id: str = websocket.path_params["game_id"]
    await websocket.accept()
    if drain.draining:  # this process is stopping: the client goes elsewhere at once
        await _close(websocket, CLOSE_RESTART, RESTART_REASON)
        return
    token = websocket.query_params.get("token") or None
    # ?lang= on the socket's URL (the page always sends it), else as for a request.
    lang = await request_language(websocket)
    try:
        since = _since(websocket.query_params.get("since"))
        viewer = await _pool_retry(lambda: seat_for_token(websocket, game_id, token))
        # A spectator signed in is named in the audience (PROTOCOL.md).
        account = None if viewer is not None else await _spectator_account(websocket)
        outbox = await _pool_retry(
            lambda: hubs.watch(
                game_id,
                viewer,
                since,
                wire,
                websocket.close,
                None if token is None else token_digest(token),
                account,
            )
        )
    except ServiceError as e:
        await _close(websocket, 4000 + e.status, e.code, _error(e, lang))
        return
    except RedisError as e:
        log.warning("socket on %s not started, Redis failed: %r", game_id, e)
        await _close_for_store(websocket, e, lang)
        return
    outbox.lang = lang
    session = _Session(
        websocket,
        service,
        app_parts.rate_limiter,
        outbox,
        token,
        inbox,
        drain,
        now.chat,
        app_parts.settings.chat,
        account,
    )
    if not drain.admit(session):  # the drain began while the socket was starting
        await _close(websocket, CLOSE_RESTART, RESTART_REASON)
        await hubs.leave(outbox)
        return
    try:
        await session.run()
    except RedisError as e:
        # The command may or may not be written: the client resends it (same id) on
        # the socket it reconnects, and gets the one answer.
        log.warning("Redis failed on the socket of %s: %r", game_id, e)
        await _close_for_store(websocket, e, lang)
    finally:
        drain.leave(session)
        await hubs.leave(outbox)


class GameSocketApp:
    """The ASGI app of ``/ws/games/{game_id}``. Messages go out through a
    ``server.live.socket_writers`` wire: frames written straight to the connection where the
    server offers it (``splendor serve`` does), else the server's own ``send``
    without Starlette's per-message wrapper; they come in through the connection's
    ``Inbox`` where offered, else ASGI's ``receive``. It is the hottest path."""

    async def __call__(self, scope: Scope, receive: Receive, send: ASGISend) -> None:
        async def send_text(text: str) -> None:
            await send({"type": "websocket.send", "text": text})

        wire = wire_for(scope, send_text)
        inbox = inbox_for(scope)
        try:
            await game_socket(WebSocket(scope, receive=receive, send=send), wire, inbox)
        finally:
            wire.close()


@asynccontextmanager
async def live_hubs(
    service: GameService, client: RedisClient, settings: Settings
) -> AsyncIterator[HubRegistry]:
    """The process's hubs, on the service's Redis, for as long as the context lasts.

    They load games through the service, so they are made after it: their hooks
    (``ServiceHooks.observer`` and ``away_since``) are bound here, once they exist,
    and unbound before they close."""

    async def load(game_id: str) -> tuple[Variant, Sequence[LoggedEvent]]:
        variant = await service.reader.variant_of(game_id)
        return variant, await masked_log(client, await service.reader.log(game_id))

    chat = ChatStore(client)

    async def load_chat(game_id: str) -> dict[str, list[tuple[str, bytes]]]:
        """The rooms' last messages as a hub keeps them, deleted accounts masked."""
        rooms = await chat.read(game_id, ROOMS, HISTORY)
        every = [m for messages in rooms.values() for m in messages]
        named = accounts_named(every)
        if named:
            mask_entries(every, await deleted_among(client, named))
        return {
            room: [(m["id"], _encode(wire_of(m))) for m in messages]
            for room, messages in rooms.items()
        }

    hubs = HubRegistry(
        load,
        tail_client(client),
        client,
        outbox_limit=settings.ws_buffer,
        tail_mode=settings.tail,
        presence_beat_s=settings.presence_beat,
        durability=service.store.durability,
        load_chat=None if settings.chat == "off" else load_chat,
        chat_mode=settings.chat,
    )
    # This process's own moves go to its hubs straight from the service.
    service.hooks.observer = hubs.pipeline
    # Who is away, for abandon claims and views (server.live.presence).
    service.hooks.away_since = hubs.hub_presence.presence.seats_away_since
    await hubs.start()
    try:
        yield hubs
    finally:
        service.hooks.observer = None
        service.hooks.away_since = None
        await hubs.close()


routes: list[BaseRoute] = [WebSocketRoute("/ws/games/{game_id}", GameSocketApp())]
