"""What catalogs/languages.py says of each language: direction, plural forms in the
order of the .po files, and how a request's wishes pick a language."""

from __future__ import annotations

import gettext

import pytest

from catalogs import LANGUAGES, PSEUDO, known_language, negotiate, plural_categories
from catalogs.languages import accept_language, plural_forms_header, plural_index, text_direction
from catalogs.pseudo import pseudo


def test_only_persian_is_written_right_to_left() -> None:
    """fa is rtl; the other languages and the pseudo-locale are ltr."""
    assert {lang: text_direction(lang) for lang in (*LANGUAGES, PSEUDO)} == {
        "en": "ltr",
        "es": "ltr",
        "pl": "ltr",
        "el": "ltr",
        "is": "ltr",
        "fa": "rtl",
        PSEUDO: "ltr",
    }


def test_plural_categories_follow_cldr_in_gettext_order() -> None:
    """Polish has one, few, many and other, in that order; Spanish one, many, other."""
    assert plural_categories("pl") == ("one", "few", "many", "other")
    assert plural_categories("es") == ("one", "many", "other")
    assert plural_categories("en") == ("one", "other")
    assert plural_categories(PSEUDO) == ("one", "other")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_po_header_picks_the_form_cldr_picks(lang: str) -> None:
    """The Plural-Forms expression written into the .po files gives, for every whole
    number, the index of the category Babel's CLDR rule gives (what the server and
    the page use)."""
    header = plural_forms_header(lang)
    count = int(header.split("nplurals=")[1].split(";")[0])
    assert count == len(plural_categories(lang))
    expression = header.split("plural=", 1)[1].rstrip().rstrip(";")
    pick = gettext.c2py(expression)
    assert [pick(n) for n in range(2000)] == [plural_index(lang, n) for n in range(2000)]


def test_polish_plural_indexes() -> None:
    """1 is one, 2-4 few, 5-21 many, 22 few again."""
    assert [plural_index("pl", n) for n in (1, 2, 4, 5, 12, 21, 22, 25)] == [0, 1, 1, 2, 2, 2, 1, 2]


def test_a_tag_names_a_language_of_ours_or_nothing() -> None:
    """Tags match whatever their case and region; unknown ones name nothing."""
    assert known_language("pl") == "pl"
    assert known_language("PL-pl") == "pl"
    assert known_language("es_MX") == "es"
    assert known_language("en-xa") == PSEUDO
    assert known_language("de") is None
    assert known_language("") is None
    assert known_language(None) is None


def test_accept_language_is_read_by_quality() -> None:
    """Higher q first, ties in the header's order, q=0 left out, junk tolerated."""
    header = "de;q=0.5, pl-PL, fr;q=0, el;q=0.9, en;q=oops, is"
    assert accept_language(header) == ["pl-PL", "is", "el", "de"]
    assert accept_language(None) == []


def test_negotiation_takes_the_first_known_choice_then_the_header() -> None:
    """?lang= beats the cookie, the cookie beats the account, and all of them beat
    Accept-Language; unknown values are passed over; English is the last resort."""
    assert negotiate("es", "pl", "el", accept="is") == "es"
    assert negotiate(None, "pl", "el", accept="is") == "pl"
    assert negotiate("klingon", None, "el", accept="is") == "el"
    assert negotiate(None, None, None, accept="de, fa-IR;q=0.8, en;q=0.1") == "fa"
    assert negotiate("xx", accept="de, fr") == "en"
    assert negotiate(accept=None) == "en"


def test_the_pseudo_locale_is_not_negotiated_from_the_header() -> None:
    """en-XA is reached by name only (?lang=, the cookie), never from Accept-Language."""
    assert negotiate(accept="en-XA") == "en"
    assert negotiate("en-XA") == PSEUDO


def test_pseudo_strings_keep_placeholders_and_markup() -> None:
    """Letters are accented and the string bracketed; {name}, tags and entities stay."""
    assert pseudo("Take three") == "⟦Ŧåķę ŧĥřęę⟧"
    assert pseudo("{n} <b>red</b> &amp; {color}") == "⟦{n} <b>řęđ</b> &amp; {color}⟧"
