"""One language's messages of one domain, read from its ``.po`` file with Babel, and
the page's catalog as ``GET /i18n/{lang}.json`` serves it.

A message the catalog lacks (missing, empty or fuzzy) falls back to its English
msgid, plural forms by English's rule; the pseudo-locale is made from the English
catalog's msgids on the fly (``catalogs.pseudo``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Final

import msgspec
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from catalogs.languages import (
    PSEUDO,
    SOURCE,
    Domain,
    plural_categories,
    plural_index,
    text_direction,
)
from catalogs.pseudo import pseudo

Entry = str | tuple[str, ...]
"""A translation: a string, or one string per plural form."""

CONTEXT_SEPARATOR: Final = "\x04"  # gettext's: a message's key is context EOT msgid


def root() -> Path:
    """The folder of the catalogs (inside the installed ``catalogs`` package)."""
    return Path(str(resources.files("catalogs")))


def template_path(domain: Domain) -> Path:
    return root() / f"{domain}.pot"


def po_path(lang: str, domain: Domain) -> Path:
    return root() / lang / "LC_MESSAGES" / f"{domain}.po"


def read_catalog(path: Path, lang: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=lang, abort_invalid=True)


def message_key(msgid: str, context: str | None) -> str:
    return f"{context}{CONTEXT_SEPARATOR}{msgid}" if context else msgid


def translated(catalog: Catalog) -> dict[str, Entry]:
    """The catalog's usable translations by key: not fuzzy, no form empty."""
    entries: dict[str, Entry] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, tuple | list):
            forms = tuple(message.string or ())
            if forms and all(forms):
                entries[message_key(message.id[0], message.context)] = forms
        elif isinstance(message.string, str) and message.string:
            entries[message_key(message.id, message.context)] = message.string
    return entries


def _pseudo_entries(catalog: Catalog) -> dict[str, Entry]:
    entries: dict[str, Entry] = {}
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, tuple | list):
            forms = tuple(pseudo(form) for form in message.id)
            entries[message_key(message.id[0], message.context)] = forms
        else:
            entries[message_key(message.id, message.context)] = pseudo(message.id)
    return entries


class Translations:
    """gettext's four calls over one language's messages of one domain."""

    def __init__(self, lang: str, entries: Mapping[str, Entry]) -> None:
        self.lang = lang
        self.entries = dict(entries)

    def gettext(self, msgid: str) -> str:
        return self.pgettext(None, msgid)

    def ngettext(self, singular: str, plural: str, n: float) -> str:
        return self.npgettext(None, singular, plural, n)

    def pgettext(self, context: str | None, msgid: str) -> str:
        found = self.entries.get(message_key(msgid, context))
        if isinstance(found, str):
            return found
        return found[0] if found else msgid

    def npgettext(self, context: str | None, singular: str, plural: str, n: float) -> str:
        found = self.entries.get(message_key(singular, context))
        if isinstance(found, tuple):
            index = plural_index(self.lang, n)
            return found[index] if index < len(found) else found[-1]
        return singular if n == 1 else plural


@cache
def translations(lang: str, domain: Domain) -> Translations:
    """The messages of ``lang`` (one of ours, or the pseudo-locale) in ``domain``,
    read once per process."""
    if lang == PSEUDO:
        return Translations(PSEUDO, _pseudo_entries(read_catalog(po_path(SOURCE, domain))))
    path = po_path(lang, domain)
    if not path.is_file():
        return Translations(lang, {})
    return Translations(lang, translated(read_catalog(path, lang)))


class PageCatalog(msgspec.Struct, frozen=True):
    """What ``GET /i18n/{lang}.json`` answers, and its ETag."""

    body: bytes
    etag: str


@cache
def page_catalog(lang: str) -> PageCatalog:
    """The page's catalog of ``lang``: ``{"lang", "dir", "plural_categories",
    "messages"}``, the messages keyed by msgid (``context\\u0004msgid`` with a
    context), a list of forms for a plural. Entries equal to their msgid are left
    out: the page falls back to the msgid anyway."""
    messages: dict[str, str | list[str]] = {}
    for key, entry in translations(lang, "page").entries.items():
        if isinstance(entry, tuple):
            messages[key] = list(entry)
        elif entry != key.rpartition(CONTEXT_SEPARATOR)[2]:
            messages[key] = entry
    body = msgspec.json.encode(
        {
            "lang": lang,
            "dir": text_direction(lang),
            "plural_categories": list(plural_categories(lang)),
            "messages": dict(sorted(messages.items())),
        }
    )
    return PageCatalog(body, f'"{hashlib.sha256(body).hexdigest()[:32]}"')
