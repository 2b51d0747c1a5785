"""Tables for Splendor Duel tests, built only by folding hand-written events.

A ``Table`` writes the facts a position needs (the opening board and pyramid, tokens
handed over, cards owned or reserved, privileges) as ordinary events and folds them
with the real ``evolve``: a test never pokes at a state's fields to set it up, and
the 25 tokens stay accounted for. Boards are drawn as 5 lines of letters:
``w b g r k`` for the gems, ``y`` gold, ``p`` pearl, ``.`` an empty cell (its token
is then in the bag). Random legal play (for properties, golden games) lives here too.
"""

from __future__ import annotations

import random
import typing
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec
import pytest

from events.base import GameCreated, PlayerJoined
from events.catalog import duel_cards, duel_royals
from events.colors import DuelToken
from events.duel.actions import DuelAction
from events.duel.board import SPIRAL, cell_of, index
from events.duel.constants import TOKEN_NAMES
from events.duel.events import (
    BoardReplenished,
    CardBought,
    CardDealt,
    CardReserved,
    DuelEvent,
    GameStarted,
    Placed,
    PrivilegeTaken,
    TokensDiscarded,
    TokensTaken,
    TurnEnded,
)
from events.duel.evolve import evolve, fold
from events.duel.legal import legal_actions
from events.duel.rules import decide
from events.duel.setup import join
from events.duel.state import DuelState
from events.errors import RuleViolation

CARDS = duel_cards()
NAMES = ("Ana", "Bo")
LETTERS: dict[str, DuelToken | None] = {
    "w": "white",
    "b": "blue",
    "g": "green",
    "r": "red",
    "k": "black",
    "y": "gold",
    "p": "pearl",
    ".": None,
}

# A full board (the 25 tokens, nothing in the bag), fixed so tests can name cells.
FULL_BOARD = """
w b g r k
y w b g r
k p y p k
r g b w y
k r g b w
"""

EMPTY_BOARD = """
. . . . .
. . . . .
. . . . .
. . . . .
. . . . .
"""


def parse_board(text: str) -> tuple[tuple[DuelToken | None, ...], ...]:
    rows = [line.split() for line in text.strip().splitlines()]
    assert len(rows) == 5 and all(len(r) == 5 for r in rows), "a board is 5 rows of 5 cells"
    return tuple(tuple(LETTERS[c] for c in row) for row in rows)


def level_ids(level: int) -> list[str]:
    """Every card id of a level, in id order."""
    return sorted(c for c, card in CARDS.items() if card.level == level)


def find(*, level: int | None = None, **fields: object) -> str:
    """The first card id (in id order) whose fields match, e.g. ``find(ability="steal_token")``."""
    for card_id in sorted(CARDS):
        card = CARDS[card_id]
        if level is not None and card.level != level:
            continue
        if all(getattr(card, k) == v for k, v in fields.items()):
            return card_id
    raise LookupError(f"no card with {fields}")


def default_pyramid() -> tuple[tuple[str | None, ...], ...]:
    """The first 5, 4 and 3 ids of levels 1, 2 and 3: a fixed, known opening."""
    return tuple(tuple(level_ids(level)[:n]) for level, n in ((1, 5), (2, 4), (3, 3)))


