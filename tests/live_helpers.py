"""Games with their times, for the rules of time and leaving (RULES.md part 3).

A ``Timed`` game is played through the real ``Variant`` (``create``, ``join``,
``decide``, ``expire``), each event folded with the time it is given (``at``): the
test sets the clock explicitly (``at``/``after``), never sleeps.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from events.base import TimeControl
from events.game import VARIANTS, Variant
from events.leaving import Facts

T0 = 1_700_000_000_000  # a fixed moment, ms since the epoch
NAMES = ("Ana", "Bo", "Cy", "Di")


class Timed:
    """A game of ``variant`` whose events are folded with explicit times."""

    def __init__(
        self,
        variant: str = "classic",
        players: int = 2,
        clock: TimeControl | None = None,
        *,
        bots: Sequence[int] = (),
        seed: int = 1,
        fill: bool = True,
    ) -> None:
        self.variant: Variant = VARIANTS[variant]
        self.state: Any = self.variant.new_state()
        self.now = T0
        self.rng = random.Random(seed)
        self.log: list[tuple[int, Any]] = []
        self.players = players
        self.bots = set(bots)
        self.apply(self.variant.create("g", players, clock))
        if fill:
            for seat in range(players):
                self.join(seat)

    def join(self, seat: int) -> None:
        bot = "random" if seat in self.bots else None
        self.apply(self.variant.join(self.state, NAMES[seat], bot, self.rng))

    def apply(self, events: Sequence[Any]) -> list[Any]:
        for event in events:
            self.variant.evolve(self.state, event, self.now)
            self.log.append((self.now, event))
        return list(events)

    def after(self, seconds: float) -> Timed:
        """Let ``seconds`` pass."""
        self.now += round(seconds * 1000)
        return self

    def facts(self, away: Sequence[int | None] = ()) -> Facts:
        return Facts(self.now, tuple(away))

    def act(self, seat: int, action: Any, away: Sequence[int | None] = ()) -> list[Any]:
        """``seat`` sends ``action`` now: its events applied (or a RuleViolation)."""
        events = self.variant.decide(self.state, seat, action, self.rng, self.facts(away))
        return self.apply(events)

    def turn(self, seconds: float = 0.0, *, random_moves: bool = False) -> list[Any]:
        """The seat to move plays a whole turn taking ``seconds``: its first legal
        action (or a random one), and those of the choices the turn leaves, until the
        turn ends."""
        self.after(seconds)
        seat = self.state.seat
        number = self.state.turn_number
        events: list[Any] = []
        while self.state.status == "live" and self.state.turn_number == number:
            actions = self.variant.legal_actions(self.state, seat)
            action = self.rng.choice(actions) if random_moves else actions[0]
            events += self.act(seat, action)
        return events

    def expire(self) -> list[Any]:
        """What the passing of time causes now, applied."""
        return self.apply(self.variant.expire(self.state, self.facts()))

    def remaining(self, seat: int) -> int | None:
        from events.clock import remaining

        return remaining(self.state.clock, seat, self.now)

    def deadline(self) -> int | None:
        return self.variant.deadline(self.state)

    def view(self, viewer: int | None = None) -> dict[str, Any]:
        return self.variant.view(self.state, viewer)


def kinds(events: Sequence[Any]) -> list[str]:
    return [type(e).__name__ for e in events]
