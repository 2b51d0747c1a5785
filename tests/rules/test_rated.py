"""When a rated game may move ratings, from its events alone (events/rated.py): every
human seat must have completed two turns, a turn ended by going out not being one."""

from __future__ import annotations

from events.base import AbandonClaimed, PlayerJoined, Resigned, TimeRanOut
from events.classic.events import TurnEnded
from events.duel.events import TurnEnded as DuelTurnEnded
from events.rated import completed_turns, ended_early, human_seats

ADA = PlayerJoined(0, "Ada", None, "Ada")
BOB = PlayerJoined(1, "Bob", None, "Bob")
BOT = PlayerJoined(1, "Greedy", "greedy")


def turns(*seats: int, count: int = 2) -> list[TurnEnded]:
    """Each of ``seats`` ends a turn, in order, ``count`` rounds."""
    return [TurnEnded(seat, (seat + 1) % 2) for _ in range(count) for seat in seats]


def test_two_turns_each_and_a_resignation_count() -> None:
    """Two people, two completed turns each, then one resigns: not early."""
    assert not ended_early([ADA, BOB, *turns(0, 1), Resigned(1)])


def test_a_resignation_before_any_move_is_early() -> None:
    """No turn completed, then a resignation: early."""
    assert ended_early([ADA, BOB, Resigned(0)])


def test_one_seat_with_one_turn_is_early() -> None:
    """Ada has completed two turns, Bob one: a resignation, a loss on time or a claim
    against either then is early."""
    opening = [ADA, BOB, *turns(0, 1, count=1), TurnEnded(0, 1)]
    assert completed_turns(opening) == {0: 2, 1: 1}
    for leaving in (Resigned(1), Resigned(0), TimeRanOut(1), AbandonClaimed(0, 1)):
        assert ended_early([*opening, leaving])


def test_the_turn_a_seat_going_out_ends_is_not_completed() -> None:
    """Classic ends the turn of a seat that resigns on its move: that ``TurnEnded``
    does not count, nor any later one of that seat."""
    log = [ADA, BOB, *turns(0, 1, count=1), TurnEnded(0, 1), Resigned(1), TurnEnded(1, 0)]
    assert completed_turns(log) == {0: 2, 1: 1}
    assert ended_early(log)
    claimed = [ADA, BOB, TurnEnded(0, 1), AbandonClaimed(0, 1), TurnEnded(1, 0)]
    assert completed_turns(claimed) == {0: 1, 1: 0}


def test_bots_need_no_turns_and_duel_extra_turns_count() -> None:
    """A bot's seat is not a human seat; Ada's two Duel turns (one an extra turn,
    ``next_seat`` her own) are two completed turns."""
    assert human_seats([ADA, BOT]) == [0]
    log = [ADA, BOT, DuelTurnEnded(0, 0), DuelTurnEnded(0, 1), Resigned(0)]
    assert completed_turns(log) == {0: 2, 1: 0}
    assert not ended_early(log)
