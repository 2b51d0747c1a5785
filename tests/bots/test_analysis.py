"""Analysis of a finished game: chances in [0, 1] summing to 1 at every version, 1 for
the winner at the end, reproducible for a seed, position by position, from the public
position only."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import msgspec
import pytest

import bots
from bots import analysis
from bots.analysis import Estimate, assemble, estimate, turn_starts
from events.game import VARIANTS

ITERATIONS = 12  # enough to exercise the search, quick


@cache
def bot_game(variant: str, seed: int) -> tuple[Any, ...]:
    """The events of a whole two-player game between greedy bots."""
    rules = VARIANTS[variant]
    rng = random.Random(seed)
    chooser = random.Random(seed + 1)
    state = rules.new_state()
    events: list[Any] = []

    def apply(new: list[Any]) -> None:
        for event in new:
            rules.evolve(state, event)
            events.append(event)

    apply(rules.create(f"g{seed}", 2))
    for name in ("a", "b"):
        apply(rules.join(state, name, "greedy", rng))
    while state.status == "live":
        seat = state.seat
        wire = bots.choose("greedy", rules.view(state, seat), chooser)
        apply(rules.decide(state, seat, msgspec.convert(wire, rules.action_type), rng))
    return tuple(events)


@pytest.mark.parametrize("variant", ["classic", "duel"])
def test_chances_are_probabilities_ending_at_one_for_the_winner(variant: str) -> None:
    """At every version the seats' chances lie in [0, 1] and sum to 1; at the last version
    the winner has 1; every turn's start has the search's favourite move."""
    events = bot_game(variant, 3)
    result = analysis.analyse(variant, events, "s", ITERATIONS)
    assert all(len(chances) == len(events) + 1 for chances in result.seats)
    for version in range(len(events) + 1):
        chances = [seat[version] for seat in result.seats]
        assert all(0.0 <= c <= 1.0 for c in chances)
        assert sum(chances) == pytest.approx(1.0)
    winners = VARIANTS[variant].fold(events).result.winners
    assert [seat[-1] for seat in result.seats] == [1.0 if s in winners else 0.0 for s in (0, 1)]
    assert [seat[0] for seat in result.seats] == [0.5, 0.5]
    starts = [version for version, _ in turn_starts(variant, events)]
    assert sorted(result.best) == starts
    assert all(m["version"] in starts and m["lost"] >= analysis.MISTAKE for m in result.mistakes)


def test_the_analysis_is_reproducible_and_computed_position_by_position() -> None:
    """The same game and seed give the same analysis, and one position estimated alone
    (as a worker resuming after a crash would) gives what the whole analysis gave."""
    events = bot_game("classic", 4)
    first = analysis.analyse("classic", events, "seed", ITERATIONS)
    assert analysis.analyse("classic", events, "seed", ITERATIONS) == first
    version, view = turn_starts("classic", events)[7]
    alone = estimate(view, "seed", ITERATIONS)
    assert [seat[version] for seat in first.seats] == alone.chances
    assert first.best[version] == alone.best


def test_an_estimate_reads_only_the_public_position() -> None:
    """A seat's view is refused; a Duel whose reserves (both seats') and decks were dealt
    otherwise shows the same public view and gets the same estimate."""
    rules = VARIANTS["duel"]
    events = bot_game("duel", 5)
    version, view = next(
        (v, seen)
        for v, seen in turn_starts("duel", events)
        if sum(len(p["reserved"]) for p in seen["players"]) >= 2
    )
    with pytest.raises(ValueError, match="public"):
        estimate({**view, "you": 0}, "s", ITERATIONS)
    state = rules.fold(events[:version])
    rng = random.Random(1)
    for player in state.players:
        for i, card_id in enumerate(player.reserved):
            deck = state.decks[int(card_id[1]) - 1]
            j = rng.randrange(len(deck))
            player.reserved[i], deck[j] = deck[j], card_id
    for deck in state.decks:
        rng.shuffle(deck)
    assert state.players != rules.fold(events[:version]).players
    assert rules.view(state, None) == view
    assert estimate(rules.view(state, None), "s", ITERATIONS) == estimate(view, "s", ITERATIONS)


def test_a_turn_that_loses_chances_is_a_mistake() -> None:
    """A player whose chance falls by 0.1 or more over their turn made a mistake of that
    size; the next turn's start (or the result) is what it is measured against."""
    estimates = [
        (2, Estimate([0.5, 0.5], 0, None)),
        (4, Estimate([0.3, 0.7], 1, None)),  # seat 0 lost 0.2 on its turn
        (6, Estimate([0.35, 0.65], 0, None)),  # seat 1 lost 0.05: not a mistake
    ]
    result = assemble(2, 8, estimates, winners=[0])
    assert result.mistakes == [{"version": 2, "seat": 0, "lost": 0.2}]
    assert result.seats[0] == [0.5, 0.5, 0.5, 0.5, 0.3, 0.3, 0.35, 0.35, 1.0]
    lost_at_the_end = assemble(2, 8, estimates, winners=[1]).mistakes
    assert lost_at_the_end[-1] == {"version": 6, "seat": 0, "lost": 0.35}
