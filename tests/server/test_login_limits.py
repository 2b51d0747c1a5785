"""Log-in limits that stop guessing, not owners (docs/accounts.md "Log-in limits"):
only failures count; a strict budget per account and address, a looser one per
account that backs off exponentially; a right password from an address with no
recent failure on the account gets in even while others keep the account backing
off. Against a real server, clients bound to loopback addresses of their own."""

from __future__ import annotations

import bisect
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.common.settings import Settings
from server.players.accounts import Accounts, LoginBudget
from tests.server.test_accounts import PASSWORD, client, log_in, settings_for, sign_up
from tests.server.ws_helpers import LiveServer, live_server

OWNER = "127.0.0.1"
ATTACKER = "127.0.0.2"
SLOW = 0.0001  # a rate a second that refills nothing while a test runs


def limited(redis_server: str, **changes: Any) -> Settings:
    """Settings with every log-in limit on (nothing refilling during the test), the
    given ones changed."""
    base: dict[str, Any] = {
        "login_rate": SLOW,
        "login_burst": 100,
        "account_address_login_rate": SLOW,
        "account_address_login_burst": 5,
        "account_login_rate": SLOW,
        "account_login_burst": 3,
        "new_address_login_rate": SLOW,
        "new_address_login_burst": 5,
        "login_backoff": 60.0,
        "login_backoff_cap": 600.0,
    }
    return settings_for(redis_server, **{**base, **changes})


@pytest.fixture
async def bob(redis_client: aioredis.Redis, redis_server: str) -> AsyncIterator[LiveServer]:
    """A server with the limits of ``limited`` and an account, bob, signed up from a
    third address (sign-ups count on their address only)."""
    async with live_server(limited(redis_server)) as live:
        async with client(live, "127.0.0.9") as http:
            assert (await sign_up(http, "bob")).status_code == 201
        yield live


async def test_wrong_passwords_from_one_address_do_not_keep_the_owner_out(
    bob: LiveServer,
) -> None:
    """Ten wrong passwords for bob from 127.0.0.2: 401 while the account's budget lasts, one more while it starts backing off, then 429 with Retry-After; bob's right password from 127.0.0.1 (no failure there) still logs him in, again and again."""
    async with client(bob, ATTACKER) as attacker:
        answers = [await log_in(attacker, "bob", f"guess number {i}") for i in range(10)]
    assert [r.status_code for r in answers] == [401] * 4 + [429] * 6
    refused = answers[-1]
    assert refused.json()["code"] == "rate_limited" and "this account" in refused.json()["message"]
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    async with client(bob, OWNER) as owner:
        for _ in range(5):  # right passwords are not failures: none is counted
            r = await log_in(owner, "bob")
            assert r.status_code == 200 and r.json() == {"username": "bob"}
        assert (await owner.get("/api/me")).json()["username"] == "bob"


async def test_the_attackers_address_is_refused_even_its_right_password(bob: LiveServer) -> None:
    """Once 127.0.0.2 has failed past its budget, its right password for bob is refused 429 too (the answer must not tell a right guess from a wrong one), and no session is given."""
    async with client(bob, ATTACKER) as attacker:
        for i in range(4):
            assert (await log_in(attacker, "bob", f"guess number {i}")).status_code == 401
        r = await log_in(attacker, "bob")
        assert r.status_code == 429 and "set-cookie" not in r.headers
        assert (await attacker.get("/api/me")).status_code == 401


