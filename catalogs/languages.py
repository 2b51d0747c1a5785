"""The languages the project speaks and what Babel's CLDR data says about each: its
writing direction, its plural categories, and how a request's wishes pick one.

Plural forms follow CLDR, in the order Babel's ``to_gettext`` numbers them (zero, one,
two, few, many, other: the categories the language has, ``other`` always last). A
``.po`` file's ``Plural-Forms`` header states the same order as a C expression for
gettext's tools, and the page gets the categories' names with its catalog, so the
server (Babel's plural rule) and the browser (``Intl.PluralRules``) pick the same form.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import cache
from typing import Final, Literal

from babel import Locale
from babel.core import negotiate_locale
from babel.lists import format_list as babel_format_list
from babel.numbers import format_decimal
from babel.plural import to_gettext

Domain = Literal["server", "page"]

LANGUAGES: Final = ("en", "es", "pl", "el", "is", "fa")
"""The languages of the menu, the source language (its msgids are English) first."""
SOURCE: Final = "en"
PSEUDO: Final = "en-XA"
"""The pseudo-locale: English made strange (``⟦Ŧåķę ŧĥřęę⟧``), so that a string that
escaped the catalogs stands out. Reached with ``?lang=en-XA``; not in the menu."""
DOMAINS: Final[tuple[Domain, ...]] = ("server", "page")

_PLURAL_ORDER: Final = ("zero", "one", "two", "few", "many", "other")
# The digits of the numbering systems our languages use by default. Babel knows each
# locale's numbering system and its separators, not its digits; Persian's are arabext.
_DIGITS: Final = {
    "arab": str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"),
    "arabext": str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹"),
}
# English lists have no serial comma here ("a, b and c"), as on the page: CLDR's
# en-GB patterns.
_LIST_LOCALE: Final = {"en": "en_GB"}
_CHOOSABLE: Final = (*LANGUAGES, PSEUDO)
_MOST_WISHES: Final = 32  # entries of an Accept-Language header read, at most


def locale_of(lang: str) -> Locale:
    """Babel's locale for a language of ours (the pseudo-locale is English's)."""
    return Locale.parse(SOURCE if lang == PSEUDO else lang)


@cache
def text_direction(lang: str) -> Literal["ltr", "rtl"]:
    return "rtl" if locale_of(lang).text_direction == "rtl" else "ltr"


@cache
def plural_categories(lang: str) -> tuple[str, ...]:
    """The CLDR plural categories of ``lang`` in the order of the gettext plural
    indexes, e.g. ``("one", "few", "many", "other")`` for Polish."""
    tags = locale_of(lang).plural_form.tags
    return tuple(tag for tag in _PLURAL_ORDER if tag in tags or tag == "other")


def plural_index(lang: str, n: float) -> int:
    """The index of the plural form for the number ``n`` (what CLDR's rule picks)."""
    categories = plural_categories(lang)
    category = locale_of(lang).plural_form(abs(n))
    return categories.index(category) if category in categories else len(categories) - 1


def plural_forms_header(lang: str) -> str:
    """The ``Plural-Forms`` header of ``lang``'s ``.po`` files: Babel's expression of the
    CLDR rule for whole numbers. Its ``e`` (a compact number's exponent) is always 0 for
    them, and gettext's tools do not know that operand, so it is written as 0."""
    header = to_gettext(locale_of(lang).plural_form)
    return re.sub(r"\be\b", "0", header)


def format_number(lang: str, n: float) -> str:
    """``n`` in the language's digits and decimal sign, without grouping (``1500``,
    ``2,5`` in Polish, Persian digits in Persian), as the page's ``formatNumber`` writes it."""
    locale = locale_of(lang)
    if isinstance(n, int) or (math.isfinite(n) and n == int(n)):
        # A whole number is its digits (no grouping), however long: Babel's decimal
        # arithmetic stops at 28 digits, and a request may send more.
        text = str(int(n))
    else:
        text = format_decimal(n, locale=locale, group_separator=False, numbering_system="default")
    digits = _DIGITS.get(locale.default_numbering_system)
    return text.translate(digits) if digits else text


def format_list(lang: str, parts: Sequence[str]) -> str:
    """``parts`` as a list in the language's words: ``a, b and c``, ``a, b i c``."""
    if len(parts) <= 1:
        return "".join(parts)
    base = SOURCE if lang == PSEUDO else lang
    return babel_format_list(list(parts), locale=_LIST_LOCALE.get(base, base))


def known_language(value: str | None) -> str | None:
    """The language of ours a tag names (``pl``, ``PL-pl``, ``en-xa``), or None."""
    if not value:
        return None
    found = negotiate_locale([value.replace("_", "-")], _CHOOSABLE, sep="-", aliases={})
    return _canonical(found)


def accept_language(header: str | None) -> list[str]:
    """The language tags of an ``Accept-Language`` header, most wanted first (a tag
    with ``q=0`` is not wanted at all; ties keep the header's order)."""
    wishes: list[tuple[float, int, str]] = []
    for position, part in enumerate((header or "").split(",")[:_MOST_WISHES]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and quality > 0:
            wishes.append((-quality, position, tag.strip()))
    return [tag for _, _, tag in sorted(wishes)]


def negotiate(*choices: str | None, accept: str | None = None) -> str:
    """The language to answer in: the first of ``choices`` (most binding first: the
    URL's ``?lang=``, the cookie, the account's) that is a language of ours, else the
    best of the ``Accept-Language`` header ``accept``, else English."""
    for choice in choices:
        lang = known_language(choice)
        if lang is not None:
            return lang
    found = negotiate_locale(accept_language(accept), LANGUAGES, sep="-", aliases={})
    return _canonical(found) or SOURCE


def _canonical(found: str | None) -> str | None:
    if found is None:
        return None
    lowered = found.lower()
    return next((lang for lang in _CHOOSABLE if lang.lower() == lowered), None)
