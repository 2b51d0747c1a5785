"""``python -m catalogs.tool extract|update|check|compile``: the catalogs' life cycle,
over Babel's API, run from a checkout of the repository.

- ``extract``: the marked strings of the sources, as ``babel.cfg`` maps them, into
  ``catalogs/server.pot`` (Python: the server, the rules' refusal templates, the
  terminal client) and ``catalogs/page.pot`` (the page's JavaScript).
- ``update``: each language's ``server.po`` and ``page.po`` brought in line with the
  templates (created when missing; English's msgstrs filled with the msgids).
- ``check``: fails (exit 1) on a template older than the sources, or on a message
  missing, empty, fuzzy or obsolete in any language, a placeholder (``{name}``) that a
  translation adds or drops, a wrong number of plural forms, or what Babel's own
  checks find.
- ``compile``: reads every catalog as the server does when it starts (there is nothing
  to write: the server holds the ``.po`` files in memory) and says how much of each
  is translated.

docs/languages.md tells when to run which.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from babel import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import write_po

from catalogs.languages import (
    DOMAINS,
    LANGUAGES,
    SOURCE,
    Domain,
    plural_categories,
    plural_forms_header,
)
from catalogs.translations import po_path, read_catalog, template_path, translated

PROJECT: Final = "splendor-live"
VERSION: Final = "1"
BUGS: Final = "the project's issues"
REPOSITORY: Final = Path(__file__).resolve().parent.parent
MAPPING: Final = REPOSITORY / "babel.cfg"
COMMENT_TAGS: Final = ("Translators:",)

# The marking calls of each domain (docs/languages.md). ``N_`` marks without
# translating: ``N_(msgid)``, or ``N_(singular, plural, count_arg)`` for a plural
# template whose number is the argument ``count_arg``; ``NP_(context, msgid)`` marks
# a message with a context.
KEYWORDS: Final[dict[Domain, dict[str, Any]]] = {
    "server": {
        "_": None,
        # By their number of arguments (a trailing comma counts as one more): None
        # would match every call as well.
        "N_": {1: (1,), 2: (1,), 3: (1, 2), 4: (1, 2)},
        "NP_": {2: ((1, "c"), 2), 3: ((1, "c"), 2), 4: ((1, "c"), 2, 3), 5: ((1, "c"), 2, 3)},
        "ngettext": (1, 2),
        "pgettext": ((1, "c"), 2),
        "npgettext": ((1, "c"), 2, 3),
    },
    "page": {
        "t": None,
        "tn": (1, 2),
        "tp": ((1, "c"), 2),
        "tnp": ((1, "c"), 2, 3),
    },
}
METHOD_DOMAIN: Final[dict[str, Domain]] = {"python": "server", "javascript": "page"}
PLACEHOLDER: Final = re.compile(r"\{(\w+)\}")


# ---------------------------------------------------------------------- extract


def extract(domain: Domain) -> Catalog:
    """The template of ``domain``: every marked string of its sources."""
    with MAPPING.open() as f:
        # Babel's parser of babel.cfg has no annotations; it returns the lists it documents.
        method_map, options_map = parse_mapping_cfg(f, str(MAPPING))  # type: ignore[no-untyped-call]
    methods = [(pattern, method) for pattern, method in method_map if _domain(method) == domain]
    catalog = Catalog(
        project=PROJECT,
        version=VERSION,
        msgid_bugs_address=BUGS,
        charset="utf-8",
        fuzzy=False,
        header_comment=f"# The {domain} messages of {PROJECT}: docs/languages.md.",
    )
    if not methods:
        return catalog
    found = extract_from_dir(
        REPOSITORY,
        methods,
        options_map,
        keywords=KEYWORDS[domain],
        comment_tags=COMMENT_TAGS,
        strip_comment_tags=True,
    )
    for filename, lineno, message, comments, context in found:
        catalog.add(
            message,
            None,
            [(Path(filename).as_posix(), lineno)],
            auto_comments=comments,
            context=context,
        )
    return catalog


def _domain(method: str) -> Domain | None:
    return METHOD_DOMAIN.get(method.rpartition(":")[2])


def write_template(domain: Domain, catalog: Catalog) -> bool:
    """Write the template unless only its date would change; whether it was written."""
    path = template_path(domain)
    if path.is_file():
        old = read_catalog(path)
        if message_keys(old) == message_keys(catalog) and _bodies(old) == _bodies(catalog):
            return False
    catalog.creation_date = datetime.now(UTC)
    _write(path, catalog)
    return True


# ---------------------------------------------------------------------- update


def update(lang: str, domain: Domain) -> bool:
    """Bring ``lang``'s catalog of ``domain`` in line with the template (create it if
    missing); whether it changed. Entries the template dropped are removed, not kept
    as obsolete: git keeps them."""
    template = read_catalog(template_path(domain))
    path = po_path(lang, domain)
    if path.is_file():
        catalog = read_catalog(path, lang)
        before = _snapshot(catalog)
    else:
        catalog = Catalog(
            locale=lang,
            domain=domain,
            project=PROJECT,
            version=VERSION,
            msgid_bugs_address=BUGS,
            language_team=Locale.parse(lang).english_name,
            last_translator="",
            charset="utf-8",
            header_comment=f"# The {domain} messages of {PROJECT} in {lang}: docs/languages.md.",
        )
        catalog.fuzzy = False
        catalog.revision_date = datetime.now(UTC)
        before = None
    catalog.mime_headers = [("Plural-Forms", plural_forms_header(lang))]
    catalog.update(template, update_creation_date=False)
    catalog.obsolete.clear()
    if lang == SOURCE:
        for message in catalog:
            if message.id:
                message.string = message.id
                message.flags.discard("fuzzy")
    if before is not None and _snapshot(catalog) == before:
        return False
    catalog.creation_date = template.creation_date
    path.parent.mkdir(parents=True, exist_ok=True)
    _write(path, catalog)
    return True


def _snapshot(catalog: Catalog) -> list[tuple[Any, ...]]:
    return [
        (m.id, m.context, m.string, sorted(m.flags), m.auto_comments, m.locations) for m in catalog
    ] + [("plural-forms", catalog.plural_forms)]


def _write(path: Path, catalog: Catalog) -> None:
    out = io.BytesIO()
    write_po(out, catalog, sort_output=True, include_lineno=False, ignore_obsolete=True)
    path.write_bytes(out.getvalue())


def message_keys(catalog: Catalog) -> set[tuple[Any, str | None]]:
    """Each message of the catalog as (msgid or (singular, plural), context)."""
    return {(_id(m), m.context) for m in catalog if m.id}


def _bodies(catalog: Catalog) -> set[tuple[Any, ...]]:
    """What the template says of each message (its files, not their lines: the
    templates carry no line numbers, which would change with every edit)."""
    return {
        (_id(m), m.context, tuple(m.auto_comments), tuple(sorted({f for f, _ in m.locations})))
        for m in catalog
    }


def _id(message: Message) -> Any:
    return tuple(message.id) if isinstance(message.id, list | tuple) else message.id


# ---------------------------------------------------------------------- check


def check(languages: Sequence[str] = LANGUAGES) -> list[str]:
    """Every problem of the catalogs, one line each (none: all complete and sound)."""
    problems: list[str] = []
    for domain in DOMAINS:
        path = template_path(domain)
        if not path.is_file():
            problems.append(f"{_shown(path)}: missing; run python -m catalogs.tool extract")
            continue
        template = read_catalog(path)
        if message_keys(template) != message_keys(extract(domain)):
            problems.append(
                f"{_shown(path)}: older than the sources; run python -m catalogs.tool "
                "extract, then update"
            )
        for lang in languages:
            problems += check_catalog(po_path(lang, domain), lang, template)
    return problems


def check_catalog(path: Path, lang: str, template: Catalog) -> list[str]:
    """The problems of one language's catalog (the ``.po`` file at ``path``) against
    its template."""
    where = _shown(path)
    if not path.is_file():
        return [f"{where}: missing; run python -m catalogs.tool update"]
    catalog = read_catalog(path, lang)
    problems: list[str] = []
    forms = len(plural_categories(lang))
    if catalog.num_plurals != forms:
        problems.append(
            f"{where}: Plural-Forms says {catalog.num_plurals} forms, CLDR has {forms}"
            f" ({', '.join(plural_categories(lang))}); run python -m catalogs.tool update"
        )
    wanted = message_keys(template)
    for message in catalog.obsolete.values():
        problems.append(f"{where}: obsolete entry {_name(message)}")
    for message in catalog:
        if not message.id:
            continue
        name = _name(message)
        if (_id(message), message.context) not in wanted:
            problems.append(f"{where}: {name} is not in the template (obsolete)")
            continue
        if message.fuzzy:
            problems.append(f"{where}: {name} is fuzzy")
        problems += [f"{where}: {name}: {p}" for p in _entry_problems(message, lang, forms)]
    present = message_keys(catalog)
    problems += [
        f"{where}: {_name(m)} is missing; run python -m catalogs.tool update"
        for m in template
        if m.id and (_id(m), m.context) not in present
    ]
    for message, errors in catalog.check():
        problems += [f"{where}: {_name(message)}: {error}" for error in errors]
    return problems


def _entry_problems(message: Message, lang: str, forms: int) -> Iterable[str]:
    ids = list(message.id) if isinstance(message.id, list | tuple) else [message.id]
    strings = (
        list(message.string or ())
        if isinstance(message.string, list | tuple)
        else [message.string or ""]
    )
    if len(ids) > 1 and len(strings) != forms:
        yield f"{len(strings)} plural forms, {lang} has {forms}"
    if not all(strings):
        if lang != SOURCE:  # English may leave a msgstr empty: its msgid is the text
            yield "not translated"
        return
    allowed = set().union(*(_placeholders(i) for i in ids))
    for string in strings:
        have = _placeholders(string)
        if have - allowed:
            yield f"placeholder {{{', '.join(sorted(have - allowed))}}} is not in the msgid"
        if len(ids) == 1 and allowed - have:
            yield f"placeholder {{{', '.join(sorted(allowed - have))}}} is dropped"


def _placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def _name(message: Message) -> str:
    first = message.id[0] if isinstance(message.id, list | tuple) else message.id
    context = f" (context {message.context!r})" if message.context else ""
    return f"msgid {first!r}{context}"


def _shown(path: Path) -> str:
    try:
        return path.relative_to(REPOSITORY).as_posix()
    except ValueError:
        return str(path)


# ---------------------------------------------------------------------- compile


def compile_report() -> list[str]:
    """One line per catalog: its translated messages out of the template's."""
    lines = []
    for domain in DOMAINS:
        template = read_catalog(template_path(domain))
        total = len(message_keys(template))
        for lang in LANGUAGES:
            path = po_path(lang, domain)
            done = len(translated(read_catalog(path, lang))) if path.is_file() else 0
            lines.append(f"{lang:>3} {domain:<6} {done:>5} / {total}")
    return lines


# ---------------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m catalogs.tool", description=__doc__)
    parser.add_argument("command", choices=["extract", "update", "check", "compile"])
    parser.add_argument(
        "--lang", action="append", choices=LANGUAGES, help="only these languages (repeatable)"
    )
    args = parser.parse_args(argv)
    languages: Sequence[str] = args.lang or LANGUAGES
    if args.command == "extract":
        for domain in DOMAINS:
            catalog = extract(domain)
            written = write_template(domain, catalog)
            state = "written" if written else "unchanged"
            print(f"{_shown(template_path(domain))}: {len(catalog)} messages, {state}")
    elif args.command == "update":
        for domain in DOMAINS:
            for lang in languages:
                changed = update(lang, domain)
                print(f"{_shown(po_path(lang, domain))}: {'updated' if changed else 'unchanged'}")
    elif args.command == "check":
        problems = check(languages)
        for problem in problems:
            print(problem)
        if problems:
            print(f"{len(problems)} problems", file=sys.stderr)
            return 1
        print(f"catalogs complete: {', '.join(languages)}")
    else:
        for line in compile_report():
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
