"""Presence: whether each seat of a game has a socket open on any server process.

A seat is *present* while one of its sockets is open on some process; bots always
are. What is kept in Redis, and by whom:

- ``presence:servers``, a sorted set: each server process's id, scored with the time
  (ms) of its last *beat*. A process beats every ``beat_s`` seconds (one script:
  add itself, forget processes silent for an hour, read the set). A process silent
  for ``DEAD_AFTER_BEATS`` beats is dead: its sockets stop counting.
- ``game:{<id>}:presence``, a hash beside the game's keys: ``on:<seat>:<server>``
  while that server has a socket of that seat (written when its first opens and
  deleted when its last closes, not per move), ``left:<seat>``, the last time
  (ms) a server's last socket of the seat closed, and ``watch:<server>``, that
  server's spectators of the game: ``<ms> <count> <names as JSON>`` (the accounts
  signed in among them, at most ``AUDIENCE_NAMES``), written at most once a second
  per game and server (``server.live.hub_presence``), deleted when the count is 0.

Each change of a game's hash is published on the game's channel (``server.live.game_signals``);
every process watching the game reads the hash again and tells its sockets if the
presence it shows changed. After each beat every process also looks again at the
servers named in the hashes it holds, so the sockets of a process that died stop
counting within ``DEAD_AFTER_BEATS + 1`` beats (12 s with the default 3 s beat),
with nobody to publish anything. A process's own sockets count at once, from its
hubs, before Redis hears of them.

A seat's ``away_since`` (what ``claim_abandon`` needs) follows from the same facts:
absent, it has been away since the last of its ``left`` time and the last beat of
each dead server that held one of its sockets; never before its game started
(``seat_away_since``: a seat that never connected has been away since the start).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec
from redis.exceptions import RedisError

from server.store.clients import RedisClient
from server.store.fast_paths import command_path
from server.store.keys import (
    MOST_SEATS,
    PRESENCE_PLAYING_KEY,
    PRESENCE_SERVERS_KEY,
    events_key,
    meta_key,
    presence_key,
    rematch_answer_field,
    signals_channel,
)
from server.store.public_path import Script

__all__ = [
    "AUDIENCE_NAMES",
    "DEAD_AFTER_BEATS",
    "PRESENCE_BEAT_S",
    "Audience",
    "Presence",
    "RematchNews",
    "SeatsSeen",
    "merge_audiences",
    "name_order",
    "seat_away_since",
]

log = logging.getLogger(__name__)

PRESENCE_BEAT_S: Final = 3.0
DEAD_AFTER_BEATS: Final = 3
FORGET_MS: Final = 3_600_000  # a server silent this long leaves the set
AUDIENCE_NAMES: Final = 20  # the names of signed-in spectators told (PROTOCOL.md)

Audience = tuple[int, tuple[str, ...]]
"""A game's spectators: how many sockets, and the names of the accounts among them
(sorted, at most ``AUDIENCE_NAMES``)."""

# KEYS[1] the game's presence hash. ARGV: server, now ms, count, names (JSON), the
# game's signals channel. A count of 0 deletes the server's field.
_AUDIENCE_LUA: Final = Script("""
local field = 'watch:' .. ARGV[1]
if ARGV[3] == '0' then
  if redis.call('HDEL', KEYS[1], field) == 0 then return 0 end
else
  redis.call('HSET', KEYS[1], field, ARGV[2] .. ' ' .. ARGV[3] .. ' ' .. ARGV[4])
end
redis.call('PUBLISH', ARGV[5], 'p')
return 1
""")

# KEYS[1] the game's presence hash. ARGV: seat, server, now ms, '1' (a socket is
# open) or '0' (the last closed), the game's signals channel.
_WRITE_LUA: Final = Script("""
local on = 'on:' .. ARGV[1] .. ':' .. ARGV[2]
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], on, ARGV[3])
else
  redis.call('HDEL', KEYS[1], on)
  local left = 'left:' .. ARGV[1]
  if tonumber(ARGV[3]) > tonumber(redis.call('HGET', KEYS[1], left) or '0') then
    redis.call('HSET', KEYS[1], left, ARGV[3])
  end
end
redis.call('PUBLISH', ARGV[5], 'p')
return 1
""")

# KEYS[1] the servers' set. ARGV: server, now ms, forget before ms. The set after.
_BEAT_LUA: Final = Script("""
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
""")

# KEYS[1] the game's presence hash, KEYS[2] its meta, KEYS[3] its events. ARGV[1] a
# version (0: none); ARGV[2..] the fields of the seats' answers to the rematch.
# {the hash, its rematch or false, that event's time or false, the answers}.
_READ_LUA: Final = Script("""
local at = false
if ARGV[1] ~= '0' then
  local entry = redis.call('XRANGE', KEYS[3], ARGV[1] .. '-0', ARGV[1] .. '-0')
  if #entry > 0 then
    local fields = entry[1][2]
    for j = 1, #fields, 2 do if fields[j] == 't' then at = fields[j + 1] end end
  end
