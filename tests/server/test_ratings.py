"""Ratings from rated games played through the game service on the real Redis: the
library's amounts after a resign, ranks with a seat out, what never counts, and the
rebuild equal to the live ratings after 200 random rated games with bots."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from collections.abc import Callable

import httpx
import pytest
import redis.asyncio as aioredis
from openskill.models import PlackettLuce

from events.base import Abort, Resign, TimeControl
from server import cli
from server.lobby import Lobby
from server.profiles import Profiles
from server.ratings_rebuild import mend_recent, rebuild
from server.service import GameService
from server.skill import SCALE, START
from server.store import EventStore
from tests.ratings.helpers import ratings_state

CLOCK = TimeControl(initial=300, increment=3)
_commands = itertools.count()


def ticking_clock() -> Callable[[], int]:
    """A clock one millisecond later at every reading: games end in the order played
    (the rebuild's end order) and nobody's time runs out."""
    ticks = itertools.count(int(time.time() * 1000))
    return lambda: next(ticks)


def rated_service(client: aioredis.Redis) -> tuple[GameService, Profiles]:
    service = GameService(EventStore(client), Lobby(client), clock_ms=ticking_clock())
    profiles = Profiles(client)
    service.on_finished = profiles.game_finished
    return service, profiles


def shown(mu: float, sigma: float) -> int:
    return round(START + SCALE * (mu - 3 * sigma))


async def new_game(
    service: GameService, variant: str, seats: list[str], *, rated: bool = True
) -> str:
    """A game whose seats are accounts (names) or bots (``bot:<level>``), started."""
    game_id: str = (await service.create_game(variant, len(seats), None, CLOCK, rated=rated))["id"]
    for who in seats:
        if who.startswith("bot:"):
            await service.join(game_id, who, bot=who.removeprefix("bot:"))
        else:
            await service.join(game_id, who, account=who)
    return game_id


async def act(service: GameService, game_id: str, seat: int, action: object) -> None:
    await service.submit(game_id, seat, f"c{next(_commands)}", action)


async def test_a_rated_duel_won_by_resign_moves_both_by_the_librarys_amounts(
    redis_client: aioredis.Redis,
) -> None:
    """Bob resigns a rated Duel against Ada: Ada goes up and Bob down exactly as
    openskill's Plackett-Luce says, each with one game and one history point."""
    service, profiles = rated_service(redis_client)
    game_id = await new_game(service, "duel", ["Ada", "Bob"])
    await act(service, game_id, 1, Resign())
    model = PlackettLuce()
    [[ada], [bob]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    for player, expected in (("ada", ada), ("bob", bob)):
        skill = await profiles.ratings.skill("duel", player)
        assert skill is not None
        assert (skill.mu, skill.sigma, skill.games) == (expected.mu, expected.sigma, 1)
        [point] = await profiles.ratings.history("duel", player)
        assert point.rating == shown(expected.mu, expected.sigma) == skill.rating
    assert shown(ada.mu, ada.sigma) > 1500 > shown(bob.mu, bob.sigma)
    assert await profiles.ratings.skill("classic", "ada") is None
    assert await profiles.record("ada") == (1, 1) and await profiles.record("bob") == (1, 0)


async def test_over_http_a_resigned_rated_game_shows_on_profiles_me_and_leaderboard(
    http: httpx.AsyncClient,
) -> None:
    """Over the HTTP API with two accounts' sessions: a rated 3+2 Duel, and
    Ben (seat 2) resigns; GET /api/players, GET /api/me and the leaderboard give
    both players openskill's amounts on the display scale, winner first."""
    sessions = {}
    for name in ("Ana", "Ben"):
        r = await http.post("/api/accounts", json={"username": name, "password": "long enough pw"})
        assert r.status_code == 201, r.text
        sessions[name] = {"Cookie": f"splendor_session={r.cookies['splendor_session']}"}
        http.cookies.clear()  # the next sign-up would end this session (it replaces it)
    body = {"variant": "duel", "rated": True, "clock": {"initial": 180, "increment": 2}}
    r = await http.post("/api/games", json=body, headers=sessions["Ana"])
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    tokens = []
    for name in ("Ana", "Ben"):
        r = await http.post(f"/api/games/{game_id}/seats", json={}, headers=sessions[name])
        assert r.status_code == 201, r.text
        tokens.append(r.json()["token"])
    command = {"command_id": "resign-1", "action": {"kind": "resign"}}
    headers = {"Authorization": f"Bearer {tokens[1]}"}
    r = await http.post(f"/api/games/{game_id}/commands", json=command, headers=headers)
    assert r.status_code == 200, r.text
    model = PlackettLuce()
    [[won], [lost]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    expected = {"Ana": shown(won.mu, won.sigma), "Ben": shown(lost.mu, lost.sigma)}
    for name, rating in expected.items():
        profile = (await http.get(f"/api/players/{name.lower()}")).json()
        assert profile["ratings"]["duel"] == {"rating": rating, "games": 1}
        assert [g["id"] for g in profile["games"]] == [game_id]
        me = (await http.get("/api/me", headers=sessions[name])).json()
        assert me["ratings"]["duel"] == {"rating": rating, "games": 1}
    board = (await http.get("/api/leaderboard/duel")).json()["players"]
    assert board == [
        {"username": "Ana", "rating": expected["Ana"], "games": 1, "bot": False},
        {"username": "Ben", "rating": expected["Ben"], "games": 1, "bot": False},
    ]


async def test_four_players_ranked_with_seats_out_last(redis_client: aioredis.Redis) -> None:
    """A 4-player classic game (three accounts and a greedy bot) where Cy, then Ada,
    then Bob resign: the bot first, then the seats out, the last out best (Bob 2nd,
    Ada 3rd, Cy 4th), and the ratings are openskill's for those ranks."""
    service, profiles = rated_service(redis_client)
    game_id = await new_game(service, "classic", ["Ada", "Bob", "Cy", "bot:greedy"])
    await act(service, game_id, 2, Resign())  # Cy, out first: last
    await act(service, game_id, 0, Resign())  # Ada, out second: third
    await act(service, game_id, 1, Resign())  # Bob, out third: second; the bot wins
    assert (await service.summary(game_id))["result"]["ranks"] == [3, 2, 4, 1]
    model = PlackettLuce()
    after = model.rate([[model.rating()] for _ in range(4)], ranks=[3, 2, 4, 1])
    for player, [expected] in zip(["ada", "bob", "cy", "bot:greedy"], after, strict=True):
        skill = await profiles.ratings.skill("classic", player)
        assert skill is not None and (skill.mu, skill.sigma) == (expected.mu, expected.sigma)
    board = await profiles.ratings.leaderboard("classic", 10)
    assert [p for p, _, _ in board] == ["bot:greedy", "bob", "ada", "cy"]


async def test_seeded_aborted_and_casual_games_change_nothing(
    redis_client: aioredis.Redis,
) -> None:
    """An aborted rated game, a casual game and a seeded game, all between accounts:
    no rating key is written (the casual and seeded ones are on the profiles)."""
    service, profiles = rated_service(redis_client)
    aborted = await new_game(service, "duel", ["Ada", "Bob"])
    await act(service, aborted, 0, Abort())
    casual = await new_game(service, "duel", ["Ada", "Bob"], rated=False)
    await act(service, casual, 1, Resign())
    seeded: str = (await service.create_game("duel", 2, 42, CLOCK))["id"]
    await service.join(seeded, "Ada", account="Ada")
    await service.join(seeded, "Bob", account="Bob")
    await act(service, seeded, 1, Resign())
    assert (await service.summary(aborted))["status"] == "aborted"
    assert await ratings_state(redis_client) == {}
    assert await profiles.record("ada") == (2, 2)


async def play_randomly(service: GameService, game_id: str, rng: random.Random) -> None:
    """Finish a live game: random moves (buys first) for every seat, the bots' too
    (as the bot runner would send them), and now and then a human seat resigns."""
    variant = (await service.summary(game_id))["variant"]
    while True:
        public = await service.view(game_id, None)
        if public["status"] != "live":
            return
        humans = [p["seat"] for p in public["players"] if p["bot"] is None and p["out"] is None]
        if humans and rng.random() < 0.08:
            await act(service, game_id, rng.choice(humans), Resign())
            continue
        seat = public["turn"]["seat"]
        legal = (await service.view(game_id, seat))["legal"]
        buys = [a for a in legal if a["kind"] == "buy"]
        chosen = buys[-1] if buys else rng.choice(legal)
        await act(
            service, game_id, seat, service.decode_action(variant, json.dumps(chosen).encode())
        )


async def test_rebuild_equals_live_after_200_random_rated_games(
    redis_client: aioredis.Redis,
) -> None:
    """200 rated games (classic 2-4 players and Duel) among six accounts and the three
    bot levels, played to their end by random moves and resignations: every finished
    one is counted (an abort drawn in the opening counts for nothing), and the
    ratings rebuilt from the log equal, key for key, the ratings counted live."""
    service, profiles = rated_service(redis_client)
    rng = random.Random(15)
    accounts = ["Ada", "Bob", "Cy", "Dee", "Eve", "Fox"]
    bots = ["bot:random", "bot:greedy", "bot:mcts"]
    finished = set()
    for _ in range(200):
        variant = rng.choice(["classic", "classic", "duel"])
        count = 2 if variant == "duel" else rng.randint(2, 4)
        seats = rng.sample(accounts + bots, count)
        game_id = await new_game(service, variant, seats)
        await play_randomly(service, game_id, rng)
        if (await service.summary(game_id))["status"] == "finished":
            finished.add(game_id)
    live = await ratings_state(redis_client)
    counted = await profiles.ratings.counted("classic"), await profiles.ratings.counted("duel")
    assert set(counted[0]) | set(counted[1]) == finished and len(finished) > 150
    assert await rebuild(service, profiles) == {
        v: len(c) for v, c in zip(["classic", "duel"], counted, strict=True)
    }
    assert await ratings_state(redis_client) == live


async def test_a_start_counts_rated_games_a_stopped_process_left_uncounted(
    redis_client: aioredis.Redis,
) -> None:
    """Two rated Duels end in a process that counts nothing (as one that died between
    the end's append and the count): mend_recent, what a starting process runs,
    counts both once, in end order, and a second run finds nothing to do."""
    service, profiles = rated_service(redis_client)
    service.on_finished = None
    first = await new_game(service, "duel", ["Ada", "Bob"])
    await act(service, first, 1, Resign())
    second = await new_game(service, "duel", ["Bob", "Ada"])
    await act(service, second, 1, Resign())
    assert await ratings_state(redis_client) == {}
    assert await mend_recent(service, profiles) == 2
    history = await profiles.ratings.history("duel", "ada")
    assert [p.game for p in history] == [first, second]
    assert await profiles.record("bob") == (2, 1)
    assert await mend_recent(service, profiles) == 0


def test_splendor_ratings_rebuild_writes_back_what_was_lost(
    redis_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rated Duel and a rated 3-player game end; the Duel's skills and the classic
    leaderboard are lost; `splendor ratings rebuild` writes every rating key back as it
    was and says how many games each variant counted."""

    async def play() -> dict[bytes, object]:
        client = aioredis.from_url(redis_server)
        await client.flushdb()
        service, _ = rated_service(client)
        duel = await new_game(service, "duel", ["Ada", "Bob"])
        await act(service, duel, 0, Resign())
        classic = await new_game(service, "classic", ["Ada", "Bob", "bot:greedy"])
        await act(service, classic, 1, Resign())
        await act(service, classic, 0, Resign())
        live = await ratings_state(client)
        await client.delete("{ratings:duel}:skills", "{ratings:classic}:board")
        await client.aclose()
        return live

    async def now() -> dict[bytes, object]:
        client = aioredis.from_url(redis_server)
        try:
            return await ratings_state(client)
        finally:
            await client.aclose()

    live = asyncio.run(play())
    assert cli.main(["ratings", "rebuild", "--redis-url", redis_server]) == 0
    assert "(classic 1, duel 1)" in capsys.readouterr().err
    assert asyncio.run(now()) == live
