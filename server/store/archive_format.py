"""The archive of a finished game: its whole log, and its seats' token digests, as
one compact value (docs/operations.md, "Archive of finished games").

A finished or aborted game never changes again, so ``SPLENDOR_ARCHIVE_AFTER``
seconds after its end (``server.games.archiver``) its stream, commands hash, seats hash and
presence hash give way to one string, ``game:{<id>}:archive``, beside its meta hash
(which keeps what the lobby reads: variant, players, created_at, rematch links).
This module is that value's format; the swap is ``EventStore.archive``.

Format 1, the value's bytes::

    b"1 <dictionary> <n>\\n" + DEFLATE(payload, preset dictionary <dictionary>)

``<n>`` is the number of events (the game's version: Lua scripts read it without
inflating anything), ``<dictionary>`` names the preset dictionary the payload was
deflated with (raw DEFLATE, zlib's ``wbits=-15``, from the standard library): the
variant's name, whose dictionary is ``archive_dictionaries/<variant>-1.jsonl``, a
sample of that variant's events that ``bench/archive_dictionary.py`` wrote. A
dictionary once shipped is never changed (tests/store/test_archive.py holds their
digests): a better one comes with the next format number, written with
``FORMAT`` raised, and values of every earlier format are still read with theirs.

The payload: the events as the stream held them (msgspec JSON, which never holds a
raw newline or NUL), joined by ``\\n``, then ``\\0``, then each event's time as a
zigzag varint of its difference from the previous one's (the first from 0), then per
seat with a token its number (one byte) and its SHA-256 digest (32 bytes). Events
first, nearest the dictionary; the times and digests compress little either way.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Final, NamedTuple

__all__ = [
    "FORMAT",
    "Archive",
    "ArchiveError",
    "archived_version",
    "decode",
    "encode",
]

FORMAT: Final = 1
_HEADER: Final = re.compile(rb"(\d+) ([a-z0-9_-]+) (\d+)\n")
_DIGEST_BYTES: Final = 32
_WBITS: Final = -15  # raw DEFLATE: no zlib header nor checksum (the value is Redis's)


class ArchiveError(ValueError):
    """A log that can't be archived, or a value that is not an archive of ours."""


class Archive(NamedTuple):
    """An archived game read back: its events ``(at_ms, event bytes)`` of versions
    1..n, and its seats' token digests (hex)."""

    events: list[tuple[int, bytes]]
    digests: dict[int, str]


@cache
def dictionary(name: str, format_: int = FORMAT) -> bytes:
    """The preset dictionary ``name`` (a variant's) of a format, or ``ArchiveError``."""
    if not re.fullmatch(r"[a-z0-9_-]+", name):
        raise ArchiveError(f"no archive dictionary {name!r}")
    path = resources.files("server.store").joinpath(f"archive_dictionaries/{name}-{format_}.jsonl")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ArchiveError(f"no archive dictionary {name!r} of format {format_}") from None


def encode(
    dictionary_name: str, events: Sequence[tuple[int, bytes]], digests: Mapping[int, str]
) -> bytes:
    """The archive of a log (``(at_ms, event bytes)`` of versions 1..n) and its seats'
    digests, deflated with the dictionary ``dictionary_name`` (the variant's)."""
    if not events:
        raise ArchiveError("an archive needs at least one event")
    times = bytearray()
    previous = 0
    for at_ms, data in events:
        if b"\n" in data or b"\0" in data:
            raise ArchiveError("an event holds a newline or a NUL: not msgspec JSON")
        _zigzag(at_ms - previous, times)
        previous = at_ms
    seats = bytearray()
    for seat, digest in sorted(digests.items()):
        raw = bytes.fromhex(digest)
        if not 0 <= seat < 256 or len(raw) != _DIGEST_BYTES:
            raise ArchiveError(f"seat {seat}'s digest is not a SHA-256")
        seats.append(seat)
        seats += raw
    payload = b"\n".join(data for _, data in events) + b"\0" + times + seats
    deflate = zlib.compressobj(9, zlib.DEFLATED, _WBITS, 9, zdict=dictionary(dictionary_name))
    header = b"%d %s %d\n" % (FORMAT, dictionary_name.encode(), len(events))
    return header + deflate.compress(payload) + deflate.flush()


def archived_version(value: bytes) -> int:
    """The number of events of an archive, from its header alone."""
    return _header(value)[2]


def decode(value: bytes) -> Archive:
    """An archive's events and digests (``ArchiveError`` if it is not one)."""
    format_, name, count, start = _header(value)
    inflate = zlib.decompressobj(_WBITS, zdict=dictionary(name, format_))
    try:
        payload = inflate.decompress(value[start:]) + inflate.flush()
    except zlib.error as e:
        raise ArchiveError(f"a damaged archive: {e}") from None
    text, _, rest = payload.partition(b"\0")
    datas = text.split(b"\n")
    if len(datas) != count:
        raise ArchiveError(f"an archive of {count} events holds {len(datas)}")
    events: list[tuple[int, bytes]] = []
    at_ms = pos = 0
    for data in datas:
        delta, pos = _unzigzag(rest, pos)
        at_ms += delta
        events.append((at_ms, data))
    digests: dict[int, str] = {}
    while pos < len(rest):
        end = pos + 1 + _DIGEST_BYTES
        if end > len(rest):
            raise ArchiveError("an archive's digests are cut short")
        digests[rest[pos]] = rest[pos + 1 : end].hex()
        pos = end
    return Archive(events, digests)


def _header(value: bytes) -> tuple[int, str, int, int]:
    """An archive's format, dictionary, number of events and payload's start."""
    found = _HEADER.match(value)
    if found is None or not 1 <= int(found[1]) <= FORMAT:
        raise ArchiveError("not an archive of ours")
    return int(found[1]), found[2].decode(), int(found[3]), found.end()


def _zigzag(value: int, out: bytearray) -> None:
    n = value * 2 if value >= 0 else -value * 2 - 1
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _unzigzag(data: bytes, pos: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        if pos >= len(data):
            raise ArchiveError("an archive's times are cut short")
        byte = data[pos]
        pos += 1
        n |= (byte & 0x7F) << shift
        if byte < 0x80:
            break
        shift += 7
    return (n >> 1) ^ -(n & 1), pos
