"""An account's e-mail address (docs/email.md): set, verified by a link, removed.

The address lives in the account's slot, ``{accounts}:<id>:email`` (a hash), so that
one script writes it only while the account exists: a deletion drops the key with
the account's hash (``Accounts.delete``), and an address written by a request racing
the deletion is never left behind (the script sees the tombstone and writes nothing).

Fields: ``address``; ``verified`` (``1`` once its link was followed); ``token`` and
``expires`` (the SHA-256 of the pending verification's token and when it expires,
ms); ``sent`` (when the last verification e-mail was queued, ms); ``notify`` (``0``
when its player turned the e-mails of games and tournaments off, by the account menu
or an unsubscribe link).

The verification link's token is ``<account id>.<secret>``: the id finds the record,
the secret (``secrets.token_urlsafe(32)``) is kept as its digest only and is single
use: following the link clears it. It is written only beside the address it is
e-mailed to (the script checks which address the hash holds), so that a link resent
to one address while another request sets a new one never verifies the new one.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import Final, Literal, cast

from server.common.errors import ServiceError, bad_request
from server.players.accounts import USERNAME, account_id
from server.store.clients import RedisClient
from server.store.keys import account_email_key, account_key

__all__ = [
    "RESEND_MS",
    "VERIFY_MS",
    "Addresses",
    "EmailRecord",
    "check_address",
]

VERIFY_MS: Final = 24 * 3_600_000
"""How long a verification link works."""
RESEND_MS: Final = 60_000
"""The shortest time between two verification e-mails of one account, so that a
signed-in page can't make the server flood an address."""
MAX_ADDRESS: Final = 254
# A pragmatic shape, not RFC 5322's: one @, no space, no control or quoting
# character, a dot in the domain. The link that is sent is the real check. ASCII
# only: a server without SMTPUTF8 refuses anything else in the envelope, and the
# To header would carry it encoded, an address nobody reads.
ADDRESS: Final = re.compile(
    r"[A-Za-z0-9!#$%&*+/=?^_`{|}~.-]{1,64}@[A-Za-z0-9.-]+\.[A-Za-z0-9-]{2,}"
)

# KEYS[1] the account, KEYS[2] its e-mail hash. ARGV[1] 'replace' (the hash emptied
# first) or 'merge'; ARGV[2] the address the hash must hold ('' for any); ARGV[3] the
# latest last verification e-mail (ms) that allows this write ('' for any); then
# field, value pairs to write. 0: nothing written to a deleted (or never made)
# account; 2: nothing written, the hash holds another address (a token meant for one
# address is never written beside another); 3: nothing written, a verification
# e-mail was sent later than ARGV[3]; 1: written.
_WRITE_LUA: Final = """
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local ok, account = pcall(cjson.decode, raw)
if not ok or not account['hash'] or account['hash'] == cjson.null then return 0 end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[2], 'address') ~= ARGV[2] then return 2 end
local sent = tonumber(redis.call('HGET', KEYS[2], 'sent') or '0')
if ARGV[3] ~= '' and sent > tonumber(ARGV[3]) then return 3 end
if ARGV[1] == 'replace' then redis.call('DEL', KEYS[2]) end
for i = 4, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[2], ARGV[i])
  else redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
end
return 1
"""

# KEYS[1] the e-mail hash. ARGV: the token's digest, now ms. 'ok', 'expired' or
# 'unknown'; a token that works is used up.
_VERIFY_LUA: Final = """
local held = redis.call('HMGET', KEYS[1], 'token', 'expires')
if not held[1] or held[1] ~= ARGV[1] then return 'unknown' end
if tonumber(held[2]) <= tonumber(ARGV[2]) then return 'expired' end
redis.call('HDEL', KEYS[1], 'token', 'expires')
redis.call('HSET', KEYS[1], 'verified', '1')
return 'ok'
"""


def check_address(address: str) -> str:
    """The address as kept (its domain in lowercase), or ``bad_request``."""
    if len(address) > MAX_ADDRESS or not ADDRESS.fullmatch(address):
        raise bad_request("email.address", most=MAX_ADDRESS)
    local, domain = address.rsplit("@", 1)
    return f"{local}@{domain.lower()}"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class EmailRecord:
    """What an account holds of its address (never shown to another player)."""

    address: str | None
    verified: bool
    notify: bool
    sent_ms: int

    def wire(self) -> dict[str, object]:
        """``GET /api/me/email``'s answer."""
        return {
            "enabled": True,
            "address": self.address,
            "verified": self.verified,
            "notify": self.notify,
        }

    @property
    def reachable(self) -> bool:
        """Game and tournament e-mails may be sent to it: verified, not turned off."""
        return self.address is not None and self.verified and self.notify


Outcome = Literal["ok", "expired", "unknown"]


