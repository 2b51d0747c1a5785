"""Every message the page's scripts mark reaches the page catalog: Babel's JavaScript
extractor skips a call nested in another's arguments and loses its way after a
template literal inside a template literal, so each ``t``, ``tn``, ``tp`` and ``tnp``
call of ``client/web/js`` is read here on its own and looked for in what
``catalogs.tool`` extracts. Message ids are string literals (docs/web.md,
"Languages")."""

from __future__ import annotations

import json
import re
from pathlib import Path

from catalogs.tool import REPOSITORY, extract

SCRIPTS = REPOSITORY / "client" / "web" / "js"
STRING = r'"((?:[^"\\\n]|\\.)*)"'
CALL = re.compile(r"(?<![\w.$])(?<!function )(tnp|tn|tp|t)\(")
# Comments name the functions too ("tp("token", "red") is …"): they are not calls.
COMMENTS = re.compile(r"/\*.*?\*/|^\s*//[^\n]*", re.DOTALL | re.MULTILINE)

Key = tuple[str | None, str]


def literal(text: str) -> str:
    decoded: str = json.loads(f'"{text}"')
    return decoded


def marked_calls(path: Path) -> tuple[set[Key], list[str]]:
    """The (context, msgid) of every marking call of a script, and the calls whose
    message id is not a string literal."""
    source = COMMENTS.sub(lambda c: "\n" * c.group().count("\n"), path.read_text())
    keys: set[Key] = set()
    odd: list[str] = []
    for call in CALL.finditer(source):
        rest = source[call.end() :]
        line = source.count("\n", 0, call.start()) + 1
        if call.group(1) in ("t", "tn"):
            found = re.match(STRING, rest)
            if found:
                keys.add((None, literal(found.group(1))))
                continue
        else:
            found = re.match(STRING + r",\s*" + STRING, rest)
            if found:
                keys.add((literal(found.group(1)), literal(found.group(2))))
                continue
        odd.append(f"{path.name}:{line}: {rest[:60]!r}")
    return keys, odd


def test_every_marked_message_of_the_page_is_extracted() -> None:
    """Each literal t/tn/tp/tnp call of client/web/js/*.js is in the extracted page catalog, and every call has literal ids."""
    catalog = extract("page")
    extracted: set[Key] = set()
    for message in catalog:
        if message.id:
            msgid = message.id[0] if isinstance(message.id, tuple) else message.id
            extracted.add((message.context, msgid))
    wanted: dict[Key, str] = {}
    odd: list[str] = []
    for path in sorted(SCRIPTS.glob("*.js")):
        keys, calls = marked_calls(path)
        odd += calls
        wanted |= {key: path.name for key in keys}
    assert odd == [], "message ids that are not string literals:\n" + "\n".join(odd)
    missing = sorted(f"{wanted[key]}: {key}" for key in set(wanted) - extracted)
    assert missing == [], "marked but not extracted:\n" + "\n".join(missing)
    assert len(wanted) > 800  # the page's messages were found at all
