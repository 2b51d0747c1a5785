"""Hostile input for the fuzz tests: bytes that are JSON, nearly JSON, or not at all.

``bodies(templates)`` mixes raw bytes (UTF-8 and not), random JSON documents, and the
shapes the server expects (``templates``) spoiled one way at a time: a field given
another value, a byte spliced in, a string that is not UTF-8, nesting ~1,000 deep,
numbers far past 64 bits. A well-formed request can come out of it; the tests are
written so that one would change nothing either.
"""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import strategies as st

# Beyond the interpreter's recursion limit (~1,000), where msgspec raises RecursionError.
DEEP: tuple[int, ...] = (990, 1_000, 3_000)
INVALID_UTF8: tuple[bytes, ...] = (b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80")

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=10,
)


def deep(depth: int, kind: str) -> bytes:
    """JSON nested ``depth`` deep: arrays, objects, or arrays not closed."""
    if kind == "objects":
        return b'{"a":' * depth + b"1" + b"}" * depth
    if kind == "unclosed":
        return b"[" * depth
    return b"[" * depth + b"]" * depth


deep_json = st.builds(
    deep, st.sampled_from(DEEP), st.sampled_from(["arrays", "objects", "unclosed"])
)

huge_numbers = st.one_of(
    st.integers(20, 4_000).map(lambda n: b"9" * n),
    st.integers(20, 400).map(lambda n: b"-" + b"9" * n),
    st.sampled_from([b"1e999", b"-1e999", b"1e-999", b"-0", b"9223372036854775808", b"0.5"]),
    st.sampled_from([b"18446744073709551616", b"-9223372036854775809", b"NaN", b"Infinity"]),
)


def _field_value() -> st.SearchStrategy[bytes]:
    """A field's value as raw JSON bytes (or nearly JSON)."""
    return st.one_of(
        json_values.map(msgspec.json.encode),
        deep_json,
        huge_numbers,
        st.sampled_from(INVALID_UTF8).map(lambda bad: b'"a' + bad + b'z"'),
    )


def _with_field(template: dict[str, Any], key: str, raw: bytes) -> bytes:
    """``template`` as JSON with ``key`` set to the raw bytes ``raw``."""
    rest = msgspec.json.encode({k: v for k, v in template.items() if k != key})
    field = msgspec.json.encode(key) + b":" + raw
    return b"{" + field + (b"," + rest[1:] if rest != b"{}" else b"}")


def _splice(data: bytes, at: int, junk: bytes, cut: int) -> bytes:
    at %= len(data) + 1
    return data[:at] + junk + data[at + cut :]


def bodies(templates: list[dict[str, Any]]) -> st.SearchStrategy[bytes]:
    """Request bodies or websocket messages around ``templates`` (the good shapes)."""
    encoded = [msgspec.json.encode(t) for t in templates]
    keys = sorted({k for t in templates for k in t} | {"extra", ""})
    return st.one_of(
        st.binary(max_size=200),
        st.text(max_size=100).map(str.encode),
        json_values.map(msgspec.json.encode),
        deep_json,
        huge_numbers,
        st.builds(_with_field, st.sampled_from(templates), st.sampled_from(keys), _field_value()),
        st.builds(
            _splice,
            st.sampled_from(encoded),
            st.integers(0, 500),
            st.binary(min_size=1, max_size=4) | st.sampled_from(INVALID_UTF8),
            st.integers(0, 3),
        ),
        st.sampled_from(encoded),
    )


def query_values() -> st.SearchStrategy[str]:
    """A query parameter's value: numbers of every size and sign, and anything else."""
    return st.one_of(
        st.integers(-(2**80), 2**80).map(str),
        huge_numbers.map(bytes.decode),
        st.sampled_from(["", " ", "1_0", "٣", "0x10", "1.0", "+1", "%ff", "\x00", "1 "]),
        st.text(max_size=20),
    )
