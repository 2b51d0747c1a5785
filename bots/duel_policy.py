"""Duel MCTS's knowledge, read straight from a (determinized) ``DuelState``: the greedy
heuristic's scores for the engine's actions (the tree's widening order and the
rollouts' moves), and a static evaluation of a position for the searches cut off
before the game's end.

The scores are Duel greedy's (``duel_greedy.Scorer``) on the table the mover sees in
the determinization, so a simulated player plays as greedy does. Below the root the
search leaves out the actions greedy itself hardly ever plays: privileges (their
thousands of cell sets) and a replenish that is not forced.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Final

from bots import duel_greedy
from bots.duel_table import CARDS as _CARDS
from bots.duel_table import GEM_OF, DuelSeat, DuelTable, shortfall
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
from events.duel.checks import phase
from events.duel.constants import COLOUR_PRESTIGE_TO_WIN, CROWNS_TO_WIN, PRESTIGE_TO_WIN
from events.duel.legal import legal_actions
from events.duel.state import DuelState, PlayerState

EPSILON: Final = 0.1  # a rollout's chance to play a random action of those considered


def seat_of(player: PlayerState) -> DuelSeat:
    """A player of a determinized state as the duel bots' table holds one."""
    return DuelSeat(
        seat=player.seat,
        tokens=list(player.tokens),
        bonuses=list(player.bonuses),
        colour_points=list(player.colour_points),
        points=player.points,
        crowns=player.crowns,
        privileges=player.privileges,
        cards=list(player.cards),
        wilds=dict(player.wilds),
        reserved=list(player.reserved),
        reserved_count=len(player.reserved),
    )


def table_of(state: DuelState) -> DuelTable:
    """The table the seat to move sees in a determinized state (its guesses included)."""
    return DuelTable(
        me=state.seat,
        phase=phase(state),
        board=list(state.board),
        bag=list(state.bag),
        pyramid=[c for row in state.pyramid for c in row if c is not None],
        decks=[len(deck) for deck in state.decks],
        royals=list(state.royals),
        privileges=state.privileges,
        players=[seat_of(p) for p in state.players],
    )


def considered(state: DuelState) -> list[DuelAction]:
    """The mover's legal actions the search plays below the root: no privileges, no
    replenish unless it is forced."""
    actions = legal_actions(state, state.seat)
    if len(actions) == 1:
        return actions
    return [a for a in actions if not isinstance(a, (UsePrivileges, Replenish))]


def scores(state: DuelState, actions: Sequence[DuelAction]) -> list[float]:
    """Duel greedy's score of each action for the seat to move."""
    scorer = duel_greedy.Scorer(table_of(state))
    me = scorer.me
    out: list[float] = []
    reserves: dict[object, float] = {}  # the gold cell makes no difference to a reserve
    for action in actions:
        match action:
            case Reserve(card=card, level=level):
                key = card or level
                if key not in reserves:
                    reserves[key] = scorer.reserve(card)
                out.append(reserves[key])
            case TakeTokens(cells=cells):
                out.append(scorer.take(cells))
            case Buy(card=card, wild_on=wild_on):
                out.append(scorer.buy(card, wild_on))
            case DiscardTokens(tokens=tokens):
                out.append(duel_greedy.keep_score(scorer, {str(k): n for k, n in tokens.items()}))
            case StealToken(color=color):
                out.append(duel_greedy.steal_score(scorer, color))
            case ChooseRoyal(royal=royal):
                out.append(
                    scorer.judge.royal_gain(me, royal, me.points, me.crowns, me.colour_points)
                )
            case TakeBonusToken():
                out.append(0.0)  # every cell listed holds the same colour
            case _:
                out.append(-1e9)  # privileges, a voluntary replenish: never below the root
    return out


def ranked(state: DuelState) -> list[DuelAction]:
    """The considered actions, greedy's best first (ties in the engine's order)."""
    actions = considered(state)
    if len(actions) > 1:
        score = scores(state, actions)
        order = sorted(range(len(actions)), key=lambda i: -score[i])
        actions = [actions[i] for i in order]
    return actions


