"""Paying for a card, shared by both games: cost minus bonuses, gold as a joker.

Vectors: ``cost`` and ``bonuses`` have one entry per payable colour (5 in classic,
6 with pearl in Duel); ``tokens`` is the holder's token vector, whose gold sits at
``GOLD_INDEX``. A payment is a token vector of the same shape as ``tokens``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from events.colors import DUEL_TOKENS, GEM_INDEX, GOLD_INDEX, only_nonzero, to_dict
from events.errors import IllegalAction
from events.reasons import Arg, Reason

Name = TypeVar("Name", bound=str)  # a token's name: each game has its Literal of them


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


def payment_problem(
    card_id: str, need: Sequence[int], tokens: Sequence[int], pay: Sequence[int]
) -> Reason | None:
    """Why an explicit payment can't buy the card ``card_id``, or None when it can."""

    def problem(key: str, **args: Arg) -> Reason:
        return Reason(f"buy.{key}", {"card": card_id, **args})

    for slot, n in enumerate(pay):
        if n < 0:
            return problem("payment_negative")
        if n > tokens[slot]:
            return problem(
                "payment_more_than_held", n=n, color=DUEL_TOKENS[slot], have=tokens[slot]
            )
    gold_needed = 0
    for colour, n in enumerate(need):
        slot = _slot(colour)
        if pay[slot] > n:
            return problem("payment_too_much", need=n, color=DUEL_TOKENS[slot], offer=pay[slot])
        gold_needed += n - pay[slot]
    if pay[GOLD_INDEX] != gold_needed:
        if pay[GOLD_INDEX] < gold_needed:
            return problem("payment_short", short=gold_needed - pay[GOLD_INDEX])
        return problem("payment_gold_over", extra=pay[GOLD_INDEX] - gold_needed)
    return None


def payment_for(
    card_id: str,
    cost: Sequence[int],
    cost_names: tuple[str, ...],
    bonuses: Sequence[int],
    tokens: Sequence[int],
    payment: Mapping[Name, int] | None,
) -> list[int]:
    """The token vector a buy of ``card_id`` pays: the default payment when the action
    names none, else the named one, checked. ``IllegalAction`` when it can't pay."""
    need = needs(cost, bonuses)
    if payment is None:
        short = gold_shortfall(need, tokens) - tokens[GOLD_INDEX]
        if short > 0:
            owed = only_nonzero(to_dict(need, cost_names))
            raise IllegalAction("buy.cant_afford", card=card_id, cost=owed, short=short)
        return default_payment(need, tokens)
    pay = [0] * len(tokens)
    for name, n in payment.items():
        pay[GEM_INDEX[name]] += n
    problem = payment_problem(card_id, need, tokens, pay)
    if problem:
        raise IllegalAction(problem.key, **problem.args)
    return pay
