"""The director pairs exactly once (server/tournaments/director.py): two processes
(each its game service, tournament service and director, on one Redis) racing on one
tournament append one ``PlayersPaired`` and make one game a pair, record a game's end
once, and a process that died between the pairing and its games leaves the next look
to make them, once."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
import redis.asyncio as aioredis

from events.base import Resign, TimeControl
from events.tournament import standings as core
from events.tournament.log import GamePlayed, PlayerJoined, PlayersPaired, TournamentEvent
from events.tournament.standings import Tournament
from server.common.errors import ServiceError
from server.games.lobby import Lobby
from server.games.service import GameService
from server.store.availability import StoreUnavailable
from server.store.event_store import EventStore
from server.store.keys import TOURNAMENTS_DUE_KEY, tournament_lease_key
from server.tournaments import views
from server.tournaments.director import Director, plan
from server.tournaments.record import TournamentRecord
from server.tournaments.service import TournamentService
from server.tournaments.store import decode_event

CLOCK = TimeControl(initial=180, increment=2)
PLAYERS = [f"p{i}" for i in range(6)]


def process(client: aioredis.Redis) -> tuple[GameService, TournamentService, Director]:
    """What one server process holds: caches of its own over the shared Redis."""
    games = GameService(EventStore(client), Lobby(client))
    tournaments = TournamentService(client)
    return games, tournaments, Director(client, tournaments, games)


async def arena(tournaments: TournamentService, players: list[str]) -> str:
    """A running arena with these players joined."""
    record = await tournaments.open(
        "tarena1", "arena", "duel", CLOCK, 0, name="Arena", created_by=None, duration_ms=10**13
    )
    assert record is not None
    for player in players:
        await tournaments.join(record.id, player)
    return record.id


async def logged(tournaments: TournamentService, tournament_id: str) -> list[object]:
    return [decode_event(e.data) for e in await tournaments.store.read(tournament_id)]


async def game_ids(client: aioredis.Redis) -> list[str]:
    keys = [k.decode() async for k in client.scan_iter(match="game:{tarena1-*}:events")]
    return sorted(k.split("{")[1].split("}")[0] for k in keys)


async def test_two_directors_racing_pair_once_and_make_one_game_a_pair(
    redis_client: aioredis.Redis,
) -> None:
    """Two processes look at once at an arena of six waiting players, without their leases (the append alone guards): one PlayersPaired of three pairs, three games, each seated by its two accounts once."""
    one, two = process(redis_client), process(redis_client)
    tid = await arena(one[1], PLAYERS)
    await asyncio.gather(one[2].step(tid), two[2].step(tid), one[2].step(tid), two[2].step(tid))
    paired = [e for e in await logged(one[1], tid) if isinstance(e, PlayersPaired)]
    assert len(paired) == 1 and len(paired[0].pairs) == 3
    ids = await game_ids(redis_client)
    assert ids == [f"{tid}-{len(PLAYERS) + 2}-{i}" for i in range(3)]
    for game_id, pair in zip(ids, paired[0].pairs, strict=True):
        summary = await one[0].reader.summary(game_id)
        assert [s["account"] for s in summary["seats"]] == [pair.first, pair.second]
        assert summary["status"] == "live" and summary["rated"] is True


async def test_two_directors_with_leases_pair_once(redis_client: aioredis.Redis) -> None:
    """With their leases, two processes looking at once: one of them looks, and the pairing is made once."""
    one, two = process(redis_client), process(redis_client)
    tid = await arena(one[1], PLAYERS[:4])
    looked = await asyncio.gather(one[2].advance(tid), two[2].advance(tid))
    assert True in looked
    await asyncio.gather(one[2].advance(tid), two[2].advance(tid))
    paired = [e for e in await logged(one[1], tid) if isinstance(e, PlayersPaired)]
    assert len(paired) == 1 and len(await game_ids(redis_client)) == 2


async def test_a_game_over_is_recorded_once_by_racing_directors(
    redis_client: aioredis.Redis,
) -> None:
    """A paired game ends by resignation; two processes look at once: one GamePlayed, with the winner."""
    one, two = process(redis_client), process(redis_client)
    tid = await arena(one[1], PLAYERS[:2])
    await one[2].step(tid)
    [game_id] = await game_ids(redis_client)
    summary = await one[0].reader.summary(game_id)
    seat_of = {s["account"]: s["seat"] for s in summary["seats"]}
    await one[0].submit(game_id, seat_of["p1"], "resign-1", Resign())
    await asyncio.gather(one[2].step(tid), two[2].step(tid))
    played = [e for e in await logged(one[1], tid) if isinstance(e, GamePlayed)]
    assert len(played) == 1 and played[0].winner == "p0"


async def test_games_lost_with_a_process_are_made_once_by_the_next_look(
    redis_client: aioredis.Redis,
) -> None:
    """A process appends the pairing and dies before making the games: no page shows those games meanwhile; the next look (another process, twice) makes each game once, seated, and the pages show them."""
    one, two = process(redis_client), process(redis_client)
    tid = await arena(one[1], PLAYERS[:4])
    await one[1].change(tid, lambda r, now: plan(r, now, {}))
    assert await game_ids(redis_client) == []
    # Until its game is made, nobody is shown a game to go to.
    record = await two[1].get(tid)
    assert views.you(record, "p0") == {
        "joined": True,
        "paused": False,
        "paused_for": None,
        "left": False,
        "game_id": None,
    }
    assert views.detail(record, 0)["games"] == []
    await two[2].step(tid)
    record = await one[1].get(tid)
    assert views.you(record, "p0")["game_id"] is not None  # type: ignore[index]
    assert len(views.detail(record, 0)["games"]) == 2
    await process(redis_client)[2].step(tid)
    ids = await game_ids(redis_client)
    assert len(ids) == 2
    for game_id in ids:
        summary = await two[0].reader.summary(game_id)
        accounts = [seat["account"] for seat in summary["seats"]]
        assert summary["status"] == "live" and len(accounts) == len(set(accounts)) == 2
    joined = [e for e in await logged(one[1], tid) if isinstance(e, PlayerJoined)]
    assert len(joined) == 4


async def test_a_swiss_without_two_players_at_its_start_ends(
    redis_client: aioredis.Redis,
) -> None:
    """A Swiss whose start comes with one player only ends there (docs/tournaments.md "Server"), and leaves the director's due times."""
    _, tournaments, director = process(redis_client)
    record = await tournaments.open(
        "tswiss1", "swiss", "duel", CLOCK, 0, name="Swiss", created_by=None, rounds=3
    )
    assert record is not None
    await tournaments.join(record.id, "p0")
    await director.step(record.id)
    assert (await tournaments.get(record.id)).tournament.ended
    assert await tournaments.indexes.due(10**15, 10) == []


