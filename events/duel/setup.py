"""Joining a Duel and its opening: the pyramid, the 25 tokens along the spiral, the
royals, the first player drawn at random and the second player's privilege.
"""

from __future__ import annotations

import random

from events.catalog import duel_cards, duel_royals
from events.colors import DuelToken
from events.decks import level_ids, opening_rows
from events.duel.board import SIZE, SPIRAL
from events.duel.constants import PRIVILEGES, PYRAMID, TOKEN_COUNTS, TOKEN_NAMES
from events.duel.events import DuelEvent, GameStarted, PrivilegeTaken
from events.duel.state import DuelState
from events.turns import take_seat

_LEVEL_IDS = level_ids(duel_cards().values())


def join(
    state: DuelState,
    name: str,
    bot: str | None,
    rng: random.Random,
    account: str | None = None,
) -> list[DuelEvent]:
    """A player (an account's, or a guest) takes the next free seat; the second seat
    starts the game."""
    joined = take_seat(state, name, bot, account)
    events: list[DuelEvent] = [joined]
    if joined.seat + 1 == state.players_count:
        events.extend(start(rng))
    return events


def start(rng: random.Random) -> list[DuelEvent]:
    """The opening, every draw made now and written down; the second player's privilege."""
    pyramid = opening_rows(_LEVEL_IDS, PYRAMID, rng)
    bag: list[DuelToken] = [
        name for name, n in zip(TOKEN_NAMES, TOKEN_COUNTS, strict=True) for _ in range(n)
    ]
    rng.shuffle(bag)
    cells: list[DuelToken | None] = [None] * (SIZE * SIZE)
    for cell, token in zip(SPIRAL, bag, strict=False):
        cells[cell] = token
    board = tuple(tuple(cells[row * SIZE : (row + 1) * SIZE]) for row in range(SIZE))
    first = rng.randrange(2)
    return [
        GameStarted(first, board, pyramid, tuple(sorted(duel_royals())), PRIVILEGES),
        PrivilegeTaken(1 - first, "setup"),
    ]
