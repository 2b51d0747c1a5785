"""Time in the rules (RULES.md part 3), with explicit times: the bank and Fischer
increment, correspondence's time per move, the first-turn window, bots without a
clock, open games expiring, and the clock a view shows."""

from __future__ import annotations

import pytest

from events.base import GameAborted, GameCreated, Resign, TimeControl, TimeRanOut
from events.classic.events import GameEnded
from events.clock import iso_ms, remaining
from events.game import CLASSIC
from events.leaving import TimeIsUp
from tests.live_helpers import T0, Timed, kinds

BLITZ = TimeControl(initial=60, increment=2)
DAILY = TimeControl(per_move=3600)


@pytest.mark.parametrize("variant", ["classic", "duel"])
def test_the_bank_runs_on_the_move_and_gains_the_increment(variant: str) -> None:
    """Real-time: first turns cost nothing; later turns take their time from the bank and add the increment when they end; pending choices run on the same clock."""
    game = Timed(variant, 2, BLITZ)
    first = game.state.seat
    other = 1 - first
    game.turn(10)  # first turns: the window runs, not the bank
    game.turn(5)
    assert game.remaining(first) == 60_000 and game.remaining(other) == 60_000
    game.turn(7)  # 60 - 7 + 2
    assert game.remaining(first) == 55_000
    game.after(3)
    assert game.remaining(other) == 57_000  # running since the turn began
    assert game.remaining(first) == 55_000  # not running
    game.turn(0)
    assert game.remaining(other) == 59_000  # 60 - 3 + 2
    # the same, folded again from the events and their times
    folded = game.variant.fold_timed(game.log)
    assert remaining(folded.clock, other, game.now) == 59_000


def test_a_bank_never_shows_below_zero_and_the_deadline_is_the_bank() -> None:
    """The seat to move's deadline is its turn's start plus its bank; remaining stops at 0."""
    game = Timed("classic", 2, BLITZ)
    game.turn(1)
    game.turn(1)
    started = game.now
    assert game.deadline() == started + 60_000
    game.after(61)
    assert game.remaining(game.state.seat) == 0


@pytest.mark.parametrize("variant", ["classic", "duel"])
def test_a_move_after_the_deadline_is_refused_and_time_decides(variant: str) -> None:
    """A move one millisecond before the deadline counts; at the deadline it is refused and expire records TimeRanOut, and the other seat wins on time."""
    game = Timed(variant, 2, BLITZ)
    game.turn(1)
    game.turn(1)
    mover = game.state.seat
    game.after(59.999)
    assert game.expire() == []
    game.after(0.001)
    action = game.variant.legal_actions(game.state, mover)[0]
    with pytest.raises(TimeIsUp, match="Your time ran out"):
        game.act(mover, action)
    events = game.expire()
    assert events[0] == TimeRanOut(mover)
    assert kinds(events) == ["TimeRanOut", "GameEnded"]
    result = game.view()["result"]
    assert result["winners"] == [1 - mover] and result["reason"] == "time"
    assert game.view()["players"][mover]["out"] == "time"
    assert game.state.status == "finished" and game.expire() == []


def test_correspondence_gives_each_turn_per_move() -> None:
    """Correspondence: every turn has per_move seconds, no bank; the deadline is the turn's start plus per_move."""
    game = Timed("classic", 2, DAILY)
    game.turn(100)
    game.turn(3000)
    mover = game.state.seat
    assert game.remaining(mover) == 3_600_000
    game.after(1800)
    assert game.remaining(mover) == 1_800_000 and game.remaining(1 - mover) == 3_600_000
    game.turn(0)
    assert game.remaining(mover) == 3_600_000  # a new turn, a full day again
    assert game.deadline() == game.now + 3_600_000
    game.after(3600)
    assert kinds(game.expire())[:1] == ["TimeRanOut"]


