"""Accounts: usernames with a password, and the sessions that log them in.

Optional: guests play as before; an account gives a player a name of their own, and
(with the ratings) a rating. docs/accounts.md says why each choice was made.

- **An account** is one Redis string, ``{accounts}:<id>``, where the id is the
  username in lowercase (usernames are unique case-insensitively): the JSON of
  ``{"username", "hash", "created_ms"}``, the username as it was typed at sign-up and
  the password's argon2id hash (``argon2-cffi``; the password itself is never kept,
  nor logged). A deleted account leaves a tombstone there instead,
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

``account_of_session(conn)`` is what other modules call: the username of the session
a request or websocket carries, or None (a guest); ``session_account(conn)`` is the
same for a request that changes something, its ``Origin`` checked first
(``check_origin``: 403 ``unauthorized`` for another site's page).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, TypeVar, cast
from urllib.parse import urlsplit

import msgspec
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from starlette.requests import HTTPConnection

from events.base import PlayerJoined
from server.errors import bad_request, forbidden
from server.projection import LoggedEvent
from server.redis_cluster import RedisClient
from server.settings import Settings

T = TypeVar("T")

__all__ = [
    "COOKIE",
    "DELETED_NAME",
    "HINT_COOKIE",
    "Account",
    "Accounts",
    "account_id",
    "account_of_session",
    "accounts_named",
    "check_origin",
    "check_password",
    "check_username",
    "deleted_among",
    "mask_deleted",
    "mask_entries",
    "masked_log",
    "session_account",
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


def account_key(username: str) -> str:
    return f"{{accounts}}:{account_id(username)}"


def sessions_key(username: str) -> str:
    return f"{{accounts}}:{account_id(username)}:sessions"


def session_key(session: str) -> str:
    return f"session:{hashlib.sha256(session.encode()).hexdigest()}"


def check_username(username: str) -> str:
    """``username`` if it is 3 to 20 of ``A-Z a-z 0-9 _ -``, else ``bad_request``."""
    if not USERNAME.fullmatch(username):
        raise bad_request(
            "A username is 3 to 20 characters, each a letter (A-Z, a-z), a digit, _ or -."
        )
    return username


def check_password(password: str) -> str:
    """``password`` if its length is allowed, else ``bad_request``."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise bad_request(f"A password is {MIN_PASSWORD} to {MAX_PASSWORD} characters.")
    return password


class Account(msgspec.Struct, frozen=True, omit_defaults=True):
    """What ``{accounts}:<id>`` holds: a live account (``hash``) or a tombstone."""

    username: str
    hash: str | None = None
    created_ms: int | None = None
    deleted_ms: int | None = None


_encode = msgspec.json.Encoder().encode
_decode_account = msgspec.json.Decoder(Account).decode


# KEYS[1] an account's log-in bucket. ARGV: now (ms), rate (tokens a ms), burst.
# Spends a token: returns 0, or the ms until one is there (nothing spent).
_LOGIN_BUCKET_LUA: Final = """
local now, rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(held[1]) or burst
local at = tonumber(held[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
if tokens < 1 then return math.ceil((1 - tokens) / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate))
return 0
"""

# KEYS[1] an account's key. ARGV: the value read, its replacement. Set only if unchanged.
_REPLACE_LUA: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('SET', KEYS[1], ARGV[2]) end
return false
"""


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
        self._login_bucket = client.register_script(_LOGIN_BUCKET_LUA)

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

    async def spend_login(self, username: str, rate: float, burst: int) -> float | None:
        """Count a log-in attempt on the account, in Redis so that every process counts
        it (a token bucket: ``rate`` a second, ``burst`` at once; rate <= 0: no limit).
        None if allowed, else the seconds until the next attempt may be made."""
        return await self._spend(f"{account_key(username)}:logins", rate, burst)

    async def spend_address(self, address: str, rate: float, burst: int) -> float | None:
        """``spend_login`` for an attempt (log-in, sign-up, deletion) from a client
        address: in Redis too, so that N processes behind a balancer don't give an
        address N times the attempts. Its key has its own hash tag: addresses spread
        over a cluster's slots."""
        return await self._spend(f"logins:{{{address}}}", rate, burst)

    async def _spend(self, key: str, rate: float, burst: int) -> float | None:
        if rate <= 0:
            return None
        wait_ms = await self._login_bucket(keys=[key], args=[_now_ms(), rate / 1000, burst])
        return None if not wait_ms else int(wait_ms) / 1000

    async def delete(self, username: str) -> None:
        """Delete an account: its hash is dropped, a tombstone keeps the name taken,
        and every session of it ends. Its games are not touched (docs/accounts.md)."""
        account = await self.get(username)
        if account is None or account.hash is None:
            return
        tombstone = Account(account.username, deleted_ms=_now_ms())
        await self._r.set(account_key(username), _encode(tombstone))
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


