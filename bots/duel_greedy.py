"""The Duel greedy bot: scores every legal action with a Splendor Duel heuristic and
plays the best (ties broken by the generator it is given, so a seed fixes its play).

The heuristic, in the words a player would use:
- a card is worth what it brings toward the three victories (20 prestige, 10 crowns,
  10 prestige in one colour): a convex ``potential`` of points, crowns and the
  prestige of each colour, so a step near a goal counts more than one far from it;
  plus a royal when it crosses 3 or 6 crowns, its ability (extra turn, steal, a
  privilege, a token), and how much its bonus lowers the price of the cards in sight
  (less as the game nears its end). A card that wins at once is worth ``WIN``;
- it plans toward target cards (the best worth per turn still needed to afford
  them); a take is worth the share of the targets' shortfall it removes, less a
  privilege given to the opponent (3 tokens of one colour, both pearls) and any
  token over the 10 it could keep;
- a buy is worth the card, a turn's tempo, and what its bonus and payment change in
  the progress toward the other targets; buying or reserving a card the opponent
  could buy next turn is worth a share of their gain (all of it if it wins them
  the game); a reserve is worth its gold and the card it secures;
- privileges are spent when they make a purchase possible this very turn that beats
  the best plain action by more than the privileges are worth; the board is never
  replenished by choice (it hands the opponent a privilege), only when forced;
- it discards the tokens its targets need least, steals what helps it and costs
  the opponent most, picks the royal worth most to it, and puts a wild card on the
  colour where it helps most (mostly its strongest colour, toward the colour win).

It sees nothing but its seat's view (``bots.duel_table.read``) and the catalog.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from bots.duel_table import (
    CARDS,
    COST,
    GEM_OF,
    GOLD,
    PEARL,
    TOKEN_OF,
    DuelSeat,
    DuelTable,
    by_kind,
    cell_index,
    read,
    shortfall,
)
from bots.moves import moves
from events.catalog import duel_royals
from events.duel.constants import (
    COLOUR_PRESTIGE_TO_WIN,
    CROWNS_TO_WIN,
    MAX_TOKENS,
    PRESTIGE_TO_WIN,
    PRIVILEGES,
    ROYAL_THRESHOLDS,
)

ROYALS: Final = duel_royals()

WIN: Final = 1000.0  # a card or royal that wins the game at once
TARGET_CAP: Final = 20.0  # a target's worth as counted in the token plan (WIN would swamp it)
TARGETS: Final = 3  # cards planned toward at once
TARGET_WEIGHTS: Final = (1.0, 0.5, 0.25)
ABILITY: Final = {  # point-equivalents of an ability that has something to act on
    "extra_turn": 1.5,
    "take_token": 0.5,
    "take_privilege": 0.6,
    "steal_token": 0.8,
}
BUY_TEMPO: Final = 0.6  # a bought card is permanent; a turn well spent
TOKEN_WORTH: Final = 0.05  # a token no target needs still has some use
KEEP: Final = (0.1, 0.1, 0.1, 0.1, 0.1, 0.4, 0.3)  # per token kind kept on a discard
PRIVILEGE: Final = 0.7  # a privilege held (spent or handed to the opponent)
OVERFLOW: Final = 0.3  # a token over 10 goes straight back to the bag
RESERVE_COST: Final = 1.0  # a reserve spends a turn's take on one gold
RESERVE_SLOT: Final = 0.4  # more per card already reserved
SECURE: Final = 0.15  # share of a target's worth that keeping it from the opponent earns
BLIND: Final = 0.3  # an unknown card from a deck
BLOCK: Final = 0.6  # share of the opponent's gain that denying a card is worth
STEAL_DENIAL: Final = 1.0  # weight of the opponent's loss when stealing


def potential(points: int, crowns: int, colour_points: Sequence[int]) -> float:
    """Progress toward the three victories in point-equivalents, convex in each so the
    closer goal pulls harder."""
    value = points + points * points / 40 + 0.8 * crowns + crowns * crowns / 25
    for cp in colour_points:
        value += cp * cp / 10
    return value


def wins(points: int, crowns: int, colour_points: Sequence[int]) -> bool:
    return (
        points >= PRESTIGE_TO_WIN
        or crowns >= CROWNS_TO_WIN
        or max(colour_points) >= COLOUR_PRESTIGE_TO_WIN
    )


def payment(card_id: str, bonuses: Sequence[int], tokens: Sequence[int]) -> list[int]:
    """The engine's default payment: gems and pearls first, gold for the shortfall."""
    cost = COST[card_id]
    paid = [0] * 7
    gold = 0
    for i in (0, 1, 2, 3, 4, PEARL):
        need = cost[i] - (bonuses[i] if i < 5 else 0)
        if need <= 0:
            continue
        paid[i] = min(need, tokens[i])
        gold += need - paid[i]
    paid[GOLD] = gold
    return paid


