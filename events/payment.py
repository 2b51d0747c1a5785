"""Paying for a card, shared by both games: cost minus bonuses, gold as a joker.

Vectors: ``cost`` and ``bonuses`` have one entry per payable colour (5 in classic,
6 with pearl in Duel); ``tokens`` is the holder's token vector, whose gold sits at
``GOLD_INDEX``. A payment is a token vector of the same shape as ``tokens``.
"""

from __future__ import annotations

from collections.abc import Sequence

from events.colors import DUEL_TOKENS, GOLD_INDEX


def needs(cost: Sequence[int], bonuses: Sequence[int]) -> list[int]:
    """What remains to pay in tokens, colour by colour, after bonuses (never below 0)."""
    out = []
    for i, c in enumerate(cost):
        b = bonuses[i] if i < len(bonuses) else 0
        out.append(c - b if c > b else 0)
    return out


def _slot(colour: int) -> int:
    # The cost index of pearl (5) sits after gold (index 6) in a token vector.
    return colour if colour < GOLD_INDEX else colour + 1


def gold_shortfall(need: Sequence[int], tokens: Sequence[int]) -> int:
    """How much gold the default payment would use."""
    short = 0
    for colour, n in enumerate(need):
        have = tokens[_slot(colour)]
        if n > have:
            short += n - have
    return short


def can_afford(need: Sequence[int], tokens: Sequence[int]) -> bool:
    return gold_shortfall(need, tokens) <= tokens[GOLD_INDEX]


def default_payment(need: Sequence[int], tokens: Sequence[int]) -> list[int]:
    """Coloured tokens first, gold only for the shortfall (RULES.md's Decision)."""
    pay = [0] * len(tokens)
    for colour, n in enumerate(need):
        slot = _slot(colour)
        own = min(n, tokens[slot])
        pay[slot] = own
        pay[GOLD_INDEX] += n - own
    return pay


def payment_problem(need: Sequence[int], tokens: Sequence[int], pay: Sequence[int]) -> str | None:
    """Why an explicit payment can't buy the card, in words, or None when it can."""
    for slot, n in enumerate(pay):
        if n < 0:
            return "a payment can't hold a negative number of tokens"
        if n > tokens[slot]:
            return f"you pay {n} {DUEL_TOKENS[slot]} but hold only {tokens[slot]}"
    gold_needed = 0
    for colour, n in enumerate(need):
        slot = _slot(colour)
        if pay[slot] > n:
            return f"the card needs only {n} {DUEL_TOKENS[slot]} after your bonuses, you offer {pay[slot]}"
        gold_needed += n - pay[slot]
    if pay[GOLD_INDEX] != gold_needed:
        if pay[GOLD_INDEX] < gold_needed:
            return f"this payment is {gold_needed - pay[GOLD_INDEX]} short"
        return f"this payment has {pay[GOLD_INDEX] - gold_needed} gold too many"
    return None


def gold_needed5(cost: Sequence[int], bonuses: Sequence[int], tokens: Sequence[int]) -> int:
    """The gold a default payment of a five-colour (classic) cost uses: what the bonuses
    and the coloured tokens leave unpaid. The same as ``gold_shortfall(needs(cost,
    bonuses), tokens)``, unrolled because legal-move generation asks it for every card.
    """
    white = cost[0] - bonuses[0] - tokens[0]
    blue = cost[1] - bonuses[1] - tokens[1]
    green = cost[2] - bonuses[2] - tokens[2]
    red = cost[3] - bonuses[3] - tokens[3]
    black = cost[4] - bonuses[4] - tokens[4]
    return (
        (white if white > 0 else 0)
        + (blue if blue > 0 else 0)
        + (green if green > 0 else 0)
        + (red if red > 0 else 0)
        + (black if black > 0 else 0)
    )
