"""Accounts on a real Redis Cluster (server/players/accounts.py): an account's keys share one
slot, so sign-up, log-in (its bucket and a rehash), sessions, log out everywhere,
deletion and the deleted-name look-up all run there."""

from __future__ import annotations

from argon2 import PasswordHasher
from redis.asyncio.cluster import RedisCluster

from server.players.accounts import Accounts, LoginBudget
from server.store.keys import account_key, login_keys, sessions_key
from tests.cluster_helpers import key_slot

PASSWORD = "a-long-enough-password"


def test_an_accounts_keys_share_one_slot() -> None:
    """The record, the session list, the log-in record and a log-in bucket of an address on any account hash to the {accounts} slot."""
    keys = [account_key("Ana"), sessions_key("ANA"), *login_keys("ana", "10.1.2.3")]
    assert len({key_slot(k) for k in keys} | {key_slot(account_key("Bo_7"))}) == 1


async def test_accounts_and_sessions_on_a_cluster(cluster_client: RedisCluster) -> None:
    """On a cluster: sign up (with old parameters), log in (rehashed), sessions made and ended everywhere, the log-in budgets of the account and of addresses taken and given back, the account deleted and found deleted."""
    old = Accounts(cluster_client, PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1))
    accounts = Accounts(cluster_client)
    try:
        assert await old.create("Ana_C", PASSWORD) == "Ana_C"
        assert await accounts.create("ana_c", PASSWORD) is None
        assert await accounts.verify("ANA_C", PASSWORD) == "Ana_C"  # rehashed by a script
        assert b"m=8192" not in (await cluster_client.get(account_key("Ana_C")) or b"")
        sessions = [await accounts.new_session("Ana_C") for _ in range(3)]
        assert {await accounts.session_account(s) for s in sessions} == {"Ana_C"}
        assert await accounts.end_all_sessions("Ana_C") == 3
        assert {await accounts.session_account(s) for s in sessions} == {None}
        budget = LoginBudget(0.001, 2, 0.001, 5, 0.001, 5, 30.0, 900.0)
        tickets = [await accounts.reserve_login("Ana_C", "::1", budget) for _ in range(3)]
        assert [t.wait is None for t in tickets] == [True, True, False]
        assert tickets[2].why == "pair"
        await accounts.refund_login(tickets[0], budget)  # a right password's: given back
        assert (await accounts.reserve_login("Ana_C", "::1", budget)).wait is None
        for address in ("127.0.0.1", "::1", "10.1.2.3"):  # each bucket in its own slot
            waits = [await accounts.spend_address(address, 0.001, 2) for _ in range(3)]
            assert waits[:2] == [None, None] and waits[2] is not None and waits[2] > 0
        await accounts.create("Bo_C", PASSWORD)
        await accounts.delete("Ana_C")
        assert await accounts.deleted_among({"Ana_C", "Bo_C", "Nobody"}) == {"ana_c"}
    finally:
        old.close()
        accounts.close()
