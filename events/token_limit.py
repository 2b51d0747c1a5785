"""The limit on tokens held at a turn's end, the same in both games: a player above it
gives back exactly the excess, of the colours of their choice (classic returns them to
the bank, Duel puts them back in the bag; ``action`` names which in the refusals).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, TypeVar

from events.colors import GEM_INDEX
from events.errors import IllegalAction

Name = TypeVar("Name", bound=str)  # a token's name: each game has its Literal of them


def check_give_back(
    tokens: Sequence[int],
    given: Mapping[Name, int],
    keep: int,
    action: Literal["return_tokens", "discard_tokens"],
) -> None:
    """``given`` brings the holder of ``tokens`` down to exactly ``keep``, or
    ``IllegalAction`` says why not."""
    held = sum(tokens)
    count = 0
    for name, n in given.items():
        if n < 0:
            raise IllegalAction(f"{action}.negative")
        have = tokens[GEM_INDEX[name]]
        if n > have:
            raise IllegalAction(f"{action}.more_than_held", n=n, color=name, have=have)
        count += n
    if held - count != keep:
        raise IllegalAction(
            f"{action}.wrong_count", held=held, excess=held - keep, keep=keep, count=count
        )


def ways_to_give_back(
    tokens: Sequence[int], count: int, names: Sequence[Name]
) -> list[dict[Name, int]]:
    """Every way to give back exactly ``count`` of the tokens held (``names`` in the
    order of the token vector), each naming only the colours given, most of the first
    colour first."""
    ways: list[dict[Name, int]] = []

    def walk(index: int, left: int, chosen: dict[Name, int]) -> None:
        if left == 0:
            ways.append(dict(chosen))
            return
        if index == len(names):
            return
        name = names[index]
        for n in range(min(left, tokens[index]), -1, -1):
            if n:
                chosen[name] = n
            walk(index + 1, left - n, chosen)
            chosen.pop(name, None)

    walk(0, count, {})
    return ways
