"""Accounts over two ``splendor serve`` processes on one Redis: a session made on one
is known to the other and ended everywhere from either; neither process's output
(info level, access log on, as deployed) holds a password or a session id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.multiprocess.servers import served

PASSWORD = "Saffron-Harbour-Lantern-42"


async def test_sessions_are_shared_and_ended_everywhere_across_processes(
    redis_client: Any, redis_server: str, tmp_path: Path
) -> None:
    """Signed up on A and logged in on B, the account is known on both; "log out everywhere" sent to B ends A's session too; the passwords and session ids are in neither process's log."""
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    async with (
        served(redis_server, log_level="info", log=logs[0]) as a,
        served(redis_server, log_level="info", log=logs[1]) as b,
        httpx.AsyncClient(base_url=a.base) as phone,
        httpx.AsyncClient(base_url=b.base) as laptop,
    ):
        r = await phone.post("/api/accounts", json={"username": "Mo_9", "password": PASSWORD})
        assert r.status_code == 201
        wrong = await laptop.post("/api/session", json={"username": "Mo_9", "password": "x" * 9})
        assert wrong.status_code == 401
        r = await laptop.post("/api/session", json={"username": "mo_9", "password": PASSWORD})
        assert r.status_code == 200
        sessions = [phone.cookies["splendor_session"], laptop.cookies["splendor_session"]]
        async with httpx.AsyncClient(base_url=b.base, cookies=phone.cookies) as phone_on_b:
            assert (await phone_on_b.get("/api/me")).json()["username"] == "Mo_9"
        r = await laptop.delete("/api/sessions")
        assert r.status_code == 200 and r.json() == {"ended": 2}
        assert (await phone.get("/api/me")).status_code == 401
        assert (await laptop.get("/api/me")).status_code == 401
    output = "".join(log.read_text() for log in logs)
    assert "POST /api/session" in output and "DELETE /api/sessions" in output
    for secret in (PASSWORD, "x" * 9, *sessions):
        assert secret not in output


async def test_an_accounts_login_limit_counts_across_processes(
    redis_client: Any, redis_server: str
) -> None:
    """With a burst of 3 failed log-ins per account, failures spread over two processes (three addresses) are counted together: the fourth takes the back-off's first slot and the next from an address that failed is refused 429 on either process, the right password too; a new address's right password logs in on either."""
    env = {"SPLENDOR_ACCOUNT_LOGIN_RATE": "0.001", "SPLENDOR_ACCOUNT_LOGIN_BURST": "3"}
    async with served(redis_server, env) as a, served(redis_server, env) as b:
        async with httpx.AsyncClient(base_url=a.base) as http:
            body = {"username": "Ned_9", "password": PASSWORD}
            assert (await http.post("/api/accounts", json=body)).status_code == 201
        wrong = {"username": "Ned_9", "password": "wrong guess"}
        right = {"username": "ned_9", "password": PASSWORD}
        for n, base in enumerate([a.base, b.base, a.base, b.base]):
            async with _from(f"127.0.0.{50 + n % 3}", base) as http:
                assert (await http.post("/api/session", json=wrong)).status_code == 401
        for n, base in enumerate([b.base, a.base]):
            async with _from(f"127.0.0.{50 + n}", base) as http:
                r = await http.post("/api/session", json=right)
                assert r.status_code == 429 and r.json()["code"] == "rate_limited"
                assert "this account" in r.json()["message"]
        for base in (a.base, b.base):
            async with _from("127.0.0.60", base) as http:
                assert (await http.post("/api/session", json=right)).status_code == 200


def _from(address: str, base: str) -> httpx.AsyncClient:
    """A client of ``base`` connecting from ``address``."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=base, transport=transport)


async def test_an_addresss_attempts_count_across_processes(
    redis_client: Any, redis_server: str
) -> None:
    """With a burst of 4 per address, failed log-ins from one address to four different names, spread over two processes, are counted together: the fifth is refused 429 on either process, while another address still gets its answer."""
    env = {"SPLENDOR_LOGIN_RATE": "0.001", "SPLENDOR_LOGIN_BURST": "4"}
    async with served(redis_server, env) as a, served(redis_server, env) as b:
        answers = []
        for n, base in enumerate([a.base, b.base, a.base, b.base, a.base]):
            transport = httpx.AsyncHTTPTransport(local_address="127.0.0.61")
            async with httpx.AsyncClient(base_url=base, transport=transport) as http:
                wrong = {"username": f"Nobody_{n}", "password": "wrong guess"}
                answers.append((await http.post("/api/session", json=wrong)).status_code)
        assert answers == [401, 401, 401, 401, 429]
        transport = httpx.AsyncHTTPTransport(local_address="127.0.0.62")
        async with httpx.AsyncClient(base_url=b.base, transport=transport) as http:
            wrong = {"username": "Nobody_9", "password": "wrong guess"}
            assert (await http.post("/api/session", json=wrong)).status_code == 401
