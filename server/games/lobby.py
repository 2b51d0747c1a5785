"""The lobby read model: which games are open, live or finished, newest first.

It lives in Redis beside the streams and is only ever derived from them:

- ``{lobby}:open``, ``{lobby}:live``: sorted sets of game ids scored by creation time
  (ms), so "newest first" is a ZREVRANGE;
- ``{lobby}:finished``, ``{lobby}:aborted``: the same, scored by the game's end (its
  last event's time), and bounded: each keeps the ``keep_finished`` games that ended
  last (an aborted game leaves the others: it is listed only when asked for). An
  older game leaves the index, not Redis: it opens by id and is exported as before;
- ``{lobby}:games``: hash game id -> the game's summary as JSON;
- ``{lobby}:versions``: hash game id -> the version that summary is of;
- ``{lobby}:built``: set once the index was built from the games' keys;
- ``{lobby}:rebuilding``: held (with an expiry, renewed) by the one process that is
  rebuilding the index (server/games/lobby_keeper.py);
- ``{lobby}:quiet``: set of the open and live games that nobody attends (RULES.md part
  3), left out of the lists; ``{lobby}:sweep``: held for a moment by the process
  that looks at who attends (server/live/attendance.py, which writes ``quiet``).

The service updates a game's entry after each append. An update carries the version
it describes and is ignored if the index already holds a later one, so two server
processes updating out of order never move a game backwards. All keys share the
``{lobby}`` hash tag: one Lua script can touch them all on a Redis Cluster too.
If the keys are lost, server/games/lobby_keeper.py folds every game again (principle 5).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Literal

import msgspec

from server.common.settings import Settings
from server.store.clients import RedisClient
from server.store.fast_paths import command_path
from server.store.keys import (
    LOBBY_ABORTED_KEY,
    LOBBY_BUILT_KEY,
    LOBBY_FINISHED_KEY,
    LOBBY_GAMES_KEY,
    LOBBY_LIVE_KEY,
    LOBBY_OPEN_KEY,
    LOBBY_QUIET_KEY,
    LOBBY_REBUILDING_KEY,
    LOBBY_SWEEP_KEY,
    LOBBY_VERSIONS_KEY,
)
from server.store.public_path import Script

Status = Literal["open", "live", "finished", "aborted"]
STATUSES: Final[tuple[Status, ...]] = ("open", "live", "finished", "aborted")
LISTED: Final[tuple[Status, ...]] = ("open", "live", "finished")  # a list of all games

KEEP_FINISHED: Final[int] = Settings.finished_games  # finished (and aborted) games indexed
TRIM_AT_ONCE: Final = 1000  # games one update drops past the bound (a lowered bound)
_STATUS_KEYS: Final = {
    "open": LOBBY_OPEN_KEY,
    "live": LOBBY_LIVE_KEY,
    "finished": LOBBY_FINISHED_KEY,
    "aborted": LOBBY_ABORTED_KEY,
}

# KEYS: open, live, finished, aborted, games, versions. ARGV: id, status index (1-4),
# score, version, summary JSON, how many finished (and aborted) games to keep. Returns
# 1 if written, 0 if the index already had a later one. Past the bound, the games
# that ended first leave the index (at most TRIM_AT_ONCE a call): maybe this one. Their
# versions go too (the hash must not grow with history), so an update of a game from
# before its end arriving after 1,000 other games ended would list it again as live:
# the next start's refresh of the live games puts it right.
_UPDATE_LUA: Final = Script(
    """
local old = tonumber(redis.call('HGET', KEYS[6], ARGV[1]) or '-1')
if old >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[6], ARGV[1], ARGV[4])
redis.call('HSET', KEYS[5], ARGV[1], ARGV[5])
local status = tonumber(ARGV[2])
for i = 1, 4 do
  if i ~= status then redis.call('ZREM', KEYS[i], ARGV[1]) end
end
redis.call('ZADD', KEYS[status], ARGV[3], ARGV[1])
if status >= 3 then
  local over = redis.call('ZCARD', KEYS[status]) - tonumber(ARGV[6])
  if over > 0 then
    local gone = redis.call('ZRANGE', KEYS[status], 0, math.min(over, TRIM_AT_ONCE) - 1)
    for _, id in ipairs(gone) do
      redis.call('ZREM', KEYS[status], id)
      redis.call('HDEL', KEYS[5], id)
      redis.call('HDEL', KEYS[6], id)
    end
  end
