"""The game service against a real Redis: seats and tokens, commands, idempotency,
races between processes, projections rebuilt from the log, the appended hook."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import msgspec
import pytest
import redis.asyncio as aioredis

from bots.moves import moves as game_moves
from server.common.errors import ServiceError
from server.common.wire import decode_action
from server.games.lobby import Lobby
from server.games.projection import _SeededOnDraw, token_digest
from server.games.service import GameService
from server.store.event_store import EventStore
from server.store.keys import events_key, meta_key, seats_key
from tests.server.helpers import choose, command_id


async def seated(
    service: GameService, variant: str = "classic", seed: int = 11
) -> tuple[str, list[str]]:
    """A started 2-player game and its seat tokens."""
    game_id = (await service.create_game(variant, 2, seed))["id"]
    tokens = []
    for name in ("Ana", "Bo"):
        joined = await service.join(game_id, name)
        assert joined.token is not None
        tokens.append(joined.token)
    return game_id, tokens


async def mover_and_legal(service: GameService, game_id: str) -> tuple[int, list[dict[str, Any]]]:
    seat = (await service.reader.view(game_id, None))["turn"]["seat"]
    return seat, game_moves(await service.reader.view(game_id, seat))


def action(service: GameService, variant: str, wire: dict[str, Any]) -> Any:
    return decode_action(variant, msgspec.json.encode(wire))


async def play(service: GameService, game_id: str, moves: int, seed: int = 3) -> int:
    """Play seeded legal moves through the service; returns the version reached."""
    rng = random.Random(seed)
    variant = (await service.reader.variant_of(game_id)).name
    version = 0
    for _ in range(moves):
        view = await service.reader.view(game_id, None)
        if view["status"] != "live":
            break
        seat, legal = await mover_and_legal(service, game_id)
        chosen = action(service, variant, choose(legal, rng))
        result = await service.submit(game_id, seat, command_id(), chosen)
        version = result.version
    return version


async def test_a_game_starts_when_its_last_seat_is_taken(service: GameService) -> None:
    """Creating appends GameCreated; the second join seats the player and starts the game."""
    created = await service.create_game("classic", 2, 5)
    assert created["status"] == "open" and created["version"] == 1
    first = await service.join(created["id"], "Ana")
    assert (first.seat, first.version) == (0, 2)
    assert (await service.reader.summary(created["id"]))["status"] == "open"
    second = await service.join(created["id"], "Bo")
    assert (second.seat, second.version) == (1, 4)  # PlayerJoined, GameStarted
    assert (await service.reader.summary(created["id"]))["status"] == "live"
    with pytest.raises(ServiceError) as full:
        await service.join(created["id"], "Cy")
    assert full.value.code == "illegal_action"
    assert await service.store.version(created["id"]) == 4


async def test_tokens_are_kept_only_as_sha256_and_identify_their_seat(
    service: GameService, redis_client: aioredis.Redis
) -> None:
    """Only the token's SHA-256 is stored; each token maps to its seat, others are refused."""
    game_id, tokens = await seated(service)
    stored = await redis_client.hgetall(seats_key(game_id))
    assert stored == {
        b"0": token_digest(tokens[0]).encode(),
        b"1": token_digest(tokens[1]).encode(),
    }
    for key in await redis_client.keys(f"game:{{{game_id}}}:*"):
        dump = repr(await redis_client.dump(key))
        assert tokens[0] not in dump and tokens[1] not in dump
    assert await service.seats.seat_for_token(game_id, tokens[1]) == 1
    assert await service.seats.seat_for_token(game_id, None) is None
    with pytest.raises(ServiceError) as wrong:
        await service.seats.seat_for_token(game_id, "not-a-token")
    assert (wrong.value.code, wrong.value.status) == ("unauthorized", 403)
    _, other_tokens = await seated(service)
    with pytest.raises(ServiceError):
        await service.seats.seat_for_token(game_id, other_tokens[0])


async def test_a_bot_seat_has_no_token_and_is_named_in_the_event(service: GameService) -> None:
    """{"bot": level} fills a seat recorded as PlayerJoined.bot, without a token."""
    game_id = (await service.create_game("classic", 2))["id"]
    await service.join(game_id, "Ana")
    bot = await service.join(game_id, "Greedy bot", bot="greedy")
    assert bot.token is None and bot.seat == 1
    joined = [
        e.event
        for e in await service.reader.log(game_id)
        if type(e.event).__name__ == "PlayerJoined"
    ]
    assert [(e.name, e.bot) for e in joined] == [("Ana", None), ("Greedy bot", "greedy")]
    summary = await service.reader.summary(game_id)
    assert summary["seats"][1] == {
        "seat": 1,
        "name": "Greedy bot",
        "bot": "greedy",
        "account": None,
        "points": 0,
    }