async def test_a_tournament_that_lost_its_due_time_is_looked_at_again(
    redis_client: aioredis.Redis,
) -> None:
    """A process died between a tournament's creation and its due time: another process's director gives it one and pairs its players."""
    one, two = process(redis_client), process(redis_client)
    tid = await arena(one[1], PLAYERS[:2])
    await redis_client.delete(TOURNAMENTS_DUE_KEY)
    await two[2].tick()
    assert await redis_client.zscore(TOURNAMENTS_DUE_KEY, tid) is not None
    await two[2].tick()
    paired = [e for e in await logged(one[1], tid) if isinstance(e, PlayersPaired)]
    assert len(paired) == 1


async def test_a_start_is_announced_once_to_who_joined(redis_client: aioredis.Redis) -> None:
    """The director announces a tournament's start at its first look from the start on, once, to the record with its players (the mail layer e-mails them: docs/email.md)."""
    now = [0]
    games = GameService(EventStore(redis_client), Lobby(redis_client))
    tournaments = TournamentService(redis_client, clock_ms=lambda: now[0])
    told: list[tuple[str, list[str]]] = []

    async def announce(record: TournamentRecord) -> None:
        told.append((record.id, sorted(record.tournament.players)))

    director = Director(
        redis_client, tournaments, games, announce=announce, clock_ms=lambda: now[0]
    )
    record = await tournaments.open(
        "tstart1", "arena", "duel", CLOCK, 1_000, name="A", created_by=None, duration_ms=10**9
    )
    assert record is not None
    for player in PLAYERS[:2]:
        await tournaments.join(record.id, player)
    await director.step(record.id)
    assert told == []
    now[0] = 1_000
    await director.step(record.id)
    await director.step(record.id)
    assert told == [("tstart1", ["p0", "p1"])]


