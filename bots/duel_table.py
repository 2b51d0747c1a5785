"""A seat's picture of a Splendor Duel table, read from its view: the few numbers the
Duel bots reason about, and the view's ``legal`` list indexed by kind.

Only what the view shows is read: the opponent's reserved cards are a count, the
decks are counts, the bag is counts. Token vectors are indexed like the engine's
(white, blue, green, red, black, gold, pearl); colour vectors the first five.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from events.catalog import DuelCard, duel_cards
from events.colors import DUEL_TOKENS, GEMS, GOLD_INDEX, PEARL_INDEX

CARDS: Final[dict[str, DuelCard]] = duel_cards()
GEM_OF: Final = {name: i for i, name in enumerate(GEMS)}
TOKEN_OF: Final = {name: i for i, name in enumerate(DUEL_TOKENS)}
GOLD: Final = GOLD_INDEX
PEARL: Final = PEARL_INDEX

# Cost vectors in token order (the five gems, gold 0, pearl), so that a cost and a
# hand of tokens index alike.
COST: Final = {c.id: (*c.cost[:5], 0, c.cost[5]) for c in CARDS.values()}


@dataclass(slots=True)
class DuelSeat:
    """One player as the viewer sees them."""

    seat: int
    tokens: list[int]  # 7 kinds, token order
    bonuses: list[int]  # 5 colours (double bonus 2, a wild as placed)
    colour_points: list[int]  # prestige per colour
    points: int
    crowns: int
    privileges: int
    cards: list[str]
    wilds: dict[str, int]  # a placed wild card -> colour index
    reserved: list[str]  # the reserved cards the viewer may see
    reserved_count: int  # all reserved cards, seen or not

    def colour_of(self, card_id: str) -> int | None:
        """The colour index an owned card counts as (a wild one where it was put)."""
        if card_id in self.wilds:
            return self.wilds[card_id]
        card = CARDS[card_id]
        return GEM_OF.get(card.color) if card.bonus else None

    def bonus_colours(self) -> set[int]:
        """The colours of the owned cards a wild card may go on."""
        return {c for c in map(self.colour_of, self.cards) if c is not None}


@dataclass(slots=True)
class DuelTable:
    me: int
    phase: str
    board: list[str | None]  # 25 cells, 5 * row + col
    bag: list[int]  # 7 kinds
    pyramid: list[str]  # face-up cards, every level, empty slots left out
    decks: list[int]  # cards left per level
    royals: list[str]  # still available
    privileges: int  # in the supply
    players: list[DuelSeat]

    @property
    def mine(self) -> DuelSeat:
        return self.players[self.me]

    @property
    def other(self) -> DuelSeat:
        return self.players[1 - self.me]

    def loose(self) -> list[int]:
        """Tokens of each kind on the board or in the bag: what a take may yet reach."""
        out = list(self.bag)
        for token in self.board:
            if token is not None:
                out[TOKEN_OF[token]] += 1
        return out


def read(view: dict[str, Any]) -> DuelTable:
    """The table a Duel view shows its seat."""
    if view.get("variant") != "duel":
        raise ValueError("not a Splendor Duel view")
    me = view["you"]
    if me is None:
        raise ValueError("a spectator's view: a bot needs a seat")
    players = []
    for p in view["players"]:
        seen = [r["card"] for r in p["reserved"] if r.get("card") is not None]
        players.append(
            DuelSeat(
                seat=p["seat"],
                tokens=[p["tokens"].get(name, 0) for name in DUEL_TOKENS],
                bonuses=[p["bonuses"].get(name, 0) for name in GEMS],
                colour_points=[p.get("colour_points", {}).get(name, 0) for name in GEMS],
                points=p["points"],
                crowns=p["crowns"],
                privileges=p["privileges"],
                cards=list(p["cards"]),
                wilds={card: GEM_OF[colour] for card, colour in p.get("wilds", {}).items()},
                reserved=seen,
                reserved_count=len(p["reserved"]),
            )
        )
    turn = view.get("turn") or {}
    return DuelTable(
        me=me,
        phase=turn.get("phase") or "main",
        board=[token for row in view["board"] for token in row],
        bag=[view["bag"].get(name, 0) for name in DUEL_TOKENS],
        pyramid=[c for level in ("1", "2", "3") for c in view["pyramid"][level] if c is not None],
        decks=[view["decks"][level] for level in ("1", "2", "3")],
        royals=list(view["royals"]),
        privileges=view["privileges"],
        players=players,
    )


def by_kind(legal: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The legal actions grouped by ``kind``, each group in the view's order."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for action in legal:
        groups[action["kind"]].append(action)
    return dict(groups)


def cell_index(cell: list[int]) -> int:
    """A wire cell ``[row, col]`` as a board index."""
    return 5 * cell[0] + cell[1]


def shortfall(card_id: str, bonuses: Sequence[int], tokens: Sequence[int]) -> int:
    """Tokens still missing to buy ``card_id``, gold counted as any gem or pearl.
    Unrolled over the colours: the heuristics ask it tens of thousands of times a move."""
    w, u, g, r, k, _, p = COST[card_id]
    short = 0
    d = w - bonuses[0] - tokens[0]
    if d > 0:
        short += d
    d = u - bonuses[1] - tokens[1]
    if d > 0:
        short += d
    d = g - bonuses[2] - tokens[2]
    if d > 0:
        short += d
    d = r - bonuses[3] - tokens[3]
    if d > 0:
        short += d
    d = k - bonuses[4] - tokens[4]
    if d > 0:
        short += d
    d = p - tokens[PEARL]
    if d > 0:
        short += d
    short -= tokens[GOLD]
    return short if short > 0 else 0
