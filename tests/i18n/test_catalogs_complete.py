"""Every language's catalogs are complete and sound: ``python -m catalogs.tool check``
finds nothing missing, fuzzy or obsolete and no placeholder out of place; and
docs/glossary.md names every term of the game in every language, each with its source."""

from __future__ import annotations

import re
import subprocess
import sys

from babel import Locale

from catalogs.languages import LANGUAGES, SOURCE
from catalogs.tool import REPOSITORY

GLOSSARY = REPOSITORY / "docs" / "glossary.md"
# A row's source: the rulebook, or chosen here; a listed term's row says more (the
# rulebook's own words quoted, or the reason for the choice).
SOURCE_CELL = re.compile(r"^(rulebook|chosen here)\b")
SOURCE_SAID = re.compile(r"^(rulebook\b.*[\"“„«»”].*|chosen here\b\W*\w.*)$")


def test_the_catalog_check_passes() -> None:
    """``python -m catalogs.tool check`` exits 0 for all six languages."""
    done = subprocess.run(
        [sys.executable, "-m", "catalogs.tool", "check"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def glossary_terms(text: str) -> list[str]:
    """The English terms the glossary lists at its top ("The English terms, as the
    catalogs' msgids have them: ..."): each item, and what its parenthesis lists ("gem
    (emerald, sapphire, ...)", "the colours (white, ...)") or names in Duel ("(jewel
    card in Duel)"); a parenthesis that describes ("the three decks of Duel") is not a
    term."""
    found = re.search(
        r"The English terms, as the catalogs' msgids have them: (.*?)\.\n\n", text, re.S
    )
    assert found, "the glossary lists no English terms"
    terms: list[str] = []
    for item, aside in re.findall(
        r"\s*([^,(]+?)\s*(?:\(([^)]*)\))?(?:,|$)", re.sub(r"\s+", " ", found.group(1))
    ):
        if not item.startswith("the "):
            terms.append(item)
        if "," in aside:
            terms += [a.strip() for a in aside.split(",")]
        elif aside.endswith(" in Duel"):
            terms.append(aside.removesuffix(" in Duel"))
    return terms


def section_rows(text: str, lang: str) -> list[list[str]]:
    """The table rows (cells) of the glossary's section of ``lang``, headed by the
    language's own name and its code."""
    name = Locale.parse(lang).get_display_name(lang) or lang
    heading = f"## {name[0].upper()}{name[1:]} ({lang})"
    assert heading in text, f"no section {heading!r}"
    body = text.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in body.splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in rows[2:]]


def test_the_glossary_names_every_term_in_every_language_with_its_source() -> None:
    """Each translated language's section of docs/glossary.md has a row for every term listed at its top (a row may name several, "a, b" or "a (Duel)"), each with a translation and its source: the rulebook quoted, or chosen here with a reason."""
    text = GLOSSARY.read_text()
    terms = glossary_terms(text)
    assert len(terms) >= 30 and "development card" in terms and "black" in terms, terms
    for lang in LANGUAGES:
        if lang == SOURCE:
            continue
        rows = section_rows(text, lang)
        named: set[str] = set()
        for cells in rows:
            assert len(cells) == 3 and all(cells), (lang, cells)
            assert SOURCE_CELL.match(cells[2]), (lang, cells)
            english = {p.strip() for p in re.split(r"[,;/]", re.sub(r"\(.*?\)", "", cells[0]))}
            if english & set(terms):
                assert SOURCE_SAID.match(cells[2]), (lang, cells)
            named |= english
        missing = [term for term in terms if term not in named]
        assert missing == [], (lang, missing)
