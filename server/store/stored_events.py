"""What the event store gives its callers (server/store/event_store.py): a game's
entries, a loaded game, an append's outcome and its refusals, and how Redis's
replies (streams, Lua's flat lists, packed logs, archives) become them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from server.store import archive_format as archives

__all__ = [
    "AppendResult",
    "LoadedGame",
    "SeatRevoked",
    "StoredEvent",
    "VersionConflict",
    "archived_events",
    "as_bytes",
    "as_meta",
    "as_text",
    "flatten_entries",
    "hash_pairs",
    "to_event",
    "unpack_log",
    "version_of",
]


class VersionConflict(Exception):
    """The game's log is not at the version the writer expected."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"expected version {expected}, but the log is at {actual}")
        self.expected = expected
        self.actual = actual


class SeatRevoked(Exception):
    """The token a command was sent with is no longer its seat's (nothing written)."""


class StoredEvent(msgspec.Struct, frozen=True):
    """One entry of a game's log."""

    version: int
    at_ms: int
    data: bytes


class LoadedGame(msgspec.Struct, frozen=True):
    """Everything a game's projection is made from, read at once (``EventStore.load``).

    ``events`` is empty for an unknown game. ``archived`` is true when they were read
    from the game's archive, whose seats are final and whose meta has no seed.
    """

    events: list[StoredEvent]
    meta: dict[str, bytes]
    digests: dict[int, str]
    archived: bool


class AppendResult(msgspec.Struct, frozen=True):
    """The outcome of an append: the version the log is at after this command.

    ``duplicate`` is true when the command id had already been applied; then nothing
    was written, ``version`` is the version recorded for it then, and ``reply`` the
    reply recorded with it.
    """

    version: int
    duplicate: bool
    reply: bytes = b""


def as_bytes(value: object) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    raise TypeError(f"unexpected Redis reply {value!r}")


def as_meta(value: bytes | str | int) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


def as_text(value: object) -> str:
    return as_bytes(value).decode()


def hash_pairs(flat: list[Any]) -> dict[str, bytes]:
    """A flat HGETALL reply from Lua as a dict."""
    return {as_text(flat[i]): as_bytes(flat[i + 1]) for i in range(0, len(flat), 2)}


def unpack_log(packed: bytes) -> list[StoredEvent]:
    """The events of ``LOAD_LUA``'s packed log."""
    events = []
    pos, end = 0, len(packed)
    while pos < end:
        line_end = packed.index(b"\n", pos)
        version, at_ms, size = packed[pos:line_end].split(b" ")
        start = line_end + 1
        pos = start + int(size)
        events.append(StoredEvent(int(version), int(at_ms), packed[start:pos]))
    return events


def version_of(entry_id: object) -> int:
    return int(as_bytes(entry_id).split(b"-", 1)[0])


def to_event(entry: Any) -> StoredEvent:
    entry_id, fields = entry
    if isinstance(fields, list):  # straight from the wire: field, value, field, value
        fields = dict(zip(fields[::2], fields[1::2], strict=True))
    if not isinstance(fields, Mapping):
        raise TypeError(f"unexpected stream entry {entry!r}")
    return StoredEvent(
        version=version_of(entry_id),
        at_ms=int(as_bytes(fields[b"t"])),
        data=as_bytes(fields[b"e"]),
    )


def archived_events(value: bytes) -> list[StoredEvent]:
    """The events of an archive (server/store/archive_format.py), versions 1..n."""
    return [
        StoredEvent(version, at_ms, data)
        for version, (at_ms, data) in enumerate(archives.decode(value).events, start=1)
    ]


def flatten_entries(entries: Any) -> list[Any]:
    """Stream entries from an XREAD reply, also from redis-py's RESP3 ``[entries]``."""
    if (
        isinstance(entries, list)
        and len(entries) == 1
        and isinstance(entries[0], list)
        and entries[0]
        and isinstance(entries[0][0], list | tuple)
    ):
        return list(entries[0])
    return list(entries)
