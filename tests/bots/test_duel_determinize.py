"""Duel determinization: states consistent with the seat's view, the opponent's
reserves and the decks guessed from the unseen pool, never read from the real game."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bots.duel_determinize import DuelDeterminizer, determinize
from events.duel.view import view
from tests.bots.test_determinize import game_part
from tests.duel_helpers import random_game


def test_determinized_states_show_the_same_view() -> None:
    """In positions of random games (every phase), the guess's view equals the real view, for
    the seat to move and for the other seat (but in a forced replenish, whose phase tells that
    seat the mover's hidden reserves are unaffordable, which the guesses don't take into account)."""
    rng = random.Random(7)
    checked = hidden = 0
    phases: Counter[str] = Counter()
    for seed in range(12):
        for state, _s, _a, _e in random_game(300 + seed):
            if state.status != "live":
                continue
            for seat in (0, 1):
                seen = view(state, seat)
                if seat != state.seat and seen["turn"]["phase"] == "replenish":
                    continue
                guess = determinize(seen, rng)
                assert game_part(view(guess, seat)) == game_part(seen)
                checked += 1
                hidden += sum(1 for p in seen["players"] for r in p["reserved"] if "level" in r)
            phases[seen["turn"]["phase"]] += 1
    assert checked >= 1000
    assert hidden >= 200  # the opponent's reserves were there to guess
    assert {"main", "take_bonus_token", "steal_token", "choose_royal", "discard_tokens"} <= set(
        phases
    )


def test_the_hidden_reserves_and_decks_are_dealt_from_the_unseen_pool() -> None:
    """Each guess gives the opponent's hidden reserves cards of their level from the unseen
    pool, the rest of the pool in the decks, and the guesses vary."""
    for state, _s, _a, _e in random_game(5):
        if state.status == "live" and sum(len(p.reserved) for p in state.players) >= 3:
            break
    seen = view(state, 0)
    determinizer = DuelDeterminizer(seen)
    assert determinizer.hidden, "the opponent holds a hidden reserve"
    guesses = set()
    for i in range(30):
        guess = determinizer.sample(random.Random(i))
        for seat, index, level in determinizer.hidden:
            card = guess.players[seat].reserved[index]
            assert card in determinizer.pools[level]
            assert card not in guess.decks[level - 1]
            guesses.add(card)
        for level in (1, 2, 3):
            assert len(guess.decks[level - 1]) == seen["decks"][str(level)]
    assert len(guesses) > len(determinizer.hidden)


def test_a_spectators_view_has_no_seat_to_guess_for() -> None:
    """A spectator's view is refused: a determinization is one seat's."""
    for state, _s, _a, _e in random_game(1):
        if state.status == "live":
            break
    with pytest.raises(ValueError, match="spectator"):
        DuelDeterminizer(view(state, None))