end
return 1
""".replace("TRIM_AT_ONCE", str(TRIM_AT_ONCE))
)
_UPDATE_KEYS: Final = tuple(
    k.encode()
    for k in (
        LOBBY_OPEN_KEY,
        LOBBY_LIVE_KEY,
        LOBBY_FINISHED_KEY,
        LOBBY_ABORTED_KEY,
        LOBBY_GAMES_KEY,
        LOBBY_VERSIONS_KEY,
    )
)

# KEYS: one status set, games, quiet. ARGV: limit, '1' to leave the quiet games out
# (the open and live lists: a game over may still be in the set until the next look).
# The newest ``limit`` summaries (read a limit's worth of ids at a time past the quiet).
_LIST_LUA: Final = """
local want = tonumber(ARGV[1])
local filter = ARGV[2] == '1'
local out = {}
local start = 0
while #out < want do
  local ids = redis.call('ZREVRANGE', KEYS[1], start, start + want - 1)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    if #out < want and (not filter or redis.call('SISMEMBER', KEYS[3], id) == 0) then
      out[#out + 1] = redis.call('HGET', KEYS[2], id)
    end
  end
  start = start + want
end
return out
"""

# KEYS: quiet. ARGV: the ids now quiet (all of them: the set is replaced).
_QUIET_LUA: Final = """
redis.call('DEL', KEYS[1])
for i = 1, #ARGV, 1000 do
  redis.call('SADD', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
return #ARGV
"""

# KEYS: the rebuilding key. ARGV: the holder's token, its new expiry (ms). Renews the
# hold if it is still this holder's (1), else 0.
_RENEW_LUA: Final = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
"""

# KEYS: the rebuilding key. ARGV: the holder's token. Lets go of the hold if it is
# still this holder's.
_RELEASE_LUA: Final = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
"""

# KEYS: open, live, finished, aborted, games, versions. ARGV: game ids. Drops those
# games from the index.
_REMOVE_LUA: Final = """
for _, id in ipairs(ARGV) do
  for i = 1, 4 do redis.call('ZREM', KEYS[i], id) end
  redis.call('HDEL', KEYS[5], id)
  redis.call('HDEL', KEYS[6], id)
end
return #ARGV
"""


class LobbyEntry(msgspec.Struct, frozen=True):
    """One game in the index: its summary (the ``GET /api/games/{id}`` body).

    ``ended_ms`` (a finished or aborted game's last event's time) orders the games
    that are over; the others are ordered by ``created_ms``."""

    id: str
    status: Status
    created_ms: int
    version: int
    summary: dict[str, Any]
    ended_ms: int | None = None

    @property
    def score(self) -> int:
        """Where the game sorts in its list: by its end once over, else its creation."""
        if self.status in ("finished", "aborted") and self.ended_ms is not None:
            return self.ended_ms
        return self.created_ms


class Lobby:
    """The open/live/finished index of games over one Redis client, keeping the
    ``keep_finished`` finished (and aborted) games that ended last: every process
    writing to one Redis should give the same bound (``Settings.finished_games``)."""

    def __init__(self, client: RedisClient, keep_finished: int = KEEP_FINISHED) -> None:
        if keep_finished < 1:
            raise ValueError("keep_finished must be 1 or more")
        self._r = client
        self.keep_finished = keep_finished
        # Updates follow commands: the command path's connection (server/store/direct_path.py).
        self._direct = command_path(client)
        self._list = client.register_script(_LIST_LUA)
        self._renew = client.register_script(_RENEW_LUA)
        self._release = client.register_script(_RELEASE_LUA)
        self._remove = client.register_script(_REMOVE_LUA)
        self._quiet = client.register_script(_QUIET_LUA)
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
                b"%d" % entry.score,
                b"%d" % entry.version,
                self._encoder.encode(entry.summary),
                b"%d" % self.keep_finished,
            ),
        )
        return bool(written)

    async def newest(self, status: Status, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` games with this status, as summaries."""
        keys = [_STATUS_KEYS[status], LOBBY_GAMES_KEY, LOBBY_QUIET_KEY]
        raw = await self._list(keys=keys, args=[limit, int(status in ("open", "live"))])
        return [self._decoder.decode(item) for item in raw if item is not None]

    async def summaries(self, game_ids: list[str]) -> list[dict[str, Any] | None]:
        """The summaries the index holds of these games (None: none)."""
        if not game_ids:
            return []
        raw: list[Any] = await self._r.hmget(LOBBY_GAMES_KEY, game_ids)
        return [None if item is None else self._decoder.decode(item) for item in raw]

    async def set_quiet(self, game_ids: list[str]) -> None:
        """The open and live games nobody attends now: left out of the lists."""
        await self._quiet(keys=[LOBBY_QUIET_KEY], args=game_ids)

    async def quiet(self) -> set[str]:
        """The games left out of the lists as nobody attends them."""
        raw: Iterable[Any] = await self._r.smembers(LOBBY_QUIET_KEY)
        return {m.decode() if isinstance(m, bytes) else str(m) for m in raw}

    async def claim_sweep(self, token: str, hold_ms: int) -> bool:
        """Look at attendance for the next ``hold_ms`` unless another process does."""
        return bool(await self._r.set(LOBBY_SWEEP_KEY, token, nx=True, px=hold_ms))

    async def list_all(self, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` games, open, live or finished (not aborted)."""
        merged: list[dict[str, Any]] = []
        for status in LISTED:
            merged.extend(await self.newest(status, limit))
        merged.sort(key=lambda s: (s.get("created_at", ""), s.get("id", "")), reverse=True)
        return merged[:limit]

    async def is_built(self) -> bool:
        return bool(await self._r.exists(LOBBY_BUILT_KEY))

    async def mark_built(self) -> None:
        await self._r.set(LOBBY_BUILT_KEY, b"1")

    async def members(self, statuses: Iterable[Status]) -> list[str]:
        """The ids these lists hold (all of them: the open and live lists are the games
        being played, the others bounded by ``keep_finished``)."""
        found: list[str] = []
        for status in statuses:
            raw: list[Any] = await self._r.zrange(_STATUS_KEYS[status], 0, -1)
            found.extend(m.decode() if isinstance(m, bytes) else str(m) for m in raw)
        return found

    async def indexed(self) -> set[str]:
        """Every game the index holds anything of."""
        raw: list[Any] = await self._r.hkeys(LOBBY_GAMES_KEY)
        found = {m.decode() if isinstance(m, bytes) else str(m) for m in raw}
        return found.union(await self.members(STATUSES))

    async def remove(self, game_ids: Iterable[str]) -> None:
        """Drop games from the index (games whose keys are gone)."""
        ids = list(game_ids)
        for start in range(0, len(ids), TRIM_AT_ONCE):
            await self._remove(keys=_UPDATE_KEYS, args=ids[start : start + TRIM_AT_ONCE])

    async def claim_rebuild(self, token: str, hold_ms: int) -> bool:
        """Hold the rebuild for ``hold_ms`` unless another process holds it."""
        return bool(await self._r.set(LOBBY_REBUILDING_KEY, token, nx=True, px=hold_ms))

    async def renew_rebuild(self, token: str, hold_ms: int) -> bool:
        """Hold it ``hold_ms`` more; False if it is no longer this holder's."""
        return bool(await self._renew(keys=[LOBBY_REBUILDING_KEY], args=[token, hold_ms]))

    async def release_rebuild(self, token: str) -> None:
        await self._release(keys=[LOBBY_REBUILDING_KEY], args=[token])

    async def forget(self) -> None:
        """Drop the whole index (it is rebuilt from the games' keys at the next start)."""
        await self._r.delete(
            LOBBY_OPEN_KEY,
            LOBBY_LIVE_KEY,
            LOBBY_FINISHED_KEY,
            LOBBY_ABORTED_KEY,
            LOBBY_GAMES_KEY,
            LOBBY_VERSIONS_KEY,
            LOBBY_BUILT_KEY,
            LOBBY_QUIET_KEY,
        )
