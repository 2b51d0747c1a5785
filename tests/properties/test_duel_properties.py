"""Properties of random legal Duel games (seeded, so a failure replays)."""

from __future__ import annotations

import random

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from events.catalog import duel_cards
from events.duel.actions import (
    Buy,
    ChooseRoyal,
    DiscardTokens,
    DuelAction,
    Replenish,
    Reserve,
    StealToken,
    TakeBonusToken,
    TakeTokens,
    UsePrivileges,
)
from events.duel.checks import affordable
from events.duel.constants import MAX_TOKENS, TOKEN_COUNTS
from events.duel.events import CardReserved, DuelEvent, TurnEnded
from events.duel.evolve import evolve, fold
from events.duel.legal import legal_actions
from events.duel.rules import decide
from events.duel.state import DuelState, PlayerState
from events.duel.view import redact, view
from events.errors import RuleViolation
from events.game import DUEL
from events.payment import can_afford, needs
from tests.duel_helpers import random_game

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
MAX_MOVES = 2000  # random games end in about 150-250 moves


def tokens_held(state: DuelState) -> list[int]:
    """Board + bag + both players, per token kind."""
    counts = list(state.bag)
    for token in state.board:
        if token is not None:
            counts[("white", "blue", "green", "red", "black", "gold", "pearl").index(token)] += 1
    for player in state.players:
        counts = [a + b for a, b in zip(counts, player.tokens, strict=True)]
    return counts


@settings(max_examples=15, deadline=None)
@given(SEEDS)
def test_random_games_end(seed: int) -> None:
    """Random legal play reaches a victory within a bounded number of moves."""
    steps = list(random_game(seed, MAX_MOVES))
    state = steps[-1][0]
    assert state.status == "finished" and len(steps) < MAX_MOVES
    assert state.result is not None and state.result.reason in ("prestige", "crowns", "colour")


@settings(max_examples=15, deadline=None)
@given(SEEDS)
def test_the_25_tokens_are_always_accounted_for(seed: int) -> None:
    """Board + bag + players always hold 4 of each gem, 2 pearls and 3 gold."""
    for state, _, _, _ in random_game(seed, MAX_MOVES):
        if state.status != "open":
            assert tokens_held(state) == list(TOKEN_COUNTS)
            assert (
                state.privileges >= 0
                and sum(p.privileges for p in state.players) + state.privileges == 3
            )


@settings(max_examples=15, deadline=None)
@given(SEEDS)
def test_no_turn_ends_above_ten_tokens(seed: int) -> None:
    """Whenever a turn ends, both players hold at most 10 tokens."""
    for state, _, _, events in random_game(seed, MAX_MOVES):
        if any(isinstance(e, TurnEnded) for e in events):
            assert all(sum(p.tokens) <= MAX_TOKENS for p in state.players)


@settings(max_examples=10, deadline=None)
@given(SEEDS)
def test_fold_of_the_log_equals_the_live_state(seed: int) -> None:
    """Replaying the log (also through its JSON form) gives the state built live."""
    log: list[DuelEvent] = []
    checkpoints = random.Random(seed)
    state = None
    for state, _, _, events in random_game(seed, MAX_MOVES):
        log.extend(events)
        if checkpoints.random() < 0.05:
            assert fold(log) == state
    assert state is not None and fold(log) == state
    decoded = DUEL.event_decoder()
    wire = [decoded.decode(msgspec.json.encode(e)) for e in log]
    assert DUEL.fold(wire) == state


@settings(max_examples=10, deadline=None)
@given(SEEDS)
def test_no_view_shows_another_players_reserved_card(seed: int) -> None:
    """Until the end, the opponent's and spectators' views and events hold no reserved id."""
    for state, _, _, events in random_game(seed, MAX_MOVES):
        if state.status != "live":
            continue
        for owner in state.players:
            hidden = [f'"{card}"'.encode() for card in owner.reserved]
            for viewer in (1 - owner.seat, None):
                text = msgspec.json.encode(view(state, viewer))
                assert not any(card in text for card in hidden)
                for event in events:
                    if isinstance(event, CardReserved) and event.seat == owner.seat:
                        assert redact(event, viewer, False).card is None  # type: ignore[union-attr]


@settings(max_examples=8, deadline=None)
@given(SEEDS)
def test_every_listed_action_is_accepted(seed: int) -> None:
    """Each action legal_actions lists is accepted by decide, which leaves the state as is; a live game always lists at least one."""
    sample = random.Random(seed)
    for state, _, _, _ in random_game(seed, MAX_MOVES):
        if state.status != "live":
            continue
        actions = legal_actions(state, state.seat)
        assert actions, "a live game with no legal action"
        assert legal_actions(state, 1 - state.seat) == []
        before = state.copy()
        for action in sample.sample(actions, min(len(actions), 40)):
            assert decide(state, state.seat, action, random.Random(0))
        assert state == before


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(duel_cards())),
    st.lists(st.integers(0, 3), min_size=5, max_size=5),
    st.lists(st.integers(0, 4), min_size=7, max_size=7),
)
def test_affordable_agrees_with_the_payment_rules(
    card_id: str, bonuses: list[int], tokens: list[int]
) -> None:
    """The fast affordability check of legal_actions says what payment.can_afford says."""
    player = PlayerState(0, "Ana", tokens=tokens, bonuses=bonuses, cards=["d1-01"])
    expected = can_afford(needs(duel_cards()[card_id].cost, bonuses), tokens)
    assert affordable(player, card_id, tokens) == expected


CELL = st.tuples(st.integers(-1, 5), st.integers(-1, 5))
TOKEN = st.sampled_from(["white", "blue", "green", "red", "black", "gold", "pearl"])
CARD = st.sampled_from([*sorted(duel_cards()), "d9-99"])
ANY_ACTION = st.one_of(
    st.builds(UsePrivileges, st.lists(CELL, max_size=4).map(tuple)),
    st.just(Replenish()),
    st.builds(TakeTokens, st.lists(CELL, max_size=4).map(tuple)),
    st.builds(Reserve, CELL, st.one_of(st.none(), CARD), st.one_of(st.none(), st.integers(0, 4))),
    st.builds(
        Buy,
        CARD,
        st.one_of(st.none(), st.dictionaries(TOKEN, st.integers(-1, 5), max_size=3)),
        st.one_of(st.none(), CARD),
    ),
    st.builds(TakeBonusToken, CELL),
    st.builds(StealToken, TOKEN),
    st.builds(ChooseRoyal, st.sampled_from(["r1", "r2", "r3", "r4", "r9"])),
    st.builds(DiscardTokens, st.dictionaries(TOKEN, st.integers(-1, 4), max_size=3)),
)


@settings(max_examples=150, deadline=None)
@given(SEEDS, st.integers(0, 150), st.integers(0, 1), ANY_ACTION)
def test_any_action_is_accepted_or_refused_cleanly(
    seed: int, moves: int, seat: int, action: DuelAction
) -> None:
    """Whatever a client sends, decide returns events or raises a RuleViolation with a message, and never changes the state; accepted events keep the tokens accounted for."""
    state = list(random_game(seed, moves))[-1][0]
    before = state.copy()
    try:
        events = decide(state, seat, action, random.Random(seed))
    except RuleViolation as violation:
        assert violation.message and violation.code in (
            "illegal_action",
            "not_your_turn",
            "game_over",
        )
        assert state == before
        return
    assert state == before
    for event in events:
        evolve(state, event)
    assert tokens_held(state) == list(TOKEN_COUNTS)
