"""Determinization: states consistent with the seat's view, hidden cards guessed
from the unseen pool and never read from the real game."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from bots.determinize import Determinizer, determinize
from events.base import LEAVE_KINDS
from events.catalog import classic_cards
from events.classic.state import ClassicState
from events.classic.view import view
from tests.bots import scenes
from tests.classic_helpers import Table, deck_cards, random_game

CARDS = classic_cards()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_determinized_states_show_the_same_view(players: int) -> None:
    """For every seat, in positions of random games, the guess's view equals the real view."""
    rng = random.Random(7)
    checked = hidden = 0
    for seed in range(3):
        for step, (state, _s, _a, _e) in enumerate(random_game(players, 100 + seed)):
            if state.status != "live" or step % 5:
                continue
            for seat in range(players):
                seen = view(state, seat)
                guess = determinize(seen, rng)
                assert game_part(view(guess, seat)) == game_part(seen)
                checked += 1
                hidden += sum(1 for p in seen["players"] for r in p["reserved"] if "level" in r)
    assert checked >= 50
    assert hidden >= 20  # blind reserves of others were there to guess


def game_part(seen: dict[str, Any]) -> dict[str, Any]:
    """A view without what the bots' simulations leave out: the clock and the leave
    actions (bots never abort nor resign)."""
    part = {k: v for k, v in seen.items() if k not in ("clock", "seeded", "rated")}
    part["legal"] = [a for a in seen["legal"] if a["kind"] not in LEAVE_KINDS]
    return part


def _blind_reserve_table(hidden: str) -> ClassicState:
    """Seat 1 reserved ``hidden`` blind from the level-3 deck; seat 0 is to move."""
    return Table(2, first_seat=1).reserve(1, hidden, blind=True, gold=1).state(mover=0)


def test_a_blind_reserve_is_guessed_from_the_unseen_pool() -> None:
    """The opponent's blind reserve becomes a level-3 card from the unseen pool, varied, and the real card comes up no more often than any other."""
    hidden = deck_cards(3, 1)[0]
    state = _blind_reserve_table(hidden)
    seen = view(state, 0)
    assert hidden not in json.dumps(seen)  # the bot's whole input lacks the card
    visible = {c for row in state.board for c in row if c}
    pool = {c for c, card in CARDS.items() if card.level == 3} - visible
    assert len(pool) == seen["decks"]["3"] + 1
    guesses: Counter[str] = Counter()
    determinizer = Determinizer(seen)
    rng = random.Random(1)
    for _ in range(400):
        guess = determinizer.sample(rng)
        (reservation,) = guess.players[1].reserved
        assert reservation.blind
        assert reservation.card in pool
        assert reservation.card not in guess.decks[2]
        guesses[reservation.card] += 1
    assert len(guesses) >= 10
    assert guesses[hidden] <= max(guesses.values())
    assert guesses[hidden] < 400 / len(pool) * 2.5


def test_the_hidden_card_s_identity_changes_nothing() -> None:
    """Two games that differ only in which card seat 1 reserved blind give seat 0 the same view and, with the same seed, the very same determinizations."""
    first, second = deck_cards(3, 2)
    a = _blind_reserve_table(first)
    b = _blind_reserve_table(second)
    assert a.players[1].reserved != b.players[1].reserved
    assert view(a, 0) == view(b, 0)
    for seed in range(5):
        guess_a = determinize(view(a, 0), random.Random(seed))
        guess_b = determinize(view(b, 0), random.Random(seed))
        assert guess_a == guess_b


def test_own_reserves_and_bought_cards_stay_out_of_the_decks() -> None:
    """Cards the seat sees (its reserves, cards bought, the board) are never dealt as guesses."""
    state = Table(2, first_seat=1).own(0, "1-05").reserve(0, "2-09").state(mover=0)
    seen = view(state, 0)
    guess = determinize(seen, random.Random(3))
    deck = {c for level in guess.decks for c in level}
    assert {"1-05", "2-09"}.isdisjoint(deck)
    assert [len(d) for d in guess.decks] == [seen["decks"][k] for k in ("1", "2", "3")]


def test_the_first_seat_is_inferred_from_the_turn() -> None:
    """The view doesn't show the first seat: it follows from the seat and turn number."""
    state = scenes.imminent_win()
    guess = determinize(view(state, 0), random.Random(0))
    assert guess.first_seat == state.first_seat == 1


def test_a_spectator_view_is_refused() -> None:
    """Determinization is for a seat; a spectator's view is a ValueError."""
    state = scenes.winning_buy()
    with pytest.raises(ValueError, match="spectator"):
        Determinizer(view(state, None))
