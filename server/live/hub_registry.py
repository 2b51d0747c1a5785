"""The hubs of one process: made when a game gets its first socket, dropped with its
last.

``HubRegistry`` is what the game socket (``server.web.game_socket``) talks to: it
makes a game's hub (``server.live.hubs.Hub``) when a socket first watches the game,
attaches each socket's outbox to it, and drops it when its last socket leaves. It
owns the process's ``Tailer`` (``server.live.tailer``), which reads the watched
games' new events, through its ``LivePipeline`` (``server.live.pipeline``), which
makes every fold into the hubs and is the game service's ``AppendObserver``, and its
``HubPresence`` (``server.live.hub_presence``), which
keeps the hubs' presence and rematch up to date. When Redis can't be read, every
socket is told and closed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from redis.exceptions import RedisError

from events.game import Variant
from server.common.errors import unavailable
from server.common.settings import TailMode
from server.games.projection import LoggedEvent
from server.live.hub_messages import error_in
from server.live.hub_presence import HubPresence
from server.live.hubs import CLOSE_INTERNAL, CLOSE_UNAVAILABLE, Hub
from server.live.outbox import DEFAULT_OUTBOX_LIMIT, Close, Outbox, Viewer
from server.live.pipeline import LivePipeline
from server.live.presence import PRESENCE_BEAT_S
from server.live.socket_writers import Wire
from server.live.tailer import TAIL_BLOCK_MS, Tailer
from server.store.clients import RedisClient, ping
from server.store.durability import Durability

__all__ = ["HubRegistry", "LoadChat", "LoadGame"]

log = logging.getLogger(__name__)


LoadGame = Callable[[str], Awaitable[tuple[Variant, Sequence[LoggedEvent]]]]
LoadChat = Callable[[str], Awaitable[dict[str, list[tuple[str, bytes]]]]]
"""A game's chat rooms' last messages, (id, websocket message) oldest first."""


class HubRegistry:
    """The hubs of one process: made when a game gets its first watcher, dropped
    with its last."""

    def __init__(
        self,
        load: LoadGame,
        tail_client: RedisClient,
        wake_client: RedisClient,
        *,
        outbox_limit: int = DEFAULT_OUTBOX_LIMIT,
        block_ms: int = TAIL_BLOCK_MS,
        tail_mode: TailMode = "auto",
        presence_beat_s: float = PRESENCE_BEAT_S,
        durability: Durability | None = None,
        load_chat: LoadChat | None = None,
        chat_mode: str = "on",
    ) -> None:
        self._load = load
        self._load_chat = load_chat  # None: the chat is off.
        self._chat_mode = chat_mode
        self._hubs: dict[str, Hub] = {}
        self._loading: dict[str, asyncio.Future[Hub]] = {}
        self.outbox_limit = outbox_limit
        self.pipeline = LivePipeline(
            self._hubs,
            self._drop_failed,
            lambda pipeline: Tailer(
                tail_client,
                wake_client,
                pipeline.delivered,
                block_ms=block_ms,
                mode=tail_mode,
                durability=durability,
                notices=pipeline,
            ),
        )
        self.tailer = self.pipeline.tailer
        self._wake_client = wake_client
        self.tailer.on_down = self._store_down
        self.hub_presence = HubPresence(
            self._hubs,
            self._loading,
            wake_client,
            self.tailer.read_alone,
            beat_s=presence_beat_s,
            load_chat=load_chat,
        )

    def __len__(self) -> int:
        return len(self._hubs)

    def socket_counts(self) -> tuple[int, int]:
        """The sockets open on this process's hubs: seats' and spectators' (metrics)."""
        players = self.hub_presence.seat_sockets()
        return players, sum(hub.watchers for hub in self._hubs.values()) - players

    def get(self, game_id: str) -> Hub | None:
        return self._hubs.get(game_id)

    async def spectators(self, game_ids: Sequence[str]) -> list[int]:
        """How many sockets watch each game as spectators, on every process
        (``HubPresence.audiences``)."""
        return [count for count, _ in await self.hub_presence.audiences(game_ids)]

    async def start(self) -> None:
        """Start the presence's beats (``HubPresence.start``)."""
        await self.hub_presence.start()

    async def watch(
        self,
        game_id: str,
        viewer: Viewer,
        since: int | None,
        wire: Wire,
        close: Close | None = None,
        digest: str | None = None,
        account: str | None = None,
    ) -> Outbox[Hub]:
        """A started outbox for a new socket on ``game_id`` (loading its hub if needed);
        ``digest``: of the seat token it was opened with (it is closed once the seat
        has another, ``HubPresence.seat_changed``); ``account``: a spectator's, signed
        in (named in the audience).

        Raises what ``load`` raises (an unknown game) before anything is started,
        and Redis's error while the tailer finds Redis down (the socket would get no
        diffs).
        """
        if self.tailer.down is not None:
            await ping(self._wake_client)  # It raises while Redis is still down.
        while True:
            hub = self._hubs.get(game_id)
            if hub is None:
                hub = await self._hub(game_id)
            if not hub.ahead:
                break
            await hub.settled()  # A snapshot or a catch-up is of confirmed versions.
        outbox = Outbox(hub, viewer, wire, self.outbox_limit, close, digest, account)
        hub.attach(outbox, since)
        if viewer is not None:
            self.hub_presence.seat_opened(game_id, viewer)
            if digest is not None:
                # The token was checked before the awaits above: one replaced meanwhile
                # had its sockets closed before this one was attached, so this one is
                # looked at now (closed with 4403 if its token is no longer the seat's).
                await self.hub_presence.seat_changed(game_id, viewer)
        else:
            self.hub_presence.audience_changed(game_id)
        return outbox

    async def leave(self, outbox: Outbox[Hub]) -> None:
        """Stop a socket's outbox; the hub stops with its last watcher."""
        await outbox.stop()
        hub = outbox.hub
        hub.detach(outbox)
        if outbox.viewer is not None:
            self.hub_presence.seat_closed(hub.game_id, outbox.viewer)
        else:
            self.hub_presence.audience_changed(hub.game_id)
        if hub.watchers == 0 and self._hubs.get(hub.game_id) is hub:
            # Settled as it goes: a socket waiting for it to settle (``watch``) would
            # otherwise wait for ever, since the end of an append in flight no longer
            # reaches a hub that is not registered. It then gets a hub loaded afresh.
            hub.drop()
            del self._hubs[hub.game_id]
            self.pipeline.unwatch(hub.game_id)
            self.hub_presence.hub_dropped(hub.game_id)

    async def _hub(self, game_id: str) -> Hub:
        pending = self._loading.get(game_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Hub] = asyncio.get_running_loop().create_future()
        self._loading[game_id] = future
        try:
            variant, logged = await self._load(game_id)  # An unknown game is refused first.
            seen, rematch = await self.hub_presence.watch_signals(game_id)
            # Read once subscribed, as the presence: a message after the read is signalled.
            chat = None if self._load_chat is None else await self._load_chat(game_id)
            hub = self._hubs.get(game_id)
            if hub is None:
                hub = Hub(game_id, variant, logged)
                self.hub_presence.hub_made(hub, seen, rematch)
                if chat is not None:
                    hub.chat_loaded(chat, self._chat_mode)
                self._hubs[game_id] = hub
                self.pipeline.watch(game_id, hub.version)
            self.hub_presence.loaded(game_id)
            future.set_result(hub)
            return hub
        except asyncio.CancelledError:
            if game_id not in self._hubs:
                self.hub_presence.hub_dropped(game_id)
            future.cancel()
            raise
        except Exception as e:
            if game_id not in self._hubs:
                self.hub_presence.hub_dropped(game_id)
            future.set_exception(e)
            future.exception()  # Retrieved, since other waiters re-raise it themselves.
            raise
        finally:
            del self._loading[game_id]
            self.hub_presence.load_ended(game_id)

    def _drop_failed(self, hub: Hub) -> None:
        """A fold into ``hub`` failed (``LivePipeline``): the hub is dropped and its
        sockets closed with 1011, and their clients reconnect to a hub loaded afresh."""
        game_id = hub.game_id
        hub.drop()
        del self._hubs[game_id]
        self.pipeline.unwatch(game_id)
        self.hub_presence.hub_dropped(game_id)
        for outbox in hub.outboxes():
            outbox.abandon(CLOSE_INTERNAL, "The server lost track of this game; reconnect.")

    def _store_down(self, error: RedisError | OSError) -> None:
        """Redis can't be read (the tailer's reads failed: ``StoreUnavailable``, or
        any error of its subscriptions): every socket is told (``unavailable``) and
        closed with 4503, so that its client shows the problem and reconnects, backing
        off, with ``since`` (it is refused until Redis is back). The hubs stay as they
        are. This is the hubs' one answer to a store that can't be reached."""
        log.warning("Redis can't be read (%r): closing %d games' sockets", error, len(self))
        message = error_in(unavailable(error))
        for hub in list(self._hubs.values()):
            for outbox in hub.outboxes():
                outbox.abandon(CLOSE_UNAVAILABLE, "unavailable", message(outbox.lang))

    async def close(self) -> None:
        await self.hub_presence.close()
        await self.tailer.close()
