"""Bot seats played by the server's bot runner: ordinary commands, to the game's end."""

from __future__ import annotations

import asyncio
import contextlib

import httpx
import msgspec
import pytest

from bots.moves import moves as game_moves
from events.game import VARIANTS
from server.common.settings import Settings
from server.games.projection import encode_event
from server.games.service import GameService
from server.store.clients import tail_client
from server.store.keys import BOT_GAMES_KEY
from server.web.state import running
from server.workers.bot_runner import BotRunner, run_worker
from tests.server.helpers import command_id
from tests.server.test_service import action
from tests.server.ws_helpers import live_server


async def _finished(http: httpx.AsyncClient, game_id: str, seconds: float) -> dict[str, object]:
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        summary: dict[str, object] = (await http.get(f"/api/games/{game_id}")).json()
        if summary["status"] == "finished" or asyncio.get_running_loop().time() > deadline:
            return summary
        await asyncio.sleep(0.1)


@pytest.mark.parametrize(
    "variant,levels",
    [
        ("classic", ["greedy", "random", "greedy", "random"]),
        ("duel", ["greedy", "random"]),
        ("duel", ["mcts", "greedy"]),
    ],
)
async def test_bots_play_a_game_to_its_end_with_nobody_watching(
    settings: Settings, variant: str, levels: list[str]
) -> None:
    """A table of bot seats only plays itself to the end (Duel MCTS in the runner's worker
    processes too); its log folds to the result."""
    settings = settings.with_(bot_delay=0.0, mcts_seconds=0.02)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        r = await http.post(
            "/api/games", json={"variant": variant, "players": len(levels), "seed": 5}
        )
        game_id = r.json()["id"]
        for level in levels:
            r = await http.post(f"/api/games/{game_id}/seats", json={"bot": level})
            assert r.status_code == 201
            assert r.json().get("token") is None
        summary = await _finished(http, game_id, 180)
        assert summary["status"] == "finished"
        assert [s["bot"] for s in summary["seats"]] == levels  # type: ignore[index]
        events = (await http.get(f"/api/games/{game_id}/events")).json()["events"]
        assert [e["version"] for e in events] == list(range(1, len(events) + 1))
        rules = VARIANTS[variant]
        state = rules.fold(rules.event_decoder().decode(_strip(e)) for e in events)
        view = (await http.get(f"/api/games/{game_id}/view")).json()["view"]
        assert rules.view(state, None)["result"] == view["result"]


async def test_a_bot_moves_right_after_a_human_on_another_connection(
    settings: Settings,
) -> None:
    """A human's move wakes the bot, whose answer is back before the human's next turn."""
    settings = settings.with_(bot_delay=0.0)
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        game_id = (
            await http.post("/api/games", json={"variant": "classic", "players": 2, "seed": 11})
        ).json()["id"]
        token = (await http.post(f"/api/games/{game_id}/seats", json={"name": "Ana"})).json()[
            "token"
        ]
        await http.post(f"/api/games/{game_id}/seats", json={"bot": "greedy"})
        auth = {"Authorization": f"Bearer {token}"}
        for move in range(6):
            view = await _my_turn(http, game_id, auth)
            action = game_moves(view)[0]
            r = await http.post(
                f"/api/games/{game_id}/commands",
                json={"command_id": f"ana-{move}", "action": action},
                headers=auth,
            )
            assert r.status_code == 200, r.text
        events = (await http.get(f"/api/games/{game_id}/events")).json()["events"]
        movers = [e["seat"] for e in events if e["type"] == "TurnEnded"]
        assert len(movers) >= 11 and set(movers) == {0, 1}


async def test_a_bots_worker_plays_for_servers_that_run_without_their_own_runner(
    settings: Settings,
) -> None:
    """With SPLENDOR_BOTS=off the server plays no bot; a `splendor bots` worker on its Redis does."""
    settings = settings.with_(bot_delay=0.0, bots="off")
    async with live_server(settings) as server, httpx.AsyncClient(base_url=server.http_url) as http:
        assert running(server.app).bot_runner is None
        game_id = (
            await http.post("/api/games", json={"variant": "duel", "players": 2, "seed": 3})
        ).json()["id"]
        for level in ("greedy", "random"):
            await http.post(f"/api/games/{game_id}/seats", json={"bot": level})
        assert settings.redis_url is not None
        worker = asyncio.create_task(run_worker(settings))
        try:
            summary = await _finished(http, game_id, 180)
        finally:
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        assert summary["status"] == "finished"


async def test_an_aborted_game_with_a_bot_leaves_the_runners_set(service: GameService) -> None:
    """A bot game aborted before the runner saw it is dropped from bots:games at the runner's next look, not folded again at every start."""
    game_id = (await service.create_game("classic", 2, 5))["id"]
    await service.join(game_id, "Ana")
    await service.join(game_id, "", bot="greedy")
    await service.submit(game_id, 0, command_id(), action(service, "classic", {"kind": "abort"}))
    redis = service.store.client
    assert await redis.sismember(BOT_GAMES_KEY, game_id)
    tail = tail_client(redis)
    runner = BotRunner(service, tail, delay=0.0, seconds=0.01)
    running = asyncio.create_task(runner.run())
    try:
        for _ in range(100):
            if not await redis.sismember(BOT_GAMES_KEY, game_id):
                break
            await asyncio.sleep(0.05)
        assert not await redis.sismember(BOT_GAMES_KEY, game_id)
    finally:
        await runner.close()
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        await tail.aclose()


async def test_a_game_of_another_variant_or_unreadable_keeps_no_other_bot_idle(
    service: GameService,
) -> None:
    """The runner's look at bots:games leaves a game of a variant this process does not know in the set (another process plays it, in a rolling restart) and skips one whose log can't be read, and still picks up the games after them."""
    redis = service.store.client
    await redis.delete(BOT_GAMES_KEY)
    game_id = (await service.create_game("classic", 2, 5))["id"]
    await service.join(game_id, "Ana")
    await service.join(game_id, "", bot="greedy")
    created = (await service.reader.log(game_id))[0].event
    other = encode_event(msgspec.structs.replace(created, variant="chess"))
    await service.store.append("gother", [other], expected_version=0, command_id=None, at_ms=1)
    await service.store.append(
        "gbroken", [b"{not json"], expected_version=0, command_id=None, at_ms=1
    )
    await redis.sadd(BOT_GAMES_KEY, "gother", "gbroken")
    tail = tail_client(redis)
    runner = BotRunner(service, tail, delay=0.0, seconds=0.01)
    try:
        await runner._refresh()
        assert game_id in runner._tables
        members = {m.decode() for m in await redis.smembers(BOT_GAMES_KEY)}
        assert {"gother", "gbroken", game_id} <= members
    finally:
        await runner.close()
        await tail.aclose()


async def _my_turn(
    http: httpx.AsyncClient, game_id: str, auth: dict[str, str]
) -> dict[str, object]:
    for _ in range(300):
        view: dict[str, object] = (
            await http.get(f"/api/games/{game_id}/view", headers=auth)
        ).json()["view"]
        if game_moves(view):
            return view
        await asyncio.sleep(0.05)
    raise AssertionError("the bot never answered")


def _strip(event: dict[str, object]) -> bytes:
    import json

    return json.dumps({k: v for k, v in event.items() if k not in ("version", "at")}).encode()
