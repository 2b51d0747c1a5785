"""A game drawn as text, for ``splendor watch``: redrawn whole on each move."""

from __future__ import annotations

from typing import Any

from client.live import clock_left

GEM_SYMBOLS = {
    "white": "◇W",
    "blue": "●U",
    "green": "♣G",
    "red": "♥R",
    "black": "■K",
    "gold": "★$",
    "pearl": "○P",
    "wild": "✱*",
    "none": "··",
}
ORDER = ("white", "blue", "green", "red", "black", "gold", "pearl")


def tokens_line(counts: dict[str, int]) -> str:
    return " ".join(f"{GEM_SYMBOLS[c]}{counts[c]}" for c in ORDER if c in counts)


def card_text(card_id: str | None, catalog: dict[str, Any]) -> str:
    if card_id is None:
        return "[ empty ]"
    card = catalog["cards"][card_id]
    cost = " ".join(f"{GEM_SYMBOLS[c][1]}{n}" for c, n in card["cost"].items() if n)
    colour = card["color"]
    badge = GEM_SYMBOLS.get(colour, colour[:2])
    return f"[{badge} {card['points']}pt | {cost}]"


PRESENT = "● here"
AWAY = "○ away"


def clock_text(ms: int) -> str:
    """A clock as m:ss (h:mm:ss past an hour; tenths under 10 s)."""
    if ms < 10_000:
        return f"{ms // 1000}.{ms % 1000 // 100}s"
    seconds = ms // 1000
    hours, rest = divmod(seconds, 3600)
    if hours:
        return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
    return f"{seconds // 60}:{seconds % 60:02d}"


def render(
    view: dict[str, Any],
    catalog: dict[str, Any],
    presence: list[bool] | None = None,
    rematch: str | None = None,
    now_ms: int | None = None,
) -> str:
    """The whole table of ``view`` as lines of text; with ``presence`` (per seat), who
    is here or away; with ``rematch``, the game to follow next; each seat's clock as
    of ``now_ms`` (by default now) in a timed game."""
    lines = [
        f"game {view['game']}  ({view['variant']})  version {view['version']}  {view['status']}"
    ]
    turn = view.get("turn")
    if turn and view["status"] == "live":
        mover = view["players"][turn["seat"]]["name"] if view["players"] else "?"
        final = "  final round" if turn.get("final_round") else ""
        lines.append(f"turn {turn['number']}: {mover} ({turn['phase']}){final}")
    if "bank" in view:
        lines.append("bank   " + tokens_line(view["bank"]))
    if view.get("nobles"):
        noble_texts = []
        for noble_id in view["nobles"]:
            req = catalog["nobles"][noble_id]["requires"]
            noble_texts.append(
                "<" + " ".join(f"{GEM_SYMBOLS[c][1]}{n}" for c, n in req.items() if n) + ">"
            )
        lines.append("nobles " + " ".join(noble_texts))
    if view["variant"] == "duel":
        lines.extend(_duel_board(view))
    rows = view["pyramid"] if view["variant"] == "duel" else view.get("board", {})
    for level in ("3", "2", "1"):
        if level in rows:
            deck = view.get("decks", {}).get(level, 0)
            cards = "  ".join(card_text(c, catalog) for c in rows[level])
            lines.append(f"L{level} ({deck:2d}) {cards}")
    for player in view["players"]:
        marker = ">" if turn and turn["seat"] == player["seat"] else " "
        bot = f" [{player['bot']}]" if player.get("bot") else ""
        you = " (you)" if view.get("you") == player["seat"] else ""
        seat = player["seat"]
        here = ""
        if presence is not None and seat < len(presence):
            here = f" ({PRESENT if presence[seat] else AWAY})"
        left = clock_left(view, seat, now_ms)
        if left is not None:
            first = view["clock"].get("first_move") is not None and turn and turn["seat"] == seat
            here += f"  ⏱ {clock_text(left)}{' first move' if first else ''}"
        lines.append(
            f"{marker} {player['name']}{bot}{you}{here}: {player['points']} pts  "
            f"tokens {tokens_line(player['tokens'])}  bonuses {tokens_line(player['bonuses'])}"
        )
        if view["variant"] == "duel":
            lines.append(
                f"    crowns {player.get('crowns', 0)}  privileges {player.get('privileges', 0)}"
                f"  royals {len(player.get('royals', []))}"
            )
        reserved = [
            card_text(r["card"], catalog) if "card" in r else f"[L{r['level']} face down]"
            for r in player.get("reserved", [])
        ]
        if reserved:
            lines.append("    reserved " + " ".join(reserved))
    result = view.get("result")
    if result:
        names = ", ".join(view["players"][s]["name"] for s in result["winners"])
        lines.append(f"game over: {names} won")
    rematch = rematch or view.get("rematch")
    if rematch:
        lines.append(f"rematch: {rematch}")
    return "\n".join(lines)


def _duel_board(view: dict[str, Any]) -> list[str]:
    lines = ["board"]
    for row in view["board"]:
        lines.append("  " + " ".join(GEM_SYMBOLS[t] if t else " ." for t in row))
    lines.append("bag    " + tokens_line(view.get("bag", {})))
    lines.append(
        f"privileges in supply {view.get('privileges', 0)}  royals {view.get('royals', [])}"
    )
    return lines
