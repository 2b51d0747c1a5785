"""E-mail's parts together (docs/email.md): the accounts' addresses, the outbox, the
turns' notices, and the links e-mails carry.

``Mail`` exists only with ``SPLENDOR_SMTP_URL`` set (server/web/app.py): without it
nothing is queued, the notices are not written and the address routes answer
``not_found``.

**Notices.** The service tells ``Mail.turn_passed`` of every append to a game
(``ServiceHooks.turns``). In a correspondence game (``per_move``), a new turn of a
seat of an account writes two notices into ``{mail}:notices``, scored by when they
are due: the move's (now) and the reminder's (when ``reminder_lead_ms`` is left).
``pump(now)``, in the worker, takes the notices due (one script: one process takes
each, under a lease: one whose taker dies comes due again a minute later), drops
those whose turn is over (the game read again), and, per account with a verified
address and e-mails on, queues one e-mail, unless the account was sent a game's
e-mail within the hour: then the notices wait for the hour's end and are
folded into one e-mail there (if the turn is still on and its time not out).
Each notice is queued once (``mail_once_key``), whichever process sees it.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, cast
from urllib.parse import quote

from redis.exceptions import RedisError

from events import clock as clocks
from server.common.errors import ServiceError
from server.common.settings import Settings
from server.games.projection import Game
from server.games.service import GameService
from server.mail.addresses import Addresses
from server.mail.letters import MadeUp, Turn, moves_letter, tournament_letter, verification_letter
from server.mail.outbox import ONCE_MS, Message, Outbox
from server.mail.smtp import SmtpServer
from server.players.accounts import USERNAME, Accounts, account_id
from server.store.clients import RedisClient
from server.store.keys import (
    MAIL_MESSAGES_KEY,
    MAIL_NOTICES_KEY,
    MAIL_OUTBOX_KEY,
    MAIL_SECRET_KEY,
    MAIL_STATES_KEY,
    mail_hour_key,
    mail_once_key,
)

__all__ = [
    "HOUR_MS",
    "Mail",
    "Notice",
    "announce_tournament",
    "now_ms",
    "reminder_lead_ms",
    "verify_token",
]

log = logging.getLogger(__name__)

HOUR_MS: Final = 3_600_000
"""At most one e-mail of games an hour per account."""
REMINDER_MS: Final = 3 * HOUR_MS
NOTICES_BATCH: Final = 100
NOTED_GAMES: Final = 10_000  # turns remembered per process, to skip writing one twice
NOTICE_LEASE_MS: Final = 60_000
"""A notice taken is due again after this long unless its taker settled it: a process
that dies between taking notices and queueing their e-mail loses none (their once
marks keep any from being e-mailed twice)."""

# KEYS: notices. ARGV: now ms, batch, lease ms. The notices due, taken (by one
# process): each is due again when its lease runs out, unless its taker settles it.
_TAKE_LUA: Final = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local later = tonumber(ARGV[1]) + tonumber(ARGV[3])
for _, notice in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', later, notice) end
return due
"""

# KEYS: the account's hour, outbox, messages, states, then one once key a notice.
# ARGV: now ms, hour ms, message id, message, once ms. The hour's end (ms) when the
# account was sent one within the hour before now; -1 when a notice was queued
# already (nothing queued); else 0: queued, and the account's hour starts now. The
# hour is read against ``now`` (the time is the caller's), its key kept an hour.
_HOURLY_LUA: Final = """
local now, hour = tonumber(ARGV[1]), tonumber(ARGV[2])
local last = tonumber(redis.call('GET', KEYS[1]) or '')
if last and now >= last and now - last < hour then return last + hour end
for i = 5, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then return -1 end
end
for i = 5, #KEYS do redis.call('SET', KEYS[i], '1', 'PX', ARGV[5]) end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
redis.call('HSET', KEYS[4], ARGV[3], cjson.encode({s = 'queued', attempts = 0}))
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[3])
return 0
"""


