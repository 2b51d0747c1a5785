"""A tournament's log: one Redis stream per tournament, appended with an expected
version in one script, and its meta hash (name, creator, creation time), written by
the same script with the first event, and then the version up to which every
pairing's games are made (``made``). Both keys carry the tournament's hash tag
(server/store/keys.py), so the script runs in one cluster slot.

The stream is laid out as a game's (server/store/event_store.py): entry id
``<version>-0``, fields ``e`` (the event's JSON) and ``t`` (ms). A stream is never
trimmed, so its length is its version, and ``XLEN`` checks the expected version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from events.tournament.log import TournamentEvent
from server.store.clients import RedisClient
from server.store.event_store import StoredEvent, VersionConflict
from server.store.keys import tournament_events_key, tournament_meta_key

__all__ = ["TournamentStore", "decode_event", "encode_event"]

# KEYS[1] events, KEYS[2] meta. ARGV[1] expected version, ARGV[2] ms, ARGV[3] the
# number n of meta fields and values that follow (written only with the first event),
# then the events. Returns {0, new version} or {1, actual version} (nothing written).
_APPEND_LUA: Final = """
local actual = redis.call('XLEN', KEYS[1])
if actual ~= tonumber(ARGV[1]) then return {1, actual} end
local n = tonumber(ARGV[3])
if actual == 0 and n > 0 then
  redis.call('HSET', KEYS[2], unpack(ARGV, 4, 3 + n))
end
local v = actual
for i = 4 + n, #ARGV do
  v = v + 1
  redis.call('XADD', KEYS[1], string.format('%d-0', v), 'e', ARGV[i], 't', ARGV[2])
end
return {0, v}
"""

# KEYS[1] meta. ARGV[1] a version whose pairings' games are all made. Kept if higher.
_MADE_LUA: Final = """
local old = tonumber(redis.call('HGET', KEYS[1], 'made') or '0')
if tonumber(ARGV[1]) > old then redis.call('HSET', KEYS[1], 'made', ARGV[1]) end
return 1
"""

_encoder = msgspec.json.Encoder()
_decoder: msgspec.json.Decoder[TournamentEvent] = msgspec.json.Decoder(TournamentEvent)


def encode_event(event: TournamentEvent) -> bytes:
    return _encoder.encode(event)


def decode_event(data: bytes) -> TournamentEvent:
    return _decoder.decode(data)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _entry(entry: Any) -> StoredEvent:
    entry_id, fields = entry
    fields = {_text(k): v for k, v in fields.items()}
    data = fields["e"]
    return StoredEvent(
        int(_text(entry_id).split("-", 1)[0]),
        int(_text(fields["t"])),
        data if isinstance(data, bytes) else str(data).encode(),
    )


class TournamentStore:
    """Tournaments' logs and meta over one Redis client."""

    def __init__(self, client: RedisClient) -> None:
        self.client = client
        self._append = client.register_script(_APPEND_LUA)
        self._made = client.register_script(_MADE_LUA)

    async def append(
        self,
        tournament_id: str,
        events: Sequence[TournamentEvent],
        *,
        expected_version: int,
        at_ms: int,
        meta: Mapping[str, str] | None = None,
    ) -> int:
        """Append ``events`` if the log is at ``expected_version`` (else
        ``VersionConflict``, nothing written); the version after them. ``meta`` is
        written with the log's first event only."""
        pairs = [part for item in (meta or {}).items() for part in item]
        args: list[Any] = [expected_version, at_ms, len(pairs), *pairs]
        args.extend(encode_event(e) for e in events)
        keys = [tournament_events_key(tournament_id), tournament_meta_key(tournament_id)]
        status, version = await self._append(keys=keys, args=args)
        if int(status) != 0:
            raise VersionConflict(expected_version, int(version))
        return int(version)

    async def read(self, tournament_id: str, after: int = 0) -> list[StoredEvent]:
        """The events after version ``after``, oldest first."""
        entries = await self.client.xrange(tournament_events_key(tournament_id), f"{after + 1}-0")
        return [_entry(e) for e in entries or []]

    async def meta(self, tournament_id: str) -> dict[str, str]:
        raw = await self.client.hgetall(tournament_meta_key(tournament_id))
        return {_text(k): _text(v) for k, v in raw.items()}

    async def version(self, tournament_id: str) -> int:
        return int(await self.client.xlen(tournament_events_key(tournament_id)))

    async def mark_made(self, tournament_id: str, version: int) -> None:
        """Every game paired up to ``version`` exists (the director made them)."""
        await self._made(keys=[tournament_meta_key(tournament_id)], args=[version])

    async def made(self, tournament_id: str) -> int:
        """The version up to which every pairing's games exist."""
        raw = await self.client.hget(tournament_meta_key(tournament_id), "made")
        return 0 if raw is None else int(raw)
