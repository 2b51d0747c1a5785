"""The rules of time and leaving that both games share (RULES.md part 3): resign,
abort, abandon claims, loss on time, the first-turn window, open games expiring,
seats *out*, and the ranks of a result.

Each game's ``decide`` starts with ``decide_first``: the leave actions' events
(``decide_leave``), or the checks of a move (its seat's turn, its time,
``check_time``); what follows a seat going out (the game ends, or the out seat's turn
ends and play goes on) is the game's own ``SeatOut``.

Time and presence are inputs, never read here: ``Facts`` carries ``now`` and, per
seat, since when it has had no connection (the server's presence tracking supplies
it; see docs/rules.md, "Facts").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import msgspec

from events import clock as clocks
from events import turns
from events.base import (
    AbandonClaimed,
    Abort,
    ClaimAbandon,
    GameAborted,
    LeaveAction,
    OutReason,
    Resign,
    Resigned,
    TimeRanOut,
)
from events.clock import (
    IDLE_MS,
    LIST_GRACE_MS,
    LIVE_QUIET_MS,
    OPEN_AWAY_MS,
    OPEN_GAME_MS,
    Clock,
)
from events.errors import GameOver, IllegalAction


class Facts(msgspec.Struct, frozen=True):
    """What the rules need to know that is not in the log: the time now, and per seat
    since when it has had no open connection (None while it has one; seats past the
    end of the tuple count as connected). Given by the server to ``decide``,
    ``leave_actions`` and ``expire``."""

    now_ms: int
    away_since_ms: tuple[int | None, ...] = ()

    def away_ms(self, seat: int) -> int:
        """How long ``seat`` has had no connection (0 while it has one)."""
        since = self.away_since_ms[seat] if seat < len(self.away_since_ms) else None
        return 0 if since is None else max(0, self.now_ms - since)


class TimeIsUp(IllegalAction):
    """A move that came after its seat's time (or first-turn window) had run out: the
    server records the loss on time (or the abort) instead."""


class _Player(Protocol):
    @property
    def seat(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def bot(self) -> str | None: ...
    @property
    def account(self) -> str | None: ...
    @property
    def out(self) -> OutReason | None: ...


class Table(turns.Table, Protocol):
    """What these rules read of a game's state (both games' states are one)."""

    @property
    def players(self) -> Sequence[_Player]: ...
    @property
    def clock(self) -> Clock: ...


SeatOut = Callable[[Any, int, OutReason], list[Any]]
IdleEnd = Callable[[Any, list[int]], list[Any]]
"""A game's end when its human seats in play (given) have all been away for a day
(``idle``) and bots are left: the result among the bots, the humans ranked below."""
"""A game's consequences of ``seat`` going out for ``reason``, given the state before
the event that puts it out: the end of the game, or the end of its turn, or nothing."""


# ---------------------------------------------------------------------- seats in play


def in_play(state: Table, also_out: int | None = None) -> list[int]:
    """The seats still in play (``also_out`` counted out already)."""
    return [p.seat for p in state.players if p.out is None and p.seat != also_out]


def next_in_play(state: Table, seat: int, also_out: int | None = None) -> int:
    """The seat after ``seat`` whose turn it is next: out seats are skipped."""
    count = state.players_count
    players = state.players
    for step in range(1, count + 1):
        candidate = (seat + step) % count
        if candidate != also_out and players[candidate].out is None:
            return candidate
    return seat


def round_over(first_seat: int, count: int, seat: int, next_seat: int) -> bool:
    """Play passing from ``seat`` to ``next_seat`` completes a round (it reaches or
    passes the first seat, which may be out and skipped)."""
    return (next_seat - first_seat) % count <= (seat - first_seat) % count


def ranks(count: int, groups: Sequence[Sequence[int]], outs: Sequence[int]) -> tuple[int, ...]:
    """Each seat's rank: the seats in play by ``groups`` (best first, a group's seats
    tied, sharing a rank, the next rank after a tie skipped as in 1, 1, 3), then the
    seats out, the last to go out first."""
    rank = [0] * count
    place = 1
    for group in groups:
        for seat in group:
            rank[seat] = place
        place += len(group)
    for seat in reversed(outs):
        rank[seat] = place
        place += 1
    return tuple(rank)


# ---------------------------------------------------------------------- what is allowed


def abort_allowed(state: Table, seat: int) -> bool:
    """A seated human not out may abort until every human seat has completed its first
    turn (an open game too)."""
    if not state.clock.opening or state.status not in ("open", "live"):
        return False
    if not 0 <= seat < len(state.players):
        return False
    player = state.players[seat]
    return player.bot is None and player.out is None


def claim_allowed(state: Table, seat: int, facts: Facts | None) -> bool:
    """An untimed or real-time game, another human seat in play, and the human seat
    to move away for 60 s (untimed) or 30 s (real-time, past its first turn)."""
    if facts is None or state.status != "live":
        return False
    if not 0 <= seat < len(state.players) or seat == state.seat:
        return False
    return state.players[seat].out is None and _claim_refusal(state, seat, facts) is None


def _claim_refusal(state: Table, seat: int, facts: Facts | None) -> IllegalAction | None:
    """Why ``seat`` may not claim that the seat to move abandoned (None: it may)."""
    clock = state.clock
    after = clocks.claim_after_ms(clock)
    mover = state.players[state.seat]
    if after is None:
        return IllegalAction("claim.correspondence")
    if seat == state.seat:
        return IllegalAction("claim.own_move")
    if state.players[seat].bot is not None or mover.bot is not None:
        return IllegalAction("claim.bot")
    if clock.control is not None and clocks.first_turn(clock, state.seat):
        # The first-turn window decides a first move: the game is aborted, not won.
        return IllegalAction("claim.first_move", player=mover.name)
    away = facts.away_ms(state.seat) if facts is not None else 0
    if away < after:
        wait = (after - away + 999) // 1000
        return IllegalAction("claim.too_early", player=mover.name, after=after // 1000, wait=wait)
    return None


_ABORT = Abort()
_CLAIM = ClaimAbandon()
_LEAVE = (Resign, Abort, ClaimAbandon)


def leave_actions(state: Table, seat: int | None, facts: Facts | None = None) -> list[LeaveAction]:
    """The leave actions ``seat`` may send now, as ``legal`` lists them: ``abort`` and
    ``claim_abandon`` while allowed. ``resign`` is never listed: any live seat may send
    it at any time (docs/rules.md)."""
    if seat is None:
        return []
    actions: list[LeaveAction] = []
    if abort_allowed(state, seat):
        actions.append(_ABORT)
    if claim_allowed(state, seat, facts):
        actions.append(_CLAIM)
    return actions


def leave_wire(state: Table, seat: int | None) -> list[dict[str, Any]]:
    """``leave_actions`` without facts, as the wire writes them."""
    return [{"kind": "abort"}] if seat is not None and abort_allowed(state, seat) else []


# ---------------------------------------------------------------------- decide


def decide_first(
    state: Table, seat: int, action: Any, facts: Facts | None, seat_out: SeatOut
) -> list[Any] | None:
    """What every game's ``decide`` checks first: a leave action's events, or None
    once the action is a move of the seat to move, in its time."""
    if isinstance(action, _LEAVE):
        return decide_leave(state, seat, action, facts, seat_out)
    turns.check_turn(state, seat)
    check_time(state, seat, facts)
    return None


def decide_leave(
    state: Table, seat: int, action: LeaveAction, facts: Facts | None, seat_out: SeatOut
) -> list[Any]:
    """The events of a leave action by ``seat``, or a ``RuleViolation``."""
    if state.status in ("finished", "aborted"):
        raise GameOver("game.over")
    if not 0 <= seat < len(state.players):
        raise IllegalAction("leave.no_seat")
    player = state.players[seat]
    if player.out is not None:
        raise IllegalAction("leave.already_out")
    if isinstance(action, Abort):
        if not abort_allowed(state, seat):
            raise IllegalAction("abort.too_late")
        return [GameAborted("abort", seat)]
    if state.status != "live":
        raise IllegalAction("leave.not_started")
    if isinstance(action, Resign):
        if player.bot is not None:
            raise IllegalAction("resign.bot")
        return [Resigned(seat), *seat_out(state, seat, "resign")]
    return _claim(state, seat, facts, seat_out)


def _claim(state: Table, seat: int, facts: Facts | None, seat_out: SeatOut) -> list[Any]:
    refusal = _claim_refusal(state, seat, facts)
    if refusal is not None:
        raise refusal
    return [AbandonClaimed(seat, state.seat), *seat_out(state, state.seat, "abandon")]


def check_time(state: Table, seat: int, facts: Facts | None) -> None:
    """Refuse a move of the seat to move once its time is out (``TimeIsUp``)."""
    if facts is None:
        return
    clock = state.clock
    if seat != clock.running:
        return
    due = clocks.deadline(clock)
    if due is not None and facts.now_ms >= due:
        if clocks.first_turn(clock, seat):
            raise TimeIsUp("time.first_move_out")
        raise TimeIsUp("time.out")


# ---------------------------------------------------------------------- time passing


def deadline(state: Table) -> int | None:
    """When time alone will change the game next (``expire`` then has events), or None:
    an open game's expiry, the deadline of the seat to move."""
    if state.status == "open":
        return state.clock.created_ms + OPEN_GAME_MS
    if state.status == "live":
        return clocks.deadline(state.clock)
    return None


