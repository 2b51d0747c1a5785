"""A real SMTP server for the e-mail tests: aiosmtpd's ``Controller`` on 127.0.0.1 at a
free port, in a thread of its own, keeping what it accepts (docs/email.md "Testing").

``refuse`` makes it answer the next DATA with a reply (``451 ...`` or ``550 ...``);
``stall`` makes it hold every DATA without answering, after the message has arrived
(``arrived`` is set then), until ``release``; ``stall_envelope`` holds every RCPT
likewise, before any DATA."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any, cast

from aiosmtpd.controller import Controller


@dataclass(frozen=True)
class Received:
    """One message the server accepted."""

    sender: str
    recipients: list[str]
    message: EmailMessage

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    @property
    def body(self) -> str:
        return cast(str, self.message.get_content())

    def links(self) -> list[str]:
        return re.findall(r"https?://\S+", self.body)


class Sink:
    """aiosmtpd's handler: what it accepted, and how it answers."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.data_seen = 0  # DATA commands whose message arrived, answered or not
        self.arrivals: list[str] = []  # the recipient of each of them
        self.refusals: list[str] = []
        self.stalling = False
        self.stall_rcpt = False
        self.arrived = threading.Event()
        self._release = threading.Event()

    def refuse(self, *replies: str) -> None:
        self.refusals.extend(replies)

    def stall(self) -> None:
        self.stalling = True
        self.arrived.clear()
        self._release.clear()

    def stall_envelope(self) -> None:
        self.stall_rcpt = True
        self.arrived.clear()
        self._release.clear()

    def release(self) -> None:
        self.stalling = False
        self.stall_rcpt = False
        self._release.set()

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        """Accept any recipient; while ``stall_rcpt`` is set, hold the answer (the
        envelope, before any DATA) until ``release``."""
        if self.stall_rcpt:
            self.arrived.set()
            while not self._release.is_set():
                await asyncio.sleep(0.05)
            return "451 stalled"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.data_seen += 1
        self.arrivals.extend(envelope.rcpt_tos)
        if self.stalling:
            self.arrived.set()
            while not self._release.is_set():
                await asyncio.sleep(0.05)
            return "451 stalled, not kept"
        if self.refusals:
            return self.refusals.pop(0)
        content = envelope.original_content or envelope.content
        message = cast(EmailMessage, message_from_bytes(content, policy=policy.default))
        self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos), message))
        return "250 OK"

    def to(self, address: str) -> list[Received]:
        return [r for r in self.received if address in r.recipients]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def smtp_server() -> Iterator[tuple[Sink, str]]:
    """A started SMTP server: its sink and the ``SPLENDOR_SMTP_URL`` of it."""
    sink = Sink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield sink, f"smtp://127.0.0.1:{port}"
    finally:
        sink.release()
        controller.stop()
