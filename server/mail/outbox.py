"""The outbox (docs/email.md "Never twice"): messages queued in Redis, claimed by one
process at a time, marked before their DATA is sent, and never sent again once it
may have been accepted.

A message's life, each step one script over the ``{mail}`` slot:

- ``queued``: in ``{mail}:outbox`` scored by when it is due (now, or a retry's
  back-off), its body in ``{mail}:messages``, its state in ``{mail}:states``;
- ``claimed`` (``claim``): taken out of the queue by one process, its ``owner``,
  with a lease in ``{mail}:claimed``. SMTP's envelope (connect, MAIL, RCPT) runs
  then; a failure there is retried (``retry``: queued again, later), and a process
  that dies there leaves a lease that runs out: ``reap`` queues the message again,
  which is safe since no DATA was sent;
- ``data`` (``begin_data``): written, only by the owner and only from ``claimed``,
  before the DATA command is sent. From here the SMTP server may have accepted the
  message, so it is never queued again by ``reap``: a process that dies here leaves
  the message ``unknown`` (sent or not, nobody knows; at most once);
- ``sent``, ``failed`` (a permanent refusal, or too many attempts) or ``unknown``:
  settled; the body is dropped, the state kept a day in ``{mail}:done``.

A definite refusal of the DATA (a 4xx reply) leaves the owner knowing the message was
not accepted: it may queue it again from ``data``. A lost connection or a timeout
during DATA is not definite: the message is settled ``unknown``, never retried.

The fencing is the owner: ``begin_data`` and every settling check that the state
still names the process that claimed it, so a process whose lease ran out (and
whose message another process now holds) stops before DATA.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any, Final, cast

from server.store.clients import RedisClient
from server.store.keys import (
    MAIL_CLAIMED_KEY,
    MAIL_DONE_KEY,
    MAIL_MESSAGES_KEY,
    MAIL_OUTBOX_KEY,
    MAIL_STATES_KEY,
    mail_once_key,
)

__all__ = ["KEEP_DONE_MS", "MAX_ATTEMPTS", "Claimed", "Message", "Outbox", "backoff_ms"]

MAX_ATTEMPTS: Final = 8
"""Attempts at a message before it is given up (``failed``)."""
KEEP_DONE_MS: Final = 86_400_000
"""How long a settled message's state is kept (the tests and an operator read it)."""
ONCE_MS: Final = 30 * 86_400_000
"""How long an idempotence mark (``mail_once_key``) is kept: longer than any turn."""


def backoff_ms(attempts: int) -> int:
    """The wait before attempt ``attempts + 1``: 30 s doubling, at most an hour."""
    return int(min(3_600_000, 30_000 * 2 ** max(0, attempts - 1)))


# KEYS: outbox, messages, states, [once]. ARGV: id, body, due ms, once ms.
# 1 if queued, 0 if the once mark was set already.
_ENQUEUE_LUA: Final = """
if KEYS[4] and redis.call('SET', KEYS[4], '1', 'NX', 'PX', ARGV[4]) == false then
  return 0
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], cjson.encode({s = 'queued', attempts = 0}))
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
"""

# KEYS: outbox, messages, states, claimed. ARGV: now ms, owner, lease ms.
# {id, body, attempts} of the first message due, claimed; or {false, next due}.
_CLAIM_LUA: Final = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #due == 0 then
  local next = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {false, next[2] or false}
end
local id = due[1]
redis.call('ZREM', KEYS[1], id)
local body = redis.call('HGET', KEYS[2], id)
local state = cjson.decode(redis.call('HGET', KEYS[3], id) or '{"attempts":0}')
if not body then
  redis.call('HDEL', KEYS[3], id)
  return {false, false}
end
local lease = tonumber(ARGV[1]) + tonumber(ARGV[3])
state['s'] = 'claimed'
state['owner'] = ARGV[2]
redis.call('HSET', KEYS[3], id, cjson.encode(state))
redis.call('ZADD', KEYS[4], lease, id)
return {id, body, tostring(state['attempts'] or 0)}
"""

# KEYS: states. ARGV: id, owner. 1 if the owner's claimed message is now in DATA.
_BEGIN_DATA_LUA: Final = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local state = cjson.decode(raw)
if state['s'] ~= 'claimed' or state['owner'] ~= ARGV[2] then return 0 end
state['s'] = 'data'
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(state))
return 1
"""

# KEYS: outbox, messages, states, claimed, done. ARGV: id, owner, outcome ('sent',
# 'failed', 'unknown' or 'retry'), now ms, the retry's due ms. 1 if settled (or
# queued again) by its owner; 0 if the message is not the owner's any more.
_SETTLE_LUA: Final = """
local raw = redis.call('HGET', KEYS[3], ARGV[1])
if not raw then return 0 end
local state = cjson.decode(raw)
if state['owner'] ~= ARGV[2] or (state['s'] ~= 'claimed' and state['s'] ~= 'data') then
  return 0
end
redis.call('ZREM', KEYS[4], ARGV[1])
state['owner'] = nil
if ARGV[3] == 'retry' then
  state['s'] = 'queued'
  state['attempts'] = (state['attempts'] or 0) + 1
  redis.call('HSET', KEYS[3], ARGV[1], cjson.encode(state))
  redis.call('ZADD', KEYS[1], ARGV[5], ARGV[1])
  return 1
end
state['s'] = ARGV[3]
state['at'] = tonumber(ARGV[4])
redis.call('HSET', KEYS[3], ARGV[1], cjson.encode(state))
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[5], ARGV[4], ARGV[1])
return 1
"""

