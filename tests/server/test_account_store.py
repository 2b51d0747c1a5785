"""``server.players.accounts.Accounts`` on the session's Redis: an unknown username costs one
argon2id verification like a wrong password, a hash of older parameters is made
again at the next log-in, and sessions end one by one or all at once."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from argon2 import PasswordHasher, extract_parameters

from server.players.accounts import Accounts, password_hasher
from server.store.keys import account_key

PASSWORD = "a-long-enough-password"


class CountingHasher(PasswordHasher):
    """The server's hasher, noting each hash it verifies against and counting hashes made."""

    def __init__(self, base: PasswordHasher) -> None:
        super().__init__(
            time_cost=base.time_cost,
            memory_cost=base.memory_cost,
            parallelism=base.parallelism,
        )
        self.verified: list[str] = []
        self.hashed = 0

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        self.hashed += 1
        return super().hash(password, salt=salt)

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        self.verified.append(hash if isinstance(hash, str) else hash.decode())
        return super().verify(hash, password)


@pytest.fixture
async def counted(redis_client: aioredis.Redis) -> AsyncIterator[tuple[Accounts, CountingHasher]]:
    hasher = CountingHasher(password_hasher())
    accounts = Accounts(redis_client, hasher)
    try:
        yield accounts, hasher
    finally:
        accounts.close()


async def test_an_unknown_name_costs_one_verification_like_a_wrong_password(
    counted: tuple[Accounts, CountingHasher],
) -> None:
    """A wrong password, an unknown username, a malformed one and a deleted account each cost exactly one argon2id verification, against a hash of the same parameters; all answer None."""
    accounts, hasher = counted
    assert await accounts.create("Ana_1", PASSWORD) == "Ana_1"
    assert await accounts.create("Gone_1", PASSWORD) == "Gone_1"
    await accounts.delete("gone_1")
    assert await accounts.verify("ana_1", PASSWORD) == "Ana_1"
    wanted = extract_parameters(hasher.verified[-1])
    for username, password in (
        ("Ana_1", "wrong password"),
        ("Nobody_1", "wrong password"),
        ("no such name!", "wrong password"),
        ("Gone_1", PASSWORD),
    ):
        hasher.verified.clear()
        assert await accounts.verify(username, password) is None
        assert len(hasher.verified) == 1, username
        assert extract_parameters(hasher.verified[0]) == wanted
        assert hasher.verified[0].startswith("$argon2id$")


async def test_a_hash_of_older_parameters_is_made_again_at_log_in(
    redis_client: aioredis.Redis,
) -> None:
    """An account hashed with weaker parameters logs in and its stored hash then has the server's parameters."""
    weak = Accounts(redis_client, PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1))
    server = Accounts(redis_client)
    try:
        await weak.create("Old_1", PASSWORD)
        assert b"m=8192" in (await redis_client.get(account_key("Old_1")) or b"")
        assert await server.verify("Old_1", PASSWORD) == "Old_1"
        stored = (await redis_client.get(account_key("Old_1")) or b"").decode()
        assert f"m={password_hasher().memory_cost}" in stored
        assert await server.verify("Old_1", PASSWORD) == "Old_1"
    finally:
        weak.close()
        server.close()


async def test_sessions_end_one_by_one_or_all_at_once(
    counted: tuple[Accounts, CountingHasher], redis_client: aioredis.Redis
) -> None:
    """Each session names its account until ended; ending all ends every one and the list; only digests are kept."""
    accounts, _ = counted
    await accounts.create("Bo_1", PASSWORD)
    first, second, third = [await accounts.new_session("Bo_1") for _ in range(3)]
    assert {await accounts.session_account(s) for s in (first, second, third)} == {"Bo_1"}
    await accounts.end_session(first)
    assert await accounts.session_account(first) is None
    assert await accounts.session_account(second) == "Bo_1"
    assert await accounts.end_all_sessions("bo_1") == 2
    assert await accounts.session_account(third) is None
    assert await accounts.session_account(None) is None
    assert await accounts.session_account("x" * 500) is None
    keys = [k async for k in redis_client.scan_iter()]
    assert not any(s.encode() in k for k in keys for s in (first, second, third))


async def test_no_session_is_made_for_a_deleted_account(
    counted: tuple[Accounts, CountingHasher], redis_client: aioredis.Redis
) -> None:
    """A log-in whose password was verified just before the account was deleted gets no session (new_session reads the account after writing it), and a deletion ends a session made before it."""
    accounts, _ = counted
    await accounts.create("Del_1", PASSWORD)
    before = await accounts.new_session("Del_1")
    assert await accounts.verify("Del_1", PASSWORD) == "Del_1"  # the log-in's check
    await accounts.delete("Del_1")  # the deletion, between the check and the session
    assert await accounts.new_session("Del_1") is None
    assert await accounts.session_account(before) is None
    assert [k async for k in redis_client.scan_iter(match="session:*")] == []
    assert await redis_client.zcard("{accounts}:del_1:sessions") == 0


async def test_the_first_unknown_name_costs_no_more_than_a_wrong_password(
    counted: tuple[Accounts, CountingHasher],
) -> None:
    """The dummy hash is made when the accounts start, so even the process's first unknown username costs one verification and no hash (it cost both: a slower answer, once)."""
    accounts, hasher = counted
    await accounts.ready()
    made = hasher.hashed
    assert await accounts.verify("Nobody_2", "wrong password") is None
    assert hasher.hashed == made and len(hasher.verified) == 1
