"""Quick pairing's pools on Redis: who waits, and the scripts that pair them once.

Each pool (``server.players.pairing_rules.Pool``) has its keys under one hash tag, so every
script below touches one Redis Cluster slot:

- ``pair:{<pool>}:queue``: sorted set, entry id → rating (the pool, by rating);
- ``pair:{<pool>}:entries``: hash, entry id → the waiting player (``Waiting``, JSON);
- ``pair:{<pool>}:seen``: hash, entry id → when its server last saw it there (ms);
- ``pair:{<pool>}:paired:<entry id>``: what the entry was paired to (``Paired``,
  JSON), kept ``PAIRED_TTL_S`` for its player's server to pick up;
- ``pair:{<pool>}:lock``: whichever process matches the pool this round.

**Tickets.** A player who joins a pool gets a *ticket*, a secret only it holds. The
entry's id is a digest of it (so a ticket can resume its place, and nobody who
learns an id can), and the seat token of the game it will be paired to is derived
from it (an HMAC, like a rematch's): the pool keeps only that token's digest, the
seat is taken with that digest, and only the ticket's holder can compute the token.

**Nobody paired twice.** Whoever matches reads the pool, plans with the pure
``server.players.pairing_rules.pair_off``, then claims the plan in one script (``CLAIM_LUA``):
a pair is taken only if both its entries are still there, and taking it removes
them. Two processes claiming at once (or a cancel racing a claim) are serialized by
Redis; the loser of a pair just does not get it.

**One wait per account.** An account waits in one place at a time (as on lichess):
``pair:account:{<id>}`` names its latest entry, and a wait begun elsewhere (another
pool, or another tab in the same one) takes the older entry out of its pool
(``LEAVE_LUA``) and marks it ``left``, so its socket is told and stops. Otherwise two
tabs of one account could each be paired, into two games at once.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import Final, cast

import msgspec

from server.games.projection import token_digest
from server.players.pairing_rules import GRACE_MS, Entry, Plan, Pool, pool_named
from server.store.clients import RedisClient
from server.store.keys import account_wait_key, paired_key, pool_keys, pool_lock_key

__all__ = [
    "LEFT",
    "PAIRED_TTL_S",
    "Opponent",
    "Paired",
    "PairingStore",
    "Waiting",
    "entry_id",
    "new_ticket",
    "seat_token",
]

PAIRED_TTL_S: Final = 600
MAKING_MS: Final = 15_000
"""A claimed table's players are not put back in the pool for this long while its game
is made (then, if it never came, ``REQUEUE_MS`` later): a slow maker's players are
never paired a second time meanwhile."""
WAITS_AS_TTL_S: Final = 86_400
"""How long ``pair:account:{<id>}`` names an account's latest wait: longer than any
wait (a shorter life let a wait past it and a second tab's both be paired)."""
LOCK_MS: Final = 5_000
LEFT: Final = "left"
"""``PairingStore.touch``'s answer for an entry whose account began waiting elsewhere."""


def new_ticket() -> str:
    return secrets.token_urlsafe(24)


def entry_id(ticket: str) -> str:
    """The pool's name for a ticket's entry: a digest, so an id gives no ticket."""
    return hashlib.sha256(b"pairing-entry:" + ticket.encode()).hexdigest()[:32]


def seat_token(ticket: str) -> str:
    """The seat token of the game a ticket is paired to (only its holder knows it)."""
    digest = hmac.new(ticket.encode(), b"pairing-seat", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class Waiting(msgspec.Struct, frozen=True):
    """A player in a pool: its entry id, name, account (None: a guest), rating, since
    when it waits (ms), the digest of the seat token it will get, and whether it
    accepted that bots fill a table of three or four."""

    id: str
    name: str
    account: str | None
    rating: float
    since_ms: int
    digest: str
    fill: bool = False

    @staticmethod
    def of_ticket(
        ticket: str, name: str, account: str | None, rating: float, since_ms: int
    ) -> Waiting:
        return Waiting(
            entry_id(ticket), name, account, rating, since_ms, token_digest(seat_token(ticket))
        )


class Opponent(msgspec.Struct, frozen=True):
    """One of the others at a table: a name, a rating (rated games) or a bot."""

    name: str
    rating: float | None = None
    bot: str | None = None


class Paired(msgspec.Struct, frozen=True):
    """What an entry was paired to: the game, its seat, and who it plays (the first
    other player, and every other seat at a table of three or four)."""

    game: str
    seat: int
    opponent: str
    opponent_rating: float | None
    rated: bool
    others: list[Opponent] = msgspec.field(default_factory=list)


_waiting_decoder = msgspec.json.Decoder(Waiting)
_paired_decoder = msgspec.json.Decoder(Paired)


# KEYS queue, entries, seen. ARGV id, rating, entry JSON, now. 1 if added, 0 if there.
ENQUEUE_LUA: Final = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
return 1
"""

# KEYS queue, entries, seen. ARGV id. 1 if it left the pool, 0 if it was not there.
CANCEL_LUA: Final = """
if redis.call('HDEL', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
"""

# KEYS queue, entries, seen, the id's paired key. ARGV id, ttl. 1 if it was in the
# pool (then it is marked left), 0 if not (paired or gone, and then nothing is written).
LEAVE_LUA: Final = """
if redis.call('HDEL', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('SET', KEYS[4], 'left', 'EX', ARGV[2])
return 1
"""

# KEYS queue, entries, seen, then one paired key per id. ARGV now, then the ids. For
# each id: its Paired JSON if paired (and then it leaves the pool, because an entry put
# back while its game was slow to be made must not be paired again), 'm' while its
# game is being made (claimed less than MAKING_MS ago), 'w' if still waiting (seen is
# set to now), else ''.
TOUCH_LUA: Final = """
local out = {}
local now = tonumber(ARGV[1])
for i = 2, #ARGV do
  local paired = redis.call('GET', KEYS[i + 2])
  local making = paired and string.sub(paired, 1, 2) == 'm:'
  if making and now < tonumber(string.sub(paired, 3)) then
    out[#out + 1] = 'm'
  elseif making then
    out[#out + 1] = ''
  elseif paired then
    if redis.call('HDEL', KEYS[2], ARGV[i]) == 1 then
      redis.call('ZREM', KEYS[1], ARGV[i])
      redis.call('HDEL', KEYS[3], ARGV[i])
    end
    out[#out + 1] = paired
  elseif redis.call('HEXISTS', KEYS[2], ARGV[i]) == 1 then
    redis.call('HSET', KEYS[3], ARGV[i], ARGV[1])
    out[#out + 1] = 'w'
  else
    out[#out + 1] = ''
  end
end
return out
"""

# KEYS queue, entries, seen, then one paired key per id of the tables, in order. ARGV
# now, grace, the end of the making (ms), the mark's expiry (s), number of gone ids,
# the gone ids, then each table: its number of ids, then its ids. A gone id is removed if still unseen for the
# grace; a table is taken if all its entries are there, and each of its ids marked
# being made until the making's end (its paired key, 'm:<end>'), so that its player's
# server does not put it back meanwhile. Returns the taken tables, each a list of its
# entries (JSON).
CLAIM_LUA: Final = """
local now, grace, made_by, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
local n_gone = tonumber(ARGV[5])
local function remove(id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[3], id)
end
for i = 6, 5 + n_gone do
  local seen = tonumber(redis.call('HGET', KEYS[3], ARGV[i]) or '0')
  if now - seen > grace then remove(ARGV[i]) end
end
local out = {}
local i = 6 + n_gone
local key = 3
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  local table_ = {}
  for j = 1, n do
    local entry = redis.call('HGET', KEYS[2], ARGV[i + j])
    if entry then table_[#table_ + 1] = entry end
  end
  if #table_ == n then
    for j = 1, n do
      remove(ARGV[i + j])
      redis.call('SET', KEYS[key + j], 'm:' .. made_by, 'EX', ttl)
    end
    out[#out + 1] = table_
  end
  key = key + n
  i = i + n + 1
end
return out
"""

# KEYS entries. ARGV id, the entry (JSON) with its new fields. 1 if it was there.
UPDATE_LUA: Final = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""

# KEYS lock. ARGV owner. Deleted only if still this owner's.
UNLOCK_LUA: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def _touched(raw: bytes) -> Paired | bool | str:
    if raw in (b"w", b"m"):  # waiting, or its game being made
        return True
    if raw == LEFT.encode():
        return LEFT
    return _paired_decoder.decode(raw) if raw else False


class PairingStore:
    """The pools' keys and scripts on one Redis (or Cluster) client."""

    def __init__(self, client: RedisClient) -> None:
        self.client = client
        self._enqueue = client.register_script(ENQUEUE_LUA)
        self._cancel = client.register_script(CANCEL_LUA)
        self._leave = client.register_script(LEAVE_LUA)
        self._touch = client.register_script(TOUCH_LUA)
        self._claim = client.register_script(CLAIM_LUA)
        self._update = client.register_script(UPDATE_LUA)
        self._unlock = client.register_script(UNLOCK_LUA)
        self._owner = secrets.token_hex(8)

    async def enqueue(self, pool: Pool, waiting: Waiting, now_ms: int) -> bool:
        """Put a player in the pool; False if its entry was there (resumed)."""
        body = msgspec.json.encode(waiting)
        added = await self._enqueue(
            keys=pool_keys(pool.name), args=[waiting.id, repr(waiting.rating), body, now_ms]
        )
        return bool(added)

    async def cancel(self, pool: Pool, entry: str) -> bool:
        """Take an entry out of the pool; False if it was not there (paired, gone)."""
        return bool(await self._cancel(keys=pool_keys(pool.name), args=[entry]))

    async def touch(
        self, pool: Pool, now_ms: int, entries: Sequence[str]
    ) -> list[Paired | bool | str]:
        """For each entry: what it was paired to (an entry paired is out of the pool),
        True while it waits (marked seen at ``now_ms``), ``LEFT`` if its account began
        waiting elsewhere, False if it is in the pool no more and not paired."""
        if not entries:
            return []
        keys = [*pool_keys(pool.name), *(paired_key(pool.name, e) for e in entries)]
        raw: list[bytes] = await self._touch(keys=keys, args=[now_ms, *entries])
        return [_touched(r) for r in raw]

    async def waiting(self, pool: Pool) -> list[Waiting]:
        """Everyone in the pool, lowest rating first."""
        _, hash_key, _ = pool_keys(pool.name)
        raw = await self.client.hgetall(hash_key)
        return sorted(
            (_waiting_decoder.decode(v) for v in raw.values()), key=lambda w: (w.rating, w.id)
        )

    async def entry(self, pool: Pool, entry: str) -> Waiting | None:
        """One waiting player, None if it is not in the pool."""
        _, hash_key, _ = pool_keys(pool.name)
        raw = await self.client.hget(hash_key, entry)
        return None if raw is None else _waiting_decoder.decode(raw)

    async def entries(self, pool: Pool) -> tuple[list[Waiting], list[Entry]]:
        """The pool's players, and as the matcher sees them (with when each was seen)."""
        _, _, seen_key = pool_keys(pool.name)
        waiting = await self.waiting(pool)
        seen = await self.client.hgetall(seen_key)
        entries = [
            Entry(w.id, w.rating, w.since_ms, int(seen.get(w.id.encode(), b"0")), w.account, w.fill)
            for w in waiting
        ]
        return waiting, entries

    async def size(self, pool: Pool) -> int:
        queue, _, _ = pool_keys(pool.name)
        return int(await self.client.zcard(queue))

    async def claim(self, pool: Pool, now_ms: int, plan: Plan) -> list[tuple[Waiting, ...]]:
        """Take the plan's tables (pairs and groups) whose entries are all still there
        (and drop the gone entries still unseen): the tables this caller, and nobody
        else, now owns."""
        flat: list[str | int] = []
        marks: list[str] = []
        for table in plan.tables():
            flat += [len(table), *table]
            marks += [paired_key(pool.name, entry) for entry in table]
        args: list[str | int] = [
            now_ms, GRACE_MS, now_ms + MAKING_MS, PAIRED_TTL_S, len(plan.gone), *plan.gone, *flat
        ]  # fmt: skip
        keys = [*pool_keys(pool.name), *marks]
        raw: list[list[bytes]] = await self._claim(keys=keys, args=args)
        return [tuple(_waiting_decoder.decode(r) for r in table) for table in raw]

    async def update(self, pool: Pool, waiting: Waiting) -> bool:
        """Write an entry again with new fields (``fill``); False if it has left."""
        _, hash_key, _ = pool_keys(pool.name)
        body = msgspec.json.encode(waiting)
        return bool(await self._update(keys=[hash_key], args=[waiting.id, body]))

    async def sizes(self, pools: Sequence[Pool]) -> list[int]:
        """How many wait in each pool (one ``ZCARD`` each)."""
        return list(await asyncio.gather(*(self.size(pool) for pool in pools)))

    async def wait_as(self, account: str, pool: Pool, entry: str) -> None:
        """Note that ``account`` now waits as ``entry`` in ``pool``, and take the entry
        it waited as before, if still in its pool, out of it (marked ``LEFT``)."""
        where = f"{pool.name} {entry}"
        key = account_wait_key(account)
        raw = cast(bytes | None, await self.client.set(key, where, ex=WAITS_AS_TTL_S, get=True))
        if raw is not None and raw.decode() != where:
            await self._leave_where(raw.decode())

    async def stop_waiting(self, account: str) -> None:
        """Take the account's wait, if it has one, out of its pool (marked ``LEFT``, so
        its socket is told): it logged out everywhere, or was deleted."""
        raw = cast(bytes | None, await self.client.getdel(account_wait_key(account)))
        if raw is not None:
            await self._leave_where(raw.decode())

    async def _leave_where(self, where: str) -> None:
        name, _, entry = where.partition(" ")
        pool = pool_named(name)
        if pool is not None:
            keys = [*pool_keys(pool.name), paired_key(pool.name, entry)]
            await self._leave(keys=keys, args=[entry, PAIRED_TTL_S])

    async def tell(self, pool: Pool, entry: str, paired: Paired) -> None:
        """Record what an entry was paired to, for its player's server to pick up."""
        body = msgspec.json.encode(paired)
        await self.client.set(paired_key(pool.name, entry), body, ex=PAIRED_TTL_S)

    async def lock(self, pool: Pool) -> bool:
        """Whether this process matches the pool now (nobody else does until unlock)."""
        return bool(
            await self.client.set(pool_lock_key(pool.name), self._owner, nx=True, px=LOCK_MS)
        )

    async def unlock(self, pool: Pool) -> None:
        await self._unlock(keys=[pool_lock_key(pool.name)], args=[self._owner])