async def test_one_address_gets_429_past_its_strict_budget_on_an_account(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """With a loose account budget (50), one address gets only its strict budget on an account (5 failures), then 429 naming the account and its address; another address and another account are untouched."""
    settings = limited(redis_server, account_login_burst=50)
    async with live_server(settings) as live:
        async with client(live, "127.0.0.9") as http:
            await sign_up(http, "bob")
            await sign_up(http, "amy")
        async with client(live, ATTACKER) as attacker:
            answers = [(await log_in(attacker, "bob", f"guess {i}")).status_code for i in range(7)]
            assert answers == [401] * 5 + [429] * 2
            r = await log_in(attacker, "bob")
            assert r.status_code == 429 and "your address" in r.json()["message"]
            assert (await log_in(attacker, "amy", "a wrong guess")).status_code == 401
        async with client(live, "127.0.0.3") as other:
            assert (await log_in(other, "bob", "a wrong guess")).status_code == 401
        async with client(live, OWNER) as owner:
            assert (await log_in(owner, "bob")).status_code == 200


async def test_right_passwords_are_never_counted(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Eight right log-ins from one address, past every burst (address 3, account 2, pair 2): all 200; an unknown name then still has its whole budget."""
    settings = limited(
        redis_server, login_burst=3, account_login_burst=2, account_address_login_burst=2
    )
    async with live_server(settings) as live, client(live, OWNER) as http:
        await sign_up(http, "bob")
        answers = [(await log_in(http, "bob")).status_code for _ in range(8)]
        assert answers == [200] * 8
        assert (await log_in(http, "nobody", "a wrong guess")).status_code == 401


async def test_an_unknown_name_is_limited_like_an_account(bob: LiveServer) -> None:
    """Failures for a name nobody has get the same answers as for bob's account (401 four times, then 429): the limits tell nothing of which names exist."""
    async with client(bob, ATTACKER) as attacker:
        known = [(await log_in(attacker, "bob", f"g{i}-wrong")).status_code for i in range(6)]
        unknown = [(await log_in(attacker, "nobody", f"g{i}-wrong")).status_code for i in range(6)]
    assert known == unknown == [401] * 4 + [429] * 2


async def test_an_addresss_failures_over_many_accounts_are_limited(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Failures from one address spread over many names (a password tried on each) are counted on the address: past its burst of 6, 429 for any name, while another address still gets its answer; its sign-ups are refused too."""
    async with live_server(limited(redis_server, login_burst=6)) as live:
        async with client(live, ATTACKER) as attacker:
            answers = [
                (await log_in(attacker, f"name_{i}", "Summer2026!")).status_code for i in range(8)
            ]
            assert answers == [401] * 6 + [429] * 2
            r = await sign_up(attacker, "fresh_one")
            assert r.status_code == 429 and "your address" in r.json()["message"]
        async with client(live, OWNER) as other:
            assert (await log_in(other, "name_1", "Summer2026!")).status_code == 401


async def test_sign_ups_and_deletions_count_as_attempts_on_their_address(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Sign-ups spend their address's budget whether they succeed or not (burst 3: the fourth is 429); a deletion's wrong confirmations count on the account like log-ins (403, then 429)."""
    settings = limited(redis_server, login_burst=3, account_address_login_burst=2)
    async with live_server(settings) as live:
        async with client(live, OWNER) as http:
            answers = [(await sign_up(http, f"maker_{i}")).status_code for i in range(4)]
            assert answers == [201, 201, 201, 429]
        async with client(live, ATTACKER) as http:
            assert (await log_in(http, "maker_2")).status_code == 200
            wrong = [
                (await http.request("DELETE", "/api/me", json={"password": "not it"})).status_code
                for _ in range(3)
            ]
            assert wrong == [403, 403, 429]
            assert (await http.get("/api/me")).status_code == 200


async def test_the_back_off_doubles_up_to_its_cap(store: tuple[Accounts, LoginBudget]) -> None:
    """Past the account's burst, each failure from an address that failed before takes the next slot, twice as far as the last (30 s, 60 s, 120 s, then the 240 s cap); a new address meanwhile tries at once (once), and an hour with no failure after the last wait ends the back-off."""
    accounts, budget = store
    t = 1_000_000_000
    for _ in range(2):  # the account's burst
        assert (await accounts.reserve_login("bob", "10.0.0.1", budget, t)).wait is None
    waits = []
    for _ in range(6):
        assert (await accounts.reserve_login("bob", "10.0.0.1", budget, t)).wait is None
        refused = await accounts.reserve_login("bob", "10.0.0.1", budget, t)
        assert refused.wait is not None
        waits.append(refused.wait)
        t += round(refused.wait * 1000)
    assert waits == [30, 60, 120, 240, 240, 240]
    assert (await accounts.reserve_login("bob", "10.0.0.1", budget, t)).wait is None
    assert (await accounts.reserve_login("bob", "10.0.0.2", budget, t)).wait is None
    assert (await accounts.reserve_login("bob", "10.0.0.2", budget, t)).wait == 240
    assert (await accounts.reserve_login("bob", "10.0.0.1", budget, t)).wait == 240
    t += (240 + 3600) * 1000
    for _ in range(3):  # the burst again, and the first slot
        assert (await accounts.reserve_login("bob", "10.0.0.1", budget, t)).wait is None
    assert (await accounts.reserve_login("bob", "10.0.0.1", budget, t)).wait == 30


async def test_a_right_password_gives_back_what_its_attempt_took(
    store: tuple[Accounts, LoginBudget],
) -> None:
    """An attempt takes its budgets before the password is checked (attempts sent at once can't all pass a check made before any failed); a right password gives them back, so an owner logging in often never runs out."""
    accounts, budget = store
    t = 2_000_000_000
    for _ in range(10):
        ticket = await accounts.reserve_login("bob", "10.0.0.1", budget, t)
        assert ticket.wait is None
        await accounts.refund_login(ticket, budget, t)
    for _ in range(3):  # in flight at once: the burst of 2, then the first slot
        assert (await accounts.reserve_login("bob", "10.0.0.1", budget, t)).wait is None
    assert (await accounts.reserve_login("bob", "10.0.0.1", budget, t)).wait == 30


@pytest.fixture
async def store(redis_client: aioredis.Redis) -> AsyncIterator[tuple[Accounts, LoginBudget]]:
    """Accounts on the emptied database, and a budget: pairs of 100 (out of the way),
    the account's burst 2 refilling nothing, back-off from 30 s to 240 s."""
    budget = LoginBudget(
        pair_rate=SLOW,
        pair_burst=100,
        account_rate=SLOW,
        account_burst=2,
        new_address_rate=SLOW,
        new_address_burst=5,
        backoff=30.0,
        backoff_cap=240.0,
    )
    accounts = Accounts(redis_client)
    try:
        yield accounts, budget
    finally:
        accounts.close()


async def test_a_proxy_forwarded_client_is_limited_by_its_own_address(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Behind a trusted proxy, the limits key clients by X-Forwarded-For: an attacker's failures through the proxy don't refuse the owner coming through the same proxy."""
    settings = limited(redis_server, trusted_proxies=("127.0.0.1",))
    async with live_server(settings) as live, client(live, OWNER) as http:
        await sign_up(http, "bob")
        attacker = {"X-Forwarded-For": "203.0.113.7"}
        owner = {"X-Forwarded-For": "198.51.100.4"}
        body = {"username": "bob", "password": "a wrong guess"}
        answers = [
            (await http.post("/api/session", json=body, headers=attacker)).status_code
            for _ in range(6)
        ]
        assert answers == [401] * 4 + [429] * 2
        right = {"username": "bob", "password": PASSWORD}
        assert (await http.post("/api/session", json=right, headers=owner)).status_code == 200


async def _greedy(accounts: Accounts, budget: LoginBudget, addresses: str, hours: int) -> list[int]:
    """The times (ms) of the failures an attacker gets on one account in ``hours``,
    trying as soon as the answers allow: from a new address each time (``many``) or
    from one address (``one``)."""
    start = t = 10**12
    times: list[int] = []
    n = 0
    while t < start + hours * 3_600_000:
        n += 1
        address = f"10.9.{n // 250}.{n % 250}" if addresses == "many" else "10.9.0.1"
        ticket = await accounts.reserve_login("bob", address, budget, t)
        if ticket.wait is None:
            times.append(t - start)
        else:
            t += round(ticket.wait * 1000)
    return times


def _most_in_an_hour(times: list[int]) -> int:
    return max(bisect.bisect_left(times, t + 3_600_000) - i for i, t in enumerate(times))


async def test_the_default_limits_allow_under_100_failures_an_hour_on_an_account(
    redis_client: aioredis.Redis,
) -> None:
    """With the default settings, an attacker with a new address for every try gets at most 57 failures on one account in any hour and 24 an hour once it backs off (OWASP ASVS 2.2.1: no more than 100 an hour), and one address gets 8 in its first hour and 100 a day (docs/accounts.md's figures)."""
    accounts, budget = Accounts(redis_client), LoginBudget.of(Settings())
    try:
        many = await _greedy(accounts, budget, "many", 24)
        assert _most_in_an_hour(many) == 57
        assert len([t for t in many if t >= 3_600_000]) == 23 * 24
        await redis_client.flushdb()
        one = await _greedy(accounts, budget, "one", 24)
        assert _most_in_an_hour(one) == len([t for t in one if t < 3_600_000]) == 8
        assert len(one) == 100
    finally:
        accounts.close()