class Addresses:
    """The accounts' addresses over one Redis client."""

    def __init__(self, client: RedisClient) -> None:
        self._r = client
        self._write = client.register_script(_WRITE_LUA)
        self._verify = client.register_script(_VERIFY_LUA)

    async def get(self, username: str) -> EmailRecord:
        raw = cast(dict[bytes, bytes], await self._r.hgetall(account_email_key(username)))
        address = raw.get(b"address")
        return EmailRecord(
            address.decode() if address else None,
            raw.get(b"verified") == b"1",
            raw.get(b"notify", b"1") == b"1",
            int(raw.get(b"sent", b"0")),
        )

    async def _written(
        self, username: str, mode: str, holding: str, quiet_since: str, *fields: str
    ) -> int:
        """Write ``fields`` (``mode`` 'replace' or 'merge') if the hash holds the
        address ``holding`` ('' for any) and no verification e-mail was sent after
        ``quiet_since`` ms ('' for any): ``_WRITE_LUA``'s answer."""
        keys = [account_key(username), account_email_key(username)]
        args = [mode, holding, quiet_since, *fields]
        written = int(await self._write(keys=keys, args=args))
        if written == 0:
            raise ServiceError("unauthorized", "account.not_logged_in", status=401)
        return written

    async def _sent_too_soon(self, username: str, now_ms: int) -> ServiceError:
        return _too_soon(await self.get(username), now_ms)

    async def set(self, username: str, address: str, now_ms: int) -> str | None:
        """Keep ``address`` (checked) for the account, unverified, with a new
        verification token, which is returned to send; None when the account holds
        that address verified already (nothing changes, nothing is sent). A new
        address keeps the account's choice of e-mails on or off. Within
        ``RESEND_MS`` of the account's last verification e-mail, whatever its
        address, ``rate_limited``: alternating two addresses can't flood one."""
        kept = check_address(address)
        record = await self.get(username)
        if record.address == kept and record.verified:
            return None
        notify = "1" if record.notify else "0"
        secret = secrets.token_urlsafe(32)
        written = await self._written(
            username,
            "replace",
            "",
            str(now_ms - RESEND_MS),
            "address", kept,
            "verified", "0",
            "notify", notify,
            "token", _digest(secret),
            "expires", str(now_ms + VERIFY_MS),
            "sent", str(now_ms),
        )  # fmt: skip
        if written == 3:
            raise await self._sent_too_soon(username, now_ms)
        return f"{account_id(username)}.{secret}"

    async def renew(self, username: str, now_ms: int) -> tuple[str, str]:
        """A new verification token for the account's unverified address: (the
        address, the token); ``conflict`` when there is none to verify, and
        ``rate_limited`` within ``RESEND_MS`` of the last one."""
        record = await self.get(username)
        if record.address is None or record.verified:
            raise ServiceError("conflict", "email.nothing_to_verify")
        secret = secrets.token_urlsafe(32)
        written = await self._written(
            username,
            "merge",
            record.address,
            str(now_ms - RESEND_MS),
            "token", _digest(secret),
            "expires", str(now_ms + VERIFY_MS),
            "sent", str(now_ms),
        )  # fmt: skip
        if written == 2:
            # Another request set a new address since the read: its own link was just
            # sent, so this one answers as a resend of it would.
            return await self.renew(username, now_ms)
        if written == 3:
            raise await self._sent_too_soon(username, now_ms)
        return record.address, f"{account_id(username)}.{secret}"

    async def remove(self, username: str) -> None:
        """The account holds no address any more (its pending link stops working).
        When its last verification e-mail was sent is kept, so that removing and
        setting an address again is no way around ``RESEND_MS``."""
        fields = ("address", "verified", "notify", "token", "expires")
        await self._r.hdel(account_email_key(username), *fields)

    async def set_notify(self, username: str, notify: bool) -> None:
        """Turn the e-mails of games and tournaments on or off (``conflict`` when the
        account holds no address)."""
        if (await self.get(username)).address is None:
            raise ServiceError("conflict", "email.no_address")
        await self._written(username, "merge", "", "", "notify", "1" if notify else "0")

    async def verify(self, token: str, now_ms: int) -> tuple[Outcome, str | None]:
        """Follow a verification link: its outcome and the account id it names."""
        ident, _, secret = token.partition(".")
        if not secret or len(token) > 200 or not USERNAME.fullmatch(ident):
            return "unknown", None
        outcome = await self._verify(
            keys=[account_email_key(ident)], args=[_digest(secret), now_ms]
        )
        text = outcome.decode() if isinstance(outcome, bytes) else str(outcome)
        return cast(Outcome, text), ident


def _too_soon(record: EmailRecord, now_ms: int) -> ServiceError:
    wait = max(1, (record.sent_ms + RESEND_MS - now_ms + 999) // 1000)
    return ServiceError(
        "rate_limited", "email.resend_wait", {"seconds": wait}, retry_after=float(wait)
    )
