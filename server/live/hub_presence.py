"""What the hubs show besides events: the seats' presence and the rematch, and
which seats' sockets may stay open.

One ``HubPresence`` per process keeps its hubs' presence and rematch up to date. It
owns the process's ``Presence`` (the beats, and the hashes of who has a socket where:
``server.live.presence``) and ``Signals`` (the games' channels, on which a change of
presence, a rematch or an archive is published: ``server.live.game_signals``).

A hub's presence and rematch are read when the hub is made, after its game's
channel is subscribed to, so that a change after the read is signalled. A signal
makes the game's presence be read again, a rematch signal too (with the seats'
answers to the rematch); an
archive signal has the tailer read the game from its archive; a seat's signal (its
token was replaced: server/games/seat_tokens.py) closes the seat's sockets opened
with another token. Since a signal is delivered at most once, every hub is also read
again on its share of the beats (``RECONCILE_BEATS``), and every hub and every seat
with sockets here after the signals' connection is made again.

The registry (``server.live.hub_registry``) tells this object of every hub made and
dropped, of every seat's first socket opened and last socket closed here, and of
every spectator's socket opened and closed (``audience_changed``).

**The audience.** Each process writes its own spectators of a game (how many, and the
accounts signed in among them) to the game's presence hash, at most once every
``AUDIENCE_EVERY_S`` a game (the changes meanwhile written together, never per
move), which signals the other processes like any change of presence; each hub adds
the others' (those alive) to its own (``Hub.remote_audience``), and tells its
sockets at most once a second (``Hub.update_audience``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Container, Coroutine, Mapping, Sequence
from typing import Any, Final

from redis.exceptions import RedisError

from server.common.errors import forbidden
from server.games.seats import REVOKED
from server.live.game_signals import Signals
from server.live.hub_messages import error_in
from server.live.hubs import AUDIENCE_EVERY_S, CLOSE_FORBIDDEN, Hub
from server.live.presence import (
    DEAD_AFTER_BEATS,
    PRESENCE_BEAT_S,
    Audience,
    Presence,
    RematchNews,
    SeatsSeen,
)
from server.store.clients import RedisClient
from server.store.keys import (
    ARCHIVED_SIGNAL,
    CHAT_SIGNAL_PREFIX,
    PRESENCE_SIGNAL,
    REMATCH_SIGNAL_PREFIX,
    SEAT_SIGNAL_PREFIX,
    seats_key,
)

__all__ = ["RECONCILE_BEATS", "REREAD_CHUNK", "HubPresence", "chat_of_signal"]

log = logging.getLogger(__name__)


REREAD_CHUNK: Final = 200  # The games whose presence is read at once.
# Every hub's presence and rematch are read again at least once in this many beats,
# signal or not: a PUBLISH is delivered at most once (a Redis Cluster drops those
# sent while a bus link is being made again), so what a lost one hid is shown
# within this bound, the same as a killed process's sockets (server.live.presence).
RECONCILE_BEATS: Final = DEAD_AFTER_BEATS + 1


_CHAT_ROOMS: Final = {ord("p"): "players", ord("s"): "spectators"}


def chat_of_signal(message: bytes) -> tuple[str, str, bytes] | None:
    """The room, id and websocket message a chat signal carries (``chat_signal``),
    or None if it is not one."""
    if not message.startswith(CHAT_SIGNAL_PREFIX) or len(message) < 2:
        return None
    room = _CHAT_ROOMS.get(message[1])
    space = message.find(b" ", 2)
    if room is None or space < 0:
        return None
    return room, message[2:space].decode(), message[space + 1 :]


class HubPresence:
    """Keeps the presence and rematch of the hubs in ``hubs`` up to date.

    ``hubs`` and ``loading`` are the registry's: the hubs made, and the games whose
    hub is being made. ``read_archived(game_id)`` has a game read from its archive.
    """

    def __init__(
        self,
        hubs: Mapping[str, Hub],
        loading: Container[str],
        wake_client: RedisClient,
        read_archived: Callable[[str], None],
        *,
        beat_s: float = PRESENCE_BEAT_S,
        load_chat: Callable[[str], Awaitable[dict[str, list[tuple[str, bytes]]]]] | None = None,
    ) -> None:
        self._hubs = hubs
        self._loading = loading
        self._wake_client = wake_client
        self._read_archived = read_archived
        self._load_chat = load_chat  # None: the chat is off
        self.presence = Presence(
            wake_client, beat_s=beat_s, on_beat=self._beaten, playing=self._playing
        )
        self.signals = Signals(wake_client, self._signalled, self._reread_all)
        self._presence_started: asyncio.Task[None] | None = None
        self._seat_sockets: Counter[tuple[str, int]] = Counter()
        self._stale: set[str] = set()  # The games whose presence is to be read again.
        self._rereading: asyncio.Task[None] | None = None
        self._beats = 0
        self._signalled_loading: set[str] = set()  # Signalled while their hub was made.
        # Chat messages signalled while their game's hub was made, given to it once made.
        self._chat_loading: dict[str, list[tuple[str, str, bytes]]] = {}
        self._made = 0  # The hubs made, which shares them out among the beats.
        self._tasks: set[asyncio.Task[None]] = set()  # The seats' tokens being compared.
        self.audience_every_s = AUDIENCE_EVERY_S
        self._audience_dirty: set[str] = set()  # Games whose spectators here changed.
        self._audience_written: dict[str, Audience] = {}  # As Redis has them, of this process.
        self._audience_wake = asyncio.Event()
        self._audience_writer: asyncio.Task[None] | None = None

    def _playing(self) -> int:
        """The seats with a socket here in live games (the people playing now)."""
        hubs = self._hubs
        return sum(
            1
            for game_id, _ in self._seat_sockets
            if (hub := hubs.get(game_id)) is not None and hub.state.status == "live"
        )

    def seat_sockets(self) -> int:
        """The seats' sockets open on this process's hubs (metrics)."""
        return sum(self._seat_sockets.values())

    async def start(self) -> None:
        """Start beating (``server.live.presence``). The first hub does it if nothing
        did before, but a process must know the others' beats to answer who is away."""
        if self._presence_started is None:
            self._presence_started = asyncio.get_running_loop().create_task(self.presence.start())
        await asyncio.shield(self._presence_started)  # Its first beat comes before any write.

    # -- from the registry

    async def watch_signals(self, game_id: str) -> tuple[SeatsSeen, RematchNews | None]:
        """Subscribe to the game's signals, then read its presence and rematch: a
        change after the read is signalled."""
        await self.start()
        await self.signals.watch(game_id)
        return await self.presence.read(game_id)

    def hub_made(self, hub: Hub, seen: SeatsSeen, rematch: RematchNews | None) -> None:
        """A hub was made from what ``watch_signals`` read: it gets its share of the
        beats, its seats' presence elsewhere and its rematch."""
        hub.reconcile_share = self._made % RECONCILE_BEATS
        self._made += 1
        hub.seen = seen
        hub.remote = self.presence.remote(seen, hub.state.players_count)
        hub.remote_audience = self.presence.remote_audience(seen)
        if rematch is not None:
            hub.rematch_news = rematch
        for room, message_id, message in self._chat_loading.pop(hub.game_id, ()):
            hub.chat_posted(room, message_id, message)

    def loaded(self, game_id: str) -> None:
        """The game's hub is ready. A signal handled while it was made may have come
        after the first read was answered: the game is then read again."""
        if game_id in self._signalled_loading:
            self._signalled_loading.discard(game_id)
            self._reread([game_id])

    def load_ended(self, game_id: str) -> None:
        """Making the game's hub ended, made or failed."""
        self._signalled_loading.discard(game_id)
        self._chat_loading.pop(game_id, None)

    def hub_dropped(self, game_id: str) -> None:
        """The game has no hub here any more (or its hub could not be made)."""
        self.signals.unwatch(game_id)

    def audience_changed(self, game_id: str) -> None:
        """A spectator's socket opened or closed here: the others are told (soon)."""
        self._audience_dirty.add(game_id)
        self._audience_wake.set()
        if self._audience_writer is None or self._audience_writer.done():
            loop = asyncio.get_running_loop()
            self._audience_writer = loop.create_task(self._writing_audience())

    async def _writing_audience(self) -> None:
        """Write the spectators of the games that changed here, all of them at once,
        then wait ``audience_every_s`` before the next write: a game's field is
        written at most once in that time, however many sockets come and go."""
        while True:
            if not self._audience_dirty:
                self._audience_wake.clear()
                await self._audience_wake.wait()
                continue
            games, self._audience_dirty = self._audience_dirty, set()
            todo = []
            for game_id in games:
                hub = self._hubs.get(game_id)
                audience = (0, ()) if hub is None else hub.local_audience()
                if audience != self._audience_written.get(game_id, (0, ())):
                    todo.append((game_id, audience))
            try:
                await asyncio.gather(*(self.presence.write_audience(g, a) for g, a in todo))
            except (RedisError, OSError) as e:
                log.warning("audience: writing %d games failed (%r)", len(todo), e)
                self._audience_dirty.update(g for g, _ in todo)  # Written again, the same.
            else:
                for game_id, audience in todo:
                    if audience[0]:
                        self._audience_written[game_id] = audience
                    else:
                        self._audience_written.pop(game_id, None)
            await asyncio.sleep(self.audience_every_s)

    async def audiences(self, game_ids: Sequence[str]) -> list[Audience]:
        """Each game's spectators on every process: a game with a hub here from the
        hub (no read), the others from Redis."""
        found: dict[str, Audience] = {}
        read = [g for g in game_ids if g not in self._hubs]
        try:
            counted = await asyncio.gather(*(self.presence.audience(g) for g in read))
        except (RedisError, OSError) as e:
            log.warning("audience: reading %d games failed (%r)", len(read), e)
            counted = [(0, ())] * len(read)
        found.update(zip(read, counted, strict=True))
        for game_id in game_ids:
            hub = self._hubs.get(game_id)
            if hub is not None:
                found[game_id] = hub.audience()
        return [found.get(g, (0, ())) for g in game_ids]

    def seat_opened(self, game_id: str, seat: int) -> None:
        """A socket of ``seat`` opened here: the first one makes the seat present."""
        key = (game_id, seat)
        self._seat_sockets[key] += 1
        if self._seat_sockets[key] == 1:
            self.presence.want(game_id, seat, True)

    def seat_closed(self, game_id: str, seat: int) -> None:
        """A socket of ``seat`` closed here: after the last one the seat is away."""
        key = (game_id, seat)
        self._seat_sockets[key] -= 1
        if self._seat_sockets[key] <= 0:
            del self._seat_sockets[key]
            self.presence.want(game_id, seat, False)

    # -- signals and beats

    def _signalled(self, game_id: str, message: bytes) -> None:
        hub = self._hubs.get(game_id)
        if message.startswith(CHAT_SIGNAL_PREFIX):
            chat = chat_of_signal(message)
            if chat is None:
                log.warning("%s: a chat signal not understood", game_id)
            elif hub is not None:
                hub.chat_posted(*chat)
            elif game_id in self._loading:
                self._chat_loading.setdefault(game_id, []).append(chat)
            return
        if hub is None:
            if game_id in self._loading:
                # Its first read may have been answered before this signal's change,
                # and the reply handled after it: it is read again once the hub is made.
                self._signalled_loading.add(game_id)
            return
        if message == PRESENCE_SIGNAL:
            self._reread([game_id])
        elif message.startswith(REMATCH_SIGNAL_PREFIX):
            # The rematch and the seats' answers to it (which the signal does not
            # carry) are read with the game's presence: one message for both.
            self._reread([game_id])
        elif message == ARCHIVED_SIGNAL:
            self._read_archived(game_id)
        elif message.startswith(SEAT_SIGNAL_PREFIX):
            self._spawn(self.seat_changed(game_id, int(message[len(SEAT_SIGNAL_PREFIX) :])))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def seat_changed(self, game_id: str, seat: int) -> None:
        """The seat's token was replaced (server/games/seat_tokens.py): its sockets
        opened with another token are told (``unauthorized``) and closed with 4403.
        Their commands are refused by the append anyway; this ends their view of the
        seat."""
        try:
            held = await self._wake_client.hget(seats_key(game_id), str(seat))
        except (RedisError, OSError) as e:
            log.warning("seat %d of %s: its token not read (%r)", seat, game_id, e)
            return
        hub = self._hubs.get(game_id)
        if held is None or hub is None:
            return  # No token to compare: an archived game's seats are final.
        digest = held.decode() if isinstance(held, bytes) else str(held)
        refusal = error_in(forbidden(REVOKED))
        for outbox in hub.outboxes():
            if outbox.viewer == seat and outbox.digest is not None and outbox.digest != digest:
                outbox.abandon(CLOSE_FORBIDDEN, "unauthorized", refusal(outbox.lang))

    def _reread_all(self) -> None:
        """Signals may have been lost while their connection was made again: every
        game is read again, the tokens of the seats with sockets here, and the chat
        rooms of every hub."""
        self._reread(list(self._hubs))
        for game_id, seat in list(self._seat_sockets):
            self._spawn(self.seat_changed(game_id, seat))
        if self._load_chat is not None and self._hubs:
            self._spawn(self._reload_chat(list(self._hubs)))

    async def _reload_chat(self, games: list[str]) -> None:
        """Read the games' chat rooms again; each hub sends what it missed."""
        assert self._load_chat is not None
        for chunk in range(0, len(games), REREAD_CHUNK):
            some = games[chunk : chunk + REREAD_CHUNK]
            try:
                read = await asyncio.gather(*(self._load_chat(g) for g in some))
            except (RedisError, OSError) as e:
                log.warning("chat: reading %d games again failed (%r)", len(some), e)
                continue
            for game_id, rooms in zip(some, read, strict=True):
                hub = self._hubs.get(game_id)
                if hub is not None and hub.chat_on:
                    hub.chat_reloaded(rooms)

    def _reread(self, games: list[str]) -> None:
        self._stale.update(games)
        if self._rereading is None or self._rereading.done():
            self._rereading = asyncio.get_running_loop().create_task(self._rereader())

    async def _rereader(self) -> None:
        while self._stale:
            games = list(self._stale)[:REREAD_CHUNK]
            self._stale.difference_update(games)
            try:
                read = await asyncio.gather(*(self.presence.read(g) for g in games))
            except (RedisError, OSError) as e:
                log.warning("presence: reading %d games failed (%r)", len(games), e)
                self._stale.update(games)
                await asyncio.sleep(self.presence.beat_s)
                continue
            for game_id, (seen, rematch) in zip(games, read, strict=True):
                hub = self._hubs.get(game_id)
                if hub is None:
                    continue
                hub.seen = seen
                hub.remote = self.presence.remote(seen, hub.state.players_count)
                hub.update_presence()
                hub.remote_audience = self.presence.remote_audience(seen)
                hub.update_audience()
                if rematch is not None:
                    hub.rematch_made(rematch)

    def _beaten(self) -> None:
        """After each beat, servers may have died or come back, as the hubs see them;
        and one share of the hubs is read again (``RECONCILE_BEATS``)."""
        presence = self.presence
        self._beats += 1
        share = self._beats % RECONCILE_BEATS
        again = []
        for game_id, hub in self._hubs.items():
            seen = hub.seen
            if seen is not None and seen.on:
                hub.remote = presence.remote(seen, hub.state.players_count)
                hub.update_presence()
            if seen is not None and seen.watch:
                hub.remote_audience = presence.remote_audience(seen)
                hub.update_audience()
            if hub.reconcile_share == share:
                again.append(game_id)
        if again:
            self._reread(again)

    async def close(self) -> None:
        for task in (self._rereading, self._audience_writer, *self._tasks):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        # This process's spectators stop counting at once for the others.
        with contextlib.suppress(RedisError, OSError):
            await asyncio.gather(
                *(self.presence.write_audience(g, (0, ())) for g in self._audience_written)
            )
        for task in (self._presence_started,):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self.signals.close()
        if self._presence_started is not None:
            await self.presence.close()
