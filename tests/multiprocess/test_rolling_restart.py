"""Rolling restarts: a ``splendor serve`` sent SIGTERM mid-game drains (health says so,
commands in flight are answered, new ones are not taken), closes its sockets with 1012,
and every client carries on from the other process with ``since``, missing nothing."""

from __future__ import annotations

import asyncio
import random
import signal
from typing import Any, cast

import httpx
import redis.asyncio as aioredis
import websockets

from bots.moves import moves as game_moves
from client.live import LiveGame
from tests.multiprocess.followers import Follower
from tests.multiprocess.servers import served, ws_url
from tests.server.ws_helpers import choose, http_view, new_table

# Presence beats (scripts) would also wait on the paused Redis: kept out of the way.
ENV = {"SPLENDOR_PRESENCE_BEAT": "30", "SPLENDOR_DRAIN_SECONDS": "10"}


async def _command_held_by_redis(redis: aioredis.Redis) -> bool:
    """Whether a script call carrying a move (an append's arguments are large; the
    timekeeper's are a few bytes) is held by the paused Redis."""
    clients = await redis.client_list()
    return any(
        "b" in c["flags"] and c["cmd"].startswith("eval") and int(c["argv-mem"]) > 200
        for c in clients
    )


async def test_a_server_sent_sigterm_mid_game_hands_every_client_to_the_other(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """Players and spectators on A; A gets SIGTERM while a move waits in Redis: /healthz says draining, a new socket gets 1012, a command sent meanwhile is not taken by A, the move in flight is answered by A, every socket is closed with 1012; every client goes on from B with since, applies every version once in order to the end of the game, and each acknowledged command is in the log exactly once."""
    async with (
        served(redis_server, ENV) as a,
        served(redis_server, ENV) as b,
        httpx.AsyncClient(base_url=a.base) as http_a,
        httpx.AsyncClient(base_url=b.base) as http_b,
    ):
        table = await new_table(http_a, players=2, seed=23)
        bases = [a.base, b.base]
        players = [
            Follower(f"p{seat}", bases, table.id, token) for seat, token in enumerate(table.tokens)
        ]
        spectators = [Follower(f"s{i}", bases, table.id) for i in range(2)]
        everyone = [*players, *spectators]
        runs = [asyncio.create_task(f.run()) for f in everyone]
        for follower in everyone:
            await follower.until(lambda f=follower: f.view is not None)
        rng = random.Random(23)

        async def next_move() -> tuple[Follower, dict[str, Any]]:
            view = await http_view(http_b, table.id, None)
            mover = players[view["turn"]["seat"]]
            await mover.until(lambda: mover.version == view["version"])
            assert mover.view is not None
            return mover, choose(game_moves(mover.view), rng)

        async def move() -> tuple[Follower, str]:
            mover, action = await next_move()
            return mover, await mover.send(action)

        for _ in range(6):  # a few moves through A
            mover, command_id = await move()
            await mover.until(lambda m=mover, c=command_id: c not in m.pending)

        # A move in flight: its append waits in the paused Redis when SIGTERM comes.
        mover, action = await next_move()
        await redis_client.client_pause(2000, all=False)  # writes only
        in_flight = await mover.send(action)
        for _ in range(500):  # a loaded machine may take a few seconds
            if await _command_held_by_redis(redis_client):
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError("the move never reached Redis")
        a.process.send_signal(signal.SIGTERM)
        health = await http_a.get("/healthz")
        assert health.status_code == 503
        assert health.json()["status"] == "draining" and health.json()["code"] == "unavailable"
        # Draining: a new socket is turned away with 1012; a command is not taken.
        async with websockets.connect(ws_url(a.base, table.id)) as late:
            await late.wait_closed()
            assert late.close_code == 1012
        other = players[1 - players.index(mover)]
        await other.send({"kind": "take_two", "color": "red"}, "while-draining")

        await asyncio.wait_for(asyncio.to_thread(a.process.wait), 30)
        for follower in everyone:  # everyone moved to B
            await follower.until(lambda f=follower: f.at == 1 and f.conn is not None)
        while (await http_b.get(f"/api/games/{table.id}")).json()["status"] == "live":
            await move()
            await asyncio.sleep(0)
            for player in players:
                await player.until(lambda p=player: not p.pending)

        final = (await http_b.get(f"/api/games/{table.id}")).json()["version"]
        for follower in everyone:
            await follower.until(lambda f=follower: f.version == final)
        for follower in everyone:
            await follower.stop()
        await asyncio.gather(*runs)

        for follower in everyone:
            # Closed by A with 1012 (then by the test), one snapshot, every version once.
            assert follower.closes[0] == (a.base, 1012), follower.name
            assert [base for base, _ in follower.closes[1:]] == [b.base], follower.name
            assert follower.snapshots == 1, follower.name
            start = follower.applied[0]
            assert follower.applied == list(range(start, final + 1)), follower.name
            expected = await http_view(http_b, table.id, follower.token)
            assert follower.view == expected, follower.name
        # The move in flight was answered by A; the one sent while draining only by B.
        answers = {m["command_id"]: (base, m) for p in players for base, m in p.answers}
        assert answers[in_flight][0] == a.base and answers[in_flight][1]["type"] == "ack"
        assert answers["while-draining"][0] == b.base
        assert sum(m["command_id"] == "while-draining" for p in players for _, m in p.answers) == 1
        # Each acknowledged command in the log once: one TurnEnded per acked move.
        acked = {cid: m["version"] for cid, (_, m) in answers.items() if m["type"] == "ack"}
        recorded = cast(
            dict[bytes, bytes], await redis_client.hgetall(f"game:{{{table.id}}}:commands")
        )
        assert {k.decode(): int(v.split(b":")[0]) for k, v in recorded.items()} == acked
        events = (await http_b.get(f"/api/games/{table.id}/events")).json()["events"]
        assert sum(e["type"] == "TurnEnded" for e in events) == len(acked)


async def test_the_python_client_given_both_addresses_moves_to_the_other_on_sigterm(
    redis_client: aioredis.Redis, redis_server: str
) -> None:
    """client.live.LiveGame given [A, B]: a player and a spectator on A, A sent SIGTERM while the player moves; both go on from B at once with since (no second snapshot), A's sockets closed with 1012, each of the player's moves answered once and in the log once, both ending with the game's final view."""
    async with (
        served(redis_server, ENV) as a,
        served(redis_server, ENV) as b,
        httpx.AsyncClient(base_url=b.base) as http,
    ):
        table = await new_table(http, players=2, seed=29)
        addresses = [a.base, b.base]
        player = LiveGame(addresses, table.id, token=table.tokens[0])
        spectator = LiveGame(addresses, table.id)
        other = LiveGame([b.base], table.id, token=table.tokens[1])
        rng = random.Random(29)
        acked: list[int] = []
        async with player, spectator, other:
            stopped = False
            while True:
                view = await http_view(http, table.id, None)
                if view["status"] != "live":
                    break
                live = player if view["turn"]["seat"] == 0 else other
                mine = await live.wait_version(view["version"])
                sending = asyncio.create_task(live.send(choose(game_moves(mine), rng)))
                if not stopped and len(acked) >= 4 and live is player:
                    a.process.send_signal(signal.SIGTERM)  # the move is on its way
                    stopped = True
                version = await sending
                if live is player:
                    acked.append(version)
            assert stopped
            await asyncio.wait_for(asyncio.to_thread(a.process.wait), 30)
            final = (await http.get(f"/api/games/{table.id}")).json()["version"]
            for live in (player, spectator):
                await live.wait_version(final)
                assert live.address == b.base
                assert live.close_codes[0] == 1012
                assert live.snapshots == 1  # resumed with since: no version missed
            assert player.view == await http_view(http, table.id, table.tokens[0])
            assert spectator.view == await http_view(http, table.id, None)
        assert len(set(acked)) == len(acked)
        recorded = await redis_client.hgetall(f"game:{{{table.id}}}:commands")
        events = (await http.get(f"/api/games/{table.id}/events")).json()["events"]
        assert sum(e["type"] == "TurnEnded" for e in events) == len(recorded)