async def test_a_start_whose_announcement_failed_is_announced_at_the_next_look(
    redis_client: aioredis.Redis,
) -> None:
    """An announcement that fails (Redis unreachable for the mail layer) is made again at the director's next look, and then no more."""
    now = [1_000]
    games = GameService(EventStore(redis_client), Lobby(redis_client))
    tournaments = TournamentService(redis_client, clock_ms=lambda: now[0])
    tries: list[str] = []

    async def announce(record: TournamentRecord) -> None:
        tries.append(record.id)
        if len(tries) == 1:
            raise StoreUnavailable("Redis went away")

    director = Director(
        redis_client, tournaments, games, announce=announce, clock_ms=lambda: now[0]
    )
    record = await tournaments.open(
        "tstart2", "arena", "duel", CLOCK, 1_000, name="A", created_by=None, duration_ms=10**9
    )
    assert record is not None
    await tournaments.join(record.id, "p0")
    for _ in range(3):
        await director.step(record.id)
    assert tries == ["tstart2", "tstart2"]


async def test_a_pairing_folded_while_games_are_marked_made_stays_unmade(
    redis_client: aioredis.Redis,
) -> None:
    """While a director marks its pairing's games made, a page of its process folds a newer pairing another process appended and died before making games for: only the director's own pairing is shown made."""
    one, two = process(redis_client), process(redis_client)
    tid = await arena(one[1], PLAYERS[:2])
    marking, gate = asyncio.Event(), asyncio.Event()
    mark_made = one[1].store.mark_made

    async def held(*args: Any, **kwargs: Any) -> None:
        marking.set()
        await gate.wait()
        await mark_made(*args, **kwargs)

    one[1].store.mark_made = held  # type: ignore[method-assign]
    stepping = asyncio.create_task(one[2].step(tid))
    await marking.wait()
    for player in PLAYERS[2:4]:
        await two[1].join(tid, player)
    await two[1].change(tid, lambda r, now: plan(r, now, {}))  # its games never made
    await one[1].get(tid)  # a page of the first process folds that pairing
    gate.set()
    record = await stepping
    record = await one[1].get(tid)
    shown = [g.game_id for g in record.games if record.shown(g)]
    assert len(record.games) == 2 and shown == [record.games[0].game_id]


async def test_a_stranger_cannot_take_a_seat_of_a_tournament_game(
    redis_client: aioredis.Redis,
) -> None:
    """A tournament game's id can be guessed: a stranger (a guest, a bot, another account) asking for a seat there before its pair is seated is refused (no free seat), and the pair is seated as paired."""
    games, _, _ = process(redis_client)
    game_id = "tseats1-4-0"
    await games.create_game("duel", 2, None, CLOCK, True, game_id=game_id)
    for name, bot, account in (("Eve", None, None), ("", "greedy", None), ("eve", None, "eve")):
        with pytest.raises(ServiceError) as refused:
            await games.join(game_id, name, bot, account)
        assert refused.value.reason.key == "seat.none_free"
    await games.seat_accounts(game_id, ["p0", "p1"])
    game = await games.repository.get(game_id, games.repository.lock(game_id))
    assert [p.account for p in game.state.players] == ["p0", "p1"]


async def test_two_processes_deciding_on_one_version_append_one_pairing(
    redis_client: aioredis.Redis,
) -> None:
    """Two processes decide the pairing on the same version, the second appending only once the first has: the append at the expected version refuses it; it reads the first's pairing and finds nobody left to pair."""
    one, two = process(redis_client), process(redis_client)
    tid = await arena(one[1], PLAYERS)
    first_done = asyncio.Event()
    first_append, second_append = one[1].store.append, two[1].store.append

    async def first(*args: Any, **kwargs: Any) -> int:
        try:
            return await first_append(*args, **kwargs)
        finally:
            first_done.set()

    async def second(*args: Any, **kwargs: Any) -> int:
        await first_done.wait()  # decided already, on the version both read
        return await second_append(*args, **kwargs)

    one[1].store.append = first  # type: ignore[method-assign]
    two[1].store.append = second  # type: ignore[method-assign]
    await asyncio.gather(
        two[1].change(tid, lambda r, now: plan(r, now, {})),
        one[1].change(tid, lambda r, now: plan(r, now, {})),
    )
    paired = [e for e in await logged(one[1], tid) if isinstance(e, PlayersPaired)]
    assert len(paired) == 1 and len(paired[0].pairs) == 3


