"""Tournaments on two ``splendor serve`` processes sharing one Redis
(docs/tournaments.md "Server"): forty accounts play an arena through the HTTP API while
one process is killed with ``kill -9``, and every pairing's game is made once, every
game's result recorded once, the standings those of a fold of the log; nine accounts
play a Swiss of three rounds, a bye each round, to its podium."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
from dataclasses import dataclass, field
from typing import Any

import httpx
import redis.asyncio as aioredis

from bots.moves import moves as game_moves
from client.http import ProtocolError, Seat, SplendorHTTP
from events.tournament.log import GamePlayed, PlayersPaired
from server.store.event_store import StoredEvent
from server.store.keys import tournament_events_key
from server.tournaments.record import TournamentRecord
from server.tournaments.store import TournamentStore, decode_event
from server.tournaments.views import standing_lines
from tests.multiprocess.servers import served

PASSWORD = "a-long-enough-password"
# Sign-ups from one address are limited (docs/accounts.md): the test signs up many.
ENV = {"SPLENDOR_LOGIN_RATE": "0", "SPLENDOR_BOT_DELAY": "0"}
POLL_S = 0.5


@dataclass
class Player:
    """An account playing a tournament through the API of either process: its requests
    go to the other process once one stops answering."""

    name: str
    bases: list[str]
    http: httpx.AsyncClient = field(default_factory=lambda: httpx.AsyncClient(timeout=30))
    at: int = 0
    played: set[str] = field(default_factory=set)

    def api(self) -> SplendorHTTP:
        return SplendorHTTP(self.bases[self.at], client=self.http)

    async def call(self, what: Any) -> Any:
        """``what(api)`` on this player's process, on the other one when it is gone."""
        for _ in range(2 * len(self.bases)):
            try:
                return await what(self.api())
            except httpx.TransportError:
                self.at = (self.at + 1) % len(self.bases)
        raise AssertionError(f"{self.name}: no process answers")

    async def play(self, tournament_id: str, rng: random.Random, stop: asyncio.Event) -> None:
        """Play each game the tournament gives: random legal moves, resigning soon."""
        while not stop.is_set():
            page = await self.call(lambda api: api.tournament(tournament_id))
            if page["tournament"]["status"] == "finished":
                return
            game_id = page["you"]["game_id"]
            if game_id is None or game_id in self.played:
                await asyncio.sleep(POLL_S * (0.5 + rng.random()))
                continue
            self.played.add(game_id)
            with contextlib.suppress(ProtocolError):
                await self._game(game_id, rng, stop)

    async def _game(self, game_id: str, rng: random.Random, stop: asyncio.Event) -> None:
        seat: Seat = await self.call(lambda api: api.account_seat(game_id))
        while not stop.is_set():
            view = await self.call(lambda api: api.view(game_id, token=seat.token))
            if view["status"] != "live":
                return
            if view["turn"]["seat"] != seat.seat:
                await asyncio.sleep(0.1)
                continue
            if rng.random() < 0.35:
                action: dict[str, Any] = {"kind": "resign"}
            else:
                action = rng.choice(game_moves(view))
            await self.call(lambda api, a=action: api.command(seat, a))


async def signed_up(names: list[str], bases: list[str]) -> list[Player]:
    players = [Player(name, bases, at=i % len(bases)) for i, name in enumerate(names)]
    for player in players:
        await player.call(lambda api, p=player: api.sign_up(p.name, PASSWORD))
    return players


async def log_of(client: aioredis.Redis, tournament_id: str) -> list[StoredEvent]:
    return await TournamentStore(client).read(tournament_id)


def folded(tournament_id: str, log: list[StoredEvent]) -> TournamentRecord:
    """The log folded, each ``PlayersPaired`` checked to pair only players waiting and each
    ``GamePlayed`` to end a game in play (so none is recorded twice)."""
    record = TournamentRecord(tournament_id, {})
    for stored in log:
        event = decode_event(stored.data)
        if isinstance(event, PlayersPaired) and record.state is not None:
            for pair in event.pairs:
                for name in (pair.first, pair.second):
                    assert record.tournament.players[name].waiting, (stored.version, name)
        if isinstance(event, GamePlayed):
            assert event.first in record.playing, (stored.version, event)
            assert record.playing[event.first].second == event.second
        record.apply(stored)
    return record


async def check_games(http: SplendorHTTP, record: TournamentRecord) -> None:
    """Each pairing's game exists once, seated by its pair in order, and each game over
    has the result the tournament recorded."""
    for entry in record.games:
        game = await http.game(entry.game_id)
        assert [s["account"] for s in game["seats"]] == [entry.first, entry.second]
        assert game["rated"] is True
        if entry.status == "over" and game["status"] == "finished":
            winners = game["result"]["winners"] if game["result"] else []
            expected = [entry.first, entry.second][winners[0]] if len(winners) == 1 else None
            assert entry.winner == expected, entry


