"""Accounts: usernames with a password, and the sessions that log them in.

Optional: guests play as before; an account gives a player a name of their own, and
(with the ratings) a rating. docs/accounts.md says why each choice was made.

- **An account** is one Redis string, ``{accounts}:<id>``, where the id is the
  username in lowercase (usernames are unique case-insensitively): the JSON of
  ``{"username", "hash", "created_ms"}`` (and ``"language"`` once its player chose
  one: docs/languages.md), the username as it was typed at sign-up and the
  password's argon2id hash (``argon2-cffi``; the password itself is never kept, nor
  logged). A deleted account leaves a tombstone there instead,
  ``{"username", "deleted_ms"}``: the name is never given again (its games still
  name it in their events) and listings show it as ``DELETED_NAME``.
- **Sessions** are random ids (``secrets.token_urlsafe(32)``) kept as their SHA-256
  at ``session:<digest>`` -> the username, expiring after ``SESSION_SECONDS``; the
  account's sorted set ``{accounts}:<id>:sessions`` lists them (scored by expiry) so
  that "log out everywhere" ends them all. A dump of Redis holds no usable session.
- **Hashing runs off the event loop**, in a pool of its own (``HASH_THREADS``, one
  core per hash), so a login never stalls the live games' websockets (argon2
  releases the GIL).
- **An unknown username costs the same as a wrong password**: it is verified against
  a dummy hash of the same parameters, and both get the same answer.

``Accounts.session_account(session)`` gives the username a session id logs in, or
None; server/web/sessions.py asks it for the session a request or websocket carries,
and checks the request's ``Origin``.

Log-in limits (docs/accounts.md "Log-in limits") are counted here too, in Redis so
that every process counts them: ``spend_address`` per client address,
``reserve_login``/``refund_login`` per account and per account and address (only
failures count: a right password gives back what its attempt took).
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final, TypeVar, cast

import msgspec
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from events.base import PlayerJoined
from server.common.errors import ServiceError, bad_request
from server.common.settings import Settings
from server.games.projection import LoggedEvent
from server.store.clients import RedisClient
from server.store.keys import (
    account_email_key,
    account_key,
    address_logins_key,
    login_keys,
    player_tournaments_key,
    session_key,
    sessions_key,
)

T = TypeVar("T")

__all__ = [
    "COOKIE",
    "DELETED_NAME",
    "HINT_COOKIE",
    "Account",
    "Accounts",
    "LoginBudget",
    "LoginTicket",
    "account_id",
    "accounts_named",
    "check_password",
    "check_username",
    "deleted_among",
    "mask_entries",
    "masked_log",
]

COOKIE: Final = "splendor_session"
"""The session cookie's name."""
HINT_COOKIE: Final = "splendor_account"
"""A cookie the page can read, ``1`` while it holds a session (no secret in it): a
guest's page then never asks ``GET /api/me`` for a 401."""
SESSION_SECONDS: Final = 30 * 86_400
"""A session's life (the cookie's Max-Age too): 30 days from logging in."""
DELETED_NAME: Final = "deleted player"
"""The name listings show for the seat of a deleted account."""
HASH_THREADS: Final = max(1, (os.cpu_count() or 2) // 2)
"""Threads hashing passwords at once: half the cores, so live games keep the rest."""


def password_hasher() -> PasswordHasher:
    """argon2id with OWASP's parameters for a server (46 MiB, one pass, one lane):
    one core per hash, so ``HASH_THREADS`` bounds the cores log-ins can take."""
    return PasswordHasher(time_cost=1, memory_cost=46 * 1024, parallelism=1)


MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 256
USERNAME: Final = re.compile(r"[A-Za-z0-9_-]{3,20}")


def account_id(username: str) -> str:
    """An account's id: its username in lowercase (how uniqueness and keys see it)."""
    return username.lower()


BACKOFF_QUIET_S: Final = 3600
"""An account's back-off ends once this long has passed since its last wait ended
with no failure meanwhile (its record is forgotten: the whole burst again)."""


@dataclass(frozen=True)
class LoginBudget:
    """The log-in limits of an account (docs/accounts.md "Log-in limits"): rates a
    second (<= 0: that limit off) and bursts of failures per account and address
    (strict), per account (looser), and per account from new addresses while it backs
    off; the back-off's first wait and cap, in seconds."""

    pair_rate: float
    pair_burst: int
    account_rate: float
    account_burst: int
    new_address_rate: float
    new_address_burst: int
    backoff: float
    backoff_cap: float

    @classmethod
    def of(cls, settings: Settings) -> LoginBudget:
        return cls(
            settings.account_address_login_rate,
            settings.account_address_login_burst,
            settings.account_login_rate,
            settings.account_login_burst,
            settings.new_address_login_rate,
            settings.new_address_login_burst,
            settings.login_backoff,
            settings.login_backoff_cap,
        )

    def rates_and_bursts(self) -> tuple[tuple[float, int], tuple[float, int], tuple[float, int]]:
        """(rate a ms, burst) of the pair, the account and new addresses."""
        return (
            (self.pair_rate / 1000, self.pair_burst),
            (self.account_rate / 1000, self.account_burst),
            (self.new_address_rate / 1000, self.new_address_burst),
        )

    def script_args(self) -> list[float]:
        pair, account, new = self.rates_and_bursts()
        return [
            *pair,
            *account,
            *new,
            round(self.backoff * 1000),
            round(self.backoff_cap * 1000),
            BACKOFF_QUIET_S * 1000,
        ]


@dataclass(frozen=True)
class LoginTicket:
    """What ``Accounts.reserve_login`` took for one attempt (given back by
    ``refund_login`` when the password proves right), or, with ``wait``, the seconds
    before the attempt may be made (nothing taken), ``why``: ``pair`` (this address's
    budget on the account) or ``account`` (the account backs off)."""

    username: str
    address: str
    wait: float | None = None
    why: str = ""
    kind: str = "-"
    set_until: int = 0
    prev_until: int = 0


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def check_username(username: str) -> str:
    """``username`` if it is 3 to 20 of ``A-Z a-z 0-9 _ -``, else ``bad_request``."""
    if not USERNAME.fullmatch(username):
        raise bad_request("account.username_form")
    return username


def check_password(password: str) -> str:
    """``password`` if its length is allowed, else ``bad_request``."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise bad_request("account.password_length", least=MIN_PASSWORD, most=MAX_PASSWORD)
    return password


class Account(msgspec.Struct, frozen=True, omit_defaults=True):
    """What ``{accounts}:<id>`` holds: a live account (``hash``) or a tombstone."""

    username: str
    hash: str | None = None
    created_ms: int | None = None
    deleted_ms: int | None = None
    language: str | None = None  # the language its player chose (docs/languages.md)


_encode = msgspec.json.Encoder().encode
_decode_account = msgspec.json.Decoder(Account).decode


# KEYS[1] an address's bucket. ARGV: now (ms), rate (tokens a ms), burst, and 1 to
# spend a token or -1 to give one back. Spending returns 0, or the ms until a token is
# there (nothing spent); giving back returns 0.
_ADDRESS_BUCKET_LUA: Final = """
local now, rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(held[1]) or burst
local at = tonumber(held[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
if tonumber(ARGV[4]) < 0 then
  if held[1] then
    redis.call('HSET', KEYS[1], 'tokens', tostring(math.min(burst, tokens + 1)), 'at', tostring(now))
  end
  return 0
end
if tokens < 1 then return math.ceil((1 - tokens) / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate))
return 0
"""

# The log-in budgets of an account (docs/accounts.md "Log-in limits"), taken before a
# password is checked so that attempts sent at once can't all pass a check made
# before any of them failed.
# KEYS[1] the account's record: its looser bucket (tokens, at), its back-off (strikes,
# until: no slot before that ms) and its bucket for new addresses (new, new_at).
# KEYS[2] the bucket of the account and one address.
# ARGV: now (ms); the rates (tokens a ms; <= 0: that limit is off) and bursts of the
# pair, the account and new addresses; the back-off's first wait and cap (ms); the
# quiet (ms after the last wait ends) that ends the back-off.
# Returns {0, kind, until set, until before}, the attempt's budgets taken (kind: 'a'
# a token of the account, 's' the back-off's next slot, 'n' a new address's token,
# '-' none of the account's), or {ms to wait, 'pair' | 'account'}, nothing taken.
_LOGIN_RESERVE_LUA: Final = """
local now = tonumber(ARGV[1])
local pr, pb = tonumber(ARGV[2]), tonumber(ARGV[3])
local ar, ab = tonumber(ARGV[4]), tonumber(ARGV[5])
local nr, nb = tonumber(ARGV[6]), tonumber(ARGV[7])
local base, cap, quiet = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local function level(tokens, at, rate, burst)
  tokens = tonumber(tokens) or burst
  at = tonumber(at) or now
  return math.min(burst, tokens + math.max(0, now - at) * rate)
end
local ptokens = pb
if pr > 0 then
  local pair = redis.call('HMGET', KEYS[2], 'tokens', 'at')
  ptokens = level(pair[1], pair[2], pr, pb)
  if ptokens < 1 then return {math.ceil((1 - ptokens) / pr), 'pair'} end
end
-- An address with no recent failure on the account: its pair bucket is full.
local clean = ptokens >= pb
local kind, set_until, prev_until = '-', 0, 0
if ar > 0 then
  local held = redis.call('HMGET', KEYS[1], 'tokens', 'at', 'strikes', 'until', 'new', 'new_at')
  local strikes = tonumber(held[3]) or 0
  local locked = tonumber(held[4]) or 0
  if strikes > 0 and now >= locked + quiet then
    redis.call('DEL', KEYS[1])
    held, strikes, locked = {false, false, false, false, false, false}, 0, 0
  end
  local tokens = level(held[1], held[2], ar, ab)
  if strikes == 0 and tokens >= 1 then
    kind = 'a'
    redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'at', tostring(now))
  elseif now >= locked then
    kind, prev_until, strikes = 's', locked, strikes + 1
    set_until = now + math.min(cap, base * 2 ^ math.min(strikes - 1, 40))
    locked = set_until
    redis.call('HSET', KEYS[1], 'strikes', strikes, 'until', tostring(set_until),
      'tokens', tostring(tokens), 'at', tostring(now))
  elseif clean then
    if nr > 0 then
      local fresh = level(held[5], held[6], nr, nb)
      if fresh < 1 then
        return {math.min(locked - now, math.ceil((1 - fresh) / nr)), 'account'}
      end
      redis.call('HSET', KEYS[1], 'new', tostring(fresh - 1), 'new_at', tostring(now))
    end
    kind = 'n'
  else
    local wait = locked - now
    if pr > 0 then wait = math.min(wait, math.ceil((pb - ptokens) / pr)) end
    return {wait, 'account'}
  end
  redis.call('PEXPIRE', KEYS[1], math.max(0, locked - now) + math.max(quiet, math.ceil(ab / ar)))
end
if pr > 0 then
  redis.call('HSET', KEYS[2], 'tokens', tostring(ptokens - 1), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[2], math.ceil((pb - ptokens + 1) / pr))
end
return {0, kind, set_until, prev_until}
"""

# KEYS as _LOGIN_RESERVE_LUA's. ARGV: now (ms); what the attempt took (kind, until
# set, until before); the rates and bursts of the pair, the account and new
# addresses. Gives back what a right password's attempt took: a failure is all that
# counts. A back-off slot is given back only if no later slot was taken since.
_LOGIN_REFUND_LUA: Final = """
local now, kind = tonumber(ARGV[1]), ARGV[2]
local set_until, prev_until = tonumber(ARGV[3]), tonumber(ARGV[4])
local pr, pb = tonumber(ARGV[5]), tonumber(ARGV[6])
local ar, ab = tonumber(ARGV[7]), tonumber(ARGV[8])
local nr, nb = tonumber(ARGV[9]), tonumber(ARGV[10])
local function give_back(key, tokens_field, at_field, rate, burst)
  local held = redis.call('HMGET', key, tokens_field, at_field)
  if not held[1] then return end
  local tokens = tonumber(held[1]) + math.max(0, now - (tonumber(held[2]) or now)) * rate
  redis.call('HSET', key, tokens_field, tostring(math.min(burst, tokens + 1)), at_field, tostring(now))
end
if pr > 0 then give_back(KEYS[2], 'tokens', 'at', pr, pb) end
if kind == 'a' and ar > 0 then give_back(KEYS[1], 'tokens', 'at', ar, ab) end
if kind == 'n' and nr > 0 then give_back(KEYS[1], 'new', 'new_at', nr, nb) end
if kind == 's' then
  local held = redis.call('HMGET', KEYS[1], 'strikes', 'until')
  if tonumber(held[2]) == set_until then
    redis.call('HSET', KEYS[1], 'strikes', math.max(0, (tonumber(held[1]) or 1) - 1),
      'until', tostring(prev_until))
  end
end
return 0
"""

# KEYS[1] an account's key. ARGV: the value read, its replacement. Set only if unchanged.
_REPLACE_LUA: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('SET', KEYS[1], ARGV[2]) end
return false
"""


RECORD_ATTEMPTS: Final = 10
"""Reads and writes of an account's record before a change of it gives up (another
change won each time)."""


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class Accounts:
    """Accounts and sessions over one Redis client; passwords hashed in a thread pool."""

    def __init__(self, client: RedisClient, hasher: PasswordHasher | None = None) -> None:
        self._r = client
        self._hasher = password_hasher() if hasher is None else hasher
        self._pool = ThreadPoolExecutor(HASH_THREADS, thread_name_prefix="argon2")
        # Made at once, in the pool: the first unknown name then costs one
        # verification like any other, not a hash and a verification.
        self._dummy = self._pool.submit(self._hasher.hash, secrets.token_urlsafe(16))
        self._replace = client.register_script(_REPLACE_LUA)
        self._address_bucket = client.register_script(_ADDRESS_BUCKET_LUA)
        self._login_reserve = client.register_script(_LOGIN_RESERVE_LUA)
        self._login_refund = client.register_script(_LOGIN_REFUND_LUA)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def _in_pool(self, fn: Callable[..., T], *args: str) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def _hash(self, password: str) -> str:
        return await self._in_pool(self._hasher.hash, password)

    async def _verify(self, hashed: str, password: str) -> bool:
        return await self._in_pool(self._verify_now, hashed, password)

    def _verify_now(self, hashed: str, password: str) -> bool:
        try:
            return self._hasher.verify(hashed, password)
        except (VerificationError, InvalidHashError):
            return False

    async def ready(self) -> None:
        """Wait until the dummy hash (unknown users are verified against it) is made."""
        await self._dummy_hash()

    async def _dummy_hash(self) -> str:
        """A hash of a random password with the hasher's parameters, for unknown users."""
        return await asyncio.wrap_future(self._dummy)

    # ------------------------------------------------------------------ accounts

    async def get(self, username: str) -> Account | None:
        """The account (or tombstone) of ``username``, any case; None if never made."""
        raw = await self._r.get(account_key(username))
        return None if raw is None else _decode_account(raw)

    async def _stored(self, username: str) -> tuple[bytes, Account] | None:
        """The account's record as read (to replace it only if unchanged), decoded."""
        raw = cast(bytes | None, await self._r.get(account_key(username)))
        return None if raw is None else (raw, _decode_account(raw))

    async def create(self, username: str, password: str) -> str | None:
        """Make an account; its username, or None if the name is taken (in any case,
        or by a deleted account). Arguments are checked first (``bad_request``)."""
        check_username(username)
        check_password(password)
        key = account_key(username)
        if await self._r.exists(key):  # spares a hash; the SET NX below decides
            return None
        account = Account(username, await self._hash(password), _now_ms())
        made = await self._r.set(key, _encode(account), nx=True)
        return username if made else None

    async def verify(self, username: str, password: str) -> str | None:
        """The account's username (as typed at sign-up) if ``password`` is its
        password, else None: for an unknown or deleted name too, after as long."""
        stored = await self._stored(username) if USERNAME.fullmatch(username) else None
        hashed = stored[1].hash if stored is not None else None
        if stored is None or hashed is None:
            await self._verify(await self._dummy_hash(), password)
            return None
        raw, account = stored
        if not await self._verify(hashed, password):
            return None
        if self._hasher.check_needs_rehash(hashed):  # other parameters now: rehash
            renewed = msgspec.structs.replace(account, hash=await self._hash(password))
            # Only over the record just read: never over a deletion made meanwhile.
            await self._replace(keys=[account_key(username)], args=[raw, _encode(renewed)])
        return account.username

    async def spend_address(
        self, address: str, rate: float, burst: int, now_ms: int | None = None
    ) -> float | None:
        """Count an attempt (a sign-up, a deletion, a log-in until it proves right) from
        a client address in its token bucket (``rate`` a second, ``burst`` at once;
        rate <= 0: no limit): None if counted, else the seconds until one may be made.
        In Redis, so that N processes behind a balancer don't give an address N times
        the attempts; its key has its own hash tag, addresses spread over a cluster's
        slots."""
        if rate <= 0:
            return None
        now = _now_ms() if now_ms is None else now_ms
        wait_ms = await self._address_bucket(
            keys=[address_logins_key(address)], args=[now, rate / 1000, burst, 1]
        )
        return None if not wait_ms else int(wait_ms) / 1000

    async def refund_address(
        self, address: str, rate: float, burst: int, now_ms: int | None = None
    ) -> None:
        """Give back an attempt ``spend_address`` counted (a log-in that proved right)."""
        if rate > 0:
            now = _now_ms() if now_ms is None else now_ms
            await self._address_bucket(
                keys=[address_logins_key(address)], args=[now, rate / 1000, burst, -1]
            )

    async def reserve_login(
        self, username: str, address: str, budget: LoginBudget, now_ms: int | None = None
    ) -> LoginTicket:
        """Take what a log-in to ``username`` from ``address`` costs if its password is
        wrong (docs/accounts.md "Log-in limits"), before the password is checked; or a
        ticket with ``wait`` (nothing taken) when the attempt may not be made now. The
        same for a name nobody has, so the answers tell nothing of which exist."""
        if budget.pair_rate <= 0 and budget.account_rate <= 0:
            return LoginTicket(username, address)
        now = _now_ms() if now_ms is None else now_ms
        reply = await self._login_reserve(
            keys=login_keys(username, address), args=[now, *budget.script_args()]
        )
        wait_ms, kind = int(reply[0]), _text(reply[1])
        if wait_ms > 0:
            return LoginTicket(username, address, wait=wait_ms / 1000, why=kind)
        return LoginTicket(username, address, None, "", kind, int(reply[2]), int(reply[3]))

    async def refund_login(
        self, ticket: LoginTicket, budget: LoginBudget, now_ms: int | None = None
    ) -> None:
        """Give back what ``reserve_login`` took for an attempt whose password was
        right: only failures count."""
        if ticket.wait is not None or (budget.pair_rate <= 0 and budget.account_rate <= 0):
            return
        now = _now_ms() if now_ms is None else now_ms
        pair, account, new = budget.rates_and_bursts()
        await self._login_refund(
            keys=login_keys(ticket.username, ticket.address),
            args=[now, ticket.kind, ticket.set_until, ticket.prev_until, *pair, *account, *new],
        )

    async def set_language(self, username: str, language: str) -> bool:
        """Keep ``language`` on the account; False if it is deleted (or was never
        made). Written only over the record as read, so a deletion or a rehash made
        meanwhile is never undone: read again and retried then."""
        for _ in range(RECORD_ATTEMPTS):
            stored = await self._stored(username)
            if stored is None or stored[1].hash is None:
                return False
            raw, account = stored
            chosen = msgspec.structs.replace(account, language=language)
            if await self._replace(keys=[account_key(username)], args=[raw, _encode(chosen)]):
                return True
        raise ServiceError("conflict", "account.busy")

    async def language(self, username: str) -> str | None:
        """The language the account's player chose, if any."""
        account = await self.get(username)
        return None if account is None else account.language

    async def delete(self, username: str) -> None:
        """Delete an account: its hash is dropped, a tombstone keeps the name taken,
        its e-mail address is deleted, and every session of it ends. Its games are not
        touched (docs/accounts.md)."""
        account = await self.get(username)
        if account is None or account.hash is None:
            return
        tombstone = Account(account.username, deleted_ms=_now_ms())
        await self._r.set(account_key(username), _encode(tombstone))
        # After the tombstone: a write of the address checks for one (server/mail/addresses.py).
        await self._r.delete(account_email_key(username))
        # Its tournament history is no longer shown; the director does not write it
        # again (``TournamentService.heal`` skips deleted accounts).
        await self._r.delete(player_tournaments_key(account_id(username)))
        await self.end_all_sessions(username)

    async def deleted_among(self, usernames: set[str]) -> set[str]:
        """Of these usernames, the ids (lowercase) of the deleted accounts."""
        return await deleted_among(self._r, usernames)

    # ------------------------------------------------------------------ sessions

    async def new_session(self, username: str) -> str | None:
        """A new session of the account: its id, to send as the cookie (only its
        digest is kept); None if the account is deleted (or was never made).

        Written before the account is read again, so a deletion racing a log-in (the
        password verified before the tombstone was written) never leaves a live
        session: either the deletion's ``end_all_sessions`` lists it, or this read
        sees the tombstone and ends it here."""
        session = secrets.token_urlsafe(32)
        now = _now_ms()
        expires = now + SESSION_SECONDS * 1000
        key = session_key(session)
        listed = sessions_key(username)
        await self._r.set(key, username.encode(), ex=SESSION_SECONDS)
        async with self._r.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(listed, 0, now)  # those that expired by themselves
            pipe.zadd(listed, {key: expires})
            pipe.pexpireat(listed, expires)
            await pipe.execute()
        account = await self.get(username)
        if account is None or account.hash is None:
            await self._r.delete(key)
            await self._r.zrem(listed, key)
            return None
        return session

    async def session_account(self, session: str | None) -> str | None:
        """The username a session id is of, None if there is no such live session."""
        if not session or len(session) > 100:
            return None
        found = await self._r.get(session_key(session))
        return None if found is None else cast(bytes, found).decode()

    async def end_session(self, session: str | None) -> None:
        """Log one session out (nothing if it is not a live session)."""
        username = await self.session_account(session)
        if username is None:
            return
        assert session is not None
        key = session_key(session)
        await self._r.delete(key)
        await self._r.zrem(sessions_key(username), key)

    async def end_all_sessions(self, username: str) -> int:
        """Log every session of the account out ("log out everywhere"); how many."""
        listed = sessions_key(username)
        keys = cast(list[bytes], await self._r.zrange(listed, 0, -1))
        ended = 0
        for key in keys:  # one by one: sessions are spread over a cluster's slots
            ended += int(await self._r.delete(key))
        if keys:  # only those read: a session made meanwhile stays listed, to end later
            await self._r.zrem(listed, *keys)
        return ended


async def deleted_among(client: RedisClient, usernames: set[str]) -> set[str]:
    """Of these usernames, the ids (lowercase) of the deleted accounts (one ``MGET``)."""
    ids = sorted({account_id(u) for u in usernames})
    if not ids:
        return set()
    raws = await client.mget([account_key(i) for i in ids])
    return {
        i
        for i, raw in zip(ids, raws, strict=True)
        if raw is not None and _decode_account(raw).deleted_ms is not None
    }


async def masked_log(client: RedisClient, logged: Sequence[LoggedEvent]) -> Sequence[LoggedEvent]:
    """A game's log as its hub shows it: the ``PlayerJoined`` events of deleted
    accounts named ``DELETED_NAME``, account None (a new list if any is; the log
    itself untouched), so that every view, snapshot and diff of the websocket says so
    too. A hub made before the deletion keeps the name until made again."""
    named = {
        e.event.account for e in logged if isinstance(e.event, PlayerJoined) and e.event.account
    }
    if not named:
        return logged
    deleted = await deleted_among(client, named)
    if not deleted:
        return logged
    return [
        e._replace(event=msgspec.structs.replace(e.event, name=DELETED_NAME, account=None))
        if isinstance(e.event, PlayerJoined)
        and e.event.account
        and account_id(e.event.account) in deleted
        else e
        for e in logged
    ]


def accounts_named(entries: list[dict[str, Any]]) -> set[str]:
    """The accounts the entries (dicts with ``name`` and ``account``) name."""
    return {e["account"] for e in entries if e.get("account")}


def mask_entries(entries: list[dict[str, Any]], deleted: set[str]) -> None:
    """Name the entries (seats of summaries, players of views, ``PlayerJoined``
    events: dicts with ``name`` and ``account``) of the ``deleted`` accounts (ids)
    ``DELETED_NAME``, their account None: in place, at read time, the log untouched."""
    for entry in entries:
        account = entry.get("account")
        if account and account_id(account) in deleted:
            entry["name"] = DELETED_NAME
            entry["account"] = None
