"""The legal-action listings' shortcuts (memoized parts, affordability summed once for
every card) list what the rules' checks list, made afresh from the state, in the same
order: over every position of random games of both variants.
"""

from __future__ import annotations

import random
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from events.catalog import duel_cards
from events.colors import GOLD
from events.duel.actions import Buy, DuelAction, Replenish, Reserve, TakeTokens, UsePrivileges
from events.duel.board import LINES, cell_of
from events.duel.checks import affordable, phase, privileges_leave_an_action
from events.duel.constants import MAX_RESERVED
from events.duel.evolve import owned_colour
from events.duel.legal import legal_actions
from events.duel.state import DuelState
from tests.duel_helpers import random_game

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


@settings(max_examples=10, deadline=None)
@given(SEEDS)
def test_duel_listing_is_the_checks_listing(seed: int) -> None:
    """In every main-phase position of a random Duel, legal_actions lists what the rules' checks allow one by one, in the same order."""
    for state, _, _, _ in random_game(seed):
        if state.status == "live" and phase(state) == "main":
            assert legal_actions(state, state.seat) == duel_main_listing(state)


def test_duel_listing_shortcuts_see_changes_of_the_same_board() -> None:
    """Positions sharing a board but not the tokens or pyramid get their own buys and reserves."""
    sample = random.Random(5)
    seen = 0
    for state, _, _, _ in random_game(5):
        if state.status == "live" and phase(state) == "main":
            copy = state.copy()
            player = copy.players[copy.seat]
            player.tokens = [sample.randint(0, 3) for _ in player.tokens]
            player.reserved = player.reserved[:1]
            assert legal_actions(copy, copy.seat) == duel_main_listing(copy)
            seen += 1
    assert seen > 50
