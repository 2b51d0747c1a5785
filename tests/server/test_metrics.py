"""``GET /metrics`` (server/web/metrics.py): served only with the operator's token, in
Prometheus's text format, counting commands by outcome and showing the live sockets."""

from __future__ import annotations

import random
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from server.common.settings import Settings
from tests.server import helpers
from tests.server.tournament_helpers import created, page_when, resign, served_accounts
from tests.server.ws_helpers import Watcher, connect, live_server

TOKEN = "scrape-me-7f3a"


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition, by name and labels."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


async def test_no_metrics_without_the_setting(settings: Settings) -> None:
    """Without SPLENDOR_METRICS_TOKEN, /metrics is not there: 404 not_found, token or not."""
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        for headers in ({}, {"Authorization": "Bearer anything"}):
            r = await http.get("/metrics", headers=headers)
            assert r.status_code == 404 and r.json()["code"] == "not_found"


async def test_metrics_need_the_token(settings: Settings) -> None:
    """With the setting, no token is 401 and a wrong one (or another scheme) 403, both unauthorized; the token is never in an answer."""
    async with (
        live_server(settings.with_(metrics_token=TOKEN)) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        r = await http.get("/metrics")
        assert r.status_code == 401 and r.json()["code"] == "unauthorized"
        for given in ("Bearer scrape-me-7f3b", f"Basic {TOKEN}", "Bearer"):
            r = await http.get("/metrics", headers={"Authorization": given})
            assert r.status_code in (401, 403) and r.json()["code"] == "unauthorized", given
            assert TOKEN not in r.text
        assert TOKEN not in repr(settings.with_(metrics_token=TOKEN))


async def test_metrics_refusals_name_the_metrics_token(settings: Settings) -> None:
    """No token and a wrong one are refused with a sentence about the metrics token (SPLENDOR_METRICS_TOKEN), never a seat token's."""
    async with (
        live_server(settings.with_(metrics_token=TOKEN)) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        missing = await http.get("/metrics")
        wrong = await http.get("/metrics", headers={"Authorization": "Bearer not-it"})
        for r in (missing, wrong):
            message = r.json()["message"]
            assert "metrics token" in message and "SPLENDOR_METRICS_TOKEN" in message, message
            assert "seat" not in message


async def test_guessing_the_metrics_token_is_met_by_429(settings: Settings) -> None:
    """Wrong tokens spend the address's failed-authentication budget (burst 3 here): the fourth guess, and the right token after it, get 429 rate_limited with Retry-After; another address still scrapes, and a request without a token is not a guess."""
    limited = settings.with_(metrics_token=TOKEN, auth_failure_rate=0.0001, auth_failure_burst=3)
    async with live_server(limited) as server:
        guesser = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(base_url=server.http_url, transport=guesser) as http:
            assert (await http.get("/metrics")).status_code == 401
            answers = [
                await http.get("/metrics", headers={"Authorization": f"Bearer guess-{i}"})
                for i in range(5)
            ]
            assert [r.status_code for r in answers] == [403] * 3 + [429] * 2
            assert answers[-1].json()["code"] == "rate_limited"
            assert int(answers[-1].headers["retry-after"]) >= 1
            right = await http.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
            assert right.status_code == 429 and TOKEN not in right.text
        async with httpx.AsyncClient(base_url=server.http_url) as scraper:
            r = await scraper.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
            assert r.status_code == 200


async def test_metrics_count_commands_by_outcome_and_show_the_sockets(settings: Settings) -> None:
    """A played game's commands are counted as ok, one out of turn and a stale one by their codes, a resent one as duplicate, each timed in the histogram; a spectator's and a seat's open sockets are shown by kind, with the hubs; the process's own metrics are there."""
    async with (
        live_server(settings.with_(metrics_token=TOKEN)) as server,
        httpx.AsyncClient(base_url=server.http_url) as http,
    ):
        table = await helpers.new_table(http, players=2, seed=31)
        played = 6
        await table.play(random.Random(31), played)
        mover = await table.mover()
        legal = helpers.choose(helpers.game_moves(await table.view(mover)), random.Random(1))
        bad = await table.command(1 - mover, legal)  # the mover's move, by the other seat
        assert bad.json()["code"] == "not_your_turn", bad.text
        stale = await table.command(mover, {"kind": "resign"}, expected_version=1)
        assert stale.status_code == 409
        body = {"command_id": "again", "action": {"kind": "resign"}}
        for _ in range(2):
            await http.post(
                f"/api/games/{table.id}/commands",
                json=body,
                headers=helpers.auth(table.tokens[1 - mover]),
            )

        spectator = Watcher("s", await connect(server.ws_url(table.id)))
        seat0 = Watcher("p0", await connect(server.ws_url(table.id, table.tokens[0])))
        await spectator.next()
        await seat0.next()
        r = await http.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/plain")
        got = samples(r.text)
        commands = {
            dict(labels)["outcome"]: value
            for (name, labels), value in got.items()
            if name == "splendor_commands_total"
        }
        assert commands == {
            "ok": played + 1,
            bad.json()["code"]: 1,
            "conflict": 1,
            "duplicate": 1,
        }, commands
        assert got[("splendor_command_seconds_count", ())] == played + 4
        assert got[("splendor_sockets", (("kind", "player"),))] == 1
        assert got[("splendor_sockets", (("kind", "spectator"),))] == 1
        assert got[("splendor_hubs", ())] == 1
        assert got[("splendor_draining", ())] == 0
        assert got[("splendor_redis_up", ())] == 1
        assert ("process_resident_memory_bytes", ()) in got
        assert ("splendor_archive_queue", ()) in got and ("splendor_analysis_queue", ()) in got
        for watcher in (spectator, seat0):
            await watcher.conn.close()


async def test_metrics_show_the_tournaments_and_what_the_director_did(
    settings: Settings, redis_client: Any
) -> None:
    """With an arena (the database emptied first by redis_client) that paired two accounts and recorded their game, the metrics show one tournament open, and the director's looks, its one pair and its one result."""
    async with live_server(settings.with_(metrics_token=TOKEN)) as server:
        clients = await served_accounts(server.http_url, ("Ida_M", "Jon_M"))
        tid = (await created(clients[0], starts_in_s=0))["id"]
        conn = await connect(f"ws://{server.host}:{server.port}/ws/tournaments/{tid}")

        for client in clients:
            assert (await client.post(f"/api/tournaments/{tid}/join")).status_code == 200
        live = await page_when(conn, lambda m: any(g["status"] == "live" for g in m["games"]))
        game = live["games"][0]
        await resign(clients[("Ida_M", "Jon_M").index(game["second"])], game["game_id"])
        await page_when(conn, lambda m: any(s["games"] == 1 for s in m["standings"]))
        await conn.close()
        r = await clients[0].get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        for client in clients:
            await client.aclose()
    got = samples(r.text)
    assert got[("splendor_tournaments_open", ())] == 1
    assert got[("splendor_tournament_looks_total", (("outcome", "done"),))] >= 2
    assert got[("splendor_tournament_looks_total", (("outcome", "failed"),))] == 0
    # The only two waiting were paired again once their game was recorded.
    assert got[("splendor_tournament_pairs_total", ())] >= 1
    assert got[("splendor_tournament_results_total", ())] == 1