class Judge:
    """The heuristic's view of one table: worths and targets, computed once."""

    def __init__(self, table: DuelTable) -> None:
        self.table = table
        self.loose = table.loose()
        stage = 0.0
        for p in table.players:
            stage = max(
                stage,
                p.points / PRESTIGE_TO_WIN,
                p.crowns / CROWNS_TO_WIN,
                max(p.colour_points) / COLOUR_PRESTIGE_TO_WIN,
            )
        self.engine = 0.1 + 0.8 * (1.0 - min(stage, 1.0))
        self._use: dict[int, list[float]] = {}
        self._targets: dict[int, list[tuple[str, float]]] = {}
        self._best: dict[tuple[int, str], float] = {}
        self._potential: dict[int, float] = {}  # each seat's potential as it stands

    # ----------------------------------------------------------------- what a card is worth

    def colour_use(self, seat: DuelSeat) -> list[float]:
        """How much a bonus of each colour would lower this seat's coming purchases (0-1)."""
        use = self._use.get(seat.seat)
        if use is None:
            raw = [0.0] * 5
            for card_id in (*self.table.pyramid, *seat.reserved):
                card = CARDS[card_id]
                cost = COST[card_id]
                weight = (card.points + card.crowns + 1.0) / (
                    2.0 + shortfall(card_id, seat.bonuses, seat.tokens)
                )
                for i in range(5):
                    if cost[i] > seat.bonuses[i]:
                        raw[i] += weight
            use = [min(u, 3.0) / 3.0 for u in raw]
            self._use[seat.seat] = use
        return use

    def ability(self, seat: DuelSeat, ability: str, colour: int | None) -> float:
        """What an ability is worth to ``seat`` now, if it has anything to act on."""
        if ability == "take_token":
            name = None if colour is None else ("white", "blue", "green", "red", "black")[colour]
            return ABILITY[ability] if name in self.table.board else 0.0
        if ability == "take_privilege":
            return ABILITY[ability] if seat.privileges < PRIVILEGES else 0.0
        if ability == "steal_token":
            victim = self.table.players[1 - seat.seat]
            has = any(n for i, n in enumerate(victim.tokens) if i != GOLD)
            return ABILITY[ability] if has else 0.0
        return ABILITY.get(ability, 0.0)

    def royal_gain(
        self, seat: DuelSeat, royal_id: str, points: int, crowns: int, colour_points: Sequence[int]
    ) -> float:
        """A royal taken by ``seat`` once it holds these points, crowns, colour prestige."""
        royal = ROYALS[royal_id]
        if wins(points + royal.points, crowns, colour_points):
            return WIN
        gain = potential(points + royal.points, crowns, colour_points) - potential(
            points, crowns, colour_points
        )
        return gain + self.ability(seat, royal.ability, None)

    def card_gain(self, seat: DuelSeat, card_id: str, colour: int | None) -> float:
        """What owning ``card_id`` (counted as ``colour``) brings ``seat``."""
        card = CARDS[card_id]
        points = seat.points + card.points
        crowns = seat.crowns + card.crowns
        colour_points = list(seat.colour_points)
        if colour is not None:
            colour_points[colour] += card.points
        if wins(points, crowns, colour_points):
            return WIN
        base = self._potential.get(seat.seat)
        if base is None:
            base = self._potential[seat.seat] = potential(
                seat.points, seat.crowns, seat.colour_points
            )
        gain = potential(points, crowns, colour_points) - base
        gain += self.ability(seat, card.ability, colour)
        if any(seat.crowns < t <= crowns for t in ROYAL_THRESHOLDS) and self.table.royals:
            gain += max(
                self.royal_gain(seat, r, points, crowns, colour_points) for r in self.table.royals
            )
        if colour is not None and card.bonus:
            gain += card.bonus * self.colour_use(seat)[colour] * self.engine
        return min(gain, WIN)

    def colour_options(self, seat: DuelSeat, card_id: str) -> list[int | None]:
        """The colours ``card_id`` may count as for ``seat`` (none for a wild card it
        cannot place yet)."""
        color = CARDS[card_id].color
        if color == "wild":
            placed: list[int | None] = []
            placed.extend(sorted(seat.bonus_colours()))
            return placed
        return [GEM_OF.get(color)]

    def best_gain(self, seat: DuelSeat, card_id: str) -> float:
        """The card's worth to ``seat`` on its best colour; -1 if it can't be placed."""
        key = (seat.seat, card_id)
        gain = self._best.get(key)
        if gain is None:
            options = self.colour_options(seat, card_id)
            gain = max((self.card_gain(seat, card_id, c) for c in options), default=-1.0)
            self._best[key] = gain
        return gain

    # ------------------------------------------------------------------------- the plan

    def turns_to_afford(self, card_id: str, seat: DuelSeat) -> float:
        """A rough count of taking turns before ``card_id`` is affordable: about 2.5
        useful tokens a turn, and more when the board and bag lack a colour."""
        cost = COST[card_id]
        short = 0
        scarce = 0
        for i in (0, 1, 2, 3, 4, PEARL):
            d = cost[i] - (seat.bonuses[i] if i < 5 else 0) - seat.tokens[i]
            if d > 0:
                short += d
                if d > self.loose[i]:
                    scarce += d - self.loose[i]
        short -= seat.tokens[GOLD]
        if short <= 0:
            return 0.0
        return short / 2.5 + 2.0 * scarce

    def targets(self, seat: DuelSeat) -> list[tuple[str, float]]:
        """The cards ``seat`` plans toward, best worth per turn first, with their worth."""
        cached = self._targets.get(seat.seat)
        if cached is not None:
            return cached
        ranked = []
        for card_id in (*self.table.pyramid, *seat.reserved):
            gain = self.best_gain(seat, card_id)
            if gain <= 0:
                continue
            gain = min(gain, TARGET_CAP)
            ranked.append((gain / (1.0 + self.turns_to_afford(card_id, seat)), card_id, gain))
        ranked.sort(key=lambda r: (-r[0], r[1]))
        out = [(card_id, gain) for _, card_id, gain in ranked[:TARGETS]]
        self._targets[seat.seat] = out
        return out

    def progress(
        self,
        targets: Sequence[tuple[str, float]],
        bonuses: Sequence[int],
        tokens: Sequence[int],
        skip: str | None = None,
    ) -> float:
        """How far these tokens and bonuses go toward the targets."""
        total = 0.0
        k = 0
        for card_id, gain in targets:
            if card_id == skip:
                continue
            short = shortfall(card_id, bonuses, tokens)
            total += TARGET_WEIGHTS[k] * gain / (1.0 + short)
            k += 1
        return total

    def threat(self, card_id: str) -> float:
        """What the opponent would gain from ``card_id`` times the chance they buy it
        next turn (tokens in hand, privileges to fill a gap)."""
        other = self.table.other
        short = shortfall(card_id, other.bonuses, other.tokens)
        if short == 0:
            chance = 1.0
        elif short <= other.privileges:
            chance = 0.8
        elif short <= 2:
            chance = 0.2
        else:
            return 0.0
        gain = self.best_gain(other, card_id)
        return chance * gain if gain > 0 else 0.0