async def account_of_session(conn: HTTPConnection) -> str | None:
    """The username (as typed at sign-up; ``account_id`` gives its id) of the account
    whose session cookie a request or websocket carries, or None: a guest, or a
    session that ended (logged out, expired, the account deleted)."""
    accounts = cast(Accounts, conn.app.state.accounts)
    return await accounts.session_account(conn.cookies.get(COOKIE))


Origin = tuple[str, str, int | None]
"""An origin as compared: scheme, host (lowercase) and port (the scheme's default
when the text names none)."""

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
# A websocket's scheme is its page's: ws is reached from http pages, wss from https.
_PAGE_SCHEMES: Final = {"ws": "http", "wss": "https"}


def parse_origin(text: str) -> Origin | None:
    """``scheme://host[:port]`` as compared, or None for anything else (``null``, a
    path, a port that is no number)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname or parts.path not in ("", "/"):
        return None
    if parts.query or parts.fragment or parts.username is not None:
        return None
    return parts.scheme, parts.hostname, port or _DEFAULT_PORTS.get(parts.scheme)


def own_origin(conn: HTTPConnection) -> Origin | None:
    """This server's origin as the client reached it: the request's scheme (behind a
    trusted proxy, its ``X-Forwarded-Proto``, which uvicorn applies for
    ``SPLENDOR_TRUSTED_PROXIES`` only) and the ``Host`` it was sent to (proxies pass
    it on: docs/deploy)."""
    host = conn.headers.get("host")
    if not host:
        return None
    scheme = conn.url.scheme
    return parse_origin(f"{_PAGE_SCHEMES.get(scheme, scheme)}://{host}")


def check_origin(conn: HTTPConnection) -> None:
    """Refuse (403) a request sent by another site's page: its ``Origin`` is neither
    this server's (``own_origin``: scheme, host and port) nor one of
    ``allowed_origins``. Without ``Origin`` (not a browser, which always sends it on
    POST and DELETE) a ``Sec-Fetch-Site`` other than same-origin is refused too."""
    origin = conn.headers.get("origin")
    if origin is None:
        site = conn.headers.get("sec-fetch-site")
        if site is None or site in ("same-origin", "none"):
            return
        raise forbidden(f"A request from another site ({site}) can't use your session.")
    given = parse_origin(origin)
    if given is not None:
        if given == own_origin(conn):
            return
        allowed = cast(Settings, conn.app.state.settings).allowed_origins
        if any(given == parse_origin(a) for a in allowed):
            return
    raise forbidden(f"A request from another site ({origin[:100]}) can't use your session.")


async def session_account(conn: HTTPConnection) -> str | None:
    """``account_of_session`` for a request that changes something: its ``Origin``
    is checked first when it carries a session cookie."""
    if COOKIE in conn.cookies:
        check_origin(conn)
    return await account_of_session(conn)


async def deleted_among(client: RedisClient, usernames: set[str]) -> set[str]:
    """Of these usernames, the ids (lowercase) of the deleted accounts (one ``MGET``)."""
    ids = sorted({account_id(u) for u in usernames})
    if not ids:
        return set()
    raws = await client.mget([f"{{accounts}}:{i}" for i in ids])
    return {
        i
        for i, raw in zip(ids, raws, strict=True)
        if raw is not None and _decode_account(raw).deleted_ms is not None
    }


async def mask_deleted(conn: HTTPConnection, entries: list[dict[str, Any]]) -> None:
    """``mask_entries`` by the app's accounts."""
    usernames = accounts_named(entries)
    if usernames:
        accounts = cast(Accounts, conn.app.state.accounts)
        mask_entries(entries, await accounts.deleted_among(usernames))


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
