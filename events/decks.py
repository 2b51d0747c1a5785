"""Face-up rows of cards and their decks, as both games lay them out: one row a level
(classic's board, Duel's pyramid), each fed by the deck of that level's undealt cards.

A deck lists its cards in id order; the next card is drawn from it at random when it
is dealt, so a deck's order is no secret and the event that deals a card fixes the
draw. Every draw is one ``rng.randrange`` over the deck: the recorded games were
decided that way and must re-decide to the same events.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal, Protocol, TypeVar

from events.errors import IllegalAction

LEVELS = (1, 2, 3)

Rows = Sequence[Sequence[str | None]]  # index 0 is level 1; None is an empty slot
Decks = Sequence[Sequence[str]]  # index 0 is level 1
E = TypeVar("E")


class _Card(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def level(self) -> int: ...


def level_ids(cards: Iterable[_Card]) -> tuple[tuple[str, ...], ...]:
    """Every card id of each level, in id order: the decks before the opening deal."""
    cards = list(cards)
    return tuple(tuple(sorted(c.id for c in cards if c.level == level)) for level in LEVELS)


def card_levels(cards: Iterable[_Card]) -> dict[str, int]:
    """Card id -> level: which row a face-up card lies in."""
    return {c.id: c.level for c in cards}


def opening_rows(
    ids: Sequence[Sequence[str]], sizes: Sequence[int], rng: random.Random
) -> tuple[tuple[str, ...], ...]:
    """The opening layout: ``sizes[level - 1]`` cards of each level, drawn from ``ids``."""
    return tuple(tuple(rng.sample(ids[i], sizes[i])) for i in range(len(LEVELS)))


def undealt(ids: Sequence[Sequence[str]], rows: Iterable[Iterable[str | None]]) -> list[list[str]]:
    """The decks after the opening deal of ``rows``: every other card, in id order."""
    dealt = {c for row in rows for c in row if c is not None}
    return [[c for c in level if c not in dealt] for level in ids]


def draw(deck: Sequence[str], rng: random.Random) -> str:
    """A card drawn at random from a non-empty deck."""
    return deck[rng.randrange(len(deck))]


def slot_of(rows: Rows, levels: Mapping[str, int], card_id: str) -> tuple[int, int] | None:
    """Where a face-up card lies (level, slot), or None when it is not in the rows."""
    level = levels.get(card_id)
    if level is not None:
        row = rows[level - 1]
        if card_id in row:
            return level, row.index(card_id)
    return None


def refill(
    events: list[E],
    dealt: Callable[[int, int, str], E],
    decks: Decks,
    level: int,
    slot: int,
    rng: random.Random,
) -> None:
    """A face-up card left: deal its slot a card of the same level, if any is left
    (``dealt(level, slot, card)`` is the game's CardDealt)."""
    deck = decks[level - 1]
    if deck:
        events.append(dealt(level, slot, draw(deck, rng)))


def reserve_source(
    rows: Rows,
    decks: Decks,
    levels: Mapping[str, int],
    card: str | None,
    level: int | None,
    rng: random.Random,
    where: Literal["board", "pyramid"],
) -> tuple[int, str, int | None]:
    """The card a reserve takes, as (level, card id, slot): a face-up ``card``, or one
    drawn blind from the deck of ``level`` (slot None). ``where`` names the rows in the
    refusals: the classic board or the Duel pyramid."""
    if card is not None:
        if level is not None:
            raise IllegalAction(f"reserve.card_and_deck.{where}")
        found = slot_of(rows, levels, card)
        if found is None:
            raise IllegalAction(f"reserve.card_missing.{where}", card=card)
        return found[0], card, found[1]
    level = level or 0
    if level not in LEVELS:
        raise IllegalAction(f"reserve.nothing.{where}")
    deck = decks[level - 1]
    if not deck:
        raise IllegalAction("reserve.deck_empty", level=level)
    return level, draw(deck, rng), None


# ------------------------------------------------------------------ evolve


def deal(
    rows: list[list[str | None]], decks: list[list[str]], level: int, slot: int, card: str
) -> None:
    """A card dealt from its deck to an empty slot."""
    rows[level - 1][slot] = card
    decks[level - 1].remove(card)


def take_face_up(rows: list[list[str | None]], level: int, card_id: str) -> None:
    """A face-up card leaves its slot, which stays empty until a card is dealt to it."""
    row = rows[level - 1]
    row[row.index(card_id)] = None
