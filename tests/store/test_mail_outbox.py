"""The e-mail outbox's scripts (server/mail/outbox.py), on one Redis and on a Redis
Cluster: one claim per message among processes, the mark before DATA fenced by the
owner, leases that run out queue a message again only if its DATA never began, and
an idempotence key queues once. Times are given, never waited for."""

from __future__ import annotations

import asyncio

from server.mail.outbox import Claimed, Message, Outbox, backoff_ms
from server.store.clients import RedisClient

LEASE = 10_000
T0 = 1_800_000_000_000


def message(n: int = 0) -> Message:
    return Message(
        "a@splendor.test", f"p{n}@example.org", f"Subject: {n}\r\n\r\nbody\r\n", "verify"
    )


async def test_each_message_is_claimed_by_one_process(redis_client: RedisClient) -> None:
    """Ten processes claiming at once over twenty messages get each message exactly once, and the queue is empty after."""
    outbox = Outbox(redis_client)
    for n in range(20):
        await outbox.put(message(n), T0)

    async def claims(owner: str) -> list[str]:
        got: list[str] = []
        while isinstance(claimed := await outbox.claim(owner, T0, LEASE), Claimed):
            got.append(claimed.message.recipient)
        return got

    everyone = await asyncio.gather(*(claims(f"p{i}") for i in range(10)))
    taken = [r for got in everyone for r in got]
    assert sorted(taken) == sorted(f"p{n}@example.org" for n in range(20))
    assert await outbox.claim("late", T0, LEASE) is None


async def test_a_message_not_due_is_not_claimed(redis_client: RedisClient) -> None:
    """A message queued for later is not claimed before its time: the claim says when it is due."""
    outbox = Outbox(redis_client)
    await outbox.put(message(), T0 + 5_000)
    assert await outbox.claim("p", T0, LEASE) == T0 + 5_000
    assert isinstance(await outbox.claim("p", T0 + 5_000, LEASE), Claimed)


async def test_a_lease_run_out_before_data_queues_the_message_again(
    redis_client: RedisClient,
) -> None:
    """A process that claimed a message and stopped before DATA loses it when its lease runs out: another claims it, and the first one's mark is refused."""
    outbox = Outbox(redis_client)
    ident = await outbox.put(message(), T0)
    first = await outbox.claim("first", T0, LEASE)
    assert isinstance(first, Claimed) and first.id == ident
    assert await outbox.reap(T0 + LEASE - 1) == (0, 0)
    assert await outbox.reap(T0 + LEASE) == (1, 0)
    second = await outbox.claim("second", T0 + LEASE, LEASE)
    assert isinstance(second, Claimed) and second.id == ident
    assert not await outbox.begin_data(first, "first")  # fenced: not its own any more
    assert not await outbox.settle(first, "first", "sent", T0 + LEASE)
    assert await outbox.begin_data(second, "second")
    assert await outbox.settle(second, "second", "sent", T0 + LEASE)
    assert (await outbox.state(ident) or {})["s"] == "sent"


async def test_a_lease_run_out_in_data_is_never_sent_again(redis_client: RedisClient) -> None:
    """A process that died after marking DATA leaves its message unknown when the lease runs out: it is never queued again, whoever reaps."""
    outbox = Outbox(redis_client)
    ident = await outbox.put(message(), T0)
    claimed = await outbox.claim("dead", T0, LEASE)
    assert isinstance(claimed, Claimed)
    assert await outbox.begin_data(claimed, "dead")
    assert await outbox.reap(T0 + LEASE) == (0, 1)
    assert (await outbox.state(ident) or {})["s"] == "unknown"
    assert await outbox.claim("next", T0 + 10 * LEASE, LEASE) is None
    assert await outbox.reap(T0 + 10 * LEASE) == (0, 0)


async def test_a_retry_waits_its_backoff(redis_client: RedisClient) -> None:
    """A message its owner queues again is due after the back-off (30 s, doubling, at most an hour) and counts the attempt."""
    assert [backoff_ms(n) for n in (1, 2, 3, 12)] == [30_000, 60_000, 120_000, 3_600_000]
    outbox = Outbox(redis_client)
    await outbox.put(message(), T0)
    claimed = await outbox.claim("p", T0, LEASE)
    assert isinstance(claimed, Claimed) and claimed.attempts == 0
    assert await outbox.settle(claimed, "p", "retry", T0, T0 + backoff_ms(1))
    assert await outbox.claim("p", T0 + 29_999, LEASE) == T0 + 30_000
    again = await outbox.claim("p", T0 + 30_000, LEASE)
    assert isinstance(again, Claimed) and again.attempts == 1


async def test_an_idempotence_key_queues_once(redis_client: RedisClient) -> None:
    """Two puts under one idempotence key queue one message."""
    outbox = Outbox(redis_client)
    assert await outbox.put(message(1), T0, once="tournament:t1:ana") is not None
    assert await outbox.put(message(1), T0, once="tournament:t1:ana") is None
    assert isinstance(await outbox.claim("p", T0, LEASE), Claimed)
    assert await outbox.claim("p", T0, LEASE) is None
