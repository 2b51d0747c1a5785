"""The table talk's presets (PROTOCOL.md "Table talk"): client/web/js/chat_presets.js
names exactly the protocol's six, each a message of the page catalog in the context
"chat", and every language's catalog as the page receives it (``GET
/i18n/{lang}.json``) translates each one, so no reader sees a preset in English
unless the page is English."""

from __future__ import annotations

import re

import msgspec

from catalogs.languages import LANGUAGES, SOURCE
from catalogs.tool import REPOSITORY
from catalogs.translations import CONTEXT_SEPARATOR, page_catalog

SCRIPT = REPOSITORY / "client" / "web" / "js" / "chat_presets.js"
PROTOCOL_PRESETS = ["hello", "good_luck", "well_played", "thanks", "good_game", "rematch?"]


def script_presets() -> tuple[list[str], dict[str, str]]:
    """The script's list of presets, and each case's message id."""
    source = SCRIPT.read_text()
    listed = re.search(r"export const PRESETS = \[(.*?)\];", source, re.S)
    assert listed, "chat_presets.js lists no PRESETS"
    keys = re.findall(r'"([^"]+)"', listed.group(1))
    cases = re.findall(r'case "([^"]+)":\s*(?://[^\n]*\s*)*return tp\("chat", "([^"]+)"\);', source)
    return keys, dict(cases)


def test_the_script_offers_the_protocols_presets_each_with_a_message() -> None:
    """chat_presets.js lists PROTOCOL.md's six presets in order, and gives each a message of its own in the context "chat"."""
    keys, messages = script_presets()
    assert keys == PROTOCOL_PRESETS
    assert sorted(messages) == sorted(PROTOCOL_PRESETS)
    assert len(set(messages.values())) == len(PROTOCOL_PRESETS)


def test_every_language_sends_the_page_every_preset_translated() -> None:
    """The page catalog of es, pl, el, is and fa (as /i18n/{lang}.json serves it) holds a translation of every preset, different from its English words."""
    _, messages = script_presets()
    for lang in LANGUAGES:
        if lang == SOURCE:
            continue
        served = msgspec.json.decode(page_catalog(lang).body)["messages"]
        for key, msgid in messages.items():
            label = served.get(f"chat{CONTEXT_SEPARATOR}{msgid}")
            assert isinstance(label, str) and label and label != msgid, (lang, key, label)