async def stable_page(
    client: aioredis.Redis, http: SplendorHTTP, tournament_id: str
) -> tuple[dict[str, Any], list[StoredEvent]]:
    """The tournament's page and its log, read while the log did not change."""
    for _ in range(50):
        before = await client.xlen(tournament_events_key(tournament_id))
        page = await http.tournament(tournament_id)
        log = await log_of(client, tournament_id)
        if len(log) == before:
            return page, log
        await asyncio.sleep(0.2)
    raise AssertionError("the tournament kept changing")


async def test_forty_accounts_play_an_arena_while_a_process_is_killed(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Forty accounts on two processes play a duel arena; process A is killed with kill -9 after ten results; play goes on through B: every pairing's game made once and seated by its pair, every result recorded once and as the game ended, and B's standings are those of the log's fold."""
    async with served(redis_server, ENV) as a, served(redis_server, ENV) as b:
        bases = [a.base, b.base]
        players = await signed_up([f"Ar_{i:02d}" for i in range(40)], bases)
        summary = await players[0].call(
            lambda api: api.create_tournament(
                "arena", "duel", {"initial": 60, "increment": 1}, starts_in_s=0, duration_min=30
            )
        )
        tid = summary["id"]
        for player in players:
            await player.call(lambda api: api.tournament_action(tid, "join"))
        stop = asyncio.Event()
        tasks = [
            asyncio.create_task(p.play(tid, random.Random(i), stop)) for i, p in enumerate(players)
        ]

        async def results() -> int:
            record = folded(tid, await log_of(redis_client, tid))
            return sum(1 for g in record.games if g.status == "over")

        try:
            for _ in range(1200):
                if await results() >= 10:
                    break
                await asyncio.sleep(0.25)
            os.kill(a.process.pid, signal.SIGKILL)
            a.process.wait(10)
            killed_at = len(await log_of(redis_client, tid))
            for _ in range(1200):
                if await results() >= 30:
                    break
                await asyncio.sleep(0.25)
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
        async with SplendorHTTP(b.base) as http:
            page, log = await stable_page(redis_client, http, tid)
            record = folded(tid, log)
            assert page["standings"] == standing_lines(record)
            assert sum(1 for g in record.games if g.status == "over") >= 30
            after_kill = [decode_event(e.data) for e in log[killed_at:]]
            assert any(isinstance(e, PlayersPaired) for e in after_kill)
            assert any(isinstance(e, GamePlayed) for e in after_kill)
            paired = [decode_event(e.data) for e in log]
            assert sum(len(e.pairs) for e in paired if isinstance(e, PlayersPaired)) == len(
                record.games
            )
            await check_games(http, record)
        for player in players:
            await player.http.aclose()


async def test_nine_accounts_play_a_swiss_with_a_bye_each_round(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Nine accounts on two processes play a Swiss of three rounds: four games and a bye each round, nobody meets anyone twice nor has two byes, and the finished Swiss's standings and podium are those of the log's fold."""
    async with served(redis_server, ENV) as a, served(redis_server, ENV) as b:
        players = await signed_up([f"Sw_{i}" for i in range(9)], [a.base, b.base])
        summary = await players[0].call(
            lambda api: api.create_tournament(
                "swiss", "classic", {"initial": 120, "increment": 2}, starts_in_s=5, rounds=3
            )
        )
        tid = summary["id"]
        for player in players:
            await player.call(lambda api: api.tournament_action(tid, "join"))
        stop = asyncio.Event()
        tasks = [
            asyncio.create_task(p.play(tid, random.Random(i), stop)) for i, p in enumerate(players)
        ]
        try:
            await asyncio.wait_for(asyncio.gather(*tasks), 240)
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
        async with SplendorHTTP(b.base) as http:
            page, log = await stable_page(redis_client, http, tid)
            record = folded(tid, log)
            assert page["tournament"]["status"] == "finished" and record.tournament.ended
            assert page["standings"] == standing_lines(record)
            assert page["podium"] == [line["player"] for line in page["standings"][:3]]
            rounds = [
                e for e in map(decode_event, (s.data for s in log)) if isinstance(e, PlayersPaired)
            ]
            assert [(r.round, len(r.pairs), r.bye is not None) for r in rounds] == [
                (1, 4, True),
                (2, 4, True),
                (3, 4, True),
            ]
            byes = [r.bye for r in rounds]
            assert len(set(byes)) == 3
            met = [frozenset((p.first, p.second)) for r in rounds for p in r.pairs]
            assert len(met) == len(set(met)) == 12
            await check_games(http, record)
        for player in players:
            await player.http.aclose()
