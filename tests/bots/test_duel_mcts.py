"""Duel MCTS: legal moves only over whole games, reproducible for a seed, blind to what
its seat can't see (the opponent's reserves, the decks, the engine's draws)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from bots import choose, duel_greedy, duel_mcts
from bots.duel_arena import Chooser, new_game, play
from bots.moves import moves
from events.duel.state import DuelState
from events.duel.view import view
from tests.bots.test_duel_bots import POINTS_ONLY, WIN_PYRAMID
from tests.duel_helpers import Table, random_game


def _mcts(seed: int, iterations: int = 6, depth: int = 3) -> Chooser:
    rng = random.Random(seed)
    return lambda seen: moves(seen)[
        duel_mcts.search(seen, rng, iterations=iterations, depth=depth)[0]
    ]


def _greedy(seed: int) -> Chooser:
    rng = random.Random(seed)
    return lambda seen: duel_greedy.choose(seen, rng)


@pytest.mark.parametrize("seed", [0, 1])
def test_mcts_plays_whole_games_with_legal_moves_only(seed: int) -> None:
    """Against greedy (each moving first once) and against itself, every answer is one of
    the view's legal actions (the arena checks) and the game ends."""
    for bots in ([_mcts(seed), _greedy(seed)], [_greedy(seed), _mcts(seed)]):
        rng = random.Random(seed)
        assert play(new_game(["a", "b"], rng), bots, rng) is not None
    rng = random.Random(100 + seed)
    assert play(new_game(["a", "b"], rng), [_mcts(seed), _mcts(seed + 1)], rng) is not None


def test_search_with_an_iteration_cap_is_deterministic_for_a_seed() -> None:
    """Same view, same seed, same iteration cap: the same action and the same work done."""
    seen = next(_positions_with_hidden_reserves())[1]
    runs = {duel_mcts.search(seen, random.Random(5), iterations=40) for _ in range(3)}
    assert len(runs) == 1
    assert runs.pop()[1] == 40


def test_mcts_buys_the_card_that_wins() -> None:
    """At 17 prestige with d1-30 (3 prestige) affordable, the search buys it and wins."""
    table = Table(pyramid=WIN_PYRAMID).own(0, *POINTS_ONLY, "d1-05").give(0, red=4, pearl=1)
    answer = choose("mcts", view(table.state(), 0), random.Random(0), iterations=60)
    assert answer == {"kind": "buy", "card": "d1-30"}


def _positions_with_hidden_reserves() -> Iterator[tuple[DuelState, dict[str, Any]]]:
    """Live positions of seeded random games where the mover's opponent holds a reserve
    whose level's deck still has cards to swap it with, in the mover's main phase."""
    for seed in range(40):
        for state, _s, _a, _e in random_game(700 + seed):
            if state.status != "live":
                continue
            other = state.players[1 - state.seat]
            seen = view(state, state.seat)
            if (
                seen["turn"]["phase"] == "main"
                and state.turn_number > 12
                and any(state.decks[_level(c) - 1] for c in other.reserved)
            ):
                yield state.copy(), seen
                break


def _level(card_id: str) -> int:
    return int(card_id[1])


def scrambled(state: DuelState, rng: random.Random) -> DuelState:
    """The same table with what the mover can't see dealt otherwise: each of the
    opponent's reserves swapped with a card of its level's deck, the decks reordered."""
    other = state.copy()
    opponent = other.players[1 - other.seat]
    for i, card_id in enumerate(opponent.reserved):
        deck = other.decks[_level(card_id) - 1]
        if deck:
            j = rng.randrange(len(deck))
            opponent.reserved[i], deck[j] = deck[j], card_id
    for deck in other.decks:
        rng.shuffle(deck)
    return other


def test_mcts_sees_only_its_seats_view() -> None:
    """Views of tables whose hidden parts were scrambled (the opponent's reserves, the
    decks) are the same views, and with the same seed the search plays the same move."""
    rng = random.Random(3)
    checked = 0
    for state, seen in _positions_with_hidden_reserves():
        other = scrambled(state, rng)
        assert other.players[1 - state.seat].reserved != state.players[1 - state.seat].reserved
        assert view(other, state.seat) == seen
        first = duel_mcts.search(seen, random.Random(9), iterations=30)
        assert duel_mcts.search(view(other, state.seat), random.Random(9), iterations=30) == first
        checked += 1
        if checked == 3:
            break
    assert checked == 3
