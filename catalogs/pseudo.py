"""The pseudo-locale's strings: every letter of the English accented and the whole
bracketed (``Take three`` -> ``⟦Ŧåķę ŧĥřęę⟧``), placeholders (``{name}``) and markup
(``<b>``, ``&amp;``) kept as they are, so that the page and the server still fill and
show them, while any text that did not come through a catalog stays plain and stands
out."""

from __future__ import annotations

import re
from typing import Final

OPEN: Final = "⟦"
CLOSE: Final = "⟧"

_LETTERS: Final = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "åƀçđęƒĝĥīĵķļɱñøþɋřšŧůṽŵẋýžÅƁÇĐĘƑĜĤĪĴĶĻṀÑØÞɊŘŠŦŮṼŴẊÝŽ",
)
# What must reach the reader unchanged: a placeholder, a tag, an entity.
_KEPT: Final = re.compile(r"\{[^{}]*\}|<[^<>]*>|&[#\w]+;")


def pseudo(text: str) -> str:
    """``text`` in the pseudo-locale."""
    out: list[str] = []
    last = 0
    for kept in _KEPT.finditer(text):
        out.append(text[last : kept.start()].translate(_LETTERS))
        out.append(kept.group())
        last = kept.end()
    out.append(text[last:].translate(_LETTERS))
    return f"{OPEN}{''.join(out)}{CLOSE}"