async def test_the_seed_stays_in_the_meta_hash_and_never_reaches_an_event(
    service: GameService, redis_client: aioredis.Redis
) -> None:
    """The seed is in game:{id}:meta only; no event holds it, and it makes games repeat."""
    seed = 987_654_321_012_345
    game_id, _ = await seated(service, seed=seed)
    await play(service, game_id, 10)
    assert (await redis_client.hget(meta_key(game_id), "seed")) == str(seed).encode()
    for _, fields in await redis_client.xrange(events_key(game_id)):
        assert str(seed).encode() not in fields[b"e"]
        assert b'"seed"' not in fields[b"e"]  # ("seeded" says only that it has one)
    again, _ = await seated(service, seed=seed)
    await play(service, again, 10)
    first = [e.event for e in (await service.reader.log(game_id))[1:]]
    second = [e.event for e in (await service.reader.log(again))[1:]]
    assert first == second, "same seed and same actions: the same draws"


async def test_a_command_is_applied_once_per_command_id(service: GameService) -> None:
    """The same command id sent again is answered with the recorded version, even after other moves, and writes nothing."""
    game_id, _ = await seated(service)
    seat, legal = await mover_and_legal(service, game_id)
    take = action(service, "classic", next(a for a in legal if a["kind"] == "take_three"))
    first = await service.submit(game_id, seat, "c-1", take)
    again = await service.submit(game_id, seat, "c-1", take)
    assert (first.version, first.duplicate) == (6, False)  # TokensTaken, TurnEnded
    assert (again.version, again.duplicate) == (6, True)
    await play(service, game_id, 3, seed=9)
    version = await service.store.version(game_id)
    late = await service.submit(game_id, seat, "c-1", take, expected_version=4)
    assert (late.version, late.duplicate) == (6, True)
    assert await service.store.version(game_id) == version


async def test_rule_violations_and_stale_versions_change_nothing(service: GameService) -> None:
    """not_your_turn, illegal_action and conflict are raised with the log untouched."""
    game_id, _ = await seated(service)
    seat, legal = await mover_and_legal(service, game_id)
    take = action(service, "classic", next(a for a in legal if a["kind"] == "take_three"))
    cases = [
        (1 - seat, take, None, "not_your_turn"),
        (seat, take, 3, "conflict"),
        (
            seat,
            action(service, "classic", {"kind": "choose_noble", "noble": "n1"}),
            None,
            "illegal_action",
        ),
    ]
    for i, (who, act, expected, code) in enumerate(cases):
        with pytest.raises(ServiceError) as refused:
            await service.submit(game_id, who, f"bad-{i}", act, expected_version=expected)
        assert refused.value.code == code
        assert await service.store.version(game_id) == 4


async def test_two_processes_racing_on_one_game_apply_exactly_one_command(
    store: EventStore, redis_server: str
) -> None:
    """20 conflicting commands spread over two services (two caches, two clients) at once: one is applied, the others get conflict or not_your_turn; no gap, no dup."""
    other_client = aioredis.from_url(redis_server, decode_responses=False)
    try:
        a = GameService(store, Lobby(store.client))
        b = GameService(EventStore(other_client), Lobby(other_client))
        game_id, _ = await seated(a)
        await b.reader.view(game_id, None)  # b caches the game at version 4 too
        seat, legal = await mover_and_legal(a, game_id)
        takes = [x for x in legal if x["kind"] == "take_three"]

        async def send(i: int) -> Any:
            service = (a, b)[i % 2]
            act = action(service, "classic", takes[i % len(takes)])
            expected = 4 if i % 4 < 2 else None
            try:
                return await service.submit(
                    game_id, seat, f"race-{i}", act, expected_version=expected
                )
            except ServiceError as e:
                return e.code

        outcomes = await asyncio.gather(*(send(i) for i in range(20)))
        applied = [o for o in outcomes if not isinstance(o, str)]
        assert len(applied) == 1 and applied[0].version == 6
        assert sorted(set(o for o in outcomes if isinstance(o, str))) <= [
            "conflict",
            "not_your_turn",
        ]
        entries = await store.client.xrange(events_key(game_id))
        assert [int(i.split(b"-")[0]) for i, _ in entries] == list(range(1, 7))
        assert (await a.reader.view(game_id, None)) == (await b.reader.view(game_id, None))
    finally:
        await other_client.aclose()


async def test_a_cold_service_folds_the_same_views_as_a_warm_one(store: EventStore) -> None:
    """A service with an empty cache rebuilds each view from the stream alone."""
    warm = GameService(store, Lobby(store.client))
    game_id, tokens = await seated(warm)
    await play(warm, game_id, 30)
    cold = GameService(store)
    for viewer in (0, 1, None):
        assert await cold.reader.view(game_id, viewer) == await warm.reader.view(game_id, viewer)
    assert await cold.seats.seat_for_token(game_id, tokens[0]) == 0
    version = await store.version(game_id)
    assert await cold.reader.view(game_id, 0, version - 5) == await warm.reader.view(
        game_id, 0, version - 5
    )


