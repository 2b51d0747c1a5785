"""Colours and token vectors shared by both games.

Internally a token vector is a list of ints indexed by colour: the five gem colours
in the fixed order of RULES.md, then gold (and, in Duel, pearl). On the wire it is a
dict that names every colour, 0s included.
"""

from __future__ import annotations

from typing import Final, Literal

GEMS: Final = ("white", "blue", "green", "red", "black")
GOLD: Final = "gold"
PEARL: Final = "pearl"
GOLD_INDEX: Final = 5
PEARL_INDEX: Final = 6
TOKENS: Final = (*GEMS, GOLD)
DUEL_TOKENS: Final = (*GEMS, GOLD, PEARL)
GEM_INDEX: Final = {name: i for i, name in enumerate(DUEL_TOKENS)}

Gem = Literal["white", "blue", "green", "red", "black"]
Token = Literal["white", "blue", "green", "red", "black", "gold"]
DuelToken = Literal["white", "blue", "green", "red", "black", "gold", "pearl"]


def to_dict(vector: list[int] | tuple[int, ...], names: tuple[str, ...] = TOKENS) -> dict[str, int]:
    """A token vector as the wire's colour -> count dict, every colour named."""
    return dict(zip(names, vector, strict=False))


def from_dict(counts: dict[str, int], size: int = 6) -> list[int]:
    """A wire colour -> count dict as a token vector (unknown names are the caller's check)."""
    vector = [0] * size
    for name, n in counts.items():
        vector[GEM_INDEX[name]] += n
    return vector


def only_nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in counts.items() if v}
