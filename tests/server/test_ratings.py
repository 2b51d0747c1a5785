"""Ratings from rated games played through the game service on the real Redis: the
library's amounts after a resign, ranks with a seat out, what never counts (an early
end, a pair's fourth game of a UTC day), the leaderboard's threshold, and the rebuild
equal to the live ratings after 200 random rated games with bots."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from openskill.models import PlackettLuce
from starlette.applications import Starlette

from events.base import Abort, Resign
from events.rated import completed_turns
from server import cli
from server.common.wire import decode_action
from server.games.lobby import Lobby
from server.games.service import GameService
from server.players.profiles import Profiles
from server.players.rating_model import SCALE, START
from server.store.availability import StoreUnavailable
from server.store.event_store import EventStore
from server.tools.ratings_rebuild import mend_recent, rebuild
from server.web.state import running
from tests.ratings.helpers import (
    CLOCK,
    act,
    counted_game,
    new_game,
    play_turns,
    play_turns_http,
    ratings_state,
)

DAY_MS = 86_400_000
MARCH_1 = int(datetime(2025, 3, 1, tzinfo=UTC).timestamp() * 1000)


def ticking_clock() -> Callable[[], int]:
    """A clock one millisecond later at every reading: games end in the order played
    (the rebuild's end order) and nobody's time runs out."""
    ticks = itertools.count(int(time.time() * 1000))
    return lambda: next(ticks)


class SetClock:
    """A clock the test sets (``now``): each reading is one millisecond later, so
    games end in the order played."""

    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        self.now += 1
        return self.now


def rated_service(
    client: aioredis.Redis, clock: Callable[[], int] | None = None
) -> tuple[GameService, Profiles]:
    clock_ms = ticking_clock() if clock is None else clock
    service = GameService(EventStore(client), Lobby(client), clock_ms=clock_ms)
    profiles = Profiles(client)
    service.hooks.on_finished = profiles.game_finished
    return service, profiles


def shown(mu: float, sigma: float) -> int:
    return round(START + SCALE * (mu - 3 * sigma))


async def test_a_rated_duel_won_by_resign_moves_both_by_the_librarys_amounts(
    redis_client: aioredis.Redis,
) -> None:
    """Bob resigns a rated Duel against Ada once each has completed two turns: Ada
    goes up and Bob down exactly as openskill's Plackett-Luce says, each with one game
    and one history point."""
    service, profiles = rated_service(redis_client)
    game_id = await new_game(service, "duel", ["Ada", "Bob"])
    assert await play_turns(service, game_id) == {0: 2, 1: 2}
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


async def test_a_resign_whose_answer_was_lost_ends_the_game_everywhere_at_its_retry(
    redis_client: aioredis.Redis,
) -> None:
    """Bob's resign is written but its answer is lost (a 503 to him); his retry with the same command id is answered as applied, and the game's end steps run then: both ratings move once, the profiles count the game, and the lobby lists it finished."""
    service, profiles = rated_service(redis_client)
    game_id = await new_game(service, "duel", ["Ada", "Bob"])
    await play_turns(service, game_id)
    send_append = service.store.send_append

    class AnswerLost:
        def __init__(self, pending: Any) -> None:
            self.pending = pending

        async def result(self) -> Any:
            await self.pending.result()
            raise StoreUnavailable("the answer was lost with the connection")

    service.store.send_append = (  # type: ignore[method-assign]
        lambda *args, **kwargs: AnswerLost(send_append(*args, **kwargs))
    )
    with pytest.raises(StoreUnavailable):
        await service.submit(game_id, 1, "resign-1", Resign())
    service.store.send_append = send_append  # type: ignore[method-assign]
    assert (await service.submit(game_id, 1, "resign-1", Resign())).duplicate
    assert await profiles.record("ada") == (1, 1) and await profiles.record("bob") == (1, 0)
    skill = await profiles.ratings.skill("duel", "ada")
    assert skill is not None and skill.games == 1 and skill.rating > 1500
    finished = await service.lobby.newest("finished", 10)
    assert [g["id"] for g in finished] == [game_id]


async def test_over_http_a_resigned_rated_game_shows_on_profiles_me_and_leaderboard(
    http: httpx.AsyncClient,
) -> None:
    """Over the HTTP API with two accounts' sessions: a rated 3+2 Duel, two turns
    each, and Ben (seat 2) resigns; GET /api/players and GET /api/me give both players
    openskill's amounts on the display scale, provisional with one opponent; the
    game is listed as counted; the leaderboard lists neither (one game each)."""
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
    await play_turns_http(http, game_id, tokens)
    command = {"command_id": "resign-1", "action": {"kind": "resign"}}
    headers = {"Authorization": f"Bearer {tokens[1]}"}
    r = await http.post(f"/api/games/{game_id}/commands", json=command, headers=headers)
    assert r.status_code == 200, r.text
    model = PlackettLuce()
    [[won], [lost]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    expected = {"Ana": shown(won.mu, won.sigma), "Ben": shown(lost.mu, lost.sigma)}
    for name, rating in expected.items():
        standing = {"rating": rating, "games": 1, "opponents": 1, "provisional": True}
        profile = (await http.get(f"/api/players/{name.lower()}")).json()
        assert profile["ratings"]["duel"] == standing
        assert [(g["id"], g["counted"]) for g in profile["games"]] == [(game_id, True)]
        me = (await http.get("/api/me", headers=sessions[name])).json()
        assert me["ratings"]["duel"] == standing
    assert (await http.get(f"/api/games/{game_id}")).json()["counted"] is True
    assert (await http.get("/api/leaderboard/duel")).json()["players"] == []


async def test_over_http_a_rated_games_summaries_show_ratings_and_each_seats_change(
    http: httpx.AsyncClient,
) -> None:
    """A rated classic game between two accounts: while it is played its summary
    shows each seat's rating, provisional; once Ben resigns after two turns each, the
    summary, the finished list and both profiles show each seat's rating after the
    game and its change, equal to the history's; a casual game shows no rating."""
    sessions = {}
    for name in ("Ana", "Ben"):
        r = await http.post("/api/accounts", json={"username": name, "password": "long enough pw"})
        assert r.status_code == 201, r.text
        sessions[name] = {"Cookie": f"splendor_session={r.cookies['splendor_session']}"}
        http.cookies.clear()
    body = {"variant": "classic", "rated": True, "clock": {"initial": 180, "increment": 2}}
    game_id = (await http.post("/api/games", json=body, headers=sessions["Ana"])).json()["id"]
    tokens = []
    for name in ("Ana", "Ben"):
        r = await http.post(f"/api/games/{game_id}/seats", json={}, headers=sessions[name])
        tokens.append(r.json()["token"])
    seats = (await http.get(f"/api/games/{game_id}")).json()["seats"]
    assert [(s["rating"], s["provisional"]) for s in seats] == [(1500, True), (1500, True)]
    assert all("delta" not in s for s in seats)
    await play_turns_http(http, game_id, tokens)
    command = {"command_id": "resign-1", "action": {"kind": "resign"}}
    headers = {"Authorization": f"Bearer {tokens[1]}"}
    r = await http.post(f"/api/games/{game_id}/commands", json=command, headers=headers)
    assert r.status_code == 200, r.text
    history = {}
    for name in ("ana", "ben"):
        [point] = (await http.get(f"/api/players/{name}")).json()["history"]["classic"]
        history[name] = (point["rating"], point["delta"])
    assert history["ana"][1] > 0 > history["ben"][1]
    summary = (await http.get(f"/api/games/{game_id}")).json()
    finished = (await http.get("/api/games?status=finished")).json()["games"]
    [listed] = [g for g in finished if g["id"] == game_id]
    for shown_seats in (summary["seats"], listed["seats"]):
        assert [(s["rating"], s["delta"]) for s in shown_seats] == [
            history["ana"],
            history["ben"],
        ]
    for seat, name in enumerate(("ana", "ben")):
        [game] = (await http.get(f"/api/players/{name}")).json()["games"]
        assert game["counted"] is True
        assert (game["seats"][seat]["rating"], game["seats"][seat]["delta"]) == history[name]
    casual = {"variant": "classic", "clock": {"initial": 180, "increment": 2}}
    other = (await http.post("/api/games", json=casual, headers=sessions["Ana"])).json()["id"]
    await http.post(f"/api/games/{other}/seats", json={}, headers=sessions["Ana"])
    [seat] = (await http.get(f"/api/games/{other}")).json()["seats"]
    assert "rating" not in seat and "delta" not in seat and "provisional" not in seat


async def test_four_players_ranked_with_seats_out_last(redis_client: aioredis.Redis) -> None:
    """A 4-player classic game (three accounts and a greedy bot) where, once every
    seat has completed two turns, Cy, then Ada, then Bob resign: the bot first, then
    the seats out, the last out best (Bob 2nd, Ada 3rd, Cy 4th), and the ratings are
    openskill's for those ranks; only the bot is on the leaderboard (the accounts
    have one game each)."""
    service, profiles = rated_service(redis_client)
    game_id = await new_game(service, "classic", ["Ada", "Bob", "Cy", "bot:greedy"])
    await play_turns(service, game_id, seats=[0, 1, 2, 3])
    await act(service, game_id, 2, Resign())  # Cy, out first: last
    await act(service, game_id, 0, Resign())  # Ada, out second: third
    await act(service, game_id, 1, Resign())  # Bob, out third: second; the bot wins
    assert (await service.reader.summary(game_id))["result"]["ranks"] == [3, 2, 4, 1]
    model = PlackettLuce()
    after = model.rate([[model.rating()] for _ in range(4)], ranks=[3, 2, 4, 1])
    for player, [expected] in zip(["ada", "bob", "cy", "bot:greedy"], after, strict=True):
        skill = await profiles.ratings.skill("classic", player)
        assert skill is not None and (skill.mu, skill.sigma) == (expected.mu, expected.sigma)
    skills = await profiles.ratings.skills("classic", ["ada", "bob", "cy", "bot:greedy"])
    best_first = sorted(skills, key=lambda p: -skills[p].ordinal)
    assert best_first == ["bot:greedy", "bob", "ada", "cy"]
    board = await profiles.ratings.leaderboard("classic", 10)
    assert [p for p, _, _ in board] == ["bot:greedy"]
    ada = await profiles.ratings.standing("classic", "ada")
    assert (ada.opponents, ada.listed) == (3, False)


async def decision(profiles: Profiles, player: str, game_id: str) -> tuple[bool, str | None]:
    """What a player's profile says of a game: counted, and why not."""
    [summary] = [g for g in await profiles.games(player, 100) if g["id"] == game_id]
    return summary["counted"], summary.get("not_counted")


async def test_a_rated_game_moves_ratings_only_after_two_turns_each(
    redis_client: aioredis.Redis,
) -> None:
    """Three rated Duels of Ada and Bob, each ended by a resignation: before any move,
    and when one seat has completed two turns and the other one, the result stands
    (Ada wins) but no rating moves and the profiles list the game as not counted
    (early_end); once both have completed two turns, both ratings move."""
    service, profiles = rated_service(redis_client)
    no_move = await new_game(service, "duel", ["Ada", "Bob"])
    await act(service, no_move, 1, Resign())
    assert (await service.reader.summary(no_move))["result"]["winners"] == [0]

    one_turn = await new_game(service, "duel", ["Ada", "Bob"])
    first = (await service.reader.view(one_turn, None))["turn"]["seat"]
    await play_turns(service, one_turn, turns=1)
    done = await play_turns(service, one_turn, turns=2, seats=[first])
    assert done == {first: 2, 1 - first: 1}
    await act(service, one_turn, 1, Resign())
    assert (await service.reader.summary(one_turn))["result"]["winners"] == [0]

    assert await profiles.ratings.skills("duel", ["ada", "bob"]) == {}
    assert await profiles.ratings.uncounted("duel") == {no_move: "early_end", one_turn: "early_end"}
    for game_id in (no_move, one_turn):
        for player in ("ada", "bob"):
            assert await decision(profiles, player, game_id) == (False, "early_end")
    assert await profiles.record("ada") == (2, 2)

    two_turns = await new_game(service, "duel", ["Ada", "Bob"])
    assert await play_turns(service, two_turns) == {0: 2, 1: 2}
    await act(service, two_turns, 1, Resign())
    skills = await profiles.ratings.skills("duel", ["ada", "bob"])
    assert skills["ada"].rating > 1500 > skills["bob"].rating
    assert skills["ada"].games == skills["bob"].games == 1
    assert await decision(profiles, "bob", two_turns) == (True, None)


async def test_a_seat_out_on_its_move_after_one_turn_leaves_the_game_unrated(
    redis_client: aioredis.Redis,
) -> None:
    """A rated 3-player classic game: every seat completes one turn, the first two a
    second, and the third resigns on its move (its turn ends there, which the clock
    counts as its second); the others play on and one resigns. The game has a result
    but moves no rating: the third seat completed one turn only."""
    service, profiles = rated_service(redis_client)
    game_id = await new_game(service, "classic", ["Ada", "Bob", "Cy"])
    await play_turns(service, game_id, turns=1)
    mover = (await service.reader.view(game_id, None))["turn"]["seat"]
    order = [mover, (mover + 1) % 3, (mover + 2) % 3]
    await play_turns(service, game_id, turns=2, seats=order[:2])
    assert (await service.reader.view(game_id, None))["turn"]["seat"] == order[2]
    await act(service, game_id, order[2], Resign())
    await play_turns(service, game_id, turns=3, seats=order[:2])
    await act(service, game_id, order[0], Resign())
    summary = await service.reader.summary(game_id)
    assert summary["status"] == "finished" and summary["result"]["winners"] == [order[1]]
    log = [logged.event for logged in await service.reader.log(game_id)]
    assert completed_turns(log)[order[2]] == 1
    assert await profiles.ratings.skills("classic", ["ada", "bob", "cy"]) == {}
    assert await profiles.ratings.uncounted("classic") == {game_id: "early_end"}


async def test_a_loss_on_time_before_two_turns_each_moves_no_rating(
    redis_client: aioredis.Redis,
) -> None:
    """A rated 5+3 Duel: each seat completes one turn, then the first seat's time runs
    out in its second (the clock moved past its bank): it loses on time, and no rating
    moves (early_end)."""
    clock = SetClock(MARCH_1)
    service, profiles = rated_service(redis_client, clock)
    game_id = await new_game(service, "duel", ["Ada", "Bob"])
    await play_turns(service, game_id, turns=1)
    loser = (await service.reader.view(game_id, None))["turn"]["seat"]
    clock.now += (CLOCK.initial or 0) * 1000 + 10_000
    assert await service.expire(game_id) is not None
    summary = await service.reader.summary(game_id)
    assert summary["result"]["reason"] == "time" and summary["result"]["winners"] == [1 - loser]
    assert await profiles.ratings.skills("duel", ["ada", "bob"]) == {}
    assert await profiles.ratings.uncounted("duel") == {game_id: "early_end"}


async def test_a_pairs_fourth_game_of_a_utc_day_moves_no_rating(
    redis_client: aioredis.Redis,
) -> None:
    """Ada and Bob play rated classic games on March 1 (UTC): the first three move
    their ratings, the fourth (at 23:59) moves none (daily_limit), though Ada's game
    with Cy that day counts, and so does a Duel of Ada and Bob (each variant's rating
    is its own); a 3-player game of Ada, Bob and Cy that day counts for nobody (the
    pair Ada-Bob had its three); their first game of March 2 counts again; a rebuild
    gives the same ratings."""
    clock = SetClock(MARCH_1 + 9 * 3_600_000)
    service, profiles = rated_service(redis_client, clock)
    day = [await counted_game(service, "classic", ["Ada", "Bob"]) for _ in range(3)]
    before = await profiles.ratings.skills("classic", ["ada", "bob"])
    assert before["ada"].games == before["bob"].games == 3
    clock.now = MARCH_1 + DAY_MS - 60_000
    fourth = await counted_game(service, "classic", ["Bob", "Ada"])
    assert (await service.reader.summary(fourth))["ended_at"].startswith("2025-03-01T23:59")
    assert await profiles.ratings.skills("classic", ["ada", "bob"]) == before
    assert [p.game for p in await profiles.ratings.history("classic", "ada")] == day
    assert await decision(profiles, "ada", fourth) == (False, "daily_limit")
    with_cy = await counted_game(service, "classic", ["Ada", "Cy"])
    three = await counted_game(service, "classic", ["Ada", "Cy", "Bob"])
    duel = await counted_game(service, "duel", ["Ada", "Bob"])
    assert await profiles.ratings.uncounted("classic") == {
        fourth: "daily_limit",
        three: "daily_limit",
    }
    assert await profiles.ratings.counted("duel") == {duel: clock.now}
    cy = await profiles.ratings.history("classic", "cy")
    assert [p.game for p in cy] == [with_cy]
    clock.now = MARCH_1 + DAY_MS + 1000
    next_day = await counted_game(service, "classic", ["Ada", "Bob"])
    ada = await profiles.ratings.history("classic", "ada")
    assert [p.game for p in ada] == [*day, with_cy, next_day]
    assert await redis_client.hgetall("{ratings:classic}:pairs") == {
        b"2025-03-01 ada bob": b"3",
        b"2025-03-01 ada cy": b"1",
        b"2025-03-02 ada bob": b"1",
    }
    live = await ratings_state(redis_client)
    assert await rebuild(service, profiles) == {"classic": 5, "duel": 1}
    assert await ratings_state(redis_client) == live


async def test_over_http_the_leaderboard_lists_an_account_after_10_games_against_5(
    app: Starlette, http: httpx.AsyncClient
) -> None:
    """Counted rated Duels played on the app's service, read over HTTP: Ana, after 9
    games against 5 opponents, and Bea, after 10 against 4, are provisional and not
    on the leaderboard; Ana's 10th game and Bea's 11th, against a 5th opponent, list
    both, with the ratings their profiles give, best first; their opponents (at most
    6 games each) stay off it."""
    service: GameService = running(app).service
    others = ["Oda", "Oli", "Ora", "Oto", "Ozy"]
    for rival in [*others[:4], *others]:  # 9 games, 5 opponents
        await counted_game(service, "duel", ["Ana", rival])
    for rival in [*others[:4], *others[:4], "Oda", "Oli"]:  # 10 games, 4 opponents
        await counted_game(service, "duel", ["Bea", rival])

    async def standing(name: str) -> dict[str, object]:
        r = await http.get(f"/api/players/{name}")
        assert r.status_code == 200, r.text
        ratings: dict[str, object] = r.json()["ratings"]["duel"]
        return ratings

    assert (await standing("ana"))["games"] == 9 and (await standing("ana"))["opponents"] == 5
    assert (await standing("bea"))["games"] == 10 and (await standing("bea"))["opponents"] == 4
    assert (await standing("ana"))["provisional"] is (await standing("bea"))["provisional"] is True
    assert (await http.get("/api/leaderboard/duel")).json()["players"] == []

    await counted_game(service, "duel", ["Ana", "Oda"])
    await counted_game(service, "duel", ["Bea", "Ozy"])
    shown = {name: await standing(name) for name in ("ana", "bea")}
    assert all(s["provisional"] is False for s in shown.values())
    board = (await http.get("/api/leaderboard/duel")).json()["players"]
    rows = sorted(
        (
            {"username": n.title(), "rating": s["rating"], "games": s["games"], "bot": False}
            for n, s in shown.items()
        ),
        key=lambda row: -int(row["rating"]),  # type: ignore[call-overload]
    )
    assert board == rows
    for rival in others:
        assert (await standing(rival.lower()))["provisional"] is True


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
    assert (await service.reader.summary(aborted))["status"] == "aborted"
    assert await ratings_state(redis_client) == {}
    assert await profiles.record("ada") == (2, 2)


async def play_randomly(service: GameService, game_id: str, rng: random.Random) -> None:
    """Finish a live game: random moves (buys first) for every seat, the bots' too
    (as the bot runner would send them), and now and then a human seat resigns."""
    variant = (await service.reader.summary(game_id))["variant"]
    while True:
        public = await service.reader.view(game_id, None)
        if public["status"] != "live":
            return
        humans = [p["seat"] for p in public["players"] if p["bot"] is None and p["out"] is None]
        if humans and rng.random() < 0.08:
            await act(service, game_id, rng.choice(humans), Resign())
            continue
        seat = public["turn"]["seat"]
        legal = (await service.reader.view(game_id, seat))["legal"]
        buys = [a for a in legal if a["kind"] == "buy"]
        chosen = buys[-1] if buys else rng.choice(legal)
        await act(service, game_id, seat, decode_action(variant, json.dumps(chosen).encode()))


async def test_rebuild_equals_live_after_200_random_rated_games(
    redis_client: aioredis.Redis,
) -> None:
    """200 rated games (classic 2-4 players and Duel) among six accounts and the three
    bot levels, played to their end by random moves and resignations, all on one UTC
    day: every finished one is decided once (an abort drawn in the opening counts for
    nothing), counted or not (some end early, some are a pair's fourth game of the
    day), and the ratings rebuilt from the log equal, key for key, the ratings
    counted live."""
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
        if (await service.reader.summary(game_id))["status"] == "finished":
            finished.add(game_id)
    live = await ratings_state(redis_client)
    counted = await profiles.ratings.counted("classic"), await profiles.ratings.counted("duel")
    refused = {
        **await profiles.ratings.uncounted("classic"),
        **await profiles.ratings.uncounted("duel"),
    }
    assert set(counted[0]) | set(counted[1]) | set(refused) == finished and len(finished) > 150
    assert not (set(counted[0]) | set(counted[1])) & set(refused)
    assert sorted(set(refused.values())) == ["daily_limit", "early_end"]
    assert len(counted[0]) + len(counted[1]) > 40
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
    service.hooks.on_finished = None
    first = await new_game(service, "duel", ["Ada", "Bob"])
    await play_turns(service, first)
    await act(service, first, 1, Resign())
    second = await new_game(service, "duel", ["Bob", "Ada"])
    await play_turns(service, second)
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
        await play_turns(service, duel)
        await act(service, duel, 0, Resign())
        classic = await new_game(service, "classic", ["Ada", "Bob", "bot:greedy"])
        await play_turns(service, classic)
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
