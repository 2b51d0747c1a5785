"""Hubs: what a server process pushes to the sockets watching its games.

One ``Hub`` per watched game per process holds the game's log and the state folded
from it. One ``Tailer`` per process (``server.live.tailer``) reads the new events of every
watched game from Redis, whichever process appended them, and hands each hub its
events. For each event the hub evolves its state once, then gets each *audience*'s
patch (a seat, or all spectators together) from its ``server.live.audience_views.AudienceViews``
(which shares the work between audiences), redacts the event for it, and makes its
``diff`` message once for all the audience's sockets.

Each socket has an ``Outbox``. The events of one append go out together: for each
audience the hub makes one ``server.live.socket_writers.Batch`` of their ``diff`` messages, and
every outbox of the audience writes that batch to its socket at once, framed once for
all of them (``server.live.socket_writers``). A socket more than ``limit`` bytes behind is a slow
or dead one: it gets no more diffs and, once its buffer has drained, a fresh snapshot
instead. A socket sees every version in order, or a snapshot that starts it over,
never a gap; and no socket ever waits for another.

Everything that touches a hub's state, audiences and outboxes runs without awaiting
in between (the event loop is the lock): a snapshot taken at version V is always
followed by the diffs from V + 1.

This process's own moves are shown *ahead* of their append: the live pipeline
(``server.live.pipeline``) has the hub fold the events the service is about to append
(``fold_ahead``), and the hub makes every audience's messages while the append's round
trip to Redis is in flight; they are written when the append is confirmed
(``confirm``), or thrown away and the hub set back (``undo``). Meanwhile the hub is
*ahead*: its ``version`` is still the confirmed one, and whatever would see the state
ahead (a new socket's snapshot or catch-up, a snapshot after a reset) waits for it to
settle, while events read from the stream are left (``Fold.DEFERRED_AHEAD``).

Every fold says what it did with a ``Fold``, one value per outcome.

A hub also keeps the last messages of its game's chat rooms (``server.games.chat``),
read when it is made and added to as they are signalled: every socket gets the
history of the rooms it reads after its snapshot, and each message as it comes. No
chat work is done for an event, but at the game's end, when the seats are sent the
spectators' room.
"""

from __future__ import annotations

import asyncio
import bisect
import enum
import logging
import math
import time
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from typing import Any, Final

import msgspec

from events.clock import clock_view
from events.game import Variant
from events.views import reveal_reserves
from server.common.wire import event_to_wire, iso_time
from server.games.projection import LoggedEvent, decode_event
from server.live.audience_views import AudienceViews
from server.live.hub_messages import (
    audience_message,
    chat_history_message,
    diff_message,
    rematch_message,
)
from server.live.outbox import Outbox, Viewer
from server.live.presence import (
    AUDIENCE_NAMES,
    Audience,
    RematchNews,
    SeatsSeen,
    merge_audiences,
    name_order,
    seat_away_since,
)
from server.live.socket_writers import Batch
from server.live.view_patch import view_patch
from server.store.event_store import StoredEvent

__all__ = [
    "AUDIENCE_EVERY_S",
    "CLOSE_FORBIDDEN",
    "CLOSE_INTERNAL",
    "CLOSE_UNAVAILABLE",
    "Fold",
    "Hub",
]

log = logging.getLogger(__name__)


CLOSE_INTERNAL: Final = 1011
CLOSE_UNAVAILABLE: Final = 4503  # 4000 + HTTP 503, since Redis can't be reached for now.
CLOSE_FORBIDDEN: Final = 4403  # 4000 + HTTP 403, since the seat's token was replaced.
AUDIENCE_EVERY_S: Final = 1.0  # A hub tells its sockets the audience at most this often.

_encoder = msgspec.json.Encoder()


OVER: Final = ("finished", "aborted")  # The statuses after which seats read both rooms.
CHAT_HISTORY: Final = 50  # The messages of a room a socket gets after its snapshot.


