"""JSON Patch (RFC 6902) between two views of a game, as the hubs send them.

Only ``add``, ``remove`` and ``replace``: objects are diffed member by member, lists
by the middle that changed between their common head and tail (or replaced whole
when most of them changed, like a new ``legal`` list).

Not jsonpatch's ``make_patch``: it guesses ``move`` operations and, on lists of lists
like ``legal``, sometimes makes patches that do not apply (python-json-patch issues
138, 160, 179), and it is several times slower. Every patch is checked with
``jsonpatch.apply_patch`` in the tests (tests/server/test_ws_patch.py).
"""

from __future__ import annotations

from typing import Any

__all__ = ["escape", "patch_at", "shallow_patch_at", "view_patch"]

_MISSING: Any = object()


def escape(key: str) -> str:
    """A member name as a JSON pointer writes it (``~`` and ``/`` escaped)."""
    return key.replace("~", "~0").replace("/", "~1") if "~" in key or "/" in key else key


def _same(a: Any, b: Any) -> bool:
    # Python equality is JSON equality for views, because each member of a view keeps
    # its JSON type (a count never turns into a boolean). The type check tells 1 from
    # true where it is made; deep inside two equal containers it does not (1 == True).
    return type(a) is type(b) and a == b


def view_patch(before: Any, after: Any) -> list[dict[str, Any]]:
    """RFC 6902 operations (``add``, ``remove``, ``replace``) turning ``before`` into
    ``after``: objects member by member, lists by their changed middle.

    Any JSON documents will do; views are what it is made for.
    """
    ops: list[dict[str, Any]] = []
    _diff("", before, after, ops)
    return ops


def patch_at(path: str, before: Any, after: Any) -> list[dict[str, Any]]:
    """``view_patch`` of one member of a document: ``before`` and ``after`` being the
    values at ``path`` (a JSON pointer), the operations that turn one into the other."""
    ops: list[dict[str, Any]] = []
    _diff(path, before, after, ops)
    return ops


def shallow_patch_at(path: str, before: Any, after: Any, depth: int) -> list[dict[str, Any]]:
    """Like ``patch_at``, in fewer steps: objects and lists are looked into ``depth``
    levels down at most, and a value that changed below that is replaced whole, as is
    an object whose members changed, or a list whose length or most of whose items
    changed (a list that grew by one at its end gets an ``add``).

    Made for the hubs, who make a patch per event: a few more bytes, far less work.
    """
    ops: list[dict[str, Any]] = []
    _shallow(path, before, after, depth, ops)
    return ops


def _shallow(path: str, a: Any, b: Any, depth: int, ops: list[dict[str, Any]]) -> None:
    # Changed scalars, most of a patch, are replaced here rather than one call down.
    if depth > 0:
        if type(a) is dict and type(b) is dict and a.keys() == b.keys():
            for key, new in b.items():
                old = a[key]
                if old is new or (type(old) is type(new) and old == new):
                    continue
                where = path + "/" + (escape(key) if "~" in key or "/" in key else key)
                if depth > 1 and type(new) in _CONTAINERS:
                    _shallow(where, old, new, depth - 1, ops)
                else:
                    ops.append({"op": "replace", "path": where, "value": new})
            return
        if type(a) is list and type(b) is list:
            size = len(b)
            if len(a) == size:
                changed = [
                    i
                    for i, (old, new) in enumerate(zip(a, b, strict=True))
                    if old is not new and (type(old) is not type(new) or old != new)
                ]
                if len(changed) * 2 <= size:
                    for i in changed:
                        new = b[i]
                        if depth > 1 and type(new) in _CONTAINERS:
                            _shallow(f"{path}/{i}", a[i], new, depth - 1, ops)
                        else:
                            ops.append({"op": "replace", "path": f"{path}/{i}", "value": new})
                    return
            elif len(a) + 1 == size and all(_same(x, y) for x, y in zip(a, b[:-1], strict=True)):
                ops.append({"op": "add", "path": f"{path}/{len(a)}", "value": b[-1]})
                return
    ops.append({"op": "replace", "path": path, "value": b})


_CONTAINERS = (dict, list)


def _diff(path: str, a: Any, b: Any, ops: list[dict[str, Any]]) -> None:
    if type(a) is dict and type(b) is dict:
        for key, new in b.items():
            old = a.get(key, _MISSING)
            if type(old) is type(new) and old == new:  # _same, inlined in the hot loop.
                continue
            where = path + "/" + escape(key)
            if old is _MISSING:
                ops.append({"op": "add", "path": where, "value": new})
            else:
                _diff(where, old, new, ops)
        if a.keys() != b.keys():
            for key in a:
                if key not in b:
                    ops.append({"op": "remove", "path": path + "/" + escape(key)})
    elif type(a) is list and type(b) is list:
        _diff_list(path, a, b, ops)
    else:
        ops.append({"op": "replace", "path": path, "value": b})


def _diff_list(path: str, a: list[Any], b: list[Any], ops: list[dict[str, Any]]) -> None:
    len_a, len_b = len(a), len(b)
    shortest = min(len_a, len_b)
    head = 0
    while head < shortest and _same(a[head], b[head]):
        head += 1
    tail = 0
    while tail < shortest - head and _same(a[len_a - 1 - tail], b[len_b - 1 - tail]):
        tail += 1
    middle_a, middle_b = len_a - head - tail, len_b - head - tail
    paired = min(middle_a, middle_b)
    if (paired + abs(middle_a - middle_b)) * 2 > len_b + 1:
        # Most of the list changed (a new ``legal``), and one replace is shorter.
        ops.append({"op": "replace", "path": path, "value": b})
        return
    for i in range(head, head + paired):
        _diff(f"{path}/{i}", a[i], b[i], ops)
    at = head + paired
    for _ in range(middle_a - paired):
        ops.append({"op": "remove", "path": f"{path}/{at}"})
    for i in range(at, at + middle_b - paired):
        ops.append({"op": "add", "path": f"{path}/{i}", "value": b[i]})
