"""Setting up a Duel: pyramid, tokens along the spiral, privileges, royals, first player."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from events.base import GameCreated
from events.catalog import duel_cards, duel_royals, duel_spiral
from events.duel.constants import TOKEN_COUNTS, TOKEN_NAMES
from events.duel.events import GameStarted, PrivilegeTaken
from events.duel.evolve import evolve
from events.duel.setup import join, start
from events.duel.state import DuelState
from events.errors import RuleViolation
from tests.duel_helpers import NAMES, kinds

CARDS = duel_cards()


def started(seed: int) -> tuple[DuelState, list[object]]:
    """A game whose two seats joined with a generator seeded ``seed``."""
    state = evolve(DuelState(), GameCreated("g", "duel", 2))
    rng = random.Random(seed)
    log: list[object] = []
    for name in NAMES:
        for event in join(state, name, None, rng):
            evolve(state, event)
            log.append(event)
    return state, log


def test_the_second_seat_starts_the_game() -> None:
    """The first join only seats a player; the second one also starts the game."""
    state = evolve(DuelState(), GameCreated("g", "duel", 2))
    first = join(state, "Ana", None, random.Random(1))
    assert kinds(first) == ["PlayerJoined"]
    evolve(state, first[0])
    second = join(state, "Bo", None, random.Random(1))
    assert kinds(second) == ["PlayerJoined", "GameStarted", "PrivilegeTaken"]


def test_a_third_player_cannot_join() -> None:
    """A Duel has two seats."""
    state, _ = started(1)
    with pytest.raises(RuleViolation) as caught:
        join(state, "Cy", None, random.Random(0))
    assert "no free seat" in caught.value.message


def test_pyramid_holds_5_4_and_3_cards_of_their_levels() -> None:
    """Levels 1, 2 and 3 show 5, 4 and 3 face-up cards; the rest stay in the decks."""
    state, _ = started(2)
    for level, (row, deck_size) in enumerate(zip(state.pyramid, (25, 20, 10), strict=True), 1):
        assert len(row) == (5, 4, 3)[level - 1]
        assert all(card is not None and CARDS[card].level == level for card in row)
        assert len(state.decks[level - 1]) == deck_size
        assert not set(row) & set(state.decks[level - 1])


def test_all_25_tokens_are_laid_on_the_board_and_the_bag_is_empty() -> None:
    """The 25 tokens (4 of each gem, 2 pearls, 3 gold) fill the board; the bag is empty."""
    state, _ = started(3)
    assert None not in state.board
    assert Counter(state.board) == Counter(
        {"white": 4, "blue": 4, "green": 4, "red": 4, "black": 4, "pearl": 2, "gold": 3}
    )
    assert state.bag == [0] * 7


def test_game_started_records_where_each_token_landed() -> None:
    """The opening board is in the event: folding it gives the same board, no generator needed."""
    state, log = started(4)
    event = next(e for e in log if isinstance(e, GameStarted))
    assert [t for row in event.board for t in row] == state.board
    assert len(event.board) == 5 and all(len(row) == 5 for row in event.board)


class InOrder(random.Random):
    """A generator whose shuffles keep the order, so the bag's draw order is known."""

    def shuffle(self, x: list[object]) -> None:  # type: ignore[override]
        return None


def test_tokens_are_laid_along_the_spiral_from_the_centre() -> None:
    """The k-th token drawn lands on the k-th cell of data/duel_spiral.csv: centre first."""
    events = start(InOrder(0))
    board = [t for row in events[0].board for t in row]  # type: ignore[attr-defined]
    drawn = [name for name, n in zip(TOKEN_NAMES, TOKEN_COUNTS, strict=True) for _ in range(n)]
    spiral = duel_spiral()
    assert spiral[0] == 12 and spiral[-1] == 24  # centre (2,2) first, corner (4,4) last
    assert [board[cell] for cell in spiral] == drawn


def test_three_privileges_and_the_second_player_takes_one() -> None:
    """3 privileges lie beside the board; the second player takes one at once."""
    for seed in range(6):
        state, log = started(seed)
        second = 1 - state.first_seat
        assert PrivilegeTaken(second, "setup") in log
        assert state.players[second].privileges == 1
        assert state.players[state.first_seat].privileges == 0
        assert state.privileges == 2


def test_the_four_royals_are_face_up() -> None:
    """All 4 royal cards are available at the start."""
    state, _ = started(5)
    assert sorted(state.royals) == sorted(duel_royals())


def test_the_first_player_is_drawn_at_random() -> None:
    """Over a few seeds both seats start; the turn is the first player's."""
    firsts = set()
    for seed in range(12):
        state, _ = started(seed)
        assert state.seat == state.first_seat
        assert state.turn_number == 1
        firsts.add(state.first_seat)
    assert firsts == {0, 1}
