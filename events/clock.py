"""Time in the rules (RULES.md part 3), pure: a game's clocks folded from its events
and the times recorded on them (``at``), read at a ``now`` given by the caller.

Nothing here reads a clock. ``evolve`` passes each event's recorded time to the fold
(``Clock.now_ms``); a seat's remaining time is then ``remaining(clock, seat, now_ms)``,
a function of those times and ``now`` alone: a bank is never kept apart from the
events, only re-derived from them, as the rest of the state is.

- Real-time: each human seat has a bank of ``initial`` seconds; it runs while the
  seat is to move (the pending choices of its turn included) and gains ``increment``
  when its turn ends (Fischer).
- Correspondence: ``per_move`` seconds for each turn, no bank.
- Untimed: no clock. Bots never have one.
- A seat's first turn runs no clock: a window does instead (``FIRST_MOVE_MS`` in
  real-time, ``per_move`` in correspondence), whose expiry aborts the game.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from typing import Final

import msgspec

from events.base import TimeControl

FIRST_MOVE_MS: Final = 30_000
OPEN_GAME_MS: Final = 30 * 60_000  # an open game nobody fills expires
ABANDON_MS: Final = 60_000  # an untimed game's mover away this long may be claimed abandoned
ABANDON_REALTIME_MS: Final = 30_000  # a real-time game's mover: whatever its clock holds
OPEN_AWAY_MS: Final = 2 * 60_000  # an open game whose seated people are all away this long expires
IDLE_MS: Final = 24 * 3_600_000  # a live untimed game with no human connected this long ends
LIVE_QUIET_MS: Final = 10 * 60_000  # a live game nobody attends is listed this long after a move
LIST_GRACE_MS: Final = 10_000  # away this little still counts as there for the lobby's lists


class Clock(msgspec.Struct):
    """What the fold of a game's events with their times knows of its clocks."""

    control: TimeControl | None = None
    seeded: bool = False
    rated: bool = False  # a rated game (GameCreated): kept beside ``seeded``
    created_ms: int = 0  # when the game was created
    now_ms: int = 0  # the time of the last event folded
    turn_ms: int = 0  # when the current turn began (or the game ended)
    running: int | None = None  # the seat whose time runs, None when none does
    humans: list[bool] = msgspec.field(default_factory=list)  # per seat: no bot
    turns: list[int] = msgspec.field(default_factory=list)  # turns completed per seat
    # Per seat, at the start of its turn: a real-time bank, or correspondence's
    # per_move; a seat gone out, and every seat once the game is over, keeps what it
    # had left then.
    banks_ms: list[int] = msgspec.field(default_factory=list)
    outs: list[int] = msgspec.field(default_factory=list)  # seats out, in order
    # Some human seat has not completed its first turn (abort is allowed): kept with
    # ``turns`` because views ask it for every seat after every event.
    opening: bool = False

    def copy(self) -> Clock:
        return Clock(
            self.control,
            self.seeded,
            self.rated,
            self.created_ms,
            self.now_ms,
            self.turn_ms,
            self.running,
            list(self.humans),
            list(self.turns),
            list(self.banks_ms),
            list(self.outs),
            self.opening,
        )


# ---------------------------------------------------------------------- the fold


def created(clock: Clock, control: TimeControl | None, seeded: bool, rated: bool = False) -> None:
    clock.control = control
    clock.seeded = seeded
    clock.rated = rated
    clock.created_ms = clock.turn_ms = clock.now_ms  # an open game's clock reads then


def joined(clock: Clock, bot: str | None) -> None:
    clock.humans.append(bot is None)
    clock.opening = clock.opening or bot is None
    clock.turns.append(0)
    control = clock.control
    allowed = None if control is None else control.initial or control.per_move
    clock.banks_ms.append(allowed * 1000 if allowed is not None else 0)


def started(clock: Clock, first_seat: int) -> None:
    clock.turn_ms = clock.now_ms
    clock.running = first_seat


def turn_ended(clock: Clock, seat: int, next_seat: int) -> None:
    """A turn's end: its time taken from the bank (the first turn's excepted), the
    increment added, and the next turn's clock started."""
    now = clock.now_ms
    turns = clock.turns
    if seat < len(turns):  # (a state made without its events, as bots guess one, has none)
        control = clock.control
        # The turn of a seat gone out ends too: its bank stays as it went out.
        realtime = control is not None and control.initial is not None
        if control is not None and realtime and turns[seat] and seat not in clock.outs:
            used = now - clock.turn_ms
            clock.banks_ms[seat] += (control.increment or 0) * 1000 - used
        turns[seat] += 1
        if clock.opening and turns[seat] == 1:
            clock.opening = not all_turns_started(clock)
    clock.turn_ms = now
    clock.running = next_seat