class Scorer:
    """Scores the actions of the seat to move."""

    def __init__(self, table: DuelTable) -> None:
        self.table = table
        self.judge = Judge(table)
        self.me = table.mine
        self.plan = self.judge.targets(self.me)
        self.base = self.judge.progress(self.plan, self.me.bonuses, self.me.tokens)

    def overflow(self, tokens: Sequence[int]) -> float:
        return OVERFLOW * max(0, sum(tokens) - MAX_TOKENS)

    def gift(self) -> float:
        """What a privilege handed to the opponent costs: one for them, and one for
        us too when the supply is empty and it comes from our hand."""
        other = self.table.other
        if other.privileges >= PRIVILEGES:
            return 0.0
        if self.table.privileges == 0:
            return 2 * PRIVILEGE
        return PRIVILEGE

    def take(self, cells: Sequence[Sequence[int]]) -> float:
        tokens = list(self.me.tokens)
        names = [self.table.board[cell_index(list(c))] for c in cells]
        for name in names:
            if name is not None:
                tokens[TOKEN_OF[name]] += 1
        score = self.judge.progress(self.plan, self.me.bonuses, tokens) - self.base
        score += TOKEN_WORTH * len(names) - self.overflow(tokens)
        if (len(names) == 3 and len(set(names)) == 1) or names.count("pearl") == 2:
            score -= self.gift()
        return score

    def buy(self, card_id: str, on: str | None, tokens: Sequence[int] | None = None) -> float:
        me = self.me
        held = list(me.tokens if tokens is None else tokens)
        colour = me.colour_of(on) if on is not None else GEM_OF.get(CARDS[card_id].color)
        gain = self.judge.card_gain(me, card_id, colour)
        if gain >= WIN:
            return WIN
        paid = payment(card_id, me.bonuses, held)
        after = [h - p for h, p in zip(held, paid, strict=True)]
        bonuses = list(me.bonuses)
        if colour is not None:
            bonuses[colour] += CARDS[card_id].bonus
        before = self.judge.progress(self.plan, me.bonuses, held, skip=card_id)
        later = self.judge.progress(self.plan, bonuses, after, skip=card_id)
        score = gain + BUY_TEMPO + later - before
        if card_id in self.table.pyramid:
            score += BLOCK * self.judge.threat(card_id)
        return score

    def reserve(self, card_id: str | None) -> float:
        me = self.me
        tokens = list(me.tokens)
        tokens[GOLD] += 1
        plan = self.plan
        if card_id is not None and all(c != card_id for c, _ in plan):
            gain = self.judge.best_gain(me, card_id)
            if gain > 0:
                plan = [*plan, (card_id, min(gain, TARGET_CAP))][:TARGETS]
        score = self.judge.progress(plan, me.bonuses, tokens) - self.base
        score -= RESERVE_COST + RESERVE_SLOT * me.reserved_count + self.overflow(tokens)
        if card_id is None:
            return score + BLIND
        score += BLOCK * self.judge.threat(card_id)
        if any(c == card_id for c, _ in plan):
            score += SECURE * self.judge.best_gain(me, card_id)
        return score

    def main(self, groups: dict[str, list[dict[str, Any]]]) -> list[tuple[float, dict[str, Any]]]:
        """Every mandatory action with its score."""
        scored: list[tuple[float, dict[str, Any]]] = []
        for action in groups.get("take_tokens", []):
            scored.append((self.take(action["cells"]), action))
        for action in groups.get("buy", []):
            scored.append((self.buy(action["card"], action.get("wild_on")), action))
        seen_blind: set[int] = set()
        for action in groups.get("reserve", []):
            card = action.get("card")
            if card is None:
                if action["level"] in seen_blind:
                    continue  # the gold cell makes no difference to a blind reserve
                seen_blind.add(action["level"])
            scored.append((self.reserve(card), action))
        return scored

    def privileges(
        self, options: list[dict[str, Any]], best: float
    ) -> tuple[float, dict[str, Any]] | None:
        """The use of privileges that enables the best purchase this turn, if it beats
        ``best`` (the best plain action) by more than the privileges spent."""
        me = self.me
        found: tuple[float, dict[str, Any]] | None = None
        tried: set[tuple[int, ...]] = set()
        cards = [*self.table.pyramid, *me.reserved]
        for option in options:
            tokens = list(me.tokens)
            for cell in option["cells"]:
                name = self.table.board[cell_index(cell)]
                if name is not None:
                    tokens[TOKEN_OF[name]] += 1
            key = tuple(tokens)
            if key in tried:
                continue
            tried.add(key)
            spent = len(option["cells"]) * PRIVILEGE
            for card_id in cards:
                if shortfall(card_id, me.bonuses, tokens) > 0:
                    continue
                if shortfall(card_id, me.bonuses, me.tokens) == 0:
                    continue  # affordable without them
                for colour in self.judge.colour_options(me, card_id):
                    on = None
                    if CARDS[card_id].color == "wild":
                        on = next(c for c in me.cards if me.colour_of(c) == colour)
                    score = self.buy(card_id, on, tokens) - spent
                    if score > best and (found is None or score > found[0]):
                        found = (score, option)
        return found


