"""The mail worker (docs/email.md): in every ``splendor serve`` process when
``SPLENDOR_SMTP_URL`` is set. Each turn, at a ``now`` it is given: leases that ran
out are reaped, the turns' notices due become e-mails, and the messages due are
claimed and sent one by one (server/mail/outbox.py says why none is sent twice).
Several processes on one Redis (or a Cluster) share the work through the outbox's
claims; none needs to know of the others.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Final

from redis.exceptions import RedisError

from server.common.background import Sleeper, running
from server.games.service import GameService
from server.mail.mail import Mail
from server.mail.outbox import MAX_ATTEMPTS, Claimed, backoff_ms
from server.mail.smtp import Outcome, send

__all__ = ["MailWorker", "running_mail"]

log = logging.getLogger(__name__)

POLL_S: Final = 1.0
"""The longest sleep: a message another process queued is sent within it."""
BATCH: Final = 50
"""Messages sent in one turn at most, before the notices are looked at again."""


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class MailWorker:
    """One process's sender of the outbox."""

    def __init__(
        self, mail: Mail, service: GameService, *, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self.mail = mail
        self.service = service
        self._monotonic = monotonic
        self.owner = f"{secrets.token_hex(6)}"
        self.lease_ms = int(mail.settings.mail_lease * 1000)
        self._sleeper = Sleeper()
        self._closed = False
        # How this process's sends ended, by outcome (sent, retry, failed, unknown,
        # lost), for GET /metrics.
        self.outcomes: dict[str, int] = dict.fromkeys((o.value for o in Outcome), 0)

    def close(self) -> None:
        self._closed = True
        self._sleeper.wake()

    def wake(self) -> None:
        """Look at the outbox now (a message was just queued by this process)."""
        self._sleeper.wake()

    async def turn(self, now_ms: int) -> int | None:
        """One turn at ``now_ms``: reap, notices, then the messages due. When the
        next queued message is due (ms), or None when none is queued."""
        outbox = self.mail.outbox
        started = self._monotonic()
        requeued, unknown = await outbox.reap(now_ms)
        if unknown:
            log.warning("%d e-mail(s) left in DATA by a stopped process: not sent again", unknown)
        if requeued:
            log.info("%d e-mail(s) claimed by a stopped process queued again", requeued)
        await self.mail.pump(self.service, now_ms)
        for _ in range(BATCH):
            # A lease runs from the claim, not from the turn's start: sends before it
            # in the turn may have taken longer than a lease (an SMTP server timing
            # out), and a lease over when it is given lets another process take the
            # message back at once.
            elapsed_ms = max(0, int((self._monotonic() - started) * 1000))
            claimed = await outbox.claim(self.owner, now_ms, self.lease_ms + elapsed_ms)
            if not isinstance(claimed, Claimed):
                return claimed
            await self._send(claimed, now_ms)
        return now_ms

    async def _send(self, claimed: Claimed, now_ms: int) -> None:
        outbox, message = self.mail.outbox, claimed.message

        async def begin_data() -> bool:
            return await outbox.begin_data(claimed, self.owner)

        outcome = await send(
            self.mail.smtp, message.sender, message.recipient, message.data.encode(), begin_data
        )
        if outcome is Outcome.LOST:
            log.warning("e-mail %s taken back before its DATA: left to its new owner", claimed.id)
        elif outcome is Outcome.RETRY and claimed.attempts + 1 < MAX_ATTEMPTS:
            retry_at = now_ms + backoff_ms(claimed.attempts + 1)
            await outbox.settle(claimed, self.owner, "retry", now_ms, retry_at)
            log.info("e-mail %s (%s) not sent: retried later", claimed.id, message.kind)
        else:
            if outcome is Outcome.RETRY:
                outcome = Outcome.FAILED  # its last attempt
            if outcome is not Outcome.SENT:
                log.warning("e-mail %s (%s): %s", claimed.id, message.kind, outcome.value)
            await outbox.settle(claimed, self.owner, outcome.value, now_ms)
        # Counted once settled, so that the metrics never show a send as ended while
        # its message is still counted in the queue.
        self.outcomes[outcome.value] += 1

    async def run(self) -> None:
        while not self._closed:
            now = _now_ms()
            try:
                due = await self.turn(now)
            except RedisError:
                log.warning("mail worker: Redis unavailable, trying again", exc_info=True)
                due = None
            except Exception:
                log.exception("mail worker turn failed")
                due = None
            wait = POLL_S if due is None else min(POLL_S, max(0.0, (due - now) / 1000))
            await self._sleeper.sleep(wait if wait > 0 else 0.01)


@asynccontextmanager
async def running_mail(mail: Mail, service: GameService) -> AsyncIterator[MailWorker]:
    """The worker, running for the body."""
    worker = MailWorker(mail, service)
    async with running(worker):
        yield worker