@pytest.mark.parametrize(
    ("control", "window"), [(BLITZ, 30), (DAILY, 3600)], ids=["realtime", "correspondence"]
)
def test_the_first_turn_window_aborts_the_game(control: TimeControl, window: int) -> None:
    """A first turn longer than 30 s (real-time) or per_move (correspondence) aborts the game: no result; the second seat's first turn has its own window."""
    game = Timed("classic", 2, control)
    game.turn(window - 1)  # the first seat in time
    second = game.state.seat
    assert game.deadline() == game.now + window * 1000
    game.after(window - 0.001)
    assert game.expire() == []
    game.after(0.001)
    assert game.expire() == [GameAborted("first_move", second)]
    assert game.state.status == "aborted"
    assert game.view()["result"] is None and game.view()["status"] == "aborted"


def test_the_first_turn_window_shows_in_the_clock_while_the_bank_waits() -> None:
    """During a first turn the view's clock runs no bank (running null) and shows the window left."""
    game = Timed("classic", 2, BLITZ)
    clock = game.view()["clock"]
    assert clock["running"] is None and clock["first_move"] == 30_000
    assert clock["remaining"] == [60_000, 60_000]
    game.turn(4)
    game.turn(4)
    clock = game.view()["clock"]
    assert clock["running"] == game.state.seat and clock["first_move"] is None


def test_a_view_clock_is_as_of_the_turns_start() -> None:
    """The view's clock is read at the start of the turn (its now), so it changes only with the events that change a clock; the client ticks remaining[running] from now."""
    game = Timed("classic", 2, BLITZ)
    game.turn(2)
    game.turn(2)
    game.turn(6)  # 60 - 6 + 2
    started = game.now
    game.after(20)
    clock = game.view()["clock"]
    assert clock == {
        "initial": 60,
        "increment": 2,
        "per_move": None,
        "remaining": clock["remaining"],
        "running": game.state.seat,
        "first_move": None,
        "now": iso_ms(started),
    }
    assert sorted(clock["remaining"]) == [56_000, 60_000]


CONTROLS = pytest.mark.parametrize("control", [BLITZ, DAILY], ids=["realtime", "correspondence"])
VARIANTS = pytest.mark.parametrize("variant", ["classic", "duel"])


def _past_first_turns(variant: str, control: TimeControl) -> Timed:
    """A two-seat game past its first turns, the seat to move 8 s into a later turn's
    clock: one turn of 10 s played since (a real-time bank of 60 - 10 + 2)."""
    game = Timed(variant, 2, control)
    game.turn(1)
    game.turn(1)
    game.turn(10)
    return game


def _allowed(control: TimeControl, bank_ms: int) -> int:
    return bank_ms if control.initial is not None else (control.per_move or 0) * 1000


@VARIANTS
@CONTROLS
def test_a_seat_resigning_on_its_move_stops_its_clock_at_the_final_event(
    variant: str, control: TimeControl
) -> None:
    """A seat that resigns 20 s into its turn shows its clock as it stood then (that turn's time taken), in the live state and in the log folded again; the other seat's clock is as its turn left it."""
    game = _past_first_turns(variant, control)
    mover = game.state.seat
    start = game.remaining(mover)
    assert start == _allowed(control, 60_000)  # its own turn has not begun to run
    other = game.remaining(1 - mover)
    game.after(20)
    game.act(mover, Resign())
    assert game.state.status == "finished"
    clock = game.view()["clock"]
    assert clock["remaining"][mover] == start - 20_000
    assert clock["remaining"][1 - mover] == other
    assert clock["running"] is None and clock["now"] == iso_ms(game.now)
    folded = game.variant.fold_timed(game.log)
    assert game.variant.view(folded, None)["clock"] == clock