def seat_out(clock: Clock, seat: int, ran_out: bool) -> None:
    """A seat goes out: on time its clock shows 0; going out during its own turn
    (resigning on the move) its clock stops with that turn's time taken."""
    if seat < len(clock.banks_ms):  # (a state made without its events has none)
        if ran_out:
            clock.banks_ms[seat] = 0
        else:
            _stop(clock, seat)
    clock.outs.append(seat)
    if clock.opening:  # a seat out never makes a first move: it waits for it no more
        clock.opening = not all_turns_started(clock)


def ended(clock: Clock) -> None:
    """The game is over (a result or an abort): the running clock stops, so every
    seat's clock reads as it stood at the final event."""
    seat = clock.running
    if seat is not None and seat < len(clock.banks_ms) and seat not in clock.outs:
        _stop(clock, seat)
    clock.running = None
    clock.turn_ms = clock.now_ms


def _stop(clock: Clock, seat: int) -> None:
    """Take the time ``seat`` has used of its current turn, if its clock runs now (a
    timed seat to move, past its first turn, whose first-turn window runs instead)."""
    if seat != clock.running or not timed(clock, seat) or first_turn(clock, seat):
        return
    used = clock.now_ms - clock.turn_ms
    clock.banks_ms[seat] = max(0, clock.banks_ms[seat] - used)


# ---------------------------------------------------------------------- reading it


def timed(clock: Clock, seat: int) -> bool:
    """``seat`` plays on a clock: the game has a time control and the seat is human."""
    return clock.control is not None and seat < len(clock.humans) and clock.humans[seat]


def claim_after_ms(clock: Clock) -> int | None:
    """How long the seat to move must have been away before another seat may claim
    that it abandoned: 60 s untimed, 30 s real-time; None in correspondence, where
    the clock decides."""
    control = clock.control
    if control is None:
        return ABANDON_MS
    if control.initial is not None:
        return ABANDON_REALTIME_MS
    return None


def first_turn(clock: Clock, seat: int) -> bool:
    return seat < len(clock.turns) and clock.turns[seat] == 0


def turn_allowance_ms(clock: Clock, seat: int) -> int:
    """How long ``seat``'s current turn may last from its start (a timed seat's)."""
    control = clock.control
    assert control is not None
    if first_turn(clock, seat):
        return FIRST_MOVE_MS if control.initial is not None else (control.per_move or 0) * 1000
    if control.initial is not None:
        return clock.banks_ms[seat]
    return (control.per_move or 0) * 1000


def deadline(clock: Clock) -> int | None:
    """When the seat to move runs out of time (or of its first turn's window); None
    when no clock runs."""
    seat = clock.running
    if seat is None or not timed(clock, seat):
        return None
    return clock.turn_ms + turn_allowance_ms(clock, seat)


def remaining(clock: Clock, seat: int, now_ms: int) -> int | None:
    """``seat``'s time left at ``now_ms`` in ms (never below 0), None for a seat
    without a clock. During a seat's first turn its bank does not run."""
    if not timed(clock, seat):
        return None
    running = seat == clock.running and not first_turn(clock, seat)
    bank = clock.banks_ms[seat]
    if running:
        bank -= now_ms - clock.turn_ms
    return max(0, bank)


def all_turns_started(clock: Clock) -> bool:
    """Every human seat in play has completed its first turn (abort is no longer
    allowed); ``clock.opening`` keeps the opposite."""
    outs = clock.outs
    return all(
        done or not human or seat in outs
        for seat, (done, human) in enumerate(zip(clock.turns, clock.humans, strict=True))
    )


def clock_view(clock: Clock, now_ms: int | None = None) -> dict[str, object] | None:
    """PROTOCOL.md's ``clock`` of a view (None when untimed), read at ``now_ms``; by
    default at the last change of the clocks (the start of the turn, or the end), so
    that a view is a function of the events alone and changes only with the events
    that change a clock. A client ticks ``remaining[running]`` down from ``now``.
    ``first_move``: what is left of the first-turn window of the seat to move, while
    it runs (an addition to PROTOCOL.md)."""
    control = clock.control
    if control is None:
        return None
    at = clock.turn_ms if now_ms is None else now_ms
    seat = clock.running
    runs = seat is not None and timed(clock, seat)
    window = None
    if runs and seat is not None and first_turn(clock, seat):
        window = max(0, clock.turn_ms + turn_allowance_ms(clock, seat) - at)
    return {
        "initial": control.initial,
        "increment": control.increment,
        "per_move": control.per_move,
        "remaining": [remaining(clock, s, at) for s in range(len(clock.humans))],
        "running": seat if runs and window is None else None,
        "first_move": window,
        "now": iso_ms(at),
    }


def control_wire(control: TimeControl | None) -> dict[str, int | None] | None:
    """A time control as summaries show it: ``{"initial", "increment", "per_move"}``."""
    if control is None:
        return None
    return {
        "initial": control.initial,
        "increment": control.increment,
        "per_move": control.per_move,
    }


@lru_cache(maxsize=256)
def iso_ms(at_ms: int) -> str:
    """Milliseconds since the epoch as ISO-8601 UTC: ``2025-01-31T12:00:00.123Z``."""
    moment = datetime.fromtimestamp(at_ms / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
