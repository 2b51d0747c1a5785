"""Tournament pairing over random fields of 2 to 200 players: an arena pairs each
waiting player at most once and never with their last opponent while another waits;
a Swiss over random results never pairs two players twice, gives at most one bye a
round and no second bye while someone has none, and leaves nobody else unpaired."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from events.base import TimeControl
from events.tournament import standings
from events.tournament.arena import Waiting, pair_waiting
from events.tournament.log import PlayersPaired

# Mostly small fields, now and then up to 200 players.
field_sizes = st.one_of(st.integers(2, 12), st.integers(2, 40), st.integers(2, 200))


@st.composite
def waiting_fields(draw: st.DrawFn) -> list[Waiting]:
    n = draw(field_sizes)
    names = [f"p{i}" for i in range(n)]
    field = []
    for name in names:
        last = draw(st.one_of(st.none(), st.sampled_from(names)))
        field.append(
            Waiting(
                name,
                draw(st.integers(0, 12)),
                draw(st.sampled_from([1200.0, 1400.0, 1500.0, 1600.0, 1900.0])),
                None if last == name else last,
                draw(st.integers(0, 50)),
            )
        )
    return field


@settings(max_examples=50, deadline=None)
@given(waiting_fields())
def test_arena_pairs_each_waiting_player_once_and_never_their_last_opponent(
    field: list[Waiting],
) -> None:
    """Each waiting player is in at most one pair or waits; no rematch with more than two waiting."""
    paired = pair_waiting(field)
    seated = [p for pair in paired.pairs for p in (pair.first, pair.second)]
    assert len(seated) == len(set(seated))
    assert sorted([*seated, *paired.waiting]) == sorted(w.player for w in field)
    last = {w.player: w.last_opponent for w in field}
    if len(field) > 2:
        for pair in paired.pairs:
            assert last[pair.first] != pair.second and last[pair.second] != pair.first


@settings(max_examples=50, deadline=None)
@given(field_sizes, st.randoms(use_true_random=False))
def test_swiss_rounds_never_repeat_a_pairing_and_share_the_byes(n: int, rng: random.Random) -> None:
    """Over several rounds of random results: no pair twice, at most one bye a round, byes shared out, all but one paired."""
    # Rounds a field can always hold without a rematch (Dirac: each player keeps at
    # least half the field as possible opponents, the bye counted as one more).
    rounds = max(1, min(4, (n - 3) // 2))
    t = standings.replay(
        standings.create("s", "swiss", "classic", TimeControl(180, 2), 0, rounds=rounds)
    )
    for i in range(n):
        t = standings.evolve(t, standings.join(t, f"p{i}", rng.choice([1300, 1500, 1700]), 0)[0])
    seen: set[frozenset[str]] = set()
    for r in range(rounds):
        event = standings.pair_swiss(t, r)[0]
        assert isinstance(event, PlayersPaired)
        seated = [p for pair in event.pairs for p in (pair.first, pair.second)]
        if event.bye is not None:
            seated.append(event.bye)
            assert t.players[event.bye].byes == min(p.byes for p in t.players.values())
        assert len(seated) == len(set(seated))
        assert len(seated) == n
        assert (event.bye is not None) == (n % 2 == 1)
        for pair in event.pairs:
            meeting = frozenset((pair.first, pair.second))
            assert meeting not in seen
            seen.add(meeting)
        t = standings.evolve(t, event)
        for pair in event.pairs:
            winner = rng.choice([pair.first, pair.second, None])
            t = standings.evolve(t, standings.record(t, pair.first, pair.second, winner, r)[0])
    byes = [p.byes for p in t.players.values()]
    assert max(byes) - min(byes) <= 1
