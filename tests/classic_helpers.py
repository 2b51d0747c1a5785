"""Tables for classic Splendor tests, built only by folding hand-written events.

A ``Table`` writes the facts a position needs (a game created, players joined, a
chosen opening, tokens taken, cards reserved and bought) as ordinary events and folds
them with the real ``evolve``: a test never pokes at a state's fields to set it up.
Random legal play (for properties, golden games) lives here too.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import msgspec

from events.base import GameCreated, PlayerJoined
from events.catalog import classic_cards
from events.classic.actions import ClassicAction
from events.classic.events import (
    CardBought,
    CardReserved,
    ClassicEvent,
    GameStarted,
    TokensTaken,
    TurnEnded,
)
from events.classic.evolve import evolve, fold
from events.classic.rules import decide, join, legal_actions
from events.classic.state import ClassicState
from events.colors import GEMS

CARDS = classic_cards()
GEMS_BY_PLAYERS = {2: 4, 3: 5, 4: 7}
NAMES = ("Ana", "Bo", "Cy", "Di")


def level_ids(level: int) -> list[str]:
    """Every card id of a level, in id order."""
    return sorted(c for c, card in CARDS.items() if card.level == level)


def default_board() -> tuple[tuple[str | None, ...], ...]:
    """The first four ids of each level: a fixed, known opening."""
    return tuple(tuple(level_ids(level)[:4]) for level in (1, 2, 3))


class Table:
    """A classic game written event by event; ``state()`` folds it."""

    def __init__(
        self,
        players: int = 2,
        *,
        first_seat: int = 0,
        board: Sequence[Sequence[str | None]] | None = None,
        nobles: Sequence[str] | None = None,
        gems: int | None = None,
        gold: int = 5,
    ) -> None:
        self.players = players
        per_gem = GEMS_BY_PLAYERS[players] if gems is None else gems
        self.events: list[ClassicEvent] = [GameCreated("g1", "classic", players)]
        self.events += [PlayerJoined(s, NAMES[s], None) for s in range(players)]
        self.events.append(
            GameStarted(
                first_seat,
                tuple(nobles)
                if nobles is not None
                else tuple(f"n{k}" for k in range(1, players + 2)),
                tuple(tuple(row) for row in (board or default_board())),
                {g: per_gem for g in GEMS} | {"gold": gold},
            )
        )
        self.first_seat = first_seat

    def add(self, *events: ClassicEvent) -> Table:
        self.events.extend(events)
        return self

    def give(self, seat: int, **tokens: int) -> Table:
        """Seat ``seat`` takes these tokens from the bank (a TokensTaken fact)."""
        return self.add(TokensTaken(seat, {k: v for k, v in tokens.items() if v}))

    def own(self, seat: int, *card_ids: str) -> Table:
        """Seat ``seat`` owns these cards (taken from their decks: blind reserve, then bought)."""
        for card_id in card_ids:
            level = CARDS[card_id].level
            self.add(
                CardReserved(seat, level, card_id, True, 0),
                CardBought(seat, card_id, {}, True),
            )
        return self

    def reserve(self, seat: int, card_id: str, *, blind: bool = True, gold: int = 0) -> Table:
        """Seat ``seat`` reserves ``card_id``: blind from its deck, or from the board."""
        return self.add(CardReserved(seat, CARDS[card_id].level, card_id, blind, gold))

    def state(self, mover: int | None = None) -> ClassicState:
        """The folded table, with a fresh turn for ``mover`` (default: the first seat)."""
        mover = self.first_seat if mover is None else mover
        events = list(self.events)
        if len(events) > self.players + 2 or mover != self.first_seat:
            # Setup facts left the first seat mid-turn: hand a fresh turn to the mover.
            events.append(TurnEnded((mover - 1) % self.players, mover))
        return fold(events)


def deck_cards(
    level: int, count: int, board: Sequence[Sequence[str | None]] | None = None
) -> list[str]:
    """``count`` cards of ``level`` that are not on the (default) board."""
    on_board = {c for row in (board or default_board()) for c in row}
    return [c for c in level_ids(level) if c not in on_board][:count]


def play(
    state: ClassicState, seat: int, action: ClassicAction, seed: int = 0
) -> list[ClassicEvent]:
    """``decide`` then ``evolve``: the events of one accepted action, folded into ``state``."""
    events = decide(state, seat, action, random.Random(seed))
    for event in events:
        evolve(state, event)
    return events


def kinds(events: Sequence[ClassicEvent]) -> list[str]:
    """The event type names, in order."""
    return [type(e).__name__ for e in events]


def decision_rng(seed: int, version: int) -> random.Random:
    """The generator for the decision taken at ``version`` of a game seeded ``seed``: the
    derivation the server uses (server/games/service.py), so a recorded game replays as it would."""
    return random.Random(f"{seed}:{version}")


def random_game(
    players: int, seed: int, max_moves: int = 5000
) -> Iterator[tuple[ClassicState, int | None, ClassicAction | None, list[ClassicEvent]]]:
    """A seeded game of random legal play, step by step.

    Yields ``(state, seat, action, events)`` after each step (joins have no seat and no
    action), ``state`` being the live state with the events already folded in.
    """
    choose = random.Random(seed)
    state = ClassicState()
    first = GameCreated(f"g{seed}", "classic", players)
    evolve(state, first)
    yield state, None, None, [first]
    for s in range(players):
        events = join(state, NAMES[s], None, decision_rng(seed, state.version))
        for event in events:
            evolve(state, event)
        yield state, None, None, events
    for _ in range(max_moves):
        if state.status != "live":
            return
        seat = state.seat
        # Choose from a canonical order, so games don't depend on legal_actions' order.
        action = choose.choice(sorted(legal_actions(state, seat), key=msgspec.json.encode))
        events = decide(state, seat, action, decision_rng(seed, state.version))
        for event in events:
            evolve(state, event)
        yield state, seat, action, events