def expire(
    state: Table, facts: Facts, seat_out: SeatOut, idle_end: IdleEnd | None = None
) -> list[Any]:
    """The events the passing of time causes at ``facts.now_ms``: an open game
    expired (30 minutes, or its seated people all away 2 minutes), a first turn's
    window passed (the game is aborted), a seat's time ran out, an untimed game idle
    for a day. Empty when nothing is due. Without away times in ``facts`` everyone
    counts as connected: only the clocks decide."""
    due = deadline(state)
    if due is not None and facts.now_ms >= due:
        if state.status == "open":
            return [GameAborted("expired")]
        seat = state.clock.running
        assert seat is not None
        if clocks.first_turn(state.clock, seat):
            return [GameAborted("first_move", seat)]
        return [TimeRanOut(seat), *seat_out(state, seat, "time")]
    if state.status == "open" and open_game_left(state, facts):
        return [GameAborted("expired")]
    if idle(state, facts):
        humans = idle_humans(state)
        if idle_end is None or all(p.bot is None for p in state.players):
            return [GameAborted("idle")]
        return [*(AbandonClaimed(seat, seat) for seat in humans), *idle_end(state, humans)]
    return []


def open_game_left(state: Table, facts: Facts) -> bool:
    """An open game with seated people, all of them away for ``OPEN_AWAY_MS`` or more
    (an open game nobody has sat down at waits for its 30 minutes)."""
    seated = [p.seat for p in state.players if p.bot is None]
    return bool(seated) and all(facts.away_ms(seat) >= OPEN_AWAY_MS for seat in seated)


