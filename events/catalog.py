"""The card data of both games, loaded once from the package's CSV files.

Ids are stable and opaque to clients: classic cards are ``"<level>-<nn>"`` (the card's
rank within its level in the data file), nobles ``"n<k>"``; Duel cards ``"d<level>-<nn>"``
and royals ``"r<k>"``.
"""

from __future__ import annotations

import csv
import io
from functools import cache
from importlib import resources

import msgspec

from events.colors import GEMS


class ClassicCard(msgspec.Struct, frozen=True):
    id: str
    level: int
    color: int  # index into GEMS
    points: int
    cost: tuple[int, int, int, int, int]


class Noble(msgspec.Struct, frozen=True):
    id: str
    points: int
    requires: tuple[int, int, int, int, int]


class DuelCard(msgspec.Struct, frozen=True):
    id: str
    level: int
    color: str  # a gem name, "wild" or "none"
    bonus: int  # bonus_count: 0, 1 or 2
    points: int
    crowns: int
    ability: str
    cost: tuple[int, int, int, int, int, int]  # the five gems, then pearl


class Royal(msgspec.Struct, frozen=True):
    id: str
    points: int
    ability: str


def _rows(name: str) -> list[dict[str, str]]:
    text = resources.files("events").joinpath("data", name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


@cache
def classic_cards() -> dict[str, ClassicCard]:
    cards: dict[str, ClassicCard] = {}
    rank = {1: 0, 2: 0, 3: 0}
    for row in _rows("splendor_cards.csv"):
        level = int(row["level"])
        rank[level] += 1
        card_id = f"{level}-{rank[level]:02d}"
        cost = (
            int(row["white"]),
            int(row["blue"]),
            int(row["green"]),
            int(row["red"]),
            int(row["black"]),
        )
        cards[card_id] = ClassicCard(
            card_id, level, GEMS.index(row["color"]), int(row["points"]), cost
        )
    return cards


@cache
def classic_nobles() -> dict[str, Noble]:
    nobles: dict[str, Noble] = {}
    for row in _rows("splendor_nobles.csv"):
        noble_id = f"n{int(row['id'])}"
        requires = (
            int(row["white"]),
            int(row["blue"]),
            int(row["green"]),
            int(row["red"]),
            int(row["black"]),
        )
        nobles[noble_id] = Noble(noble_id, int(row["points"]), requires)
    return nobles


@cache
def duel_cards() -> dict[str, DuelCard]:
    cards: dict[str, DuelCard] = {}
    rank = {1: 0, 2: 0, 3: 0}
    for row in _rows("duel_cards.csv"):
        level = int(row["level"])
        rank[level] += 1
        card_id = f"d{level}-{rank[level]:02d}"
        cost = (
            int(row["white"]),
            int(row["blue"]),
            int(row["green"]),
            int(row["red"]),
            int(row["black"]),
            int(row["pearl"]),
        )
        cards[card_id] = DuelCard(
            card_id,
            level,
            row["color"],
            int(row["bonus_count"]),
            int(row["points"]),
            int(row["crowns"]),
            row["ability"],
            cost,
        )
    return cards


@cache
def duel_royals() -> dict[str, Royal]:
    return {
        f"r{int(row['id'])}": Royal(f"r{int(row['id'])}", int(row["points"]), row["ability"])
        for row in _rows("duel_royals.csv")
    }


@cache
def duel_spiral() -> tuple[int, ...]:
    """Board cells (5*row + col) in the order tokens are placed."""
    rows = sorted(_rows("duel_spiral.csv"), key=lambda r: int(r["step"]))
    return tuple(int(r["cell"]) for r in rows)


@cache
def duel_tokens() -> dict[str, int]:
    return {row["token"]: int(row["count"]) for row in _rows("duel_tokens.csv")}


@cache
def duel_constants() -> dict[str, int]:
    """The single-number limits of ``duel_constants.csv`` (lists: see their own functions)."""
    return {
        row["name"]: int(row["value"])
        for row in _rows("duel_constants.csv")
        if row["value"].isdigit()
    }


@cache
def duel_royal_thresholds() -> tuple[int, ...]:
    """The crown counts that each give a royal card (``3;6`` in the data)."""
    for row in _rows("duel_constants.csv"):
        if row["name"] == "royal_card_crown_thresholds":
            return tuple(int(v) for v in row["value"].split(";"))
    raise LookupError("duel_constants.csv has no royal_card_crown_thresholds")


def classic_catalog() -> dict[str, object]:
    """``GET /api/catalog/classic``: every card and noble with every colour named."""
    return {
        "cards": {
            c.id: {
                "level": c.level,
                "color": GEMS[c.color],
                "points": c.points,
                "cost": dict(zip(GEMS, c.cost, strict=True)),
            }
            for c in classic_cards().values()
        },
        "nobles": {
            n.id: {"points": n.points, "requires": dict(zip(GEMS, n.requires, strict=True))}
            for n in classic_nobles().values()
        },
    }


def duel_catalog() -> dict[str, object]:
    """``GET /api/catalog/duel``: cards with bonus, crowns and ability, royals; no nobles."""
    names = (*GEMS, "pearl")
    return {
        "cards": {
            c.id: {
                "level": c.level,
                "color": c.color,
                "points": c.points,
                "cost": dict(zip(names, c.cost, strict=True)),
                "bonus": c.bonus,
                "crowns": c.crowns,
                "ability": c.ability,
            }
            for c in duel_cards().values()
        },
        "nobles": {},
        "royals": {
            r.id: {"points": r.points, "ability": r.ability} for r in duel_royals().values()
        },
    }
