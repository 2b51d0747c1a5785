"""Sending one message through SMTP with aiosmtplib, in the outbox's steps
(server/mail/outbox.py): the envelope, then the outbox's mark, then DATA.

``SPLENDOR_SMTP_URL`` is ``smtp://user:pass@host:port`` (port 25 by default),
``smtps://`` for implicit TLS (465 by default), and ``?starttls=1`` to upgrade a
plain connection with STARTTLS (then required, never tried by guess); user and
password are optional and percent-decoded.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Final
from urllib.parse import parse_qs, unquote, urlsplit

__all__ = ["Outcome", "SmtpServer", "send"]

TIMEOUT_S: Final = 30.0
"""The SMTP client's timeout for each command (and the connection)."""


@dataclass(frozen=True)
class SmtpServer:
    """Where and how to connect, from ``SPLENDOR_SMTP_URL``."""

    host: str
    port: int
    implicit_tls: bool = False
    starttls: bool = False
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @classmethod
    def of(cls, url: str) -> SmtpServer:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError("an SMTP URL is smtp://[user:pass@]host[:port] or smtps://...")
        tls = parts.scheme == "smtps"
        query = parse_qs(parts.query)
        return cls(
            parts.hostname,
            parts.port or (465 if tls else 25),
            implicit_tls=tls,
            starttls=query.get("starttls", ["0"])[0] in ("1", "true", "yes"),
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
        )


class Outcome(Enum):
    """How a send ended, for the outbox."""

    SENT = "sent"
    # Not accepted, certainly: nothing, or the envelope only, reached the server, or it
    # refused the DATA with a 4xx reply. Queued again later.
    RETRY = "retry"
    # Refused for good (a 5xx reply): never retried.
    FAILED = "failed"
    # The connection was lost or timed out during DATA: the server may have accepted
    # it. Never retried (at most once).
    UNKNOWN = "unknown"
    # The outbox refused the mark (the lease ran out, another process holds the
    # message): nothing was sent, and the message is not this process's to settle.
    LOST = "lost"


async def send(
    server: SmtpServer,
    sender: str,
    recipient: str,
    data: bytes,
    begin_data: Callable[[], Awaitable[bool]],
) -> Outcome:
    """Send one message: connect, MAIL, RCPT, then ``begin_data()`` (the outbox's
    mark; False stops here), then DATA."""
    # Imported here, as only a server that sends e-mail needs it: aiosmtplib and the
    # email and ssl modules it brings cost every other process about 12 MiB.
    import aiosmtplib

    client = aiosmtplib.SMTP(
        hostname=server.host,
        port=server.port,
        use_tls=server.implicit_tls,
        start_tls=server.starttls,
        username=server.username,
        password=server.password,
        timeout=TIMEOUT_S,
    )
    try:
        await client.connect()
        await client.mail(sender)
        await client.rcpt(recipient)
    except aiosmtplib.SMTPResponseException as e:
        client.close()
        return Outcome.FAILED if e.code >= 500 else Outcome.RETRY
    except (aiosmtplib.SMTPException, OSError):
        client.close()
        return Outcome.RETRY
    try:
        marked = await begin_data()
    except BaseException:  # Redis failed: the reaper gives the message back after its lease
        client.close()
        raise
    if not marked:
        client.close()
        return Outcome.LOST
    try:
        await client.data(data)
    except aiosmtplib.SMTPDataError as e:
        # A reply, so the server said what became of it: a refusal.
        outcome = Outcome.FAILED if e.code >= 500 else Outcome.RETRY
    except (aiosmtplib.SMTPException, OSError):
        client.close()
        return Outcome.UNKNOWN
    else:
        outcome = Outcome.SENT
    try:
        await client.quit()
    except (aiosmtplib.SMTPException, OSError):
        client.close()
    return outcome
