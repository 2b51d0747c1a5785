"""The numbers of Splendor Duel, read from ``data/duel_constants.csv`` and ``duel_tokens.csv``."""

from __future__ import annotations

from typing import Final

from events.catalog import duel_constants, duel_royal_thresholds, duel_tokens
from events.colors import DUEL_TOKENS, DuelToken

_C: Final = duel_constants()

PRESTIGE_TO_WIN: Final = _C["prestige_to_win"]
CROWNS_TO_WIN: Final = _C["crowns_to_win"]
COLOUR_PRESTIGE_TO_WIN: Final = _C["single_colour_prestige_to_win"]
MAX_TOKENS: Final = _C["max_tokens_end_of_turn"]
MAX_RESERVED: Final = _C["max_reserved_cards"]
PRIVILEGES: Final = _C["privilege_scrolls"]
PYRAMID: Final = (
    _C["pyramid_level1_faceup"],
    _C["pyramid_level2_faceup"],
    _C["pyramid_level3_faceup"],
)
MAX_TAKE: Final = _C["max_tokens_taken_in_line"]
ROYAL_THRESHOLDS: Final = duel_royal_thresholds()


def rule_numbers() -> dict[str, object]:
    """The rules' numbers a page explains a refusal, a crown or a meter with:
    ``GET /api/catalog/duel``'s ``rules``."""
    return {
        "max_reserved": MAX_RESERVED,
        "max_tokens": MAX_TOKENS,
        "max_take": MAX_TAKE,
        "prestige_to_win": PRESTIGE_TO_WIN,
        "crowns_to_win": CROWNS_TO_WIN,
        "colour_prestige_to_win": COLOUR_PRESTIGE_TO_WIN,
        "royal_thresholds": list(ROYAL_THRESHOLDS),
    }


# How many tokens of each kind the game holds, as a token vector (DUEL_TOKENS order).
TOKEN_COUNTS: Final = tuple(duel_tokens()[name] for name in DUEL_TOKENS)

# DUEL_TOKENS with its literal type, for events that name a token.
TOKEN_NAMES: Final[tuple[DuelToken, ...]] = (
    "white",
    "blue",
    "green",
    "red",
    "black",
    "gold",
    "pearl",
)
assert TOKEN_NAMES == DUEL_TOKENS