def choose(view: dict[str, Any], rng: random.Random | None = None) -> dict[str, Any]:
    """The best of ``view["legal"]`` by the heuristic (ties drawn with ``rng``)."""
    legal: list[dict[str, Any]] = moves(view)
    if not legal:
        raise ValueError("it is not this seat's move: the view lists no legal action")
    rng = rng or random.Random(0)
    if len(legal) == 1:
        return legal[0]
    scored = weigh(view, legal)
    if scored is None:
        return legal[0]
    return _best(scored, rng)


def weigh(
    view: dict[str, Any], legal: list[dict[str, Any]]
) -> list[tuple[float, dict[str, Any]]] | None:
    """The actions of ``legal`` the heuristic weighs, each with its score: in the main
    phase the mandatory ones (one blind reserve a level) and the use of privileges
    that beats them all, if there is one; in every choice all of them. None for a
    take_bonus_token (every cell listed holds the same colour) or a forced replenish."""
    table = read(view)
    groups = by_kind(legal)
    scorer = Scorer(table)
    if "take_tokens" in groups or "buy" in groups or "reserve" in groups:
        scored = scorer.main(groups)
        best = max(score for score, _ in scored)
        if "use_privileges" in groups:
            use = scorer.privileges(groups["use_privileges"], best)
            if use is not None:
                scored.append(use)
        return scored
    if "discard_tokens" in groups:
        return [(keep_score(scorer, a["tokens"]), a) for a in groups["discard_tokens"]]
    if "steal_token" in groups:
        return [(steal_score(scorer, a["color"]), a) for a in groups["steal_token"]]
    if "choose_royal" in groups:
        me = table.mine
        return [
            (scorer.judge.royal_gain(me, a["royal"], me.points, me.crowns, me.colour_points), a)
            for a in groups["choose_royal"]
        ]
    return None


