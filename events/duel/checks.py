"""What a Duel position allows, asked by ``decide``, ``legal_actions`` and ``view``
alike: the phase of the turn, whether a card is affordable, whether a mandatory
action is still possible.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from events.catalog import duel_cards
from events.colors import DUEL_TOKENS, GEM_INDEX, GOLD, GOLD_INDEX, PEARL_INDEX
from events.duel.constants import MAX_RESERVED, MAX_TOKENS
from events.duel.evolve import owned_colour
from events.duel.state import DuelState, PlayerState

Phase = Literal[
    "main", "replenish", "take_bonus_token", "steal_token", "choose_royal", "discard_tokens"
]

_CARDS = duel_cards()
_COST = {card_id: tuple(card.cost) for card_id, card in _CARDS.items()}


def phase(state: DuelState) -> Phase:
    """What the current turn waits for (meaningful while the game is live).

    ``main``: optional actions, then a mandatory one; ``replenish``: no mandatory action
    is possible, so the board must be replenished first; then one phase per choice an
    ability leaves, and ``discard_tokens`` above 10 tokens.
    """
    player = state.players[state.seat]
    if not state.acted:
        possible = mandatory_possible(state, player, state.board, player.tokens)
        return "main" if possible else "replenish"
    for pending in state.pending:
        if pending != "take_privilege":  # resolved in the same decision, never waited for
            return pending
    if sum(player.tokens) > MAX_TOKENS:
        return "discard_tokens"
    return "main"


def opponent(seat: int) -> int:
    return 1 - seat


def has_bonus_card(player: PlayerState) -> bool:
    """A wild card needs a card with a bonus to go on."""
    return any(owned_colour(player, card_id) is not None for card_id in player.cards)


def affordable(player: PlayerState, card_id: str, tokens: Sequence[int]) -> bool:
    """Can ``player`` holding ``tokens`` pay for ``card_id`` (and place it, if wild)?"""
    if _CARDS[card_id].color == "wild" and not has_bonus_card(player):
        return False
    return bool(paid_for(player, (card_id,), tokens))


def paid_for(player: PlayerState, card_ids: Iterable[str], tokens: Sequence[int]) -> list[str]:
    """The cards among ``card_ids`` whose cost ``player``'s bonuses and ``tokens`` pay
    (gold making up what is short), where a wild card goes left aside. Unrolled over
    the colours, the holdings summed once: listings ask it for every card."""
    bonuses = player.bonuses
    white = bonuses[0] + tokens[0]
    blue = bonuses[1] + tokens[1]
    green = bonuses[2] + tokens[2]
    red = bonuses[3] + tokens[3]
    black = bonuses[4] + tokens[4]
    pearl = tokens[PEARL_INDEX]  # no bonus is ever a pearl
    gold = tokens[GOLD_INDEX]
    out = []
    for card_id in card_ids:
        w, u, g, r, k, p = _COST[card_id]
        short = (
            (w - white if w > white else 0)
            + (u - blue if u > blue else 0)
            + (g - green if g > green else 0)
            + (r - red if r > red else 0)
            + (k - black if k > black else 0)
            + (p - pearl if p > pearl else 0)
        )
        if short <= gold:
            out.append(card_id)
    return out


def mandatory_possible(
    state: DuelState, player: PlayerState, board: Sequence[str | None], tokens: Sequence[int]
) -> bool:
    """Whether a take, a reserve or a buy is possible with this board and these tokens."""
    gold = False
    for token in board:
        if token == GOLD:
            gold = True
        elif token is not None:
            return True  # a take of one token
    cards_left = any(c is not None for row in state.pyramid for c in row) or any(state.decks)
    if gold and len(player.reserved) < MAX_RESERVED and cards_left:
        return True
    for row in state.pyramid:
        for card_id in row:
            if card_id is not None and affordable(player, card_id, tokens):
                return True
    return any(affordable(player, card_id, tokens) for card_id in player.reserved)


def privileges_leave_an_action(state: DuelState, player: PlayerState, taken: Sequence[int]) -> bool:
    """After taking the tokens at cells ``taken`` with privileges, is a mandatory action
    still reachable (now, or after replenishing the board)?"""
    board = list(state.board)
    tokens = list(player.tokens)
    for i in taken:
        token = board[i]
        if token is not None:
            tokens[GEM_INDEX[token]] += 1
        board[i] = None
    if mandatory_possible(state, player, board, tokens):
        return True
    if not any(state.bag):
        return False
    refilled: list[str] = [t for t in board if t is not None]
    refilled += [name for name, n in zip(DUEL_TOKENS, state.bag, strict=True) for _ in range(n)]
    return mandatory_possible(state, player, refilled, tokens)
