"""Every action a Duel seat may take now, in the order of a turn: privileges, replenish,
takes, reserves, buys; or the actions of the pending choice.

A buy is listed with its default payment (PROTOCOL.md's ``payment`` is optional); any
other exact payment is accepted too. Actions are frozen values, built once and shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import combinations

from events.catalog import duel_cards
from events.colors import GOLD
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
from events.duel.board import CELLS, LINES, cell_of
from events.duel.checks import paid_for, phase, privileges_leave_an_action
from events.duel.constants import MAX_RESERVED, MAX_TOKENS, TOKEN_NAMES
from events.duel.evolve import owned_colour
from events.duel.state import DuelState, PlayerState
from events.duel.turn import bonus_token_cells, stealable
from events.token_limit import ways_to_give_back
from events.turns import to_move

_CARDS = duel_cards()
Rows = Sequence[Sequence[str | None]]  # the pyramid's rows, as a list or as tuples
_REPLENISH = Replenish()
_TAKE = {line: TakeTokens(tuple(cell_of(i) for i in line)) for line in LINES}
_SINGLES = [line for line in LINES if len(line) == 1]
_PAIRS = [line for line in LINES if len(line) == 2]
_TRIPLES = [line for line in LINES if len(line) == 3]
_BUY = {card_id: Buy(card_id) for card_id in _CARDS}
_BLIND = {
    (cell, level): Reserve(cell_of(cell), level=level)
    for cell in range(CELLS)
    for level in (1, 2, 3)
}
_BONUS = [TakeBonusToken(cell_of(i)) for i in range(CELLS)]
_STEAL = [StealToken(name) for name in TOKEN_NAMES]
_WILDS = frozenset(card_id for card_id, card in _CARDS.items() if card.color == "wild")


@cache
def _use(cells: tuple[int, ...]) -> UsePrivileges:
    return UsePrivileges(tuple(cell_of(i) for i in cells))


@cache
def _reserve(cell: int, card_id: str) -> Reserve:
    return Reserve(cell_of(cell), card=card_id)


@cache
def _wild(card_id: str, on: str) -> Buy:
    return Buy(card_id, wild_on=on)


@cache
def _choose(royal_id: str) -> ChooseRoyal:
    return ChooseRoyal(royal_id)


def legal_actions(state: DuelState, seat: int) -> list[DuelAction]:
    """Every action ``seat`` may take now; empty when it is not that seat's move."""
    if not to_move(state, seat):
        return []
    player = state.players[seat]
    current = phase(state)
    if current == "replenish":
        return [_REPLENISH]
    if current == "take_bonus_token":
        return [_BONUS[i] for i in bonus_token_cells(state)]
    if current == "steal_token":
        return [_STEAL[i] for i in stealable(state, seat)]
    if current == "choose_royal":
        return [_choose(r) for r in state.royals]
    if current == "discard_tokens":
        return discard_options(player.tokens, sum(player.tokens) - MAX_TOKENS)
    actions: list[DuelAction] = []
    if player.privileges and not state.replenished:
        actions.extend(_privilege_options(state, player))
    if any(state.bag):
        actions.append(_REPLENISH)
    board = tuple(state.board)
    actions.extend(_takes(board))
    if len(player.reserved) < MAX_RESERVED:
        actions.extend(
            _reserves(board, tuple(map(tuple, state.pyramid)), tuple(map(bool, state.decks)))
        )
    actions.extend(_buy_options(state.pyramid, player))
    return actions


def _privilege_options(state: DuelState, player: PlayerState) -> list[DuelAction]:
    """Every set of up to ``privileges`` gem or pearl cells, in cell order."""
    gems = [i for i, t in enumerate(state.board) if t is not None and t != GOLD]
    out: list[DuelAction] = []
    for size in range(1, min(player.privileges, len(gems)) + 1):
        for cells in combinations(gems, size):
            # Leaving a gem or pearl on the board leaves a take; only emptying the
            # board of them needs the full check.
            if size < len(gems) or privileges_leave_an_action(state, player, cells):
                out.append(_use(cells))
    return out


# The takes and the reserves depend on the board (and the pyramid) alone, which most
# events leave as they were: each listing is made once and looked up after that.


@lru_cache(maxsize=1024)
def _takes(board: tuple[str | None, ...]) -> tuple[DuelAction, ...]:
    """Every take of 1 to 3 gems or pearls in a line: singles, pairs, triples."""
    ok = [token is not None and token != GOLD for token in board]
    return (
        *(_TAKE[line] for line in _SINGLES if ok[line[0]]),
        *(_TAKE[line] for line in _PAIRS if ok[line[0]] and ok[line[1]]),
        *(_TAKE[line] for line in _TRIPLES if ok[line[0]] and ok[line[1]] and ok[line[2]]),
    )


@lru_cache(maxsize=1024)
def _reserves(
    board: tuple[str | None, ...], pyramid: Rows, decks: tuple[bool, ...]
) -> tuple[DuelAction, ...]:
    """Every reserve with a gold token: a pyramid card, or blind from a deck left."""
    out: list[DuelAction] = []
    for cell, token in enumerate(board):
        if token != GOLD:
            continue
        for row in pyramid:
            out.extend(_reserve(cell, card_id) for card_id in row if card_id is not None)
        out.extend(_BLIND[cell, level] for level in (1, 2, 3) if decks[level - 1])
    return tuple(out)


def _buy_options(pyramid: Rows, player: PlayerState) -> list[DuelAction]:
    """Every buy of a pyramid or reserved card the player can pay for (a wild card once
    per card it may go on)."""
    candidates = [c for row in pyramid for c in row if c is not None]
    out: list[DuelAction] = []
    bonus_cards: list[str] | None = None
    for card_id in paid_for(player, (*candidates, *player.reserved), player.tokens):
        if card_id in _WILDS:  # on any card of the player's with a bonus: none, no buy
            if bonus_cards is None:
                bonus_cards = [c for c in player.cards if owned_colour(player, c) is not None]
            out.extend(_wild(card_id, on) for on in bonus_cards)
        else:
            out.append(_BUY[card_id])
    return out


def discard_options(tokens: list[int], count: int) -> list[DuelAction]:
    """Every way to put back exactly ``count`` of the tokens held."""
    return list(_discards(tuple(tokens), count))


@lru_cache(maxsize=4096)
def _discards(tokens: tuple[int, ...], count: int) -> tuple[DiscardTokens, ...]:
    """``discard_options``, memoized (the same holdings recur, the actions are frozen
    values)."""
    return tuple(DiscardTokens(way) for way in ways_to_give_back(tokens, count, TOKEN_NAMES))