class Table:
    """A Duel written event by event; ``state()`` folds it.

    Seat 0 (Ana) starts unless ``first_seat`` says otherwise; the second player holds
    the setup privilege unless ``setup_privilege`` is False.
    """

    def __init__(
        self,
        board: str = FULL_BOARD,
        *,
        first_seat: int = 0,
        pyramid: Sequence[Sequence[str | None]] | None = None,
        royals: Sequence[str] | None = None,
        setup_privilege: bool = True,
    ) -> None:
        self.first_seat = first_seat
        self.events: list[DuelEvent] = [GameCreated("g1", "duel", 2)]
        self.events += [PlayerJoined(s, NAMES[s], None) for s in range(2)]
        self.events.append(
            GameStarted(
                first_seat,
                parse_board(board),
                tuple(tuple(row) for row in (pyramid or default_pyramid())),
                tuple(royals) if royals is not None else tuple(sorted(duel_royals())),
            )
        )
        if setup_privilege:
            self.events.append(PrivilegeTaken(1 - first_seat, "setup"))
        self._opening = len(self.events)

    def add(self, *events: DuelEvent) -> Table:
        self.events.extend(events)
        return self

    def now(self) -> DuelState:
        return fold(self.events)

    def give(self, seat: int, **tokens: int) -> Table:
        """Hand ``seat`` these tokens: from the bag first, else from the board's cells.

        A token from the bag is laid on an empty cell and taken from it, so the board
        ends as drawn.
        """
        for name, count in tokens.items():
            for _ in range(count):
                state = self.now()
                i = TOKEN_NAMES.index(name)  # type: ignore[arg-type]
                token = TOKEN_NAMES[i]
                if state.bag[i]:
                    cell = cell_of(next(c for c in SPIRAL if state.board[c] is None))
                    self.add(BoardReplenished(seat, (Placed(cell, token),)))
                else:
                    cell = cell_of(state.board.index(token))
                self.add(TokensTaken(seat, (cell,), (token,)))
        return self

    def own(self, seat: int, *card_ids: str, on: str | None = None) -> Table:
        """``seat`` owns these cards (abilities not applied); a wild card goes ``on`` a card."""
        for card_id in card_ids:
            state = self.now()
            level = CARDS[card_id].level
            row = state.pyramid[level - 1]
            if card_id in row:
                slot = row.index(card_id)
                self.add(CardBought(seat, card_id, {}, False, on))
                deck = state.decks[level - 1]
                if deck:
                    self.add(CardDealt(level, slot, deck[0]))
                continue
            # From its deck: reserve it with a gold, buy it with that gold, put it back.
            if "gold" in state.board:
                gold = cell_of(state.board.index("gold"))
                self.add(
                    CardReserved(seat, level, card_id, gold),
                    CardBought(seat, card_id, {"gold": 1}, True, on),
                    BoardReplenished(seat, (Placed(gold, "gold"),)),
                )
            else:
                empty = cell_of(next(c for c in SPIRAL if state.board[c] is None))
                self.add(
                    BoardReplenished(seat, (Placed(empty, "gold"),)),
                    CardReserved(seat, level, card_id, empty),
                    CardBought(seat, card_id, {"gold": 1}, True, on),
                )
        return self

    def reserve(self, seat: int, card_id: str) -> Table:
        """``seat`` reserves ``card_id`` (from the pyramid or its deck) with a gold from the board."""
        state = self.now()
        gold = cell_of(state.board.index("gold"))
        level = CARDS[card_id].level
        row = state.pyramid[level - 1]
        if card_id in row:
            slot = row.index(card_id)
            self.add(CardReserved(seat, level, card_id, gold, slot))
            if state.decks[level - 1]:
                self.add(CardDealt(level, slot, state.decks[level - 1][0]))
        else:
            self.add(CardReserved(seat, level, card_id, gold))
        return self

    def discard(self, seat: int, **tokens: int) -> Table:
        """``seat`` puts these tokens into the bag."""
        return self.add(TokensDiscarded(seat, tokens))

    def lay(self, *placed: tuple[tuple[int, int], DuelToken]) -> Table:
        """Lay bag tokens on these cells (a replenish of just these)."""
        return self.add(BoardReplenished(0, tuple(Placed(cell, token) for cell, token in placed)))

    def privilege(self, seat: int, count: int = 1) -> Table:
        """``seat`` takes ``count`` privileges by the privilege rule."""
        for _ in range(count):
            state = self.now()
            if state.privileges:
                self.add(PrivilegeTaken(seat, "take"))
            else:
                self.add(PrivilegeTaken(seat, "take", 1 - seat))
        return self

    def state(self, mover: int | None = None) -> DuelState:
        """The folded table, with a fresh turn for ``mover`` (default: the first seat)."""
        mover = self.first_seat if mover is None else mover
        events = list(self.events)
        if len(events) > self._opening or mover != self.first_seat:
            # Setup facts left the first seat mid-turn: hand a fresh turn to the mover.
            events.append(TurnEnded(1 - mover, mover))
        return fold(events)