def best(state: DuelState) -> DuelAction:
    """Greedy's move among the considered actions (the first best in the engine's order)."""
    actions = considered(state)
    if len(actions) == 1:
        return actions[0]
    score = scores(state, actions)
    return actions[max(range(len(actions)), key=score.__getitem__)]


def rollout_action(state: DuelState, rng: random.Random) -> DuelAction:
    """Greedy's move, or with ``EPSILON`` chance any considered action."""
    if rng.random() < EPSILON:
        return rng.choice(considered(state))
    return best(state)


# ------------------------------------------------------------------ evaluation

FEATURES: Final = (
    "prestige",  # points / 20
    "crowns",  # crowns / 10
    "colour",  # best colour's prestige / 10
    "closest",  # the closest victory, squared
    "bonuses",
    "tokens",  # gems and pearls held
    "gold",
    "privileges",
    "reserved",
    "affordable",  # cards of the pyramid and own reserve affordable now
    "wins_next",  # one of them would win the game at once
    "wins_now",  # ... and it is this seat's move
    "potential",  # Duel greedy's potential of points, crowns and colours, / 20
    "to_move",
)
# Fitted by bench/duel_eval_fit.py (logistic regression on greedy self-play positions).
WEIGHTS: tuple[float, ...] = (
    -1.0546,
    -1.7177,
    -1.7791,
    -0.7586,
    0.2367,
    0.0161,
    0.0118,
    0.1932,
    -0.1436,
    0.1037,
    0.8225,
    2.4143,
    4.0914,
    0.0933,
)


def features(state: DuelState, player: PlayerState) -> tuple[float, ...]:
    """What a seat's position promises, as numbers (see FEATURES)."""
    prestige = player.points / PRESTIGE_TO_WIN
    crowns = player.crowns / CROWNS_TO_WIN
    colour = max(player.colour_points) / COLOUR_PRESTIGE_TO_WIN
    closest = max(prestige, crowns, colour)
    tokens = player.tokens
    bonuses = player.bonuses
    held = list(tokens)
    affordable = 0
    wins_next = 0.0
    for card_id in (*(c for row in state.pyramid for c in row if c is not None), *player.reserved):
        if shortfall(card_id, bonuses, held) == 0:
            affordable += 1
            if not wins_next and _wins_with(player, card_id):
                wins_next = 1.0
    gems = sum(tokens) - tokens[5]
    return (
        prestige,
        crowns,
        colour,
        closest * closest,
        float(sum(bonuses)),
        float(gems),
        float(tokens[5]),
        float(player.privileges),
        float(len(player.reserved)),
        float(affordable),
        wins_next,
        wins_next if state.seat == player.seat else 0.0,
        duel_greedy.potential(player.points, player.crowns, player.colour_points) / 20,
        1.0 if state.seat == player.seat else 0.0,
    )


def _wins_with(player: PlayerState, card_id: str) -> bool:
    """Whether owning ``card_id`` would meet a victory (a wild card on its best colour;
    a royal it would bring is left out)."""
    card = _CARDS[card_id]
    colour_points = player.colour_points
    if card.color in GEM_OF:
        colour_points = list(colour_points)
        colour_points[GEM_OF[card.color]] += card.points
    elif card.color == "wild" and card.points and any(player.bonuses):
        colour_points = list(colour_points)
        best = max(range(5), key=lambda i: (player.bonuses[i] > 0, colour_points[i]))
        colour_points[best] += card.points
    return duel_greedy.wins(player.points + card.points, player.crowns + card.crowns, colour_points)


def evaluate(state: DuelState) -> list[float]:
    """Each seat's chance of winning (sums to 1): the result if the game ended, else a
    logistic model over ``features`` (WEIGHTS)."""
    result = state.result
    if result is not None:
        return [1.0 if p.seat in result.winners else 0.0 for p in state.players]
    a, b = (
        sum(w * f for w, f in zip(WEIGHTS, features(state, p), strict=True)) for p in state.players
    )
    z = a - b
    p0 = 1.0 / (1.0 + math.exp(-z)) if z > -60 else 0.0
    return [p0, 1.0 - p0]
