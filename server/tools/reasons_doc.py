"""``python -m server.tools.reasons_doc [--write]``: docs/reasons.md, the list of every
refusal's key with its arguments and English sentence, made from the registries
(``events.reasons.REASONS`` and ``server.common.reasons.SERVER_REASONS``) so that it
can't drift from them (tests/i18n/test_reasons.py compares)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from events.reasons import CELL_ARGS, PLACEHOLDER, REASONS, TERM_ARGS, TOKEN_COUNT_ARGS, Template
from server.common.reasons import SERVER_REASONS

DOC: Final = Path(__file__).resolve().parents[2] / "docs" / "reasons.md"

# What each argument holds, by its name (a name missing here fails the test).
ARGS: Final[Mapping[str, str]] = {
    "account": "an account's username",
    "action": "the name of the action's type",
    "actual": "the game's version",
    "after": "seconds away before a claim",
    "allowed": "the methods the path takes, comma-separated",
    "card": "a card id",
    "char": "the character, as `U+XXXX`",
    "clock": "the clock asked for",
    "clocks": "the clocks of the pools",
    "count": "a count",
    "current": "the game's version",
    "detail": "what a library said (msgspec, Redis), in English",
    "excess": "tokens above the limit",
    "expected": "the version the command expected",
    "extra": "gold tokens too many",
    "game": "a game id",
    "have": "tokens there are or held",
    "held": "tokens or privileges held",
    "keep": "the most tokens kept",
    "known": "the values there are, comma-separated",
    "lang": "the language tag asked for",
    "least": "the least allowed",
    "left": "colours left in the supply",
    "level": "a deck's level",
    "method": "the HTTP method",
    "most": "the most allowed",
    "n": "tokens given",
    "name": "the parameter's name",
    "need": "tokens needed",
    "noble": "a noble's id",
    "offer": "tokens offered",
    "path": "the URL's path",
    "player": "a seat's name",
    "room": "the chat room asked for",
    "royal": "a royal card's id",
    "seat": "a seat's number",
    "seconds": "seconds to wait",
    "short": "tokens short",
    "site": "the other site (its `Origin`, or `Sec-Fetch-Site`)",
    "statuses": "the statuses there are, comma-separated",
    "target": "the card id `wild_on` named",
    "tournament": "a tournament id",
    "username": "an account's username",
    "value": "what the request sent",
    "variant": "a variant's name",
    "version": "the version asked for",
    "wait": "seconds to wait",
}

HEAD: Final = """# Refusal reasons

Every error of the HTTP API and of the websockets carries, besides its `code` and its
`message`, a `reason`: a stable key for what was refused and its arguments
(PROTOCOL.md "Languages"):

```json
{"code": "illegal_action",
 "message": "take_two needs at least 4 red tokens in the supply, there are 3",
 "reason": {"key": "take_two.supply_short", "args": {"color": "red", "have": 3, "need": 4}}}
```

The `message` is the sentence in the request's language (docs/languages.md): the
English template below, translated in the `server` catalog, its arguments written in
the reader's words. A client that writes refusals in its own words reads the key and
the arguments instead (the Python client gives them as `ApiError.reason`). Keys are
stable: a sentence may be reworded, a key keeps its meaning.

Arguments are JSON values: `color` is a token's colour as the wire names it (`white`,
`blue`, `green`, `red`, `black`, `gold`, `pearl`), its word taken from the catalog in
the context `token`; `status` a game's status (context `status`); `cost` counts tokens
by colour (`{"blue": 2, "gold": 1}`: "2 blue and 1 gold"); `cell` is a Duel board
cell `[row, col]`; numbers are written in the reader's digits; other strings (names,
ids, what the request sent) are shown as they are. A template with two forms picks
its form by the number of the argument marked *plural*, with the reader's plural
rules.

This page is made by `python -m server.tools.reasons_doc --write` from
`events/reasons.py` (the rules) and `server/common/reasons.py` (the server);
`tests/i18n/test_reasons.py` fails when it differs from them.
"""


def placeholders(text: str) -> list[str]:
    """The ``{name}`` placeholders of a template, in order, each once."""
    return list(dict.fromkeys(PLACEHOLDER.findall(text)))


def describe(name: str, template: Template) -> str:
    if name in TERM_ARGS:
        what = "a token's colour" if name == "color" else "a game's status"
    elif name in TOKEN_COUNT_ARGS:
        what = "tokens by colour"
    elif name in CELL_ARGS:
        what = "a board cell `[row, col]`"
    else:
        what = ARGS[name]
    plural = " (*plural*)" if name == template.count else ""
    return f"`{name}`: {what}{plural}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def table(reasons: Mapping[str, Template]) -> str:
    rows = ["| key | arguments | English |", "|---|---|---|"]
    for key in sorted(reasons):
        template = reasons[key]
        names = placeholders(template.singular + " " + (template.plural or ""))
        args = "; ".join(describe(name, template) for name in names) or "none"
        english = template.singular
        if template.plural is not None and template.plural != template.singular:
            english = f"{template.singular} / {template.plural}"
        rows.append(f"| `{key}` | {_cell(args)} | {_cell(english)} |")
    return "\n".join(rows)


def document() -> str:
    return (
        f"{HEAD}\n## The rules (events/reasons.py)\n\n{table(REASONS)}\n\n"
        f"## The server (server/common/reasons.py)\n\n{table(SERVER_REASONS)}\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.tools.reasons_doc")
    parser.add_argument("--write", action="store_true", help=f"write {DOC.name}")
    args = parser.parse_args(argv)
    if args.write:
        DOC.write_text(document())
    else:
        sys.stdout.write(document())
    return 0


if __name__ == "__main__":
    sys.exit(main())
