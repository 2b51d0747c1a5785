"""``python -m catalogs.tool``: the check finds every kind of incomplete or unsound
catalog, and the catalogs of the repository are in line with its sources."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from babel.messages.catalog import Catalog

from catalogs import DOMAINS
from catalogs.languages import plural_forms_header
from catalogs.tool import REPOSITORY, check_catalog, extract, message_keys
from catalogs.translations import read_catalog, template_path

PO_HEAD = """msgid ""
msgstr ""
"Language: {lang}\\n"
"Plural-Forms: {plural}\\n"
"Content-Type: text/plain; charset=utf-8\\n"

"""


def template() -> Catalog:
    catalog = Catalog(fuzzy=False)
    catalog.add("You hold {n} tokens.")
    catalog.add(("{n} token", "{n} tokens"))
    catalog.add("red", context="token")
    return catalog


def po(tmp_path: Path, lang: str, body: str) -> Path:
    path = tmp_path / f"{lang}.po"
    path.write_text(PO_HEAD.format(lang=lang, plural=plural_forms_header(lang)) + body)
    return path


COMPLETE_PL = """msgid "You hold {n} tokens."
msgstr "Masz {n} żetonów."

msgid "{n} token"
msgid_plural "{n} tokens"
msgstr[0] "{n} żeton"
msgstr[1] "{n} żetony"
msgstr[2] "{n} żetonów"
msgstr[3] "{n} żetonu"

msgctxt "token"
msgid "red"
msgstr "czerwony"
"""


def test_a_complete_catalog_has_no_problem(tmp_path: Path) -> None:
    """Every message translated, four Polish plural forms, placeholders kept: clean."""
    assert check_catalog(po(tmp_path, "pl", COMPLETE_PL), "pl", template()) == []


def test_missing_empty_fuzzy_and_obsolete_entries_are_found(tmp_path: Path) -> None:
    """A message absent, one left empty, one fuzzy and one the template lacks are
    each reported."""
    body = """msgid "You hold {n} tokens."
msgstr ""

#, fuzzy
msgctxt "token"
msgid "red"
msgstr "czerwony"

msgid "Gone"
msgstr "Nie ma"

#~ msgid "Older"
#~ msgstr "Starsze"
"""
    problems = check_catalog(po(tmp_path, "pl", body), "pl", template())
    text = "\n".join(problems)
    assert "'You hold {n} tokens.': not translated" in text
    assert "'red' (context 'token') is fuzzy" in text
    assert "'Gone' is not in the template" in text
    assert "obsolete entry msgid 'Older'" in text
    assert "'{n} token' is missing" in text


def test_placeholders_added_or_dropped_are_found(tmp_path: Path) -> None:
    """A translation that drops {n}, or names a placeholder the msgid lacks, is
    reported."""
    body = COMPLETE_PL.replace("Masz {n} żetonów.", "Masz {count} żetonów.").replace(
        'msgstr[1] "{n} żetony"', 'msgstr[1] "{n} {kolor} żetony"'
    )
    problems = "\n".join(check_catalog(po(tmp_path, "pl", body), "pl", template()))
    assert "placeholder {count} is not in the msgid" in problems
    assert "placeholder {n} is dropped" in problems
    assert "placeholder {kolor} is not in the msgid" in problems


def test_a_wrong_number_of_plural_forms_is_found(tmp_path: Path) -> None:
    """Polish needs four forms: a catalog with Plural-Forms of two, and an entry of
    two forms, are both reported."""
    body = COMPLETE_PL.replace('msgstr[2] "{n} żetonów"\nmsgstr[3] "{n} żetonu"\n', "")
    path = tmp_path / "pl.po"
    path.write_text(PO_HEAD.format(lang="pl", plural="nplurals=2; plural=(n != 1);") + body)
    problems = "\n".join(check_catalog(path, "pl", template()))
    assert "Plural-Forms says 2 forms, CLDR has 4" in problems
    assert "2 plural forms, pl has 4" in problems


def test_english_may_leave_msgstrs_empty(tmp_path: Path) -> None:
    """The source language's msgids are its text: empty msgstrs are no problem."""
    body = """msgid "You hold {n} tokens."
msgstr ""

msgid "{n} token"
msgid_plural "{n} tokens"
msgstr[0] ""
msgstr[1] ""

msgctxt "token"
msgid "red"
msgstr ""
"""
    assert check_catalog(po(tmp_path, "en", body), "en", template()) == []


def test_the_templates_hold_what_the_sources_mark() -> None:
    """catalogs/*.pot list exactly the messages extract finds in the sources now (run
    ``python -m catalogs.tool extract`` after marking a string)."""
    for domain in DOMAINS:
        assert message_keys(read_catalog(template_path(domain))) == message_keys(extract(domain))


def test_the_tool_runs_from_the_command_line() -> None:
    """``python -m catalogs.tool compile`` reads every catalog and reports them."""
    done = subprocess.run(
        [sys.executable, "-m", "catalogs.tool", "compile"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
    )
    assert " pl server" in done.stdout and " fa page" in done.stdout
