"""The lobby read model: which games are open, live or finished, newest first.

It lives in Redis beside the streams and is only ever derived from them:

- ``{lobby}:open``, ``{lobby}:live``, ``{lobby}:finished``, ``{lobby}:aborted``:
  sorted sets of game ids scored by creation time (ms), so "newest first" is a
  ZREVRANGE (an aborted game leaves the others: it is listed only when asked for);
- ``{lobby}:games``: hash game id -> the game's summary as JSON;
- ``{lobby}:versions``: hash game id -> the version that summary is of;
- ``{lobby}:built``: set once the index was rebuilt from the streams.

The service updates a game's entry after each append. An update carries the version
it describes and is ignored if the index already holds a later one, so two server
processes updating out of order never move a game backwards. All keys share the
``{lobby}`` hash tag: one Lua script can touch them all on a Redis Cluster too.
If the keys are lost, ``rebuild`` folds every stream again (principle 5).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final, Literal

import msgspec
import redis.asyncio as aioredis

from server.fast_paths import command_path
from server.redis_public import Script

Status = Literal["open", "live", "finished", "aborted"]
STATUSES: Final[tuple[Status, ...]] = ("open", "live", "finished", "aborted")
LISTED: Final[tuple[Status, ...]] = ("open", "live", "finished")  # a list of all games

OPEN_KEY: Final = "{lobby}:open"
LIVE_KEY: Final = "{lobby}:live"
FINISHED_KEY: Final = "{lobby}:finished"
ABORTED_KEY: Final = "{lobby}:aborted"
GAMES_KEY: Final = "{lobby}:games"
VERSIONS_KEY: Final = "{lobby}:versions"
BUILT_KEY: Final = "{lobby}:built"
_STATUS_KEYS: Final = {
    "open": OPEN_KEY,
    "live": LIVE_KEY,
    "finished": FINISHED_KEY,
    "aborted": ABORTED_KEY,
}

# KEYS: open, live, finished, aborted, games, versions. ARGV: id, status index (1-4),
# score, version, summary JSON. Returns 1 if written, 0 if the index already had a
# later one.
_UPDATE_LUA: Final = Script("""
local old = tonumber(redis.call('HGET', KEYS[6], ARGV[1]) or '-1')
if old >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[6], ARGV[1], ARGV[4])
redis.call('HSET', KEYS[5], ARGV[1], ARGV[5])
for i = 1, 4 do
  if i ~= tonumber(ARGV[2]) then redis.call('ZREM', KEYS[i], ARGV[1]) end
end
redis.call('ZADD', KEYS[tonumber(ARGV[2])], ARGV[3], ARGV[1])
return 1
""")
_UPDATE_KEYS: Final = tuple(
    k.encode() for k in (OPEN_KEY, LIVE_KEY, FINISHED_KEY, ABORTED_KEY, GAMES_KEY, VERSIONS_KEY)
)

# KEYS: one status set, games. ARGV: limit. The newest ``limit`` summaries.
_LIST_LUA: Final = """
local ids = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
if #ids == 0 then return {} end
return redis.call('HMGET', KEYS[2], unpack(ids))
"""


class LobbyEntry(msgspec.Struct, frozen=True):
    """One game in the index: its summary (the ``GET /api/games/{id}`` body)."""

    id: str
    status: Status
    created_ms: int
    version: int
    summary: dict[str, Any]


class Lobby:
    """The open/live/finished index of games over one Redis client."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._r = client
        # Updates follow commands: the command path's connection (server/redis_direct.py).
        self._direct = command_path(client)
        self._list = client.register_script(_LIST_LUA)
        self._encoder = msgspec.json.Encoder()
        self._decoder = msgspec.json.Decoder(dict[str, Any])

    async def update(self, entry: LobbyEntry) -> bool:
        """Record a game's summary; False if the index already had a later version."""
        written = await self._direct.run(
            _UPDATE_LUA,
            _UPDATE_KEYS,
            (
                entry.id.encode(),
                b"%d" % (STATUSES.index(entry.status) + 1),
                b"%d" % entry.created_ms,
                b"%d" % entry.version,
                self._encoder.encode(entry.summary),
            ),
        )
        return bool(written)

    async def newest(self, status: Status, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` games with this status, as summaries."""
        raw = await self._list(keys=[_STATUS_KEYS[status], GAMES_KEY], args=[limit])
        return [self._decoder.decode(item) for item in raw if item is not None]

    async def list_all(self, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` games, open, live or finished (not aborted)."""
        merged: list[dict[str, Any]] = []
        for status in LISTED:
            merged.extend(await self.newest(status, limit))
        merged.sort(key=lambda s: (s.get("created_at", ""), s.get("id", "")), reverse=True)
        return merged[:limit]

    async def is_built(self) -> bool:
        return bool(await self._r.exists(BUILT_KEY))

    async def rebuild(
        self, game_ids: list[str], entry_of: Callable[[str], Awaitable[LobbyEntry | None]]
    ) -> int:
        """Fold every game again and index it; returns how many games were indexed.

        Safe to run while games are played or by two processes at once: each update
        only moves a game forward.
        """
        count = 0
        for game_id in game_ids:
            entry = await entry_of(game_id)
            if entry is not None:
                await self.update(entry)
                count += 1
        await self._r.set(BUILT_KEY, b"1")
        return count

    async def forget(self) -> None:
        """Drop the whole index (it is rebuilt from the streams at the next start)."""
        await self._r.delete(
            OPEN_KEY, LIVE_KEY, FINISHED_KEY, ABORTED_KEY, GAMES_KEY, VERSIONS_KEY, BUILT_KEY
        )
