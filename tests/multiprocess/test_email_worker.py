"""The mail worker of ``splendor serve`` processes on one Redis (docs/email.md "Never
twice"): a process killed with SIGKILL while its SMTP server holds the DATA of a
message leaves that message marked, and a process started after it never sends it
again (and sends the next one); killed before the DATA, the message is sent once by
the next process."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import httpx
import pytest
import redis.asyncio as aioredis

from server.mail.addresses import RESEND_MS
from server.mail.mail import now_ms
from server.mail.outbox import Outbox
from server.store.keys import account_email_key
from tests.mail_helpers import Sink, smtp_server
from tests.multiprocess.servers import served

PASSWORD = "Tr0ub4dor&3-quite-long"


@pytest.fixture
def smtp() -> Iterator[tuple[Sink, str]]:
    with smtp_server() as started:
        yield started


async def until(what: str, ready: Callable[[], object], seconds: float = 60) -> None:
    """Poll ``ready`` until it is true; fail naming ``what`` after ``seconds``."""
    for _ in range(int(seconds / 0.05)):
        if await ready() if asyncio.iscoroutinefunction(ready) else ready():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{what}: not within {seconds} s")


async def test_a_worker_killed_mid_data_sends_no_duplicate(
    redis_client: aioredis.Redis, redis_server: str, smtp: tuple[Sink, str]
) -> None:
    """A serve process is killed (SIGKILL) while the SMTP server holds the DATA of a verification e-mail; a new process settles that message unknown once its lease runs out and never sends it again, and sends the next message once."""
    sink, url = smtp
    env = {
        "SPLENDOR_SMTP_URL": url,
        "SPLENDOR_MAIL_LEASE": "1",
        "SPLENDOR_PUBLIC_URL": "http://splendor.test",
        "SPLENDOR_LOGIN_RATE": "0",
    }
    outbox = Outbox(redis_client)
    sink.stall()
    async with served(redis_server, env) as first:
        async with httpx.AsyncClient(base_url=first.base) as http:
            body = {"username": "Ana_1", "password": PASSWORD}
            assert (await http.post("/api/accounts", json=body)).status_code == 201
            r = await http.put("/api/me/email", json={"address": "ana@example.org"})
            assert r.status_code == 200, r.text
        arrived = await asyncio.to_thread(sink.arrived.wait, 60)
        assert arrived, "the DATA never reached the SMTP server"
        [(ident, state)] = (await outbox.states()).items()
        assert state["s"] == "data"  # marked before the DATA was sent
        first.process.kill()
        first.process.wait(10)
    sink.release()
    async with served(redis_server, env) as second:

        async def settled() -> bool:
            return ((await outbox.state(ident)) or {}).get("s") == "unknown"

        await until("the killed process's message settled unknown", settled)
        async with httpx.AsyncClient(base_url=second.base) as http:
            body = {"username": "Ana_1", "password": PASSWORD}
            assert (await http.post("/api/session", json=body)).status_code == 200
            # The minute between two verification e-mails of an account passes.
            key = account_email_key("Ana_1")
            await redis_client.hset(key, "sent", now_ms() - RESEND_MS)
            r = await http.put("/api/me/email", json={"address": "ana@example.net"})
            assert r.status_code == 200, r.text
        await until("the next message sent", lambda: sink.to("ana@example.net"))
    assert sink.arrivals.count("ana@example.org") == 1
    assert sink.arrivals.count("ana@example.net") == 1
    assert len(sink.to("ana@example.net")) == 1
    assert ((await outbox.state(ident)) or {})["s"] == "unknown"


async def test_a_worker_killed_before_data_leaves_the_message_to_another(
    redis_client: aioredis.Redis, redis_server: str, smtp: tuple[Sink, str]
) -> None:
    """A serve process is killed (SIGKILL) while the SMTP server holds its RCPT (no DATA yet); once the lease runs out a new process sends the message, once."""
    sink, url = smtp
    env = {"SPLENDOR_SMTP_URL": url, "SPLENDOR_MAIL_LEASE": "1", "SPLENDOR_LOGIN_RATE": "0"}
    outbox = Outbox(redis_client)
    sink.stall_envelope()
    async with served(redis_server, env) as first:
        async with httpx.AsyncClient(base_url=first.base) as http:
            body = {"username": "Bo_2", "password": PASSWORD}
            assert (await http.post("/api/accounts", json=body)).status_code == 201
            r = await http.put("/api/me/email", json={"address": "bo@example.org"})
            assert r.status_code == 200, r.text
        assert await asyncio.to_thread(sink.arrived.wait, 60), "no RCPT reached the server"
        [(ident, state)] = (await outbox.states()).items()
        assert state["s"] == "claimed"  # no DATA: the message may be sent by another
        first.process.kill()
        first.process.wait(10)
    sink.release()
    async with served(redis_server, env):
        await until("the message sent by the new process", lambda: sink.to("bo@example.org"))

        async def sent() -> bool:
            return ((await outbox.state(ident)) or {}).get("s") == "sent"

        await until("the message settled sent", sent)
    assert sink.arrivals.count("bo@example.org") == 1
    assert len(sink.to("bo@example.org")) == 1
