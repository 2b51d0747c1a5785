"""The live pipeline: each watched game's way, in this process, from an append to
the sockets.

Events reach a game's hub (``server.live.hubs.Hub``) by two roads. This process's
own appends come from the game service (``server.games.hooks.AppendObserver``):
``appending`` before the append's round trip to Redis, then ``appended`` or
``append_failed``. Every other process's appends come from the tailer
(``server.live.tailer``): a keyspace notification marks the game, the tailer reads
its new events and hands them on with ``delivered``. ``LivePipeline`` is the one
object that sees both roads: it keeps, for every game the process watches, a
``GameLine`` that says where the game is on its way, and it makes every fold into
the game's hub.

The stages of a game's line, one of which holds at any time:

- **IDLE**: no append of this process is in flight for the game. The hub shows its
  confirmed version, and whatever the tailer delivers is folded at once.
- **AHEAD**: an append of this process is in flight, and its events follow the
  hub's version: the hub has folded them *ahead* and made every audience's
  messages, but writes none of them until the append is confirmed. The hub's
  ``version`` stays the confirmed one. Whatever the tailer delivers meanwhile is
  left unfolded, and the line notes that the game must be read again (``reread``)
  once the append ends, whichever way.
- **IN_FLIGHT_UNSHOWN**: an append of this process is in flight, but its events
  were not folded ahead, because the hub was not at the version they follow (the
  tailer had not delivered the events before them yet), or because the hub was
  made while the append was in flight. Deliveries are folded at once.

The transitions, each a method that asserts its stage before it changes it:

- ``appending``: IDLE to AHEAD when the hub folds the events ahead, or IDLE to
  IN_FLIGHT_UNSHOWN when it refuses them. Calling it in any other stage raises:
  the service appends to a game under the game's lock, one append at a time.
- ``appended``: AHEAD to IDLE by confirming the events folded ahead, which writes
  their messages: the move is *shown*. IN_FLIGHT_UNSHOWN to IDLE by folding the
  events as if they had been read, which reads the game again if events before
  them are still unread. It must be given the very list ``appending`` was, and
  calling it in IDLE raises.
- ``append_failed``: AHEAD or IN_FLIGHT_UNSHOWN to IDLE. Events folded ahead are
  undone (the hub folds its confirmed log again); the notifications counted for
  the append are taken back, and the game is read again, since another process
  may have appended in its place. Calling it in IDLE raises.
- ``delivered``: no change of stage. The tailer's events are folded (IDLE,
  IN_FLIGHT_UNSHOWN) or left to be read again (AHEAD).

With ``SPLENDOR_DURABILITY=replica`` an append's result comes only once a replica
has it (``server.store.durability``), so ``appended`` means "confirmed durable";
the tailer likewise hands on others' events only once a replica has them.

Notifications of this process's own appends are counted off rather than read,
since the hub gets those events from ``appended``. A game's line counts them
(``expected``) only while its channel is *live*, that is, has delivered a
notification since it was last subscribed to: only then is every notification of
an append sure to come. Counting is not matching (a notification does not say
whose append it is), and it is safe: if another process's notification is counted
off in place of one of ours, ours comes later and is read, and that read finds
the other's events too. Whenever the tailer subscribes to a game's channel again
(``channel_reset``), the game's count is cleared, since the notifications it
waited for may have been lost with the old subscription.

Invariants, asserted after every transition (``_holds``):

- the line is AHEAD exactly when its hub is ahead;
- the line holds the events in flight (``logged``) exactly when it is not IDLE,
  and counts notifications for them (``counted``) only then;
- notifications are expected only on a live channel;
- ``reread`` is set only while AHEAD;
- the tailer reads the game from the hub's version: its position is the hub's
  confirmed version after every fold.

Everything here is synchronous: between an event folded ahead and its
confirmation nothing else of the game's runs in between but what the event loop
schedules, and no method awaits (the event loop is the lock). A pipeline serving
hubs has a line for exactly the games with a hub, since the registry makes and
drops both in one step; a pipeline over a tailer alone (the tailer's tests and
the command bench) has lines and no hubs, and only counts notifications.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from server.games.projection import LoggedEvent
from server.live.hubs import Fold, Hub
from server.live.tailer import Tailer
from server.store.event_store import StoredEvent

__all__ = ["GameLine", "LivePipeline", "Stage"]

log = logging.getLogger(__name__)


class Stage(enum.Enum):
    """Where a watched game is on its way from an append of this process to its
    sockets (the module's docstring says what each stage means)."""

    IDLE = "idle"
    AHEAD = "ahead"
    IN_FLIGHT_UNSHOWN = "in flight, unshown"


@dataclass(slots=True)
class GameLine:
    """The pipeline's record of one watched game."""

    # Where the game is: the module's docstring lists the stages.
    stage: Stage = Stage.IDLE
    # The events of the append in flight, as ``appending`` was given them, which
    # ``appended`` must be given again; None while IDLE.
    logged: Sequence[LoggedEvent] | None = None
    # The notifications counted for the append in flight, which are taken back if
    # it fails.
    counted: int = 0
    # The notifications of this process's appends still to be counted off.
    expected: int = 0
    # Whether the game's channel has delivered a notification since it was last
    # subscribed to: only then are this process's notifications counted.
    live: bool = False
    # Whether events were delivered while AHEAD and left, so that the game must be
    # read again once the append ends.
    reread: bool = False


class LivePipeline:
    """Every fold into this process's hubs, and each watched game's line.

    ``hubs`` is the registry's map of the hubs made; ``drop_hub(hub)`` drops a hub
    whose fold failed, closing its sockets, and calls ``unwatch``. The pipeline
    makes its tailer with ``make_tailer(self)``, since each calls the other: the
    tailer hands on events and notifications, and the pipeline has the tailer read
    games again and follow the hubs' versions.
    """

    def __init__(
        self,
        hubs: Mapping[str, Hub],
        drop_hub: Callable[[Hub], None],
        make_tailer: Callable[[LivePipeline], Tailer],
    ) -> None:
        self._hubs = hubs
        self._drop_hub = drop_hub
        self._lines: dict[str, GameLine] = {}
        # The appends in flight for games with no line: a line made meanwhile starts
        # IN_FLIGHT_UNSHOWN, and the end of an append with no line is checked too.
        self._unwatched: dict[str, Sequence[LoggedEvent]] = {}
        self.tailer = make_tailer(self)

    def line(self, game_id: str) -> GameLine | None:
        """The game's line, if the game is watched."""
        return self._lines.get(game_id)

    # -- the games watched (from the registry)

    def watch(self, game_id: str, version: int) -> None:
        """Watch a game whose hub is at ``version``: it gets a line, and the tailer
        reads its events after that version."""
        assert game_id not in self._lines, f"{game_id} is watched already"
        line = self._lines[game_id] = GameLine()
        in_flight = self._unwatched.pop(game_id, None)
        if in_flight is not None:
            line.stage, line.logged = Stage.IN_FLIGHT_UNSHOWN, in_flight
        self.tailer.watch(game_id, version)
        assert self._holds(game_id, line)

    def unwatch(self, game_id: str) -> None:
        """Stop watching a game: its line goes, and the tailer stops reading it. An
        append still in flight is remembered, so that its end is checked."""
        line = self._lines.pop(game_id, None)
        if line is not None and line.logged is not None:
            self._unwatched[game_id] = line.logged
        self.tailer.unwatch(game_id)

    # -- this process's own appends (``server.games.hooks.AppendObserver``)

    def appending(self, game_id: str, logged: Sequence[LoggedEvent]) -> None:
        """IDLE to AHEAD or IN_FLIGHT_UNSHOWN: the events are about to be appended.
        Their notifications are counted, and the hub folds them ahead if they follow
        its version, while the append's round trip is in flight."""
        line = self._lines.get(game_id)
        if line is None:
            assert game_id not in self._unwatched, f"{game_id}: a second append in flight"
            self._unwatched[game_id] = logged
            return
        assert line.stage is Stage.IDLE, f"{game_id}: a second append in flight"
        # Not IDLE before the fold: a hub dropped by it leaves the append remembered.
        line.stage, line.logged = Stage.IN_FLIGHT_UNSHOWN, logged
        line.counted = len(logged) if self.expect(game_id, len(logged)) else 0
        hub = self._hubs.get(game_id)
        if hub is None:
            return  # A pipeline over a tailer alone has no hub to fold into.
        outcome = self._fold(hub, lambda: hub.fold_ahead(logged))
        if outcome is Fold.HUB_DROPPED:
            return
        if outcome is Fold.APPLIED:
            line.stage = Stage.AHEAD
        else:
            assert outcome is Fold.REFUSED, outcome
        assert self._holds(game_id, line)

    def appended(self, game_id: str, logged: Sequence[LoggedEvent]) -> None:
        """AHEAD or IN_FLIGHT_UNSHOWN to IDLE: the events were appended. They are
        shown at once, without being read back from Redis."""
        line = self._lines.get(game_id)
        if line is None:
            in_flight = self._unwatched.pop(game_id, None)
            assert in_flight is logged, f"{game_id}: appended, not as announced"
            return
        stage = line.stage
        assert stage is not Stage.IDLE, f"{game_id}: appended with no append in flight"
        assert line.logged is logged, f"{game_id}: appended other events than announced"
        # IDLE before the fold: a hub dropped by it leaves nothing in flight.
        line.stage, line.logged, line.counted = Stage.IDLE, None, 0
        hub = self._hubs.get(game_id)
        if hub is None:
            return  # A pipeline over a tailer alone has no hub to fold into.
        if stage is Stage.AHEAD:
            outcome = self._fold(hub, lambda: hub.confirm(logged))
            if outcome is Fold.HUB_DROPPED:
                return
            assert outcome is Fold.APPLIED, outcome
            if line.reread:
                line.reread = False
                self.tailer.mark(game_id)
        else:
            outcome = self._fold(hub, lambda: hub.apply_logged(logged))
            if outcome is Fold.HUB_DROPPED:
                return
            if outcome is Fold.GAP:
                self.tailer.mark(game_id)  # The events before these are still to be read.
        assert self._holds(game_id, line)

    def append_failed(self, game_id: str) -> None:
        """AHEAD or IN_FLIGHT_UNSHOWN to IDLE: the append wrote nothing, or its
        outcome is unknown. Events folded ahead are undone, the notifications counted
        are taken back, and the game is read again."""
        line = self._lines.get(game_id)
        if line is None:
            in_flight = self._unwatched.pop(game_id, None)
            assert in_flight is not None, f"{game_id}: failed, never announced"
            return
        stage = line.stage
        assert stage is not Stage.IDLE, f"{game_id}: failed with no append in flight"
        counted = line.counted
        line.stage, line.logged, line.counted = Stage.IDLE, None, 0
        hub = self._hubs.get(game_id)
        if hub is not None and stage is Stage.AHEAD:
            outcome = self._fold(hub, hub.undo)
            if outcome is Fold.HUB_DROPPED:
                return
            assert outcome is Fold.UNDONE, outcome
            line.reread = False  # The game is read again just below.
        self.expected_failed(game_id, counted)
        assert self._holds(game_id, line)

    # -- notifications and events (from the tailer)

    def notified(self, game_id: str) -> bool:
        """A notification came on the game's channel: whether the tailer should read
        the game (False when it is counted off as one of this process's own)."""
        line = self._lines.get(game_id)
        if line is None:
            return True
        line.live = True
        if line.expected:
            line.expected -= 1
            return False
        return True

    def channel_reset(self, game_id: str) -> None:
        """The tailer subscribes to the game's channel again, or stops: the
        notifications counted on the old subscription may never come."""
        line = self._lines.get(game_id)
        if line is not None:
            line.live = False
            line.expected = 0

    def delivered(self, game_id: str, events: list[StoredEvent]) -> None:
        """Fold the events the tailer read, or leave them to be read again while the
        hub is ahead.

        A gap (events that do not follow the hub's version) is only logged by the
        hub, and the game is read at its next notification or sweep: it cannot
        happen while the tailer reads from the hub's version, and marking the game
        at once would read it again and again as fast as Redis answers if a gap
        ever persisted.
        """
        hub = self._hubs.get(game_id)
        if hub is None:
            return
        if self._fold(hub, lambda: hub.apply(events)) is Fold.DEFERRED_AHEAD:
            self._lines[game_id].reread = True

    # -- counting notifications

    def expect(self, game_id: str, events: int) -> bool:
        """Count off the notifications of ``events`` events this process is
        appending; False when they cannot be counted on (they are then read as any
        other). The counting half of ``appending``, on its own for a tailer alone."""
        line = self._lines.get(game_id)
        if line is None or self.tailer.mode != "notify" or not line.live:
            return False
        line.expected += events
        return True

    def expected_failed(self, game_id: str, events: int) -> None:
        """Take back ``events`` counted notifications of an append that wrote
        nothing, or may have, and read the game again: a notification counted off
        meanwhile may have been another process's. The counting half of
        ``append_failed``, on its own for a tailer alone."""
        line = self._lines.get(game_id)
        if line is not None:
            line.expected = max(0, line.expected - events)
        self.tailer.mark(game_id)

    # -- folds

    def _fold(self, hub: Hub, fold: Callable[[], Fold]) -> Fold:
        """``fold()`` into ``hub``, then have the tailer read on from the hub's
        version. A fold that raises leaves the hub's state half-changed: the hub is
        dropped, its sockets are closed, and their clients reconnect (with
        ``since``) to a hub loaded afresh."""
        try:
            outcome = fold()
        except Exception:
            log.exception("%s: hub failed to apply events; closing its sockets", hub.game_id)
            self._drop_hub(hub)
            return Fold.HUB_DROPPED
        self.tailer.advance(hub.game_id, hub.version)
        return outcome

    def _holds(self, game_id: str, line: GameLine) -> bool:
        """Assert the line's invariants (the module's docstring lists them)."""
        hub = self._hubs.get(game_id)
        assert (line.stage is Stage.AHEAD) == (hub is not None and hub.ahead), (
            f"{game_id}: {line.stage} but the hub is {'' if hub and hub.ahead else 'not '}ahead"
        )
        assert (line.stage is Stage.IDLE) == (line.logged is None), f"{game_id}: {line}"
        assert line.counted == 0 or line.stage is not Stage.IDLE, f"{game_id}: {line}"
        assert line.expected >= 0 and (line.expected == 0 or line.live), f"{game_id}: {line}"
        assert not line.reread or line.stage is Stage.AHEAD, f"{game_id}: {line}"
        assert hub is None or self.tailer.position(game_id) == hub.version, (
            f"{game_id}: tailer at {self.tailer.position(game_id)}, hub at {hub.version}"
        )
        return True
