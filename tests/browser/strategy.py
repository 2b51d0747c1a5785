"""A scripted player for the browser tests: picks an action from a view's ``legal``.

It plays to end the game soon (the best buy, else the tokens its target card needs)
and steers towards using every kind of action at least once: a blind reserve and a
board reserve early, a take-two, a buy from the reserve, and taking tokens while
holding 8 or more so that a token return comes. The choice is a pure function of the
view, the catalog and what has been used so far, so a seeded game always goes the
same way.
"""

from __future__ import annotations

from typing import Any

from bots.moves import moves as game_moves

GEMS = ("white", "blue", "green", "red", "black")

Action = dict[str, Any]
View = dict[str, Any]
Catalog = dict[str, Any]


def kind_of(action: Action, reserved: set[str] | None = None) -> str:
    """The coverage name of an action: reserves split by source, buys too when the
    mover's ``reserved`` card ids are given."""
    kind = str(action["kind"])
    if kind == "reserve":
        return "reserve_blind" if "level" in action else "reserve_board"
    if kind == "buy" and reserved is not None:
        return "buy_reserve" if action["card"] in reserved else "buy_board"
    return kind


def _me(view: View) -> dict[str, Any]:
    players: list[dict[str, Any]] = view["players"]
    return next(p for p in players if p["seat"] == view["you"])


def _shortfall(card: dict[str, Any], me: dict[str, Any]) -> dict[str, int]:
    """Tokens of each colour still missing to buy ``card`` (gold ignored)."""
    return {
        g: max(0, card["cost"][g] - me["bonuses"][g] - me["tokens"][g])
        for g in GEMS
        if card["cost"][g] - me["bonuses"][g] - me["tokens"][g] > 0
    }


def _noble_wants(view: View, catalog: Catalog, me: dict[str, Any]) -> dict[str, int]:
    """Bonuses the closest noble still needs."""
    best: dict[str, int] = {}
    best_gap = 99
    for noble_id in view["nobles"]:
        req = catalog["nobles"][noble_id]["requires"]
        gap = {g: req[g] - me["bonuses"][g] for g in GEMS if req[g] > me["bonuses"][g]}
        if sum(gap.values()) < best_gap:
            best_gap, best = sum(gap.values()), gap
    return best


def choose(view: View, catalog: Catalog, used: set[str]) -> Action:
    """The action to play now (``used``: coverage names already played by anyone)."""
    legal: list[Action] = game_moves(view)
    assert legal, "choose() is only called on the mover's view"
    phase = view["turn"]["phase"]
    if phase == "return_tokens":
        me = _me(view)

        # Give back what we hold most of, gold last.
        def weight(a: Action) -> tuple[int, int]:
            gold = a["tokens"].get("gold", 0)
            spread = sum(me["tokens"][c] * n for c, n in a["tokens"].items() if c != "gold")
            return (gold, -spread)

        return min(legal, key=weight)
    if phase == "choose_noble":
        return legal[0]
    kinds = {kind_of(a) for a in legal}
    me = _me(view)
    held = sum(me["tokens"].values())
    cards = catalog["cards"]

    def first(kind: str) -> Action:
        return next(a for a in legal if kind_of(a) == kind)

    # Coverage first: each of these once, early.
    if "reserve_blind" not in used and "reserve_blind" in kinds:
        return (
            next(a for a in legal if kind_of(a) == "reserve_blind" and a["level"] == 1)
            if any(kind_of(a) == "reserve_blind" and a["level"] == 1 for a in legal)
            else first("reserve_blind")
        )
    if "reserve_board" not in used and "reserve_board" in kinds:
        # The cheapest level-1 card on the board: easy to buy back from the reserve.
        reserves = [a for a in legal if kind_of(a) == "reserve_board"]
        return min(
            reserves,
            key=lambda a: (cards[a["card"]]["level"], sum(cards[a["card"]]["cost"].values())),
        )
    if "take_two" not in used and "take_two" in kinds and held <= 7:
        return first("take_two")
    if "return_tokens" not in used and held >= 8 and ("take_three" in kinds or "take_two" in kinds):
        return first("take_three") if "take_three" in kinds else first("take_two")

    reserved_ids = {r.get("card") for r in me["reserved"]}
    buys = [a for a in legal if a["kind"] == "buy"]
    from_reserve = [a for a in buys if a["card"] in reserved_ids]
    if "buy_reserve" not in used and from_reserve:
        return from_reserve[0]
    if buys:
        wants = _noble_wants(view, catalog, me)

        def value(a: Action) -> tuple[int, int, int]:
            card = cards[a["card"]]
            return (
                card["points"] * 3 + (2 if card["color"] in wants else 0),
                1 if a["card"] in reserved_ids else 0,
                -sum(card["cost"].values()),
            )

        return max(buys, key=value)

    # A target: the card closest to affordable, valued by its points.
    board = [c for level in ("1", "2", "3") for c in view["board"][level] if c]
    targets = board + [c for c in reserved_ids if c]
    target = min(
        targets,
        key=lambda c: (sum(_shortfall(cards[c], me).values()) - cards[c]["points"], c),
        default=None,
    )
    missing = _shortfall(cards[target], me) if target else {}
    takes = [a for a in legal if a["kind"] == "take_three"]
    if takes and (held <= 7 or "return_tokens" not in used):
        return max(takes, key=lambda a: (sum(1 for c in a["colors"] if c in missing), a["colors"]))
    twos = [a for a in legal if a["kind"] == "take_two" and a["color"] in missing]
    if twos and held <= 8:
        return twos[0]
    reserves = [a for a in legal if kind_of(a) == "reserve_board"]
    if reserves:
        return max(reserves, key=lambda a: cards[a["card"]]["points"])
    if takes:
        return takes[0]
    return legal[0]
