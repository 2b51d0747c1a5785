"""Properties of classic Splendor over random seeded games played to the end.

Each example is a whole game of random legal play for 2, 3 or 4 players (see
``tests.classic_helpers.random_game``); each property is checked after every step.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from events.catalog import classic_cards
from events.classic.actions import ClassicAction
from events.classic.events import ClassicEvent, TurnEnded
from events.classic.evolve import fold
from events.classic.rules import decide, legal_actions
from events.classic.state import ClassicState
from events.classic.view import redact, view
from events.colors import GEMS, TOKENS
from events.errors import RuleViolation
from tests.classic_helpers import GEMS_BY_PLAYERS, random_game

MAX_MOVES = 3000  # random games last ~100-400 moves; the bound only stops a runaway
ALL_CARDS = set(classic_cards())
EXAMPLES = settings(max_examples=40, deadline=None)
players_st = st.integers(min_value=2, max_value=4)
seeds_st = st.integers(min_value=0, max_value=2**32 - 1)


def whole_game(players: int, seed: int) -> list[ClassicEvent]:
    log: list[ClassicEvent] = []
    for _, _, _, events in random_game(players, seed, MAX_MOVES):
        log.extend(events)
    return log


def card_ids(value: Any) -> set[str]:
    """Every card id anywhere in a JSON-like value."""
    if isinstance(value, str):
        return {value} & ALL_CARDS
    if isinstance(value, dict):
        return set().union(set(), *(card_ids(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(set(), *(card_ids(v) for v in value))
    return set()


@given(players_st, seeds_st)
@EXAMPLES
def test_every_game_ends(players: int, seed: int) -> None:
    """Random legal play always reaches GameEnded within a bounded number of moves."""
    state = ClassicState()
    moves = 0
    for state, seat, _, _ in random_game(players, seed, MAX_MOVES):  # noqa: B007
        moves += seat is not None
    assert state.status == "finished", f"no end after {moves} moves"
    assert state.result is not None and state.result.winners


@given(players_st, seeds_st)
@EXAMPLES
def test_tokens_are_conserved(players: int, seed: int) -> None:
    """Bank + players always hold 4/5/7 tokens of each gem and 5 gold, none negative."""
    expected = [GEMS_BY_PLAYERS[players]] * len(GEMS) + [5]
    for state, seat, _, _ in random_game(players, seed, MAX_MOVES):
        if seat is None and state.status == "open":
            continue
        totals = [state.bank[i] + sum(p.tokens[i] for p in state.players) for i in range(6)]
        assert totals == expected
        assert min(state.bank) >= 0
        assert all(min(p.tokens) >= 0 for p in state.players)


@given(players_st, seeds_st)
@EXAMPLES
def test_every_card_is_in_exactly_one_place(players: int, seed: int) -> None:
    """Each of the 90 cards is on the board, in a deck, owned or reserved: exactly once."""
    for state, _, _, _ in random_game(players, seed, MAX_MOVES):
        if state.status == "open":
            continue
        places: Counter[str] = Counter()
        places.update(c for row in state.board for c in row if c is not None)
        places.update(c for deck in state.decks for c in deck)
        for p in state.players:
            places.update(p.cards)
            places.update(r.card for r in p.reserved)
            assert len(p.reserved) <= 3
        assert set(places) == ALL_CARDS
        assert set(places.values()) == {1}


@given(players_st, seeds_st)
@EXAMPLES
def test_no_turn_ends_above_ten_tokens(players: int, seed: int) -> None:
    """Whenever a turn ends, its player holds at most 10 tokens."""
    for state, _, _, events in random_game(players, seed, MAX_MOVES):
        for event in events:
            if isinstance(event, TurnEnded):
                assert sum(state.players[event.seat].tokens) <= 10


@given(players_st, seeds_st)
@EXAMPLES
def test_fold_of_the_log_equals_the_live_state(players: int, seed: int) -> None:
    """Folding the log from scratch gives the live state, at checkpoints and at the end."""
    log: list[ClassicEvent] = []
    checkpoints: list[tuple[int, ClassicState]] = []
    state = ClassicState()
    for step, (state, _, _, events) in enumerate(random_game(players, seed, MAX_MOVES), 1):
        log.extend(events)
        if step % 37 == 0:
            checkpoints.append((len(log), state.copy()))
    assert fold(log) == state
    assert state.version == len(log)
    for length, snapshot in checkpoints:
        assert fold(log[:length]) == snapshot


@given(players_st, seeds_st)
@settings(max_examples=30, deadline=None)
def test_every_listed_action_is_accepted(players: int, seed: int) -> None:
    """decide accepts every action legal_actions lists, at every step of the game."""
    rng = random.Random(seed)
    for state, _, _, _ in random_game(players, seed, MAX_MOVES):
        if state.status != "live":
            continue
        others = [s for s in range(players) if s != state.seat]
        assert all(legal_actions(state, s) == [] for s in others)
        for action in legal_actions(state, state.seat):
            decide(state, state.seat, action, rng)  # raises if refused


def random_wire_action(rng: random.Random, state: ClassicState) -> dict[str, Any]:
    """A wire action of any kind with random, often wrong, fields."""
    cards = sorted(ALL_CARDS)
    some_tokens = {
        name: rng.randint(-1, 3) for name in rng.sample(TOKENS, rng.randint(0, len(TOKENS)))
    }
    kind = rng.choice(
        ["take_three", "take_two", "reserve", "buy", "return_tokens", "choose_noble", "pass"]
    )
    if kind == "take_three":
        return {"kind": kind, "colors": [rng.choice(GEMS) for _ in range(rng.randint(0, 4))]}
    if kind == "take_two":
        return {"kind": kind, "color": rng.choice(GEMS)}
    if kind == "reserve":
        if rng.random() < 0.5:
            return {"kind": kind, "level": rng.randint(0, 4)}
        return {"kind": kind, "card": rng.choice(cards)}
    if kind == "buy":
        mine = [r.card for p in state.players for r in p.reserved]
        board = [c for row in state.board for c in row if c]
        wire: dict[str, Any] = {"kind": kind, "card": rng.choice(cards + mine + board * 3)}
        if rng.random() < 0.5:
            wire["payment"] = some_tokens
        return wire
    if kind == "return_tokens":
        return {"kind": kind, "tokens": some_tokens}
    if kind == "choose_noble":
        return {"kind": kind, "noble": f"n{rng.randint(0, 11)}"}
    return {"kind": kind}


@given(players_st, seeds_st)
@EXAMPLES
def test_refused_actions_are_never_listed(players: int, seed: int) -> None:
    """Random wire actions that decide refuses are not in legal_actions; listed ones pass."""
    rng = random.Random(seed ^ 0x5EED)
    decoder = msgspec.json.Decoder(ClassicAction)
    for state, _, _, _ in random_game(players, seed, MAX_MOVES):
        if state.status != "live":
            continue
        listed = legal_actions(state, state.seat)
        for _ in range(5):
            action = decoder.decode(msgspec.json.encode(random_wire_action(rng, state)))
            try:
                decide(state, state.seat, action, rng)
            except RuleViolation:
                assert action not in listed
            for seat in range(players):
                if seat != state.seat:
                    try:
                        decide(state, seat, action, rng)
                    except RuleViolation as refused:
                        assert refused.code == "not_your_turn"
                    else:
                        raise AssertionError("an action out of turn was accepted")


@given(players_st, seeds_st)
@EXAMPLES
def test_no_view_leaks_a_hidden_card(players: int, seed: int) -> None:
    """No opponent or spectator view, nor a redacted event, holds a blind or undealt card."""
    for state, _, _, events in random_game(players, seed, MAX_MOVES):
        if state.status != "live":
            continue
        undealt = {c for deck in state.decks for c in deck}
        for viewer in [None, *range(players)]:
            secret = set(undealt)
            for p in state.players:
                if p.seat != viewer:
                    secret.update(r.card for r in p.reserved if r.blind)
            assert not card_ids(view(state, viewer)) & secret
            for event in events:
                shown = msgspec.to_builtins(redact(event, viewer, finished=False))
                assert not card_ids(shown) & secret


@given(players_st, seeds_st)
@EXAMPLES
def test_every_event_survives_a_json_round_trip(players: int, seed: int) -> None:
    """Each event encodes to JSON and decodes, with the event union, to an equal event."""
    decoder = msgspec.json.Decoder(ClassicEvent)
    for event in whole_game(players, seed):
        assert decoder.decode(msgspec.json.encode(event)) == event