@VARIANTS
@CONTROLS
def test_a_seat_out_of_time_shows_zero_at_the_end(variant: str, control: TimeControl) -> None:
    """A seat that lost on time shows 0 in the finished game's view, whatever the time control."""
    game = _past_first_turns(variant, control)
    mover = game.state.seat
    game.after(_allowed(control, 60_000) / 1000)
    assert kinds(game.expire())[0] == "TimeRanOut"
    assert game.state.status == "finished"
    assert game.view()["clock"]["remaining"][mover] == 0


@VARIANTS
@CONTROLS
def test_a_normal_end_shows_every_clock_as_at_the_final_event(
    variant: str, control: TimeControl
) -> None:
    """A game played to its normal end shows each seat's clock as it read at the final event's time on the state before it (the turn in play, if any, charged to its seat)."""
    game = Timed(variant, 2, control, seed=5)
    while game.state.status == "live":
        game.turn(0.5, random_moves=True)
    assert game.state.result is not None and game.state.result.reason not in ("time", "resign")
    end = game.log[-1][0]
    before = game.variant.fold_timed(game.log[:-1])
    expected = [remaining(before.clock, seat, end) for seat in range(2)]
    assert game.view()["clock"]["remaining"] == expected


def test_an_open_games_clock_reads_at_its_creation() -> None:
    """Before the start, a timed game's clock shows full banks, no seat running, read at the game's creation."""
    game = Timed("classic", 2, BLITZ, fill=False)
    game.after(5)
    game.join(0)
    assert game.view()["clock"] == {
        "initial": 60,
        "increment": 2,
        "per_move": None,
        "remaining": [60_000],
        "running": None,
        "first_move": None,
        "now": iso_ms(T0),
    }


def test_bots_have_no_clock() -> None:
    """A bot seat's remaining is null, it has no deadline nor first-turn window, and its slowness never ends a game."""
    game = Timed("classic", 2, BLITZ, bots=[0, 1])
    assert game.view()["clock"]["remaining"] == [None, None]
    assert game.deadline() is None
    game.after(3600)
    assert game.expire() == []


def test_an_untimed_game_has_no_clock_and_no_deadline_while_live() -> None:
    """Untimed: the view's clock is null and time alone never ends the game once it started."""
    game = Timed("classic", 2)
    assert game.view()["clock"] is None and game.view()["seeded"] is False
    assert game.deadline() is None
    game.after(86_400)
    assert game.expire() == []


@pytest.mark.parametrize("clock", [None, BLITZ], ids=["untimed", "realtime"])
def test_an_open_game_expires_after_thirty_minutes(clock: TimeControl | None) -> None:
    """An open game nobody fills within 30 minutes is aborted as expired; a full one is not."""
    game = Timed("classic", 3, clock, fill=False)
    game.join(0)
    assert game.deadline() == T0 + 30 * 60_000
    game.after(30 * 60 - 0.001)
    assert game.expire() == []
    game.after(0.001)
    assert game.expire() == [GameAborted("expired")]
    assert game.state.status == "aborted"


def test_seeded_and_the_time_control_are_facts_of_the_first_event() -> None:
    """GameCreated records the time control and whether the game is seeded; a GameCreated without them decodes as untimed, not seeded."""
    created = CLASSIC.create("g", 2, BLITZ, seeded=True)[0]
    assert created == GameCreated("g", "classic", 2, BLITZ, True)
    old = CLASSIC.event_decoder().decode(
        b'{"type":"GameCreated","game":"g","variant":"classic","players":2}'
    )
    assert old == GameCreated("g", "classic", 2)
    state = CLASSIC.fold([created])
    assert CLASSIC.view(state, None)["seeded"] is True


def test_a_game_ended_before_ranks_gets_them_when_folded() -> None:
    """A GameEnded without ranks folds to ranks derived from its points and cards."""
    game = Timed("classic", 3)
    old = GameEnded((1,), (3, 9, 9), (2, 4, 5))
    game.apply([old])
    assert game.view()["result"]["ranks"] == [3, 1, 2]
    assert game.view()["result"]["reason"] == "points"