# ---------------------------------------------------------------------- hubs


class Fold(enum.Enum):
    """What a fold into a hub did. Each outcome is its own value, and none is a
    truth value: an outcome is compared with ``is``."""

    # The events were folded and their messages made.
    APPLIED = "applied"
    # Every event was at or below the hub's version: the hub had them already.
    ALREADY_HAD = "already had"
    # An event did not follow the hub's version: the events before it are unread.
    GAP = "gap"
    # The hub is ahead: the events were left, to be read again once it settles.
    DEFERRED_AHEAD = "deferred while ahead"
    # The events could not be folded ahead, or confirmed, or undone: nothing changed.
    REFUSED = "refused"
    # The events folded ahead were taken back.
    UNDONE = "undone"
    # The fold raised: the hub was dropped and its sockets closed.
    HUB_DROPPED = "hub dropped"

    def __bool__(self) -> bool:
        raise TypeError(f"{self} is not a truth value: compare it with `is`")


class _Audience:
    """The sockets that see a game the same way (one seat, or every spectator), and
    the messages of the events being applied, for all of them."""

    __slots__ = ("outboxes", "pending", "snapshot", "viewer")

    def __init__(self, viewer: Viewer) -> None:
        self.viewer = viewer
        self.outboxes: set[Outbox[Hub]] = set()
        self.pending: list[bytes] = []
        self.snapshot: tuple[int, bytes] | None = None  # (version, message), made once.


class _Ahead:
    """Events a hub folded ahead of their append."""

    __slots__ = ("logged", "settled", "version")

    def __init__(self, version: int, logged: Sequence[LoggedEvent]) -> None:
        self.version = version  # The hub's confirmed version.
        self.logged = logged
        self.settled: asyncio.Future[None] | None = None  # Made when someone waits.


