"""The sentence of a reason in a reader's language: ``events.reasons.render`` with the
words of the ``server`` catalog (docs/languages.md). Only the edge calls it, once it
knows whom it answers: the HTTP error handlers, the websockets' error messages."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final

from catalogs import translations
from catalogs.languages import format_list, format_number
from events.reasons import NP_, Reason, Template, render
from server.common.reasons import template_of

# The words reason arguments are written with, marked for the catalog: a token's
# colour, a count of tokens of one colour, a game's status.
TOKEN_NAMES: Final = (
    NP_("token", "white"),
    NP_("token", "blue"),
    NP_("token", "green"),
    NP_("token", "red"),
    NP_("token", "black"),
    NP_("token", "gold"),
    NP_("token", "pearl"),
)
TOKEN_COUNTS: Final = (
    NP_("token", "{n} white", "{n} white", "n"),
    NP_("token", "{n} blue", "{n} blue", "n"),
    NP_("token", "{n} green", "{n} green", "n"),
    NP_("token", "{n} red", "{n} red", "n"),
    NP_("token", "{n} black", "{n} black", "n"),
    NP_("token", "{n} gold", "{n} gold", "n"),
    NP_("token", "{n} pearl", "{n} pearl", "n"),
)
STATUS_NAMES: Final = (
    NP_("status", "open"),
    NP_("status", "live"),
    NP_("status", "finished"),
    NP_("status", "aborted"),
)


class CatalogWords:
    """One language's words for ``events.reasons.render``, from its server catalog."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.catalog = translations(lang, "server")

    def template(self, template: Template, count: float | None) -> str:
        if template.plural is None:
            return self.catalog.gettext(template.singular)
        n = 2 if count is None else count
        return self.catalog.ngettext(template.singular, template.plural, n)

    def term(self, context: str, word: str) -> str:
        return self.catalog.pgettext(context, word)

    def tokens(self, color: str, n: int) -> str:
        msgid = f"{{n}} {color}"
        return self.catalog.npgettext("token", msgid, msgid, n).format(n=self.number(n))

    def number(self, n: float) -> str:
        return format_number(self.lang, n)

    def join(self, parts: Sequence[str]) -> str:
        return format_list(self.lang, parts)


@cache
def words(lang: str) -> CatalogWords:
    return CatalogWords(lang)


def sentence(reason: Reason, lang: str) -> str:
    """What ``reason`` says in ``lang`` (English for a message the catalog lacks)."""
    return render(template_of(reason.key), reason.args, words(lang))