def reminder_lead_ms(allowance_ms: int) -> int:
    """How long before a turn's end its reminder is due: 20% of the turn's time or
    3 hours, whichever comes later (the shorter): 3 h of "1 day a move", 1 h 36 min
    of an 8-hour move."""
    return min(allowance_ms // 5, REMINDER_MS)


@dataclass(frozen=True)
class Notice:
    """A turn's notice: the move passed to ``seat`` of ``game`` at ``turn_ms`` (the
    turn's identity, with the seat), its ``account`` and deadline."""

    kind: str  # "move" or "remind"
    game: str
    seat: int
    turn_ms: int
    account: str
    deadline_ms: int

    def encode(self) -> str:
        return "|".join(
            [self.kind, self.game, str(self.seat), str(self.turn_ms), self.account,
             str(self.deadline_ms)]
        )  # fmt: skip

    @classmethod
    def decode(cls, raw: bytes | str) -> Notice:
        text = raw.decode() if isinstance(raw, bytes) else raw
        kind, game, seat, turn_ms, account, deadline = text.split("|")
        return cls(kind, game, int(seat), int(turn_ms), account, int(deadline))

    @property
    def once(self) -> str:
        return f"{self.kind}:{self.game}:{self.seat}:{self.turn_ms}"


class Mail:
    """What the routes, the service's hook and the worker use of e-mail."""

    def __init__(self, client: RedisClient, settings: Settings, accounts: Accounts) -> None:
        self.client = client
        self.settings = settings
        self.accounts = accounts
        self.smtp = SmtpServer.of(settings.smtp_url)
        self.sender = settings.mail_from
        self.base_url = settings.public_url or f"http://{settings.host}:{settings.port}"
        self.addresses = Addresses(client)
        self.outbox = Outbox(client)
        self._take = client.register_script(_TAKE_LUA)
        self._hourly = client.register_script(_HOURLY_LUA)
        self._secret: bytes | None = None
        self._noted: dict[str, tuple[int, int]] = {}

    # ------------------------------------------------------------------ links

    def link(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def table_link(self, game_id: str) -> str:
        return self.link(f"/#/play/{quote(game_id)}")

    async def _key(self) -> bytes:
        """The key of the unsubscribe links: made once, by whichever process first
        needs it, and kept in Redis for every process."""
        if self._secret is None:
            await self.client.set(MAIL_SECRET_KEY, secrets.token_hex(32), nx=True)
            self._secret = cast(bytes, await self.client.get(MAIL_SECRET_KEY))
        return self._secret

    async def unsubscribe_token(self, username: str) -> str:
        ident = account_id(username)
        mac = hmac.new(await self._key(), f"unsubscribe:{ident}".encode(), hashlib.sha256)
        return f"{ident}.{mac.hexdigest()[:32]}"

    async def unsubscribe_link(self, username: str) -> str:
        return self.link(f"/mail/unsubscribe?token={await self.unsubscribe_token(username)}")

    async def unsubscribed_account(self, token: str) -> str | None:
        """The account id an unsubscribe token is of, None for a wrong one."""
        ident, _, _mac = token.partition(".")
        if len(token) > 100 or not USERNAME.fullmatch(ident):
            return None
        expected = await self.unsubscribe_token(ident)
        # As bytes: compare_digest refuses a str with a character that is not ASCII,
        # which anyone may put in a link.
        return ident if hmac.compare_digest(expected.encode(), token.encode()) else None

    async def language(self, username: str) -> str:
        """The language the account's e-mails are written in: its own, else English."""
        return await self.accounts.language(username) or "en"

    # ------------------------------------------------------------------ verification

    async def send_verification(self, username: str, address: str, token: str, now_ms: int) -> None:
        """Queue the e-mail of the link that verifies ``address`` (not bound by the
        hour: its reader asked for it; ``RESEND_MS`` bounds it instead)."""
        link = self.link(f"/mail/verify?token={token}")
        letter = verification_letter(await self.language(username), username, link)
        data = letter.render(self.sender, address)
        await self.outbox.put(Message(self.sender, address, data, "verify"), now_ms)

    # ------------------------------------------------------------------ notices

    async def turn_passed(self, game: Game) -> None:
        """After an append to ``game``: the notices of a new turn of a correspondence
        game's account seat (see the module's docstring)."""
        state = game.state
        clock = state.clock
        control = clock.control
        if state.status != "live" or control is None or control.per_move is None:
            return
        seat = clock.running
        if seat is None or not clocks.timed(clock, seat):
            return
        account = state.players[seat].account
        due = clocks.deadline(clock)
        if not account or due is None or self._noted.get(game.id) == (seat, clock.turn_ms):
            return
        lead = reminder_lead_ms(clocks.turn_allowance_ms(clock, seat))
        move = Notice("move", game.id, seat, clock.turn_ms, account, due)
        remind = Notice("remind", game.id, seat, clock.turn_ms, account, due)
        notices = {move.encode(): clock.turn_ms, remind.encode(): due - lead}
        await self.client.zadd(MAIL_NOTICES_KEY, notices, nx=True)
        # Noted once written: a write that failed is tried again at the turn's next append.
        if len(self._noted) >= NOTED_GAMES:
            self._noted.clear()
        self._noted[game.id] = (seat, clock.turn_ms)

    async def pump(self, service: GameService, now_ms: int) -> int:
        """Take the notices due at ``now_ms`` and queue their e-mails; how many
        e-mails were queued. Each notice taken is settled (removed) once its account's
        e-mail is queued or it is dropped, or left to come back after
        ``NOTICE_LEASE_MS`` when Redis failed meanwhile."""
        taken = await self._take(
            keys=[MAIL_NOTICES_KEY], args=[now_ms, NOTICES_BATCH, NOTICE_LEASE_MS]
        )
        by_account: dict[str, list[Notice]] = defaultdict(list)
        settled: list[str] = []
        for raw in taken:
            text = raw.decode() if isinstance(raw, bytes) else str(raw)
            try:
                notice = Notice.decode(text)
            except ValueError:
                log.warning("a notice that can't be read is dropped: %r", text[:200])
                settled.append(text)
                continue
            by_account[notice.account].append(notice)
        queued = 0
        for account, notices in by_account.items():
            try:
                sent, waiting = await self._notify(service, account, notices, now_ms)
            except RedisError:
                log.warning("notices of %s not queued; taken again in a minute", account)
                continue
            except Exception:
                # A fault of ours would fail again each minute: the notices go.
                log.exception("notices of %s dropped", account)
                sent, waiting = 0, set()
            queued += sent
            settled += [n.encode() for n in notices if n.encode() not in waiting]
        if settled:
            await self.client.zrem(MAIL_NOTICES_KEY, *settled)
        return queued

    async def _notify(
        self, service: GameService, account: str, notices: list[Notice], now_ms: int
    ) -> tuple[int, set[str]]:
        """Queue the account's e-mail of ``notices``: how many e-mails were queued (0 or
        1), and the notices put back to wait for the end of the account's hour."""
        # The address first: most accounts have none, and reading a game to see
        # whether its turn is still on costs a fold from the store when not cached.
        record = await self.addresses.get(account)
        if not record.reachable or record.address is None:
            return 0, set()
        # Each notice whose turn is still on, with the names of the players it is against.
        against: dict[str, str] = {}
        live: list[Notice] = []
        for n in notices:
            others = await _still_to_move(service, n, now_ms)
            if others is not None:
                live.append(n)
                against[n.game] = others
        # A notice e-mailed already comes back when another process's hook (or this
        # one's after a restart) sees its turn again: it is dropped here, since the
        # script below refuses a whole e-mail holding one, which would lose the
        # other games folded with it.
        if live:
            marks = await self.client.mget([mail_once_key(n.once) for n in live])
            live = [n for n, mark in zip(live, marks, strict=True) if mark is None]
        if not live:
            return 0, set()
        # One line a game: its reminder if both are due.
        by_game: dict[str, Notice] = {}
        for n in sorted(live, key=lambda n: n.kind == "remind"):
            by_game[n.game] = n
        turns = [
            Turn(
                n.game, self.table_link(n.game), n.deadline_ms, n.kind == "remind", against[n.game]
            )
            for n in by_game.values()
        ]
        lang = await self.language(account)
        letter = moves_letter(lang, account, turns, await self.unsubscribe_link(account))
        kind = "digest" if len(turns) > 1 else ("reminder" if turns[0].reminder else "move")
        message = Message(
            self.sender, record.address, letter.render(self.sender, record.address), kind
        )
        keys = [
            mail_hour_key(account),
            MAIL_OUTBOX_KEY,
            MAIL_MESSAGES_KEY,
            MAIL_STATES_KEY,
            *(mail_once_key(n.once) for n in live),
        ]
        args: list[str | int] = [now_ms, HOUR_MS, secrets.token_hex(12), message.encode(), ONCE_MS]
        result = int(await self._hourly(keys=keys, args=args))
        if result == 0:
            return 1, set()
        if result > 0:  # the hour is taken: they wait for its end, then fold into one
            later = {n.encode(): result for n in live if n.deadline_ms > result}
            if later:
                await self.client.zadd(MAIL_NOTICES_KEY, later)
            return 0, set(later)
        return 0, set()


async def _still_to_move(service: GameService, notice: Notice, now_ms: int) -> str | None:
    """The names of the other players ("Bo, Cy") when the notice's turn is still on
    (the game live, the seat to move since then, its time not out), else None."""
    if notice.deadline_ms <= now_ms:
        return None
    repository = service.repository
    lock = repository.lock(notice.game)
    try:
        async with lock:
            game = await repository.get(notice.game, lock, keep_over=False)
    except ServiceError:  # no such game (any more) here: nothing to tell
        return None
    clock = game.state.clock
    if not (
        game.status == "live" and clock.running == notice.seat and clock.turn_ms == notice.turn_ms
    ):
        return None
    others = [p.name for i, p in enumerate(game.state.players) if i != notice.seat]
    return _CONTROL.sub(" ", ", ".join(others))


_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f]+")


async def announce_tournament(
    mail: Mail,
    *,
    tournament_id: str,
    name: str,
    starts_ms: int,
    accounts: Iterable[str],
    at_ms: int | None = None,
    made_up: MadeUp | None = None,
) -> int:
    """Queue "the tournament starts" to each of ``accounts`` (usernames) that has a
    verified address and e-mails on, in its language; once per tournament and
    account whoever calls it again. Not bound by the hour of games' e-mails: it is one
    e-mail a tournament its player joined. ``made_up``: the tournament has no
    name (``name`` is empty), each e-mail names it in its reader's words. How
    many were queued."""
    now = now_ms() if at_ms is None else at_ms
    title = _CONTROL.sub(" ", name).strip()[:100]
    link = mail.link(f"/#/tournament/{quote(tournament_id)}")
    queued = 0
    for username in accounts:
        record = await mail.addresses.get(username)
        if not record.reachable or record.address is None:
            continue
        lang = await mail.language(username)
        unsubscribe = await mail.unsubscribe_link(username)
        letter = tournament_letter(lang, username, title, starts_ms, link, unsubscribe, made_up)
        data = letter.render(mail.sender, record.address)
        once = f"tournament:{tournament_id}:{account_id(username)}"
        message = Message(mail.sender, record.address, data, "tournament")
        if await mail.outbox.put(message, now, once=once) is not None:
            queued += 1
    return queued


def now_ms() -> int:
    """The time now, in ms since the epoch."""
    return time.time_ns() // 1_000_000


async def verify_token(mail: Mail, token: str) -> str:
    """Follow a verification link's token: the account id it verified, or
    ``not_found`` (``email.link_expired``, ``email.link_unknown``)."""
    outcome, ident = await mail.addresses.verify(token, now_ms())
    if outcome == "expired":
        raise ServiceError("not_found", "email.link_expired")
    if outcome != "ok" or ident is None:
        raise ServiceError("not_found", "email.link_unknown")
    return ident