async def test_a_warm_cache_catches_up_with_another_process(store: EventStore) -> None:
    """Moves made by another service are read before a view is served."""
    a = GameService(store)
    b = GameService(store)
    game_id, _ = await seated(a)
    await b.reader.view(game_id, None)
    version = await play(a, game_id, 6)
    assert (await b.reader.view(game_id, None))["version"] == version
    assert (await b.reader.summary(game_id))["version"] == version


async def test_subscribers_hear_of_every_append(service: GameService) -> None:
    """on_appended(game_id, version) is called after create, each join and each command."""
    heard: list[tuple[str, int]] = []

    async def on_appended(game_id: str, version: int) -> None:
        heard.append((game_id, version))

    unsubscribe = service.subscribe(on_appended)
    game_id, _ = await seated(service)
    await play(service, game_id, 1)
    unsubscribe()
    assert await play(service, game_id, 1, seed=4) > 6
    assert heard == [(game_id, 1), (game_id, 2), (game_id, 4), (game_id, 6)]


async def test_a_duel_game_is_played_through_the_same_service(service: GameService) -> None:
    """Splendor Duel goes through the same create/join/submit path."""
    game_id, _ = await seated(service, variant="duel", seed=3)
    summary = await service.reader.summary(game_id)
    assert summary["variant"] == "duel" and summary["status"] == "live"
    version = await play(service, game_id, 12)
    assert version > summary["version"]
    cold = GameService(service.store)
    assert (await cold.reader.view(game_id, None)) == await service.reader.view(game_id, None)


async def test_unknown_games_variants_and_sizes_are_refused(service: GameService) -> None:
    """An unknown game is not_found; a bad variant or table size is bad_request."""
    for call in (
        service.reader.summary("nope"),
        service.reader.view("no{pe", None),
        service.join("zz", "A"),
    ):
        with pytest.raises(ServiceError) as missing:
            await call
        assert missing.value.code == "not_found"
    for variant, players in (("chess", 2), ("classic", 5), ("duel", 3), ("classic", 1)):
        with pytest.raises(ServiceError) as bad:
            await service.create_game(variant, players)
        assert bad.value.code == "bad_request"


def test_the_generator_seeded_on_its_first_draw_draws_as_random_random() -> None:
    """The service's generator gives random.Random(seed)'s draws, whatever is drawn first."""
    for n in range(50):
        seed = f"{n * 7919}:{n}"
        eager, lazy = random.Random(seed), _SeededOnDraw(seed)
        assert lazy.sample(range(90), 5) == eager.sample(range(90), 5)
        assert lazy.randrange(4) == eager.randrange(4)
        left, right = list(range(30)), list(range(30))
        lazy.shuffle(left)
        eager.shuffle(right)
        assert left == right
        assert lazy.random() == eager.random()
        assert _SeededOnDraw(seed).random() == random.Random(seed).random()
        assert _SeededOnDraw(seed).getstate() == random.Random(seed).getstate()


class RecordingObserver:
    """An ``AppendObserver`` that writes down what it is told."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def appending(self, game_id: str, logged: Any) -> None:
        self.calls.append(("appending", [e.version for e in logged]))

    def appended(self, game_id: str, logged: Any) -> None:
        self.calls.append(("appended", [e.version for e in logged]))

    def append_failed(self, game_id: str) -> None:
        self.calls.append(("append_failed", None))


async def test_the_observer_is_told_of_an_append_and_of_one_that_wrote_nothing(
    service: GameService,
) -> None:
    """A move is announced with its versions then shown; a repeated command id ends in append_failed."""
    game_id, _ = await seated(service)
    seat, legal = await mover_and_legal(service, game_id)
    take = action(service, "classic", next(a for a in legal if a["kind"] == "take_three"))
    service.hooks.observer = observer = RecordingObserver()
    await service.submit(game_id, seat, "c-1", take)
    assert observer.calls == [("appending", [5, 6]), ("appended", [5, 6])]
    # The same command id with an action legal now: decided, then refused by the store.
    other = GameService(service.store, Lobby(service.store.client))
    other.hooks.observer = observer = RecordingObserver()
    mover, legal = await mover_and_legal(other, game_id)
    assert mover != seat
    again = await other.submit(game_id, mover, "c-1", action(service, "classic", legal[0]))
    assert (again.version, again.duplicate) == (6, True)
    assert [c for c, _ in observer.calls] == ["appending", "append_failed"]
    assert await service.store.version(game_id) == 6


def test_a_state_set_before_the_first_draw_is_not_overwritten_by_the_seed() -> None:
    """setstate on the lazily seeded generator wins over its pending seed."""
    state = random.Random("other").getstate()
    lazy = _SeededOnDraw("seed")
    lazy.setstate(state)
    assert lazy.random() == random.Random("other").random()
