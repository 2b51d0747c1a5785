"""The message catalogs of the server and the page, and what reads them.

``catalogs/server.pot`` and ``catalogs/page.pot`` are the templates extracted from the
sources (``python -m catalogs.tool extract``); ``catalogs/<lang>/LC_MESSAGES/`` holds
each language's ``server.po`` and ``page.po``. The server reads the ``.po`` files
themselves when it starts (``translations``): there is no compiled ``.mo`` file and no
build step. docs/languages.md tells how to add or translate a language.
"""

from __future__ import annotations

from catalogs.languages import (
    DOMAINS,
    LANGUAGES,
    PSEUDO,
    SOURCE,
    Domain,
    known_language,
    negotiate,
    plural_categories,
    plural_index,
    text_direction,
)
from catalogs.translations import Translations, page_catalog, translations

__all__ = [
    "DOMAINS",
    "LANGUAGES",
    "PSEUDO",
    "SOURCE",
    "Domain",
    "Translations",
    "known_language",
    "negotiate",
    "page_catalog",
    "plural_categories",
    "plural_index",
    "text_direction",
    "translations",
]