def play(state: DuelState, seat: int, action: DuelAction, seed: int = 0) -> list[DuelEvent]:
    """``decide`` then ``evolve``: the events of one accepted action, folded into ``state``."""
    events = decide(state, seat, action, random.Random(seed))
    for event in events:
        evolve(state, event)
    return events


def refused(state: DuelState, seat: int, action: DuelAction) -> RuleViolation:
    """The violation ``decide`` raises for ``action`` (the test fails if it is accepted)."""
    before = state.copy()
    with pytest.raises(RuleViolation) as caught:
        decide(state, seat, action, random.Random(0))
    assert state == before, "a refused action changed the state"
    return caught.value


def kinds(events: Sequence[DuelEvent]) -> list[str]:
    """The event type names, in order."""
    return [type(e).__name__ for e in events]


def at(state: DuelState, row: int, col: int) -> str | None:
    return state.board[index((row, col))]


def decision_rng(seed: int, version: int) -> random.Random:
    """The generator for the decision taken at ``version`` of a game seeded ``seed``."""
    return random.Random(f"duel:{seed}:{version}")


def pick(actions: list[DuelAction], choose: random.Random) -> DuelAction:
    """Random legal play: a kind of action uniformly, then one action of that kind."""
    by_kind: dict[str, list[DuelAction]] = defaultdict(list)
    for action in actions:
        by_kind[type(action).__name__].append(action)
    return choose.choice(by_kind[choose.choice(sorted(by_kind))])


def random_game(
    seed: int, max_moves: int = 2000
) -> Iterator[tuple[DuelState, int | None, DuelAction | None, list[DuelEvent]]]:
    """A seeded game of random legal play, step by step.

    Yields ``(state, seat, action, events)`` after each step (joins have no seat and no
    action), ``state`` being the live state with the events already folded in.
    """
    choose = random.Random(seed)
    state = DuelState()
    first = GameCreated(f"g{seed}", "duel", 2)
    evolve(state, first)
    yield state, None, None, [first]
    for s in range(2):
        events = join(state, NAMES[s], None, decision_rng(seed, state.version))
        for event in events:
            evolve(state, event)
        yield state, None, None, events
    for _ in range(max_moves):
        if state.status != "live":
            return
        seat = state.seat
        action = pick(legal_actions(state, seat), choose)
        events = decide(state, seat, action, decision_rng(seed, state.version))
        for event in events:
            evolve(state, event)
        yield state, seat, action, events


def cost_of(card_id: str) -> dict[str, int]:
    """A card's cost as keyword arguments for ``Table.give`` (only the non-zero colours)."""
    names = ("white", "blue", "green", "red", "black", "pearl")
    return {name: n for name, n in zip(names, CARDS[card_id].cost, strict=True) if n}


DUEL_EVENTS: tuple[type[Any], ...] = typing.get_args(DuelEvent)
"""Every member of Duel's tagged union of events: tests over it cover a new type too."""


def optional_fields(kind: type[Any]) -> set[str]:
    """The wire names of an event type's fields that have a default (docs/duel.md's ``?``)."""
    return {f.encode_name for f in msgspec.structs.fields(kind) if not f.required}


def every_field_named(event: Any) -> dict[str, Any]:
    """``event`` as JSON with every field named, its defaults too (``"from_seat": null``)."""
    named = {
        "type": type(event).__struct_config__.tag,
        **{
            f.encode_name: msgspec.to_builtins(getattr(event, f.name))
            for f in msgspec.structs.fields(type(event))
        },
    }
    return typing.cast(dict[str, Any], msgspec.json.decode(msgspec.json.encode(named)))
