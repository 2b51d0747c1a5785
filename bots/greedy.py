"""The greedy bot: scores every legal action with a Splendor heuristic, plays the best.

The heuristic, in the words a player would use:
- a card is worth its points, plus progress toward the nobles on the table (a card
  that completes a noble is worth its 3 points more), plus how much its bonus lowers
  the price of the cards it could buy next (worth less as the game nears its end);
- it plans toward target cards: the ones with the best worth per turn still needed to
  afford them; taking tokens is worth the share of the targets' shortfall it removes;
- it buys when a card's worth beats that progress; it reserves to stop an opponent
  from buying a card that is worth much to them (or wins them the game) on their next
  turn, or to secure a target and a gold when gold is what it lacks;
- it returns the tokens its targets need least and welcomes the noble an opponent is
  closest to (all nobles are worth 3, so the choice is a denial).

It sees nothing but the seat's view: ``choose`` reads a PROTOCOL.md view. The same
scoring, read from a simulated state, is the rollout policy of the MCTS bot.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from bots.moves import moves
from bots.table import SeatInfo, Table, from_view, parse_legal
from events.catalog import classic_cards, classic_nobles
from events.classic.actions import (
    Buy,
    ChooseNoble,
    ClassicAction,
    Reserve,
    ReturnTokens,
    TakeThree,
    TakeTwo,
)
from events.colors import GEM_INDEX

_CARDS = classic_cards()
_NOBLES = classic_nobles()
COST: Final = {c.id: c.cost for c in _CARDS.values()}
COLOR: Final = {c.id: c.color for c in _CARDS.values()}
POINTS: Final = {c.id: c.points for c in _CARDS.values()}
REQUIRES: Final = {n.id: n.requires for n in _NOBLES.values()}

WIN_POINTS: Final = 15
TARGETS: Final = 3  # cards planned toward at once
TARGET_WEIGHTS: Final = (1.0, 0.5, 0.25)
NOBLE_PROGRESS: Final = 0.5  # share of a noble's 3 points a card earns per step toward it
BUY_TEMPO: Final = 0.6  # a bought card is a permanent discount and a turn well spent
GOLD_SPENT: Final = 0.25  # gold spent on a card is flexibility lost
TOKEN_WORTH: Final = 0.03  # a token no target needs still has some use
OVERFLOW: Final = 0.3  # a token that must be given back at once is a turn's share wasted
BLOCK: Final = 0.6  # share of an opponent's gain that denying a card is worth
RESERVE_COST: Final = 2.0  # a reserve spends a turn and a slot
RESERVE_SLOT: Final = 0.4  # more per card already reserved


def shortfall(cost: Sequence[int], bonuses: Sequence[int], tokens: Sequence[int]) -> int:
    """Tokens still missing to buy a card, gold counted as any colour."""
    s = 0
    for i in range(5):
        d = cost[i] - bonuses[i] - tokens[i]
        if d > 0:
            s += d
    s -= tokens[5]
    return s if s > 0 else 0


def turns_to_afford(
    cost: Sequence[int], bonuses: Sequence[int], tokens: Sequence[int], bank: Sequence[int]
) -> int:
    """A quick estimate of the turns of taking tokens before a card is affordable:
    three tokens a turn, two of one colour at most, more when the bank lacks them."""
    s = 0
    worst = 0
    scarce = 0
    for i in range(5):
        d = cost[i] - bonuses[i] - tokens[i]
        if d > 0:
            s += d
            if d > worst:
                worst = d
            if d > bank[i]:
                scarce += d - bank[i]
    gold = tokens[5]
    s -= gold
    if s <= 0:
        return 0
    return max((s + 2) // 3, (worst - gold + 1) // 2) + scarce


class Judge:
    """The heuristic's view of one table: card worths and targets, computed once."""

    def __init__(self, table: Table) -> None:
        self.table = table
        lead = max(p.points for p in table.players)
        self.stage = min(1.0, lead / WIN_POINTS)  # 0 at the start, 1 in the final round
        self.engine_weight = 0.15 + 0.6 * (1.0 - self.stage)
        self._use: dict[int, list[float]] = {}

    # ---------------------------------------------------------------- worth of a card

    def colour_use(self, seat: SeatInfo) -> list[float]:
        """How much a bonus of each colour would lower this seat's coming purchases."""
        use = self._use.get(seat.seat)
        if use is None:
            use = [0.0] * 5
            bonuses, tokens = seat.bonuses, seat.tokens
            for card_id in (*self.table.board, *seat.reserved):
                cost = COST[card_id]
                weight = (POINTS[card_id] + 1.0) / (2.0 + shortfall(cost, bonuses, tokens))
                for i in range(5):
                    if cost[i] > bonuses[i]:
                        use[i] += weight
            use = [min(u, 3.0) / 3.0 for u in use]
            self._use[seat.seat] = use
        return use

    def noble_gain(self, seat: SeatInfo, colour: int) -> float:
        """What one more bonus of ``colour`` is worth toward the nobles on the table."""
        gain = 0.0
        bonuses = seat.bonuses
        for noble_id in self.table.nobles:
            req = REQUIRES[noble_id]
            if req[colour] <= bonuses[colour]:
                continue
            left = 0
            for i in range(5):
                if req[i] > bonuses[i]:
                    left += req[i] - bonuses[i]
            gain += 3.0 if left == 1 else 3.0 * NOBLE_PROGRESS / left
        return gain

    def card_worth(self, seat: SeatInfo, card_id: str) -> float:
        """What owning ``card_id`` is worth to ``seat``, in points."""
        colour = COLOR[card_id]
        points = POINTS[card_id]
        worth = points + self.noble_gain(seat, colour)
        worth += self.engine_weight * (0.5 + 1.5 * self.colour_use(seat)[colour])
        completes = 3 if any(self._completes(seat, n, colour) for n in self.table.nobles) else 0
        if seat.points + points + completes >= WIN_POINTS:
            worth += 5.0  # reaching 15 ends the game in this round
        return worth

    @staticmethod
    def _completes(seat: SeatInfo, noble_id: str, colour: int) -> bool:
        req = REQUIRES[noble_id]
        for i in range(5):
            have = seat.bonuses[i] + (1 if i == colour else 0)
            if have < req[i]:
                return False
        return True

    # ---------------------------------------------------------------- planning

    def targets(self, seat: SeatInfo) -> list[tuple[str, float]]:
        """The best cards to plan toward, with their worth: most worth per turn needed."""
        scored = []
        for card_id in (*self.table.board, *seat.reserved):
            turns = turns_to_afford(COST[card_id], seat.bonuses, seat.tokens, self.table.bank)
            worth = self.card_worth(seat, card_id)
            scored.append((worth / (1.0 + turns), worth, card_id))
        scored.sort(reverse=True)
        return [(card_id, worth) for _, worth, card_id in scored[:TARGETS]]

    def progress(
        self, seat: SeatInfo, targets: list[tuple[str, float]], tokens: Sequence[int]
    ) -> float:
        """How close ``tokens`` bring the seat to its targets (higher is closer)."""
        total = 0.0
        for k, (card_id, worth) in enumerate(targets):
            cost = COST[card_id]
            before = shortfall(cost, seat.bonuses, seat.tokens)
            after = shortfall(cost, seat.bonuses, tokens)
            total += TARGET_WEIGHTS[k] * worth * (before - after) / max(before, 1)
        return total

    # ---------------------------------------------------------------- actions

    def scores(self, actions: Sequence[ClassicAction]) -> list[float]:
        me = self.table.mine
        targets = self.targets(me)
        return [self.score(a, me, targets) for a in actions]

    def score(self, action: ClassicAction, me: SeatInfo, targets: list[tuple[str, float]]) -> float:
        if isinstance(action, TakeThree | TakeTwo):
            taken = [0] * 6
            if isinstance(action, TakeTwo):
                taken[GEM_INDEX[action.color]] = 2
            else:
                for c in action.colors:
                    taken[GEM_INDEX[c]] = 1
            tokens = [a + b for a, b in zip(me.tokens, taken, strict=True)]
            held = sum(tokens)
            overflow = max(0, held - 10)
            return (
                0.5 * self.progress(me, targets, tokens)
                + TOKEN_WORTH * sum(taken)
                - OVERFLOW * overflow
            )
        if isinstance(action, Buy):
            return self._buy_score(me, action.card)
        if isinstance(action, Reserve):
            return self._reserve_score(me, action, targets)
        if isinstance(action, ReturnTokens):
            tokens = list(me.tokens)
            for name, n in action.tokens.items():
                tokens[GEM_INDEX[name]] -= n
            return self.progress(me, targets, tokens) + 0.5 * tokens[5]
        if isinstance(action, ChooseNoble):
            return self._noble_score(action.noble)
        return 0.0  # pass: only ever the one action

    def _buy_score(self, me: SeatInfo, card_id: str) -> float:
        cost = COST[card_id]
        gold = 0
        for i in range(5):
            d = cost[i] - me.bonuses[i] - me.tokens[i]
            if d > 0:
                gold += d
        return self.card_worth(me, card_id) + BUY_TEMPO - GOLD_SPENT * gold

    def _reserve_score(
        self, me: SeatInfo, action: Reserve, targets: list[tuple[str, float]]
    ) -> float:
        score = -RESERVE_COST - RESERVE_SLOT * (len(me.reserved) + me.hidden_reserved)
        if self.table.bank[5] > 0 and sum(me.tokens) < 10:
            tokens = list(me.tokens)
            tokens[5] += 1
            score += 0.5 * self.progress(me, targets, tokens) + 0.1
        card_id = action.card
        if card_id is None:
            return score - 0.2  # blind: a card of unknown use
        # Securing one of my own targets that I can't buy yet.
        for k, (target, worth) in enumerate(targets):
            if target == card_id:
                score += 0.3 * TARGET_WEIGHTS[k] * worth
        # Blocking: an opponent who can buy it on their next turn.
        block = 0.0
        for seat in self.table.players:
            if seat.seat == me.seat:
                continue
            if shortfall(COST[card_id], seat.bonuses, seat.tokens) == 0:
                block = max(block, BLOCK * self.card_worth(seat, card_id))
        return score + block

    def _noble_score(self, noble_id: str) -> float:
        """Every noble is worth 3: take the one the opponents are closest to."""
        req = REQUIRES[noble_id]
        denial = 0.0
        for seat in self.table.players:
            if seat.seat == self.table.me:
                continue
            left = sum(max(0, req[i] - seat.bonuses[i]) for i in range(5))
            denial += 1.0 / (1.0 + left)
        return 3.0 + denial


def best(table: Table, actions: Sequence[ClassicAction], rng: random.Random) -> int:
    """The index of the best-scored action (ties broken at random)."""
    if len(actions) == 1:
        return 0
    scores = Judge(table).scores(actions)
    top = max(scores)
    ties = [i for i, s in enumerate(scores) if s >= top - 1e-9]
    return ties[0] if len(ties) == 1 else rng.choice(ties)


def choose(view: dict[str, Any], rng: random.Random | None = None) -> dict[str, Any]:
    """One of ``view["legal"]``: the action the heuristic scores best."""
    legal = moves(view)
    if not legal:
        raise ValueError("it is not this seat's move: the view lists no legal action")
    rng = rng or random.Random()
    action: dict[str, Any] = legal[best(from_view(view), parse_legal(legal), rng)]
    return action