def idle_humans(state: Table) -> list[int]:
    """The human seats still in play, whose absence makes a game idle."""
    return [p.seat for p in state.players if p.bot is None and p.out is None]


def idle(state: Table, facts: Facts) -> bool:
    """A live untimed game in which no human seat in play has been connected for
    ``IDLE_MS``."""
    if state.status != "live" or state.clock.control is not None:
        return False
    humans = idle_humans(state)
    return bool(humans) and all(facts.away_ms(seat) >= IDLE_MS for seat in humans)


def listed(status: str, away_ms: Sequence[int], quiet_ms: int) -> bool:
    """Whether the lobby lists a game now. ``away_ms``: per human seat in play (an
    open game's seated people), how long it has had no connection (0: it has one);
    ``quiet_ms``: how long since the game's last event. An open game is listed while
    one of its seated people is connected (or nobody has sat down yet), a live game
    while a human seat is connected or it moved in the last ``LIVE_QUIET_MS``; away
    less than ``LIST_GRACE_MS`` counts as there (a page reloading, or opening its
    socket after creating the game)."""
    there = not away_ms or min(away_ms) < LIST_GRACE_MS
    if status == "open":
        return there
    if status == "live":
        return (bool(away_ms) and there) or quiet_ms < LIVE_QUIET_MS
    return True


def expiry_seat(events: Sequence[Any]) -> int | None:
    """The seat an ``expire`` result is about (None for an open game's expiry)."""
    first = events[0]
    return getattr(first, "seat", None)


# ---------------------------------------------------------------------- evolve


def apply_out(state: Any, seat: int, reason: OutReason) -> None:
    """A seat goes out: it keeps its things and makes no more moves."""
    state.players[seat].out = reason
    clocks.seat_out(state.clock, seat, reason == "time")


def apply_aborted(state: Any) -> None:
    state.status = "aborted"
    clocks.ended(state.clock)


OUT_EVENTS: dict[type[Any], OutReason] = {
    Resigned: "resign",
    TimeRanOut: "time",
    AbandonClaimed: "abandon",
}


def apply_leave_event(state: Any, event: Any) -> None:
    """Fold one of the shared events of leaving."""
    kind = type(event)
    if kind is GameAborted:
        apply_aborted(state)
    elif kind is AbandonClaimed:
        apply_out(state, event.against, "abandon")
    else:
        apply_out(state, event.seat, OUT_EVENTS[kind])
