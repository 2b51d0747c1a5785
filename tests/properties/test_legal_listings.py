"""The legal-action listings' shortcuts (memoized parts, affordability summed once for
every card) list what the rules' checks allow one action at a time, in the same order:
after every event of random games of both variants.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from events.catalog import classic_cards, duel_cards
from events.classic import rules as classic
from events.classic.actions import Buy as ClassicBuy
from events.classic.actions import ClassicAction, Pass, TakeThree, TakeTwo
from events.classic.actions import Reserve as ClassicReserve
from events.classic.evolve import evolve as classic_evolve
from events.classic.state import ClassicState
from events.colors import GEMS, GOLD
from events.duel.actions import Buy, DuelAction, Replenish, Reserve, TakeTokens, UsePrivileges
from events.duel.board import LINES, cell_of
from events.duel.checks import affordable, phase, privileges_leave_an_action
from events.duel.constants import MAX_RESERVED
from events.duel.evolve import evolve as duel_evolve
from events.duel.evolve import owned_colour
from events.duel.legal import legal_actions
from events.duel.state import DuelState
from events.payment import can_afford, needs
from tests import classic_helpers, duel_helpers

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def duel_main_listing(state: DuelState) -> list[DuelAction]:
    """The main phase's actions, each checked one by one with ``events.duel.checks``:
    privileges, replenish, takes (singles, pairs, triples), reserves, buys."""
    player = state.players[state.seat]
    actions: list[DuelAction] = []
    if player.privileges and not state.replenished:
        gems = [i for i, t in enumerate(state.board) if t is not None and t != GOLD]
        for size in range(1, min(player.privileges, len(gems)) + 1):
            for cells in combinations(gems, size):
                if size < len(gems) or privileges_leave_an_action(state, player, cells):
                    actions.append(UsePrivileges(tuple(cell_of(i) for i in cells)))
    if any(state.bag):
        actions.append(Replenish())
    ok = [t is not None and t != GOLD for t in state.board]
    for size in (1, 2, 3):
        actions += [
            TakeTokens(tuple(cell_of(i) for i in line))
            for line in LINES
            if len(line) == size and all(ok[i] for i in line)
        ]
    if len(player.reserved) < MAX_RESERVED:
        for cell, token in enumerate(state.board):
            if token == GOLD:
                actions += [
                    Reserve(cell_of(cell), card=c) for row in state.pyramid for c in row if c
                ]
                actions += [
                    Reserve(cell_of(cell), level=level)
                    for level in (1, 2, 3)
                    if state.decks[level - 1]
                ]
    on_pyramid = [c for row in state.pyramid for c in row if c is not None]
    for card_id in [*on_pyramid, *player.reserved]:
        if not affordable(player, card_id, player.tokens):
            continue
        if duel_cards()[card_id].color == "wild":
            actions += [
                Buy(card_id, wild_on=on)
                for on in player.cards
                if owned_colour(player, on) is not None
            ]
        else:
            actions.append(Buy(card_id))
    return actions


def classic_main_listing(state: ClassicState) -> list[ClassicAction]:
    """The main phase's actions, each checked one by one with the rules' checks and
    ``events.payment``: take_three, take_two, buys, reserves; else a pass."""
    player = state.players[state.seat]
    left = [i for i in range(5) if state.bank[i]]
    actions: list[ClassicAction] = [
        TakeThree(tuple(GEMS[i] for i in combo))
        for size in (1, 2, 3)
        if classic.take_three_count_allowed(size, len(left))
        for combo in combinations(left, size)
    ]
    actions += [TakeTwo(GEMS[i]) for i in range(5) if classic.take_two_allowed(state.bank[i])]
    on_board = [c for row in state.board for c in row if c is not None]
    for card_id in [*on_board, *(r.card for r in player.reserved)]:
        if can_afford(needs(classic_cards()[card_id].cost, player.bonuses), player.tokens):
            actions.append(ClassicBuy(card_id))
    if classic.reserve_allowed(player):
        actions += [ClassicReserve(card=c) for c in on_board]
        actions += [ClassicReserve(level=n) for n in (1, 2, 3) if state.decks[n - 1]]
    return actions or [Pass()]


def classic_positions(players: int, seed: int) -> Iterator[ClassicState]:
    """The state after every event of a random classic game (not only after each move)."""
    state = ClassicState()
    for _, _, _, events in classic_helpers.random_game(players, seed):
        for event in events:
            classic_evolve(state, event)
            yield state


def duel_positions(seed: int) -> Iterator[DuelState]:
    """The state after every event of a random Duel."""
    state = DuelState()
    for _, _, _, events in duel_helpers.random_game(seed):
        for event in events:
            duel_evolve(state, event)
            yield state


@settings(max_examples=10, deadline=None)
@given(st.integers(2, 4), SEEDS)
def test_classic_listing_is_the_checks_listing(players: int, seed: int) -> None:
    """After every event of a random classic game in its main phase, legal_actions lists what the checks allow one by one, in the same order."""
    for state in classic_positions(players, seed):
        if state.status == "live" and classic.phase(state) == "main":
            assert classic.legal_actions(state, state.seat) == classic_main_listing(state)


@settings(max_examples=10, deadline=None)
@given(SEEDS)
def test_duel_listing_is_the_checks_listing(seed: int) -> None:
    """After every event of a random Duel in its main phase, legal_actions lists what the checks allow one by one, in the same order."""
    for state in duel_positions(seed):
        if state.status == "live" and phase(state) == "main":
            assert legal_actions(state, state.seat) == duel_main_listing(state)


def test_duel_listing_shortcuts_see_changes_of_the_same_board() -> None:
    """Positions sharing a board but not the tokens or the reserve get their own buys and reserves."""
    sample = random.Random(5)
    seen = 0
    for state in duel_positions(5):
        if state.status == "live" and phase(state) == "main":
            copy = state.copy()
            player = copy.players[copy.seat]
            player.tokens = [sample.randint(0, 3) for _ in player.tokens]
            player.reserved = player.reserved[:1]
            if phase(copy) == "main":
                assert legal_actions(copy, copy.seat) == duel_main_listing(copy)
                seen += 1
    assert seen > 50
