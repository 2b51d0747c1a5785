"""MCTS's cheap knowledge, read straight from a (determinized) state: an ordering of
the legal actions for rollouts and tree widening, and a static evaluation of a
position for the searches cut off before the game's end.

Both are deliberately simpler than the greedy bot's heuristic: a search plays tens
of thousands of simulated moves per decision, and these run in microseconds.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from itertools import combinations
from typing import Final

from bots.greedy import COLOR, COST, POINTS, REQUIRES, turns_to_afford
from events.classic.actions import (
    Buy,
    ChooseNoble,
    ClassicAction,
    Reserve,
    ReturnTokens,
    TakeThree,
    TakeTwo,
)
from events.classic.state import ClassicState, PlayerState
from events.colors import GEM_INDEX, GEMS, Token

WIN_POINTS = 15
_CARD: Final = {card_id: (COST[card_id], POINTS[card_id], COLOR[card_id]) for card_id in COST}


def _target(state: ClassicState, player: PlayerState) -> tuple[int, ...]:
    """Per colour, the tokens still missing for the card best worth planning toward."""
    return _survey(state, player, _pulls(state, player.bonuses))[1]


def _survey(
    state: ClassicState, player: PlayerState, pulls: list[float]
) -> tuple[str | None, tuple[int, ...]]:
    """One pass over the cards within reach: the best card to buy now (or None), and
    per colour the tokens missing for the best card to plan toward."""
    bonuses, tokens, bank = player.bonuses, player.tokens, state.bank
    gold = tokens[5]
    best_buy: str | None = None
    best_buy_score = -1e9
    best_plan = -1.0
    plan_cost: tuple[int, ...] = (0, 0, 0, 0, 0)
    candidates = [c for row in state.board for c in row if c is not None]
    candidates.extend(r.card for r in player.reserved)
    for card_id in candidates:
        cost, points, colour = _CARD[card_id]
        short = worst = scarce = 0
        for i in range(5):
            d = cost[i] - bonuses[i] - tokens[i]
            if d > 0:
                short += d
                if d > worst:
                    worst = d
                if d > bank[i]:
                    scarce += d - bank[i]
        if short <= gold:
            score = 2.0 * points + pulls[colour] - 0.5 * short
            if player.points + points >= WIN_POINTS:
                score += 20.0
            if score > best_buy_score:
                best_buy, best_buy_score = card_id, score
            continue
        turns = max((short - gold + 2) // 3, (worst - gold + 1) // 2) + scarce
        value = (points + 1.0 + pulls[colour]) / (1 + turns)
        if value > best_plan:
            best_plan = value
            plan_cost = cost
    missing = tuple(
        plan_cost[i] - bonuses[i] - tokens[i] if plan_cost[i] > bonuses[i] + tokens[i] else 0
        for i in range(5)
    )
    return best_buy, missing


def _pulls(state: ClassicState, bonuses: Sequence[int]) -> list[float]:
    """Per colour, what one more bonus is worth toward the nobles on the table."""
    pulls = [0.0] * 5
    for noble_id in state.nobles:
        req = REQUIRES[noble_id]
        left = 0
        for i in range(5):
            if req[i] > bonuses[i]:
                left += req[i] - bonuses[i]
        if left == 0:
            continue
        pull = 3.0 if left == 1 else 1.5 / left
        for i in range(5):
            if req[i] > bonuses[i]:
                pulls[i] += pull
    return pulls


def scores(state: ClassicState, actions: Sequence[ClassicAction]) -> list[float]:
    """A quick preference for each action of the seat to move (higher first)."""
    player = state.players[state.seat]
    bonuses, tokens = player.bonuses, player.tokens
    missing: tuple[int, ...] | None = None
    out = []
    for action in actions:
        if isinstance(action, Buy):
            cost = COST[action.card]
            gold = sum(max(0, cost[i] - bonuses[i] - tokens[i]) for i in range(5))
            points = POINTS[action.card]
            pull = _pulls(state, bonuses)[COLOR[action.card]]
            s = 10.0 + 2.0 * points + pull - 0.5 * gold
            if player.points + points >= WIN_POINTS:
                s += 20.0
            out.append(s)
        elif isinstance(action, TakeThree | TakeTwo):
            if missing is None:
                missing = _target(state, player)
            held = sum(tokens)
            if isinstance(action, TakeTwo):
                i = GEM_INDEX[action.color]
                useful = min(2, missing[i])
                count = 2
            else:
                useful = sum(1 for c in action.colors if missing[GEM_INDEX[c]] > 0)
                count = len(action.colors)
            out.append(useful + 0.1 * count - 0.6 * max(0, held + count - 10))
        elif isinstance(action, ReturnTokens):
            if missing is None:
                missing = _target(state, player)
            s = 0.0
            for name, n in action.tokens.items():
                i = GEM_INDEX[name]
                if i == 5:
                    s -= 2.0 * n
                else:
                    spare = tokens[i] - missing[i]  # held beyond what the target needs
                    s -= n - min(n, max(spare, 0)) * 0.9
            out.append(s)
        elif isinstance(action, Reserve):
            out.append(-1.5 if action.card is not None else -2.5)
        elif isinstance(action, ChooseNoble):
            out.append(0.0)
        else:
            out.append(-5.0)  # pass
    return out


def evaluate(state: ClassicState) -> list[float]:
    """Each seat's chance of winning (sums to 1): the result if the game ended, else
    a logistic model over ``features`` fitted on self-play games (WEIGHTS)."""
    result = state.result
    if result is not None:
        share = 1.0 / len(result.winners)
        return [share if p.seat in result.winners else 0.0 for p in state.players]
    logits = [
        sum(w * f for w, f in zip(WEIGHTS, features(state, p), strict=True)) for p in state.players
    ]
    top = max(logits)
    weights = [math.exp(x - top) for x in logits]
    total = sum(weights)
    return [w / total for w in weights]


FEATURES: Final = (
    "points",
    "points_late",
    "bonuses",
    "bonuses_late",
    "nobles",
    "gems",
    "gold",
    "reserved",
    "affordable",
    "potential",
    "to_move",
)
# Fitted by bench/bot_eval_fit.py (logistic regression on greedy self-play positions).
WEIGHTS: tuple[float, ...] = (
    0.3707,
    0.2885,
    0.9579,
    -0.9812,
    1.2893,
    0.1702,
    0.2073,
    0.1723,
    -0.0658,
    0.4332,
    0.2958,
)


def features(state: ClassicState, player: PlayerState) -> tuple[float, ...]:
    """What a seat's position promises, as numbers (see FEATURES)."""
    lead = max(p.points for p in state.players)
    late = min(1.0, lead / WIN_POINTS)
    bonuses, tokens, bank = player.bonuses, player.tokens, state.bank
    nobles = 0.0
    for noble_id in state.nobles:
        req = REQUIRES[noble_id]
        left = sum(req[i] - bonuses[i] for i in range(5) if req[i] > bonuses[i])
        done = 1.0 - left / sum(req)
        nobles += done * done
    affordable = 0
    potential = 0.0
    candidates = [c for row in state.board for c in row if c is not None]
    candidates.extend(r.card for r in player.reserved)
    for card_id in candidates:
        turns = turns_to_afford(COST[card_id], bonuses, tokens, bank)
        if turns == 0:
            affordable += 1
        value = POINTS[card_id] / (1.0 + turns)
        if value > potential:
            potential = value
    points = float(player.points)
    total_bonuses = float(sum(bonuses))
    return (
        points,
        points * late,
        total_bonuses,
        total_bonuses * late,
        nobles,
        float(sum(tokens[:5])),
        float(tokens[5]),
        float(len(player.reserved)),
        float(min(affordable, 3)),
        potential,
        1.0 if state.seat == player.seat else 0.0,
    )


