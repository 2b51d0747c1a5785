"""``server.live.view_patch.shallow_patch_at``: the hubs' patch of one member of a view, which
looks only a few levels down, applies like the full one (jsonpatch checks it)."""

from __future__ import annotations

from typing import Any

import jsonpatch
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from server.live.view_patch import shallow_patch_at

keys = st.text(alphabet="ab/~01", min_size=1, max_size=3)
leaves = st.none() | st.booleans() | st.integers(-3, 3) | st.text(alphabet="xyz", max_size=2)
documents = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=30,
)


def _retyped_deep(a: Any, b: Any, depth: int, level: int = 0) -> bool:
    """Whether a place two levels or more below the member holds a boolean in one
    document and a number in the other, in a patch that looks down at all (``depth``
    1 or more). No view does that (a member keeps its JSON type: server/live/
    view_patch.py ``_same``), and it is the one change that comparing two containers
    whole cannot see (``[False] == [0]``); the member's own places are compared type
    and all, and a patch of depth 0 replaces the member."""
    numbers = (int, float)
    flipped = (type(a) is bool and type(b) in numbers) or (type(b) is bool and type(a) in numbers)
    if depth >= 1 and level >= 2 and flipped:
        return True
    if type(a) is dict and type(b) is dict:
        return any(_retyped_deep(a[k], b[k], depth, level + 1) for k in a.keys() & b.keys())
    if type(a) is list and type(b) is list:
        return any(_retyped_deep(x, y, depth, level + 1) for x, y in zip(a, b, strict=False))
    return False


@settings(max_examples=400, deadline=None)
@example(before={"k": False}, after={"k": 0}, depth=1)  # a member that changed type
@given(documents, documents, st.integers(0, 4))
def test_a_member_patch_applies_at_any_depth(before: Any, after: Any, depth: int) -> None:
    """Under a member ``m``, the patch turns ``before`` into ``after`` whatever the depth, booleans never taken for numbers in the member and its own members (deeper, a view's places keep their types)."""
    assume(not _retyped_deep(before, after, depth))
    ops = shallow_patch_at("/m", before, after, depth)
    patched = jsonpatch.apply_patch({"m": before, "n": 1}, ops)
    assert patched == {"m": after, "n": 1}
    assert repr(patched["m"]) == repr(after)


@settings(max_examples=200, deadline=None)
@given(st.lists(leaves, max_size=8), leaves)
def test_a_list_that_grew_by_one_gets_an_add(items: list[Any], item: Any) -> None:
    """An item appended at the end of a list is one ``add`` at its index."""
    ops = shallow_patch_at("/m", items, [*items, item], 2)
    assert ops == [{"op": "add", "path": f"/m/{len(items)}", "value": item}]


def test_depth_zero_replaces_the_member() -> None:
    """At depth 0 a changed member is replaced whole; at depth 1 its changed members."""
    before = {"a": {"x": 1, "y": 2}, "b": 3}
    after = {"a": {"x": 1, "y": 5}, "b": 3}
    assert shallow_patch_at("/m", before, after, 0) == [
        {"op": "replace", "path": "/m", "value": after}
    ]
    assert shallow_patch_at("/m", before, after, 1) == [
        {"op": "replace", "path": "/m/a", "value": {"x": 1, "y": 5}}
    ]
    assert shallow_patch_at("/m", before, after, 2) == [
        {"op": "replace", "path": "/m/a/y", "value": 5}
    ]