# KEYS: outbox, messages, states, claimed, done. ARGV: now ms, keep ms.
# Leases run out: a claimed message is queued again (no DATA was sent), one in DATA
# is settled 'unknown' (never sent again). States settled longer than keep ms ago
# are dropped. {requeued, unknown}.
_REAP_LUA: Final = """
local now = tonumber(ARGV[1])
local requeued, unknown = 0, 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 100)) do
  redis.call('ZREM', KEYS[4], id)
  local raw = redis.call('HGET', KEYS[3], id)
  if raw then
    local state = cjson.decode(raw)
    state['owner'] = nil
    if state['s'] == 'claimed' then
      state['s'] = 'queued'
      redis.call('ZADD', KEYS[1], now, id)
      requeued = requeued + 1
    elseif state['s'] == 'data' then
      state['s'] = 'unknown'
      state['at'] = now
      redis.call('HDEL', KEYS[2], id)
      redis.call('ZADD', KEYS[5], now, id)
      unknown = unknown + 1
    end
    redis.call('HSET', KEYS[3], id, cjson.encode(state))
  end
end
local old = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now - tonumber(ARGV[2]), 'LIMIT', 0, 100)
for _, id in ipairs(old) do
  redis.call('ZREM', KEYS[5], id)
  redis.call('HDEL', KEYS[3], id)
end
return {requeued, unknown}
"""

_KEYS: Final = [
    MAIL_OUTBOX_KEY,
    MAIL_MESSAGES_KEY,
    MAIL_STATES_KEY,
    MAIL_CLAIMED_KEY,
    MAIL_DONE_KEY,
]


@dataclass(frozen=True)
class Message:
    """One e-mail as queued: the envelope's sender and recipient, the whole message
    (RFC 5322, headers and body, as text), and what it is (``verify``, ``move``,
    ``reminder``, ``digest``, ``tournament``: for the logs and tests)."""

    sender: str
    recipient: str
    data: str
    kind: str

    def encode(self) -> str:
        return json.dumps(
            {"from": self.sender, "to": self.recipient, "data": self.data, "kind": self.kind}
        )

    @classmethod
    def decode(cls, raw: bytes | str) -> Message:
        held = json.loads(raw)
        return cls(held["from"], held["to"], held["data"], held["kind"])


@dataclass(frozen=True)
class Claimed:
    """A message a process claimed: its id, the message and its attempts so far."""

    id: str
    message: Message
    attempts: int


class Outbox:
    """The outbox's scripts over one Redis client."""

    def __init__(self, client: RedisClient) -> None:
        self._r = client
        self._enqueue = client.register_script(_ENQUEUE_LUA)
        self._claim = client.register_script(_CLAIM_LUA)
        self._begin = client.register_script(_BEGIN_DATA_LUA)
        self._settle = client.register_script(_SETTLE_LUA)
        self._reap = client.register_script(_REAP_LUA)

    async def length(self) -> int:
        """Messages not settled yet: queued (due or not) or being sent (all processes)."""
        async with self._r.pipeline(transaction=False) as pipe:
            pipe.zcard(MAIL_OUTBOX_KEY)
            pipe.zcard(MAIL_CLAIMED_KEY)
            queued, claimed = await pipe.execute()
        return int(queued) + int(claimed)

    async def put(self, message: Message, now_ms: int, *, once: str | None = None) -> str | None:
        """Queue ``message``, due now; its id, or None when ``once`` (an idempotence
        key: ``mail_once_key``) was queued already."""
        ident = secrets.token_hex(12)
        keys = _KEYS[:3] + ([mail_once_key(once)] if once is not None else [])
        queued = await self._enqueue(keys=keys, args=[ident, message.encode(), now_ms, ONCE_MS])
        return ident if queued else None

    async def claim(self, owner: str, now_ms: int, lease_ms: int) -> Claimed | int | None:
        """The first message due, claimed by ``owner`` for ``lease_ms``; else when the
        next one is due (ms), or None when the queue is empty."""
        reply = await self._claim(keys=_KEYS[:4], args=[now_ms, owner, lease_ms])
        ident, second = reply[0], reply[1]
        if not ident:
            return None if not second else int(float(second))
        return Claimed(_text(ident), Message.decode(second), int(_text(reply[2])))

    async def begin_data(self, claimed: Claimed, owner: str) -> bool:
        """Mark the message in DATA, past which it is never queued again; False when
        it is not ``owner``'s any more (its lease ran out and it was reaped)."""
        return bool(await self._begin(keys=[MAIL_STATES_KEY], args=[claimed.id, owner]))

    async def settle(
        self, claimed: Claimed, owner: str, outcome: str, now_ms: int, retry_at_ms: int = 0
    ) -> bool:
        """``sent``, ``failed``, ``unknown``, or ``retry`` (queued again, due at
        ``retry_at_ms``): only by its owner."""
        args: list[str | int] = [claimed.id, owner, outcome, now_ms, retry_at_ms]
        return bool(await self._settle(keys=_KEYS, args=args))

    async def reap(self, now_ms: int) -> tuple[int, int]:
        """Leases that ran out: (messages queued again, messages settled unknown)."""
        reply = await self._reap(keys=_KEYS, args=[now_ms, KEEP_DONE_MS])
        return int(reply[0]), int(reply[1])

    async def state(self, ident: str) -> dict[str, Any] | None:
        """A message's state (tests, operators): ``{"s", "attempts", ...}``."""
        raw = await self._r.hget(MAIL_STATES_KEY, ident)
        return None if raw is None else cast(dict[str, Any], json.loads(raw))

    async def states(self) -> dict[str, dict[str, Any]]:
        """Every message's state by id."""
        raw = cast(dict[bytes, bytes], await self._r.hgetall(MAIL_STATES_KEY))
        return {k.decode(): json.loads(v) for k, v in raw.items()}


def _text(value: bytes | str | int) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
