"""A game drawn as text, for ``splendor watch``: redrawn whole on each move, its words
in the watcher's language (the ``server`` catalog, docs/languages.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from catalogs import SOURCE, Translations, known_language, translations
from catalogs.languages import format_list
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


def environment_language(environ: Mapping[str, str] = os.environ) -> str:
    """The terminal's language from the locale variables (``LC_ALL``, ``LC_MESSAGES``,
    ``LANG``: ``pl_PL.UTF-8`` is Polish), English when none names one of ours."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "").split(".")[0].split("@")[0]
        if value:
            return known_language(value) or SOURCE
    return SOURCE


def card_text(card_id: str | None, catalog: dict[str, Any], words: Translations) -> str:
    _ = words.gettext
    if card_id is None:
        return _("[ empty ]")
    card = catalog["cards"][card_id]
    cost = " ".join(f"{GEM_SYMBOLS[c][1]}{n}" for c, n in card["cost"].items() if n)
    colour = card["color"]
    badge = GEM_SYMBOLS.get(colour, colour[:2])
    points = _("{n}pt").format(n=card["points"])
    return f"[{badge} {points} | {cost}]"


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
    lang: str = SOURCE,
) -> str:
    """The whole table of ``view`` as lines of text in ``lang``; with ``presence`` (per
    seat), who is here or away; with ``rematch``, the game to follow next; each seat's
    clock as of ``now_ms`` (by default now) in a timed game."""
    words = translations(lang, "server")
    _, ngettext, pgettext = words.gettext, words.ngettext, words.pgettext
    status = pgettext("status", view["status"])
    lines = [
        _("game {game}  ({variant})  version {version}  {status}").format(
            game=view["game"], variant=view["variant"], version=view["version"], status=status
        )
    ]
    turn = view.get("turn")
    if turn and view["status"] == "live":
        mover = view["players"][turn["seat"]]["name"] if view["players"] else "?"
        line = _("turn {number}: {player} ({phase})").format(
            number=turn["number"], player=mover, phase=turn["phase"]
        )
        final = _("final round")
        lines.append(f"{line}  {final}" if turn.get("final_round") else line)
    if "bank" in view:
        bank = pgettext("term", "bank")
        lines.append(f"{bank}  {tokens_line(view['bank'])}")
    if view.get("nobles"):
        noble_texts = []
        for noble_id in view["nobles"]:
            req = catalog["nobles"][noble_id]["requires"]
            noble_texts.append(
                "<" + " ".join(f"{GEM_SYMBOLS[c][1]}{n}" for c, n in req.items() if n) + ">"
            )
        nobles = pgettext("term", "nobles")
        lines.append(f"{nobles}  {' '.join(noble_texts)}")
    if view["variant"] == "duel":
        lines.extend(_duel_board(view, words))
    rows = view["pyramid"] if view["variant"] == "duel" else view.get("board", {})
    for level in ("3", "2", "1"):
        if level in rows:
            deck = view.get("decks", {}).get(level, 0)
            cards = "  ".join(card_text(c, catalog, words) for c in rows[level])
            lines.append(f"L{level} ({deck:2d}) {cards}")
    you_word, here_word, away_word, first_move = _("you"), _("here"), _("away"), _("first move")
    tokens_word, bonuses_word = pgettext("term", "tokens"), pgettext("term", "bonuses")
    crowns_word, privileges_word = pgettext("term", "crowns"), pgettext("term", "privileges")
    royals_word, reserved_word = pgettext("term", "royal cards"), pgettext("term", "reserved")
    for player in view["players"]:
        marker = ">" if turn and turn["seat"] == player["seat"] else " "
        bot = f" [{player['bot']}]" if player.get("bot") else ""
        you = f" ({you_word})" if view.get("you") == player["seat"] else ""
        seat = player["seat"]
        here = ""
        if presence is not None and seat < len(presence):
            here = f" (● {here_word})" if presence[seat] else f" (○ {away_word})"
        left = clock_left(view, seat, now_ms)
        if left is not None:
            first = view["clock"].get("first_move") is not None and turn and turn["seat"] == seat
            here += f"  ⏱ {clock_text(left)}" + (f"  {first_move}" if first else "")
        points = ngettext("{n} point", "{n} points", player["points"]).format(n=player["points"])
        lines.append(
            f"{marker} {player['name']}{bot}{you}{here}: {points}  "
            f"{tokens_word} {tokens_line(player['tokens'])}  "
            f"{bonuses_word} {tokens_line(player['bonuses'])}"
        )
        if view["variant"] == "duel":
            lines.append(
                f"    {crowns_word} {player.get('crowns', 0)}  "
                f"{privileges_word} {player.get('privileges', 0)}  "
                f"{royals_word} {len(player.get('royals', []))}"
            )
        reserved = [
            card_text(r["card"], catalog, words)
            if "card" in r
            else _("[L{level} face down]").format(level=r["level"])
            for r in player.get("reserved", [])
        ]
        if reserved:
            lines.append(f"    {reserved_word} {' '.join(reserved)}")
    result = view.get("result")
    if result:
        names = format_list(lang, [view["players"][s]["name"] for s in result["winners"]])
        lines.append(_("game over: {names} won").format(names=names))
    rematch = rematch or view.get("rematch")
    if rematch:
        lines.append(_("rematch: {game}").format(game=rematch))
    return "\n".join(lines)


def _duel_board(view: dict[str, Any], words: Translations) -> list[str]:
    _, pgettext = words.gettext, words.pgettext
    lines = [pgettext("term", "board")]
    for row in view["board"]:
        lines.append("  " + " ".join(GEM_SYMBOLS[t] if t else " ." for t in row))
    bag = pgettext("term", "bag")
    lines.append(f"{bag}  {tokens_line(view.get('bag', {}))}")
    lines.append(
        _("privileges in supply {privileges}  royal cards {royals}").format(
            privileges=view.get("privileges", 0), royals=view.get("royals", [])
        )
    )
    return lines