class Hub:
    """One game watched by this process: its log, its state, its audiences."""

    def __init__(self, game_id: str, variant: Variant, log: Sequence[LoggedEvent]) -> None:
        self.game_id = game_id
        self.variant = variant
        self.log: list[LoggedEvent] = list(log)
        self.state: Any = variant.fold_timed((e.at_ms, e.event) for e in self.log)
        self._views = AudienceViews(variant, self.state)
        self._audiences: dict[Viewer, _Audience] = {}
        self._ahead: _Ahead | None = None  # The events folded ahead of their append.
        # Presence (server.live.presence). ``remote`` says per seat since when no other
        # process has had one of its sockets (in ms; 0 for never; None while one has),
        # as HubPresence sets it; ``_left_here`` when its last socket here closed; then
        # what was sent last, and the players it counted.
        self.remote: list[int | None] = []
        self.seen: SeatsSeen | None = None
        self._left_here: dict[int, int] = {}
        self._started_ms: int | None = None
        self._presence: tuple[tuple[bool, ...], tuple[int | None, ...]] = ((), ())
        self._presence_message = b""
        self._players = -1
        # The finished game's rematch once made, and the seats' answers to it.
        self.rematch_news: RematchNews | None = None
        self.reconcile_share = 0  # The beats (modulo RECONCILE_BEATS) it is read again.
        # The audience: the spectators' sockets here (and their accounts), the other
        # processes' as HubPresence sets it, and what the sockets were told last and
        # when (monotonic s): told at most once every ``audience_every_s``.
        self.remote_audience: Audience = (0, ())
        self.audience_every_s = AUDIENCE_EVERY_S
        self._spectators_here = 0
        self._names_here: Counter[str] = Counter()
        # The first AUDIENCE_NAMES names here in order, kept as names come (None: to be
        # found again, after one of them left), so that a join is not a sort of them all.
        self._first_names: list[str] | None = []
        self._audience_told: Audience | None = None
        self._audience_made: tuple[Audience, bytes] | None = None
        self._audience_told_at = -math.inf
        self._audience_timer: asyncio.TimerHandle | None = None
        # The chat: off until ``chat_loaded``; per room its last messages (id, message)
        # and its history message, made once until the next message.
        self.chat_on = False
        self.chat_mode = "on"  # or "presets" (SPLENDOR_CHAT), told in the histories
        self._chat: dict[str, deque[tuple[str, bytes]]] = {}
        self._chat_history: dict[str, bytes] = {}
        self._over = self.state.status in OVER

    @property
    def version(self) -> int:
        """The version of the last event confirmed (the log may hold more, ahead)."""
        ahead = self._ahead
        return len(self.log) if ahead is None else ahead.version

    @property
    def ended_ms(self) -> int | None:
        """When the game ended (its last event's time), if it is over."""
        return self.log[-1].at_ms if self.state.status in OVER and self.log else None

    @property
    def ahead(self) -> bool:
        """Whether events are folded ahead of their append (see ``settled``)."""
        return self._ahead is not None

    async def settled(self) -> None:
        """Return once no event is folded ahead of its append (at once if none is)."""
        while (ahead := self._ahead) is not None:
            if ahead.settled is None:
                ahead.settled = asyncio.get_running_loop().create_future()
            await asyncio.shield(ahead.settled)

    @property
    def watchers(self) -> int:
        return sum(len(a.outboxes) for a in self._audiences.values())

    def outboxes(self) -> list[Outbox[Hub]]:
        """The outboxes of every socket watching this game here."""
        return [o for a in self._audiences.values() for o in a.outboxes]

    def attach(self, outbox: Outbox[Hub], since: int | None) -> None:
        """Start a socket: a snapshot now, or the diffs after ``since`` if it has seen
        that version, then every diff of its audience; the seats' presence after the
        snapshot (and the rematch, if one is made), then whenever it changes."""
        audience = self._audience(outbox.viewer)
        self.update_presence()  # Its seat is present now, and the others are told.
        if outbox.viewer is None:
            self._spectator_counted(outbox, 1)
        if since is None or since > self.version:
            outbox.feed(self.opening(outbox.viewer))
        else:
            if since < self.version:
                outbox.catch_up(since, self.version, self.state.status == "finished")
            outbox.feed(Batch(self._extras(outbox.viewer)))
        audience.outboxes.add(outbox)

    def detach(self, outbox: Outbox[Hub]) -> None:
        audience = self._audiences.get(outbox.viewer)
        if audience is None or outbox not in audience.outboxes:
            return
        audience.outboxes.discard(outbox)
        if outbox.viewer is None:
            self._spectator_counted(outbox, -1)
        if not audience.outboxes:
            del self._audiences[outbox.viewer]
            self._views.drop(outbox.viewer)
            if outbox.viewer is not None:
                self._left_here[outbox.viewer] = time.time_ns() // 1_000_000
            self.update_presence()

    def has_sockets(self, viewer: Viewer) -> bool:
        return viewer in self._audiences

    # -- presence and rematch (not events: no version of their own)

    def presence(self) -> tuple[tuple[bool, ...], tuple[int | None, ...]]:
        """Per seat: whether it is present (a bot, or a socket of it open here or
        elsewhere), and if not, since when (ms) it has been away, as the rules take it
        (``server.live.presence.seat_away_since``), or None for a seat not taken."""
        players = self.state.players
        remote = self.remote
        started = self._started()
        seats: list[bool] = []
        away: list[int | None] = []
        for seat in range(self.state.players_count):
            elsewhere = remote[seat] if seat < len(remote) else 0
            taken = seat < len(players)
            if (
                (taken and players[seat].bot is not None)
                or seat in self._audiences
                or (elsewhere is None)
            ):
                seats.append(True)  # A rematch's seat may have sockets before it is taken.
                away.append(None)
            elif not taken:
                seats.append(False)
                away.append(None)
            else:
                seats.append(False)
                raw = max(elsewhere, self._left_here.get(seat, 0))
                away.append(seat_away_since(raw, started) or 0)
        return tuple(seats), tuple(away)

    def _started(self) -> int | None:
        """When the game started (its ``GameStarted`` event's time), once it has."""
        if self._started_ms is None and self.state.status != "open":
            for logged in self.log:
                if type(logged.event).__name__ == "GameStarted":
                    self._started_ms = logged.at_ms
                    break
        return self._started_ms

    def update_presence(self) -> None:
        """Tell every socket the seats' presence if it changed."""
        self._players = len(self.state.players)
        presence = self.presence()
        if presence == self._presence and self._presence_message:
            return
        self._presence = presence
        seats, away = presence
        self._presence_message = _encoder.encode(
            {
                "type": "presence",
                "seats": list(seats),
                "away_since": [iso_time(ms) if ms else None for ms in away],
            }
        )
        self._broadcast(self._presence_message)

    # -- the audience (PROTOCOL.md: told at most once a second, never per move)

    def _spectator_counted(self, outbox: Outbox[Hub], change: int) -> None:
        self._spectators_here += change
        name = outbox.account
        if name is not None:
            names = self._names_here
            names[name] += change
            first = self._first_names
            if names[name] <= 0:
                del names[name]
                if first is not None and name in first:
                    self._first_names = None
            elif change > 0 and names[name] == 1 and first is not None:
                key = name_order(name)
                if len(first) < AUDIENCE_NAMES or key < name_order(first[-1]):
                    bisect.insort(first, name, key=name_order)
                    del first[AUDIENCE_NAMES:]
        self.update_audience()

    def local_audience(self) -> Audience:
        """This process's spectators of the game."""
        if self._first_names is None:
            self._first_names = list(merge_audiences([(0, tuple(self._names_here))])[1])
        return self._spectators_here, tuple(self._first_names)

    def audience(self) -> Audience:
        """The game's spectators on every process: here, and elsewhere as last read."""
        if not self.remote_audience[0]:
            return self.local_audience()  # Nobody elsewhere: nothing to merge.
        return merge_audiences([self.local_audience(), self.remote_audience])

    def _audience_bytes(self, audience: Audience) -> bytes:
        """The ``audience`` message of ``audience``, made once while it stays the same."""
        made = self._audience_made
        if made is None or made[0] != audience:
            made = self._audience_made = (audience, audience_message(audience))
        return made[1]

    def update_audience(self) -> None:
        """Tell every socket the audience if it changed: at once if nothing was told
        in the last ``audience_every_s``, else once that time is up (the changes
        meanwhile told together)."""
        if self._audience_timer is not None or self.audience() == self._audience_told:
            return
        wait = self._audience_told_at + self.audience_every_s - time.monotonic()
        if wait > 0:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # No loop (a hub used alone): told at once.
                pass
            else:
                self._audience_timer = loop.call_later(wait, self._tell_audience)
                return
        self._tell_audience()

    def _tell_audience(self) -> None:
        self._audience_timer = None
        audience = self.audience()
        if audience == self._audience_told:
            return
        self._audience_told = audience
        self._audience_told_at = time.monotonic()
        self._broadcast(self._audience_bytes(audience))

    @property
    def rematch(self) -> str | None:
        """The finished game's rematch's id, once made."""
        return None if self.rematch_news is None else self.rematch_news.id

    def rematch_made(self, news: RematchNews | str) -> None:
        """The game's rematch is made, or a seat answered it: tell every socket what
        is new (once a change), show the rematch in snapshots. What is told merges
        with what is known (an answer is final), so reads and signals arriving in
        any order only ever add."""
        told = RematchNews(news) if isinstance(news, str) else news
        known = self.rematch_news
        merged = told if known is None else known.merged(told)
        if merged == known:
            return
        if known is None or known.id != merged.id:
            for audience in self._audiences.values():
                audience.snapshot = None
        self.rematch_news = merged
        self._broadcast(rematch_message(merged))

    def opening(self, viewer: Viewer) -> Batch:
        """A socket's start over: its snapshot, the presence, the rematch if any, the
        chat rooms' histories."""
        return Batch((self.snapshot(viewer), *self._extras(viewer)))

    def _extras(self, viewer: Viewer) -> tuple[bytes, ...]:
        """What follows a snapshot: the presence, the rematch if made, the audience
        as it is now (the others may be told it up to a second later), the histories
        of the chat rooms the viewer reads."""
        if not self._presence_message:
            self.update_presence()
        extras = [self._presence_message]
        if self.rematch_news is not None:
            extras.append(rematch_message(self.rematch_news))
        extras.append(self._audience_bytes(self.audience()))
        if self.chat_on:
            extras.extend(self._chat_history_of(room) for room in self._chat_rooms(viewer))
        return tuple(extras)

    # -- chat (server.games.chat): no version of its own either

    def chat_loaded(self, rooms: dict[str, list[tuple[str, bytes]]], mode: str = "on") -> None:
        """Keep the rooms' last messages (id, websocket message), oldest first, read
        when the hub was made; the chat is on from now, in ``mode``."""
        self.chat_on = True
        self.chat_mode = mode
        self.chat_reloaded(rooms)

    def chat_reloaded(self, rooms: dict[str, list[tuple[str, bytes]]]) -> None:
        """The rooms as read from Redis (after the signals' connection was lost, a
        signal may be missing): each room keeps what was read, in its order, then what
        was signalled after the read; the messages it had not seen are sent to the
        sockets that read the room."""
        for room, messages in rooms.items():
            kept = self._chat.setdefault(room, deque(maxlen=CHAT_HISTORY))
            known = {i for i, _ in kept}
            missed = [m for m in messages if m[0] not in known]
            if not missed:
                continue
            read = {i for i, _ in messages}
            later = [m for m in kept if m[0] not in read]
            kept.clear()
            kept.extend(messages)
            kept.extend(later)
            self._chat_history.pop(room, None)
            if not self.chat_on:
                continue
            batch = Batch([m for _, m in missed])
            for viewer, audience in self._audiences.items():
                if room in self._chat_rooms(viewer):
                    for outbox in audience.outboxes:
                        outbox.feed(batch)

    def chat_posted(self, room: str, message_id: str, message: bytes) -> None:
        """A message of a room (signalled: from any process): kept, and sent to every
        socket here that reads the room, once (a message read and signalled is one)."""
        kept = self._chat.setdefault(room, deque(maxlen=CHAT_HISTORY))
        if any(i == message_id for i, _ in kept):
            return
        kept.append((message_id, message))
        self._chat_history.pop(room, None)
        if not self.chat_on:
            return
        batch = Batch((message,))
        for viewer, audience in self._audiences.items():
            if room in self._chat_rooms(viewer):
                for outbox in audience.outboxes:
                    outbox.feed(batch)

    def _chat_rooms(self, viewer: Viewer) -> tuple[str, ...]:
        """The rooms a socket of ``viewer`` reads."""
        if viewer is None:
            return ("spectators",)
        return ("players", "spectators") if self._over else ("players",)

    def _chat_history_of(self, room: str) -> bytes:
        made = self._chat_history.get(room)
        if made is None:
            made = self._chat_history[room] = chat_history_message(
                room, self.chat_mode, [m for _, m in self._chat.get(room, ())]
            )
        return made

    def _game_over(self) -> None:
        """The game just ended: the seats read the spectators' room from now."""
        self._over = True
        if not self.chat_on:
            return
        batch = Batch((self._chat_history_of("spectators"),))
        for viewer, audience in self._audiences.items():
            if viewer is not None:
                for outbox in audience.outboxes:
                    outbox.feed(batch)

    def _broadcast(self, message: bytes) -> None:
        batch = Batch((message,))
        for audience in self._audiences.values():
            for outbox in audience.outboxes:
                outbox.feed(batch)

    def _audience(self, viewer: Viewer) -> _Audience:
        audience = self._audiences.get(viewer)
        if audience is None:
            audience = self._audiences[viewer] = _Audience(viewer)
            self._views.view(viewer)
        return audience

    def snapshot(self, viewer: Viewer) -> bytes:
        """The ``snapshot`` message of ``viewer`` at the hub's version (made once per
        audience and version; a live timed game's afresh, its clock read now)."""
        audience = self._audience(viewer)
        clock = self.state.clock
        if clock.control is not None and self.state.status == "live":
            # Read now, not at the turn's start (docs/rules.md L10): a client ticks from
            # when it got the clock, whatever its own clock says.
            view = {
                **self._views.view(viewer),
                "clock": clock_view(clock, time.time_ns() // 1_000_000),
            }
            if self.rematch is not None:
                view["rematch"] = self.rematch
            return _encoder.encode({"type": "snapshot", "version": self.version, "view": view})
        if audience.snapshot is None or audience.snapshot[0] != self.version:
            view = self._views.view(viewer)
            if self.rematch is not None:
                view = {**view, "rematch": self.rematch}  # The kept view stays as it is.
            message = _encoder.encode({"type": "snapshot", "version": self.version, "view": view})
            audience.snapshot = (self.version, message)
        return audience.snapshot[1]

    def apply(self, stored: Sequence[StoredEvent]) -> Fold:
        """Fold new events read from the stream and send every audience its diffs."""
        logged = [
            LoggedEvent(e.version, e.at_ms, decode_event(self.variant, e.data))
            for e in stored
            if e.version
            > self.version  # Older ones were read again by a tail begun before the load.
        ]
        outcome = self.apply_logged(logged)
        if outcome is Fold.GAP:
            # The events are left, and the tailer reads on from the hub's version.
            log.warning("%s: hub at %d got %d", self.game_id, self.version, logged[0].version)
        return outcome

    def apply_logged(self, logged: Sequence[LoggedEvent]) -> Fold:
        """Fold events (decoded already: read, or just appended by this process) and
        send every audience its diffs. While the hub is ahead nothing is folded
        (``DEFERRED_AHEAD``); an event that does not follow the hub's version stops
        the fold (``GAP``), the events before it still to be read."""
        if self._ahead is not None:
            return Fold.DEFERRED_AHEAD
        before = len(self.log)
        try:
            for entry in logged:
                if entry.version <= self.version:
                    continue  # The tailer was quicker.
                if entry.version != self.version + 1:
                    return Fold.GAP
                self._apply_one(entry)
            return Fold.APPLIED if len(self.log) != before else Fold.ALREADY_HAD
        finally:
            self._flush()

    def fold_ahead(self, logged: Sequence[LoggedEvent]) -> Fold:
        """Fold events about to be appended and make their messages, written by
        ``confirm``, or undone by ``undo``. ``REFUSED`` (nothing done) unless they
        follow the hub's version and nothing else is ahead."""
        if self._ahead is not None or not logged or logged[0].version != self.version + 1:
            return Fold.REFUSED
        self._ahead = _Ahead(self.version, logged)
        for entry in logged:
            self._apply_one(entry)
        return Fold.APPLIED

    def confirm(self, logged: Sequence[LoggedEvent]) -> Fold:
        """The events folded ahead were appended: write their messages. ``REFUSED``
        (nothing done) when ``logged`` is not the list that was folded ahead."""
        ahead = self._ahead
        if ahead is None or ahead.logged is not logged:
            return Fold.REFUSED
        self._settle(ahead)
        self._flush()
        return Fold.APPLIED

    def undo(self) -> Fold:
        """The append of the events folded ahead failed: forget them and their
        messages, and fold the state and views of the confirmed log again.
        ``REFUSED`` when nothing is ahead."""
        ahead = self._ahead
        if ahead is None:
            return Fold.REFUSED
        del self.log[ahead.version :]
        self._settle(ahead)
        self.state = self.variant.fold_timed((e.at_ms, e.event) for e in self.log)
        self._views = AudienceViews(self.variant, self.state)
        for viewer, audience in self._audiences.items():
            audience.pending = []
            self._views.view(viewer)
        return Fold.UNDONE

    def drop(self) -> None:
        """The hub is thrown away: wake whatever waits for it to settle (and finds
        it gone)."""
        ahead = self._ahead
        if ahead is not None:
            self._settle(ahead)
        if self._audience_timer is not None:
            self._audience_timer.cancel()
            self._audience_timer = None

    def _settle(self, ahead: _Ahead) -> None:
        self._ahead = None
        if ahead.settled is not None and not ahead.settled.done():
            ahead.settled.set_result(None)

    def _apply_one(self, logged: LoggedEvent) -> None:
        variant = self.variant
        variant.evolve(self.state, logged.event, logged.at_ms)
        self.log.append(logged)
        finished = self.state.status == "finished"
        patches = self._views.advance(logged.event)
        plain: bytes | None = None  # The event as JSON, when it is not redacted.
        for viewer, audience in self._audiences.items():
            shown = variant.redact(logged.event, viewer, finished)
            if shown is logged.event:
                if plain is None:
                    plain = _encoder.encode(
                        event_to_wire(shown, logged.version, logged.at_ms, variant.name)
                    )
                event = plain
            else:
                event = _encoder.encode(
                    event_to_wire(shown, logged.version, logged.at_ms, variant.name)
                )
            audience.pending.append(diff_message(logged.version, event, patches[viewer]))

    def _flush(self) -> None:
        """Send each audience the messages of the events just applied, as one batch."""
        for audience in self._audiences.values():
            if audience.pending:
                batch = Batch(audience.pending)
                audience.pending = []
                for outbox in audience.outboxes:
                    outbox.feed(batch)
        if len(self.state.players) != self._players:
            self.update_presence()  # A seat was taken, and a bot is present at once.
        if not self._over and self.state.status in OVER:
            self._game_over()

    def diffs(self, viewer: Viewer, after: int, until: int, public: bool) -> Iterator[bytes]:
        """The ``diff`` messages of ``viewer`` for versions ``after + 1 .. until``,
        one at a time, from the view at ``after`` (version 0: the empty table).

        ``public`` (the game is over): every reserved card and every event is shown,
        as ``GET /view?version=`` and ``GET /events`` show a finished game's past.
        """
        variant = self.variant
        state = variant.fold_timed((e.at_ms, e.event) for e in self.log[:after])
        if not public:
            # Made as the live ones are, so a socket resuming gets the very diffs
            # the others got.
            views = AudienceViews(variant, state)
            views.view(viewer)
            for logged in self.log[after:until]:
                variant.evolve(state, logged.event, logged.at_ms)
                shown = variant.redact(logged.event, viewer, False)
                yield diff_message(
                    logged.version,
                    _encoder.encode(
                        event_to_wire(shown, logged.version, logged.at_ms, variant.name)
                    ),
                    views.advance(logged.event)[viewer],
                )
            return
        before = self._past_view(state, viewer, public)
        for logged in self.log[after:until]:
            variant.evolve(state, logged.event, logged.at_ms)
            now = self._past_view(state, viewer, public)
            shown = variant.redact(logged.event, viewer, public)
            yield diff_message(
                logged.version,
                _encoder.encode(event_to_wire(shown, logged.version, logged.at_ms, variant.name)),
                _encoder.encode(view_patch(before, now)),
            )
            before = now

    def _past_view(self, state: Any, viewer: Viewer, public: bool) -> dict[str, Any]:
        view = self.variant.view(state, viewer)
        if public:
            reveal_reserves(self.variant, state, view)
        return view
