"""The page's JSON Patch module (client/web/js/patch.js) against RFC 6902's examples
and jsonpatch's results on real view diffs, run in Chromium."""

from __future__ import annotations

import json

import jsonpatch
from playwright.sync_api import Browser, BrowserContext

from tests.browser.conftest import ServerProcess
from tests.patch_cases import RFC_CASES

APPLY = """async ([doc, patch]) => {
  const { applyPatch } = await import('/js/patch.js');
  const before = JSON.stringify(doc);
  try {
    const result = applyPatch(doc, patch);
    if (JSON.stringify(doc) !== before) return { mutated: true };
    return { result };
  } catch (e) {
    return { error: String(e) };
  }
}"""


def test_patch_module_follows_rfc_6902_and_matches_jsonpatch(
    browser: Browser, contexts: list[BrowserContext], server: ServerProcess
) -> None:
    """applyPatch gives RFC 6902's results, fails where the RFC fails, never mutates its input, and agrees with jsonpatch on diffs of views."""
    context = browser.new_context()
    contexts.append(context)
    page = context.new_page()
    page.goto(f"{server.base}/#/")
    for doc, patch, expected in RFC_CASES:
        answer = page.evaluate(APPLY, [doc, patch])
        if expected is None:
            assert "error" in answer, (patch, answer)
        else:
            assert answer == {"result": expected}, (patch, answer)

    # Views of a real game: the patch jsonpatch makes between two views, applied in the page.
    game = json.loads(
        '{"bank": {"white": 4, "gold": 5}, "board": {"1": ["1-07", "1-22", null]},'
        ' "players": [{"seat": 0, "reserved": [{"card": "2-04"}], "cards": []}], "legal": [1, 2]}'
    )
    later = json.loads(
        '{"bank": {"white": 3, "gold": 4}, "board": {"1": ["1-07", "1-30", null]},'
        ' "players": [{"seat": 0, "reserved": [{"card": "2-04"}, {"level": 3}], "cards": ["1-22"]}],'
        ' "legal": [], "result": null}'
    )
    patch = jsonpatch.make_patch(game, later).patch
    assert page.evaluate(APPLY, [game, patch]) == {"result": later}