def keep_score(scorer: Scorer, discard: Mapping[str, int]) -> float:
    """What the tokens left after ``discard`` are worth to the plan."""
    tokens = list(scorer.me.tokens)
    for name, n in discard.items():
        tokens[TOKEN_OF[name]] -= n
    kept = sum(k * n for k, n in zip(KEEP, tokens, strict=True))
    return scorer.judge.progress(scorer.plan, scorer.me.bonuses, tokens) + kept


def steal_score(scorer: Scorer, color: str) -> float:
    """A stolen token: our progress, and the opponent's loss, in their plan."""
    judge = scorer.judge
    i = TOKEN_OF[color]
    mine = list(scorer.me.tokens)
    mine[i] += 1
    gain = judge.progress(scorer.plan, scorer.me.bonuses, mine) - scorer.base
    other = scorer.table.other
    theirs = list(other.tokens)
    theirs[i] -= 1
    plan = judge.targets(other)
    loss = judge.progress(plan, other.bonuses, other.tokens) - judge.progress(
        plan, other.bonuses, theirs
    )
    return gain + STEAL_DENIAL * loss + KEEP[i]


def _best(scored: list[tuple[float, dict[str, Any]]], rng: random.Random) -> dict[str, Any]:
    top = max(score for score, _ in scored)
    best = [action for score, action in scored if score >= top - 1e-9]
    return best[0] if len(best) == 1 else rng.choice(best)