end
local rematch = redis.call('HGET', KEYS[2], 'rematch')
local answers = {}
if rematch then answers = redis.call('HMGET', KEYS[2], unpack(ARGV, 2)) end
return {redis.call('HGETALL', KEYS[1]), rematch, at, answers}
""")


# KEYS[1] the game's presence hash, KEYS[2] its events. ARGV[1] a version. {the hash,
# that event's time or false, the last event's time or false}: what attendance needs.
_ATTENDANCE_LUA: Final = Script("""
local function at(entry)
  if entry == nil then return false end
  local fields = entry[2]
  for j = 1, #fields, 2 do if fields[j] == 't' then return fields[j + 1] end end
  return false
end
local since = redis.call('XRANGE', KEYS[2], ARGV[1] .. '-0', ARGV[1] .. '-0')
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
return {redis.call('HGETALL', KEYS[1]), at(since[1]), at(last[1])}
""")


def seat_away_since(raw: int | None, started_ms: int | None) -> int | None:
    """A seat's away time as the rules take it: None while present; else since it
    left, or since the game started if it left before (or never came)."""
    if raw is None:
        return None
    if started_ms is not None:
        return max(raw, started_ms)
    return raw or None


_names_decoder = msgspec.json.Decoder(list[str])
_names_encoder = msgspec.json.Encoder()


def name_order(name: str) -> tuple[str, str]:
    """How the audience's names are ordered: by their case-folded form, then as written."""
    return name.casefold(), name


def merge_audiences(audiences: Iterable[Audience]) -> Audience:
    """Several processes' spectators of one game as one: the counts added, the names
    put together (an account watching on two processes named once)."""
    count = 0
    names: set[str] = set()
    for n, named in audiences:
        count += n
        names.update(named)
    # The first names in order, without sorting them all (thousands may watch).
    return count, tuple(heapq.nsmallest(AUDIENCE_NAMES, names, key=name_order))


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass(frozen=True)
class RematchNews:
    """A finished game's rematch as its watchers are shown it: its id, and the seats of
    the finished game that accepted it (its bots among them) or declined it. An
    answer is final, so two reads merge by their union (``merged``), in any order."""

    id: str
    accepted: frozenset[int] = frozenset()
    declined: frozenset[int] = frozenset()

    def merged(self, other: RematchNews) -> RematchNews:
        """What both say: ``other`` replaces this for another rematch id."""
        if other.id != self.id:
            return other
        return RematchNews(self.id, self.accepted | other.accepted, self.declined | other.declined)

    @classmethod
    def parse(cls, rematch_id: str, answers: list[Any]) -> RematchNews:
        """From the answers read per seat (``None`` for none)."""
        said = {seat: _text(a) for seat, a in enumerate(answers) if a is not None}
        return cls(
            rematch_id,
            frozenset(s for s, a in said.items() if a == "accepted"),
            frozenset(s for s, a in said.items() if a == "declined"),
        )


@dataclass
class SeatsSeen:
    """A game's presence hash as read at ``read_ms``: the servers holding each
    seat's sockets, and each seat's last ``left`` time."""

    read_ms: int = 0
    on: dict[int, set[str]] = field(default_factory=dict)
    left: dict[int, int] = field(default_factory=dict)
    written: dict[str, int] = field(default_factory=dict)  # server -> its last write (ms)
    watch: dict[str, Audience] = field(default_factory=dict)  # server -> its spectators

    @classmethod
    def parse(cls, flat: list[Any], read_ms: int) -> SeatsSeen:
        seen = cls(read_ms)
        for i in range(0, len(flat) - 1, 2):
            name, value = _text(flat[i]), flat[i + 1]
            kind, _, rest = name.partition(":")
            try:
                if kind == "on":
                    seat, _, server = rest.partition(":")
                    seen.on.setdefault(int(seat), set()).add(server)
                    at = int(value)
                    seen.written[server] = max(at, seen.written.get(server, at))
                elif kind == "left":
                    seen.left[int(rest)] = int(value)
                elif kind == "watch":
                    at_text, count, names = _text(value).split(" ", 2)
                    at = int(at_text)
                    seen.watch[rest] = (int(count), tuple(_names_decoder.decode(names)))
                    seen.written[rest] = max(at, seen.written.get(rest, at))
            except (ValueError, msgspec.DecodeError, msgspec.ValidationError):
                continue  # not ours
        return seen

    def servers(self) -> set[str]:
        return {s for servers in self.on.values() for s in servers}


