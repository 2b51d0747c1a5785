"""Properties of time and leaving (RULES.md part 3) over random games of both
variants with random time controls, bot seats, resignations, abandon claims, aborts
and timeouts: every game ends, ranks are a ranking with ties only between seats in
play, the fold of the log with its times is the live state, and the leave actions
listed are exactly those ``decide`` accepts."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from events.base import Abort, ClaimAbandon, Resign, TimeControl
from events.errors import RuleViolation
from events.leaving import Facts
from tests.live_helpers import Timed

MAX_STEPS = 3000
tables = st.sampled_from([("classic", 2), ("classic", 3), ("classic", 4), ("duel", 2)])
controls = st.sampled_from(
    [None, TimeControl(initial=60, increment=2), TimeControl(initial=5), TimeControl(per_move=20)]
)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def check_leave_agreement(game: Timed, facts: Facts) -> None:
    """For every seat: each listed leave action is accepted; abort and claim_abandon
    not listed are refused; resign is accepted from every live seat in play but a bot's."""
    state = game.state
    for seat in range(len(state.players)):
        listed = game.variant.leave_actions(state, seat, facts)
        for action in (Abort(), ClaimAbandon(), Resign()):
            try:
                game.variant.decide(state, seat, action, random.Random(0), facts)
            except RuleViolation:
                accepted = False
            else:
                accepted = True
            if isinstance(action, Resign):
                player = state.players[seat]
                expected = state.status == "live" and player.out is None and player.bot is None
                assert accepted == expected, (seat, action)
            else:
                assert accepted == (action in listed), (seat, action, listed)


def play(name: str, players: int, control: TimeControl | None, seed: int) -> Timed:
    """A random game where, now and then, time runs out, a seat resigns, aborts or
    claims the mover abandoned, or someone leaves its socket."""
    chance = random.Random(seed)
    bots = [s for s in range(players) if chance.random() < 0.25]
    game = Timed(name, players, control, bots=bots, seed=seed)
    away: list[int | None] = [None] * players
    for _ in range(MAX_STEPS):
        if game.state.status not in ("live", "open"):
            break
        roll = chance.random()
        if chance.random() < 0.05:
            seat = chance.randrange(players)
            away[seat] = None if away[seat] is not None else game.now
        facts = Facts(game.now, tuple(away))
        if chance.random() < 0.1:
            check_leave_agreement(game, facts)
        seat = chance.randrange(players)
        try:
            if roll < 0.01:
                game.act(seat, Resign(), away)
                continue
            if roll < 0.015:
                game.act(seat, Abort(), away)
                continue
            if roll < 0.03:
                game.after(chance.choice([30, 61, 100]))
                game.act(seat, ClaimAbandon(), away)
                continue
        except RuleViolation:
            continue
        if roll < 0.05:
            due = game.deadline()
            if due is not None:
                game.now = max(game.now, due)
                assert game.expire(), "a deadline passed with nothing to record"
            continue
        game.after(chance.choice([0.2, 1, 3]))
        if game.expire():
            continue
        mover = game.state.seat
        actions = game.variant.legal_actions(game.state, mover)
        game.act(mover, chance.choice(actions), away)
    return game


def check_ranks(state: Any) -> None:
    """Competition ranks (1, 1, 3 ...), winners first, seats out after every seat in
    play and never tied."""
    ranks = state.result.ranks
    count = len(state.players)
    assert len(ranks) == count
    for rank in ranks:
        assert rank == 1 + sum(1 for other in ranks if other < rank)
    out = [p.seat for p in state.players if p.out is not None]
    playing = [p.seat for p in state.players if p.out is None]
    assert all(ranks[o] > ranks[p] for o in out for p in playing)
    assert len({ranks[o] for o in out}) == len(out)
    assert {s for s in range(count) if ranks[s] == 1} == set(state.result.winners)
    assert all(w in playing for w in state.result.winners)


@given(tables, controls, seeds)
@settings(max_examples=60, deadline=None)
def test_random_games_with_leaving_and_timeouts_always_end(
    table: tuple[str, int], control: TimeControl | None, seed: int
) -> None:
    """Every random game ends, finished with a ranking or aborted with no result; the fold of its log with the times equals the live state."""
    name, players = table
    game = play(name, players, control, seed)
    state = game.state
    assert state.status in ("finished", "aborted")
    if state.status == "finished":
        check_ranks(state)
    else:
        assert state.result is None
    assert game.variant.fold_timed(game.log) == state
    assert game.variant.deadline(state) is None
    for viewer in [None, *range(players)]:
        view = game.view(viewer)
        assert view["legal"] == []
        assert view["clock"] is None or view["clock"]["running"] is None
