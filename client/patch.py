"""RFC 6902 JSON Patch applied to plain JSON values (RFC 6901 pointers), for the
Python client's live view (``client.live``).

The same module as the page's ``client/web/js/patch.js``, so that the installed
package needs no patch library: ``jsonpatch`` is a test dependency only, which checks
this module against its results (tests/client/test_patch.py). ``apply_patch`` never
changes its input.
"""

from __future__ import annotations

import copy
import re
from typing import Any

__all__ = ["PatchError", "apply_patch", "parse_pointer"]

_INDEX = re.compile(r"0|[1-9][0-9]*")


class PatchError(ValueError):
    """A patch that does not apply to the document (RFC 6902: the whole patch fails)."""


def parse_pointer(pointer: str) -> list[str]:
    """The reference tokens of a JSON pointer: ``"/a~1b/0"`` -> ``["a/b", "0"]``."""
    if pointer == "":
        return []
    if not isinstance(pointer, str) or not pointer.startswith("/"):
        raise PatchError(f"invalid JSON pointer {pointer!r}")
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _index(array: list[Any], token: str, *, insert: bool) -> int:
    if insert and token == "-":
        return len(array)
    if not _INDEX.fullmatch(token):
        raise PatchError(f"bad array index {token!r}")
    index = int(token)
    if index > (len(array) if insert else len(array) - 1):
        raise PatchError(f"array index {index} out of range")
    return index


def _child(node: Any, token: str) -> Any:
    if isinstance(node, list):
        return node[_index(node, token, insert=False)]
    if isinstance(node, dict) and token in node:
        return node[token]
    raise PatchError(f"path not found at {token!r}")


def _get(doc: Any, tokens: list[str]) -> Any:
    node = doc
    for token in tokens:
        node = _child(node, token)
    return node


def _parent(doc: Any, tokens: list[str]) -> tuple[Any, str]:
    node = _get(doc, tokens[:-1])
    if not isinstance(node, (dict, list)):
        raise PatchError("parent is not a container")
    return node, tokens[-1]


# Each operation returns the (possibly new) root: the pointer "" names the document.
def _add(doc: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    parent, key = _parent(doc, tokens)
    if isinstance(parent, list):
        parent.insert(_index(parent, key, insert=True), value)
    else:
        parent[key] = value
    return doc


def _remove(doc: Any, tokens: list[str]) -> Any:
    if not tokens:
        raise PatchError("cannot remove the whole document")
    parent, key = _parent(doc, tokens)
    if isinstance(parent, list):
        del parent[_index(parent, key, insert=False)]
    elif key in parent:
        del parent[key]
    else:
        raise PatchError(f"nothing to remove at {key!r}")
    return doc


def _replace(doc: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    parent, key = _parent(doc, tokens)
    if isinstance(parent, list):
        parent[_index(parent, key, insert=False)] = value
    elif key in parent:
        parent[key] = value
    else:
        raise PatchError(f"nothing to replace at {key!r}")
    return doc


def _equal(a: Any, b: Any) -> bool:
    """JSON equality, as ``test`` means it: 1 is not true, key order does not count."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False
    return bool(a == b)


def apply_patch(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """``ops`` applied in order to a copy of ``doc``; raises ``PatchError`` if one fails."""
    result = copy.deepcopy(doc)
    try:
        for op in ops:
            path = parse_pointer(op["path"])
            kind = op["op"]
            if kind == "add":
                result = _add(result, path, copy.deepcopy(op["value"]))
            elif kind == "remove":
                result = _remove(result, path)
            elif kind == "replace":
                result = _replace(result, path, copy.deepcopy(op["value"]))
            elif kind == "move":
                if op["path"].startswith(op["from"] + "/"):
                    raise PatchError("cannot move into a child")
                source = parse_pointer(op["from"])
                value = _get(result, source)
                result = _add(_remove(result, source), path, value)
            elif kind == "copy":
                value = copy.deepcopy(_get(result, parse_pointer(op["from"])))
                result = _add(result, path, value)
            elif kind == "test":
                if not _equal(_get(result, path), op["value"]):
                    raise PatchError(f"test failed at {op['path']!r}")
            else:
                raise PatchError(f"unknown operation {kind!r}")
    except (KeyError, TypeError) as e:
        raise PatchError(f"malformed operation: {e!r}") from None
    return result