async def test_a_director_keeps_nothing_of_a_tournament_once_it_ended(
    redis_client: aioredis.Redis,
) -> None:
    """A long-running process holds no more than its open tournaments: what a director keeps of one (its games made, its start announced) is dropped when it ends the tournament itself, and at its next heal when another process ended it."""
    now = [1_000]

    async def announce(record: TournamentRecord) -> None:
        return None

    def director_process() -> tuple[TournamentService, Director]:
        games = GameService(EventStore(redis_client), Lobby(redis_client))
        tournaments = TournamentService(redis_client, clock_ms=lambda: now[0])
        return tournaments, Director(
            redis_client, tournaments, games, announce=announce, clock_ms=lambda: now[0]
        )

    (tournaments, one), (_, two) = director_process(), director_process()
    for tid in ("tkeep1", "tkeep2"):
        record = await tournaments.open(
            tid, "arena", "duel", CLOCK, 1_000, name="K", created_by=None, duration_ms=600_000
        )
        assert record is not None
        for player in PLAYERS[:2]:
            await tournaments.join(tid, player)
        await one.step(tid)
    assert set(one._ensured) == {"tkeep1", "tkeep2"} and set(one._announced) == set(one._ensured)
    now[0] = 1_000 + 600_000  # both arenas' end
    await one.step("tkeep1")
    await two.step("tkeep2")  # ended by another process
    assert set(one._ensured) == {"tkeep2"}
    await one.tick()  # its first heal
    assert one._ensured == {} and one._announced == {}


async def test_a_tournament_held_by_another_lease_is_retried_backing_off(
    redis_client: aioredis.Redis,
) -> None:
    """While another process holds an arena's lease, the director looks again after 50 ms, then 100 ms (not at every turn), and a poke looks at once."""
    _, tournaments, keeper = process(redis_client)
    now = [10_000]
    keeper.clock_ms = lambda: now[0]
    tid = await arena(tournaments, PLAYERS[:2])
    await redis_client.set(tournament_lease_key(tid), "another process", px=60_000)
    keeper.poke(tid)
    await keeper.tick()
    assert keeper.counts.held == 1
    for at, held in ((10_000, 1), (10_049, 1), (10_050, 2), (10_149, 2), (10_150, 3)):
        now[0] = at
        await keeper.tick()
        assert keeper.counts.held == held, at
    await redis_client.delete(tournament_lease_key(tid))
    keeper.poke(tid)
    await keeper.tick()
    assert keeper.counts.looks == 1


async def test_a_swiss_round_is_paired_off_the_event_loop(
    redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a Swiss round is paired the event loop serves: another process's player joins and this process's reader folds it meanwhile, and the pairing, decided again on the newer log, pairs that player too, once."""
    _, tournaments, keeper = process(redis_client)
    _, elsewhere, _ = process(redis_client)
    record = await tournaments.open(
        "tswiss1", "swiss", "duel", CLOCK, 0, name="Swiss", created_by=None, rounds=3
    )
    assert record is not None
    for player in PLAYERS[:5]:
        await tournaments.join(record.id, player)
    pairing = core.pair_swiss
    started, loop_served = threading.Event(), threading.Event()
    served: list[bool] = []

    def pair_swiss(t: Tournament, now_ms: int) -> list[TournamentEvent]:
        """The core's pairing, once the loop has served the late join (or 10 s passed)."""
        started.set()
        served.append(loop_served.wait(timeout=10))
        return pairing(t, now_ms)

    monkeypatch.setattr(core, "pair_swiss", pair_swiss)

    async def late_join() -> None:
        while not started.is_set():
            await asyncio.sleep(0.01)
        await elsewhere.join(record.id, "late")
        await tournaments.get(record.id)  # this process's reader folds it into the record
        loop_served.set()

    await asyncio.gather(keeper.step(record.id), late_join())
    assert served[0] is True
    [paired] = [e for e in await logged(tournaments, record.id) if isinstance(e, PlayersPaired)]
    assert "late" in {p for pair in paired.pairs for p in (pair.first, pair.second)}


async def test_a_full_swiss_refuses_another_player(redis_client: aioredis.Redis) -> None:
    """A Swiss takes 500 players: the 501st is refused with 409 tournament.full, and one already in may still come back after a pause."""
    _, tournaments, _ = process(redis_client)
    record = await tournaments.open(
        "tfull1", "swiss", "duel", CLOCK, 10**13, name="Big", created_by=None, rounds=3
    )
    assert record is not None
    for i in range(500):
        await tournaments.join(record.id, f"p{i}")
    with pytest.raises(ServiceError) as refused:
        await tournaments.join(record.id, "one_more")
    assert refused.value.status == 409 and refused.value.reason.key == "tournament.full"
    assert refused.value.reason.args == {"most": 500}
    await tournaments.pause(record.id, "p0")
    await tournaments.join(record.id, "p0")
