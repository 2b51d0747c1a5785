"""When a rated game may move ratings (RULES.md part 3), pure: decided from the game's
events alone, in both games.

A rated game moves ratings only once every human seat has completed two turns; a
game that ends earlier (a resignation, a loss on time, an abandon claim) keeps its
result and moves no rating, so two accounts of one person can't trade a rating by
resigning at once. A *completed* turn is a ``TurnEnded`` of a seat still in play: the
turn that a seat's going out ends (classic ends the turn of a seat that resigns or
runs out of time on its move) is not one. A Duel extra turn is a turn of its own.
Bots play no part in the rule: only human seats must have played.

The other two rules of rated play (at most three counted games a day between two
accounts, the leaderboard's threshold) are about many games, not one: they are in
``server.players.rating_model``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from events.base import AbandonClaimed, PlayerJoined, Resigned, TimeRanOut
from events.classic.events import TurnEnded as ClassicTurnEnded
from events.duel.events import TurnEnded as DuelTurnEnded

TURNS_TO_COUNT: Final = 2
"""The turns every human seat completes before a rated game may move ratings."""


def completed_turns(events: Iterable[object]) -> dict[int, int]:
    """Per seat that joined, the turns it completed while in play."""
    done: dict[int, int] = {}
    out: set[int] = set()
    for event in events:
        match event:
            case PlayerJoined(seat=seat):
                done.setdefault(seat, 0)
            case ClassicTurnEnded(seat=seat) | DuelTurnEnded(seat=seat) if seat not in out:
                done[seat] = done.get(seat, 0) + 1
            case Resigned(seat=seat) | TimeRanOut(seat=seat):
                out.add(seat)
            case AbandonClaimed(against=against):
                out.add(against)
    return done


def human_seats(events: Iterable[object]) -> list[int]:
    """The seats taken by people (accounts or guests), not bots."""
    return sorted({e.seat for e in events if isinstance(e, PlayerJoined) and e.bot is None})


def ended_early(events: Iterable[object]) -> bool:
    """Whether some human seat had completed fewer than ``TURNS_TO_COUNT`` turns when
    the game (the whole log given) ended or that seat went out: such a rated game
    keeps its result and moves no rating."""
    log = list(events)
    done = completed_turns(log)
    return any(done.get(seat, 0) < TURNS_TO_COUNT for seat in human_seats(log))