class Presence:
    """One process's part in presence: its beat, its writes, and what it knows of
    the other processes (``alive``)."""

    def __init__(
        self,
        client: RedisClient,
        *,
        beat_s: float = PRESENCE_BEAT_S,
        server_id: str | None = None,
        clock_ms: Callable[[], int] = _now_ms,
        on_beat: Callable[[], None] | None = None,
        playing: Callable[[], int] | None = None,
    ) -> None:
        self.server_id = server_id or uuid.uuid4().hex[:16]
        self.beat_s = beat_s
        self.dead_after_ms = int(beat_s * 1000 * DEAD_AFTER_BEATS)
        self.on_beat = on_beat
        self.playing = playing  # This process's seats with sockets in live games.
        self._r = client
        self._direct = command_path(client)
        self._clock_ms = clock_ms
        self._beats: dict[str, int] = {}  # server -> its last beat (ms), as last read
        self._beats_read_ms = 0  # when that read was sent
        self._wanted: dict[tuple[str, int], bool] = {}  # (game, seat) -> a socket here
        self._written: set[tuple[str, int]] = set()  # written "on" in Redis
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._tasks: list[asyncio.Task[None]] = []

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Beat once (so others know this process before any of its writes), then
        beat and write in tasks of their own."""
        with contextlib.suppress(RedisError, OSError):
            await self._beat()
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._beating()), loop.create_task(self._writing())]

    async def close(self, timeout: float = 2.0) -> None:
        """Write what is left (the end of every socket still counted) and leave the
        set, so the others count this process's sockets out at their next beat."""
        for game_id, seat in list(self._written):  # sockets left open: their end
            self.want(game_id, seat, False)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), timeout)
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        with contextlib.suppress(RedisError, OSError):
            await self._r.zrem(PRESENCE_SERVERS_KEY, self.server_id)
            await self._r.hdel(PRESENCE_PLAYING_KEY, self.server_id)

    # ------------------------------------------------------------ this process

    def want(self, game_id: str, seat: int, on: bool) -> None:
        """This process has a socket of ``seat`` open (``on``) or none any more: told
        to Redis soon, in order, by the writing task."""
        self._wanted[(game_id, seat)] = on
        self._idle.clear()
        self._wake.set()

    async def _writing(self) -> None:
        failures = 0
        while True:
            if not self._wanted:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            batch, self._wanted = self._wanted, {}
            todo = [(k, on) for k, on in batch.items() if on != (k in self._written)]
            try:
                await asyncio.gather(*(self._write(game, seat, on) for (game, seat), on in todo))
                failures = 0
            except (RedisError, OSError) as e:
                # Written again, whichever went through: each write is idempotent.
                for key, on in batch.items():
                    self._wanted.setdefault(key, on)
                log.warning("presence: writing failed (%r)", e)
                failures += 1
                await asyncio.sleep(min(0.05 * 2**failures, self.beat_s))

    async def _write(self, game_id: str, seat: int, on: bool) -> None:
        await self._direct.run(
            _WRITE_LUA,
            (presence_key(game_id).encode(),),
            (
                b"%d" % seat,
                self.server_id.encode(),
                b"%d" % self._clock_ms(),
                b"1" if on else b"0",
                signals_channel(game_id).encode(),
            ),
        )
        if on:
            self._written.add((game_id, seat))
        else:
            self._written.discard((game_id, seat))

    async def write_audience(self, game_id: str, audience: Audience) -> None:
        """Tell the others this process's spectators of a game (none: the field goes)."""
        count, names = audience
        await self._direct.run(
            _AUDIENCE_LUA,
            (presence_key(game_id).encode(),),
            (
                self.server_id.encode(),
                b"%d" % self._clock_ms(),
                b"%d" % count,
                _names_encoder.encode(list(names)),
                signals_channel(game_id).encode(),
            ),
        )

    # ------------------------------------------------------------ the others

    async def _beating(self) -> None:
        while True:
            await asyncio.sleep(self.beat_s)
            try:
                await self._beat()
            except (RedisError, OSError) as e:
                log.warning("presence: beat failed (%r)", e)
                continue
            if self.on_beat is not None:
                self.on_beat()

    async def _beat(self) -> None:
        now = self._clock_ms()
        flat = await self._direct.run(
            _BEAT_LUA,
            (PRESENCE_SERVERS_KEY.encode(),),
            (self.server_id.encode(), b"%d" % now, b"%d" % (now - FORGET_MS)),
        )
        self._beats = {_text(flat[i]): int(float(flat[i + 1])) for i in range(0, len(flat), 2)}
        self._beats_read_ms = now
        if self.playing is not None:
            await self._r.hset(PRESENCE_PLAYING_KEY, self.server_id, self.playing())

    async def playing_everywhere(self) -> int:
        """The seats with a socket open in live games, over every process alive (as
        each wrote at its last beat)."""
        raw = await self._r.hgetall(PRESENCE_PLAYING_KEY)
        alive_after = self._clock_ms() - self.dead_after_ms
        total = 0
        for server, count in raw.items():
            name = _text(server)
            if name == self.server_id or self._beats.get(name, 0) >= alive_after:
                total += int(count)
        return total

    def alive(self, server: str, seen: SeatsSeen) -> bool:
        """Whether ``server``'s sockets count, named in the hash ``seen``. A server
        missing from the last beat's read counts only if it was just born: the hash
        was read after that beat, and the server wrote to it since (a process beats
        before its first write). One long dead (forgotten from the set after
        ``FORGET_MS``) wrote long before: it never counts, whenever the hash is read."""
        if server == self.server_id:
            return True
        beat = self._beats.get(server)
        if beat is None:
            born_after = self._beats_read_ms - self.dead_after_ms  # its clock may lag ours
            return seen.read_ms > self._beats_read_ms and seen.written.get(server, 0) > born_after
        return beat >= self._clock_ms() - self.dead_after_ms

    def remote_audience(self, seen: SeatsSeen) -> Audience:
        """The spectators of the other live processes, as ``seen`` says."""
        return merge_audiences(
            audience
            for server, audience in seen.watch.items()
            if server != self.server_id and self.alive(server, seen)
        )

    def remote(self, seen: SeatsSeen, seats: int) -> list[int | None]:
        """Per seat, since when (ms, 0: never) no other process has had one of its
        sockets open, or None while one has."""
        return [self.away_since(seen, seat, others=True) for seat in range(seats)]

    def away_since(self, seen: SeatsSeen, seat: int, *, others: bool = False) -> int | None:
        """Since when (ms) ``seat`` has had no socket on any process, as ``seen``
        says; None while it has one, 0 if it never had any. ``others``: as far as
        the other processes go (this one's sockets are its hubs' to count)."""
        servers = seen.on.get(seat, set())
        if others:
            servers = servers - {self.server_id}
        if any(self.alive(s, seen) for s in servers):
            return None
        dead = [self._beats.get(s, 0) for s in servers]
        return max([seen.left.get(seat, 0), *dead])

    async def audience(self, game_id: str) -> Audience:
        """A game's spectators on every live process, as Redis has them (each process
        writes its own at most once a second)."""
        read_ms = self._clock_ms()
        raw = await self._r.hgetall(presence_key(game_id))
        flat = [x for pair in raw.items() for x in pair]
        seen = SeatsSeen.parse(flat, read_ms)
        return merge_audiences(a for s, a in seen.watch.items() if self.alive(s, seen))

    async def read(self, game_id: str) -> tuple[SeatsSeen, RematchNews | None]:
        """A game's presence hash, and its rematch (for a new hub)."""
        seen, rematch, _ = await self.read_at(game_id, 0)
        return seen, rematch

    async def read_at(
        self, game_id: str, version: int
    ) -> tuple[SeatsSeen, RematchNews | None, int | None]:
        """``read``, and the time (ms) of the game's event at ``version`` if any."""
        read_ms = self._clock_ms()
        keys = (presence_key(game_id), meta_key(game_id), events_key(game_id))
        answers = tuple(rematch_answer_field(s).encode() for s in range(MOST_SEATS))
        flat, rematch, at, said = await self._direct.run(
            _READ_LUA, tuple(k.encode() for k in keys), (b"%d" % version, *answers)
        )
        return (
            SeatsSeen.parse(flat, read_ms),
            None if rematch is None else RematchNews.parse(_text(rematch), said),
            None if at is None else int(at),
        )

    async def seats_away_since(
        self, game_id: str, seats: int, since_version: int | None = None
    ) -> list[int | None]:
        """Per seat of a game of ``seats`` seats, since when (ms) it has had no socket
        on any process, as the rules take it (``seat_away_since``), None while it has
        one. Never before the game's event at ``since_version``: by default a started
        game's start, its event at version ``seats + 2`` (its creation, each seat's
        join, then ``GameStarted`` with the last join); an open game's is its creation,
        version 1."""
        version = seats + 2 if since_version is None else since_version
        seen, _, started = await self.read_at(game_id, version)
        return [seat_away_since(self.away_since(seen, s), started) for s in range(seats)]

    async def attendance(self, game_id: str, since_version: int) -> tuple[SeatsSeen, int, int]:
        """A game's presence hash, the time of its event at ``since_version`` (what a
        seat is away since at the earliest) and of its last event (0 when missing)."""
        read_ms = self._clock_ms()
        keys = (presence_key(game_id).encode(), events_key(game_id).encode())
        flat, since, last = await self._direct.run(_ATTENDANCE_LUA, keys, (b"%d" % since_version,))
        return SeatsSeen.parse(flat, read_ms), int(since or 0), int(last or 0)
