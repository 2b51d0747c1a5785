"""The page's JSON Patch module (client/web/js/patch.js) against RFC 6902's examples
and jsonpatch's results on real view diffs, run in Chromium."""

from __future__ import annotations

import json
from typing import Any

import jsonpatch
from playwright.sync_api import Browser, BrowserContext

from tests.browser.conftest import ServerProcess

# RFC 6902, appendix A: (document, patch, result or None when the patch must fail).
RFC_CASES: list[tuple[Any, list[dict[str, Any]], Any]] = [
    ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"baz": "qux", "foo": "bar"}),
    (
        {"foo": ["bar", "baz"]},
        [{"op": "add", "path": "/foo/1", "value": "qux"}],
        {"foo": ["bar", "qux", "baz"]},
    ),
    ({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    ({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]}),
    (
        {"baz": "qux", "foo": "bar"},
        [{"op": "replace", "path": "/baz", "value": "boo"}],
        {"baz": "boo", "foo": "bar"},
    ),
    (
        {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
        [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
        {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}},
    ),
    (
        {"foo": ["all", "grass", "cows", "eat"]},
        [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
        {"foo": ["all", "cows", "eat", "grass"]},
    ),
    (
        {"baz": "qux", "foo": ["a", 2, "c"]},
        [
            {"op": "test", "path": "/baz", "value": "qux"},
            {"op": "test", "path": "/foo/1", "value": 2},
        ],
        {"baz": "qux", "foo": ["a", 2, "c"]},
    ),
    ({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}], None),
    (
        {"foo": "bar"},
        [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
        {"foo": "bar", "child": {"grandchild": {}}},
    ),
    ({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}], None),
    (
        {"/": 9, "~1": 10},
        [{"op": "test", "path": "/~01", "value": 10}],
        {"/": 9, "~1": 10},
    ),
    (
        {"foo": ["bar"]},
        [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}],
        {"foo": ["bar", ["abc", "def"]]},
    ),
    (
        {"foo": {"bar": 1}},
        [
            {"op": "copy", "from": "/foo", "path": "/baz"},
            {"op": "replace", "path": "/baz/bar", "value": 2},
        ],
        {"foo": {"bar": 1}, "baz": {"bar": 2}},
    ),
    ({"a": 1}, [{"op": "replace", "path": "", "value": [1, 2]}], [1, 2]),
    ({"a": [1]}, [{"op": "remove", "path": "/a/5"}], None),
]

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