# ---------------------------------------------------------------- rollouts

_TAKE_THREE = {
    combo: TakeThree(tuple(GEMS[i] for i in combo))
    for size in (1, 2, 3)
    for combo in combinations(range(5), size)
}
_TAKE_TWO = [TakeTwo(g) for g in GEMS]
_TOKEN_NAMES: Final[tuple[Token, ...]] = ("white", "blue", "green", "red", "black", "gold")
_BUY = {card_id: Buy(card_id) for card_id in COST}


def rollout_action(state: ClassicState, rng: random.Random) -> ClassicAction | None:
    """The cheap policy's move for the seat to move, built without listing every
    legal action; None when it has no opinion (the caller then ranks the list)."""
    player = state.players[state.seat]
    if not state.acted:
        return _main_move(state, player, rng)
    held = sum(player.tokens)
    if held > 10:
        return _give_back(state, player, held - 10)
    return None  # a choice between nobles: rare


def _main_move(
    state: ClassicState, player: PlayerState, rng: random.Random
) -> ClassicAction | None:
    bank = state.bank
    best, missing = _survey(state, player, _pulls(state, player.bonuses))
    if best is not None:
        return _BUY[best]
    available = [i for i in range(5) if bank[i] > 0]
    if not available:
        return None  # no token to take: reserve or pass, from the list
    wanted = [i for i in available if missing[i] > 0]
    if len(wanted) == 1 and missing[wanted[0]] >= 2 and bank[wanted[0]] >= 4:
        return _TAKE_TWO[wanted[0]]
    if len(available) < 3:
        return _TAKE_THREE[tuple(available)]
    ranked = sorted(available, key=lambda i: (-missing[i], rng.random()))
    return _TAKE_THREE[tuple(sorted(ranked[:3]))]


def _give_back(state: ClassicState, player: PlayerState, count: int) -> ClassicAction:
    """Return the tokens held beyond what the target needs, gold last."""
    missing = _target(state, player)
    tokens = list(player.tokens)
    returned: dict[Token, int] = {}
    for _ in range(count):
        spare = -1e9
        pick = 5
        for i in range(5):
            if tokens[i] and tokens[i] - missing[i] > spare:
                spare, pick = tokens[i] - missing[i], i
        tokens[pick] -= 1
        name = _TOKEN_NAMES[pick]
        returned[name] = returned.get(name, 0) + 1
    return ReturnTokens(returned)
