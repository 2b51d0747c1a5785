"""The live pipeline's state machine: every transition of a game's line, its
invariants, and the transitions it refuses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import pytest
import redis.asyncio as aioredis

from events.game import CLASSIC
from server.games.projection import LoggedEvent, encode_event
from server.live.hubs import Fold, Hub
from server.live.pipeline import GameLine, LivePipeline, Stage
from server.live.tailer import Tailer
from server.store.clients import tail_client
from server.store.event_store import StoredEvent
from tests.server.test_hub_ahead import other_move, watched
from tests.server.test_ws_outbox import rebuild, seeded_log, settle

START = 20  # the hub's version when a test begins
LOG = seeded_log()


class Process:
    """A pipeline over hubs kept as the registry keeps them (a map, and a drop that
    unwatches), with a notified tailer on the test's Redis."""

    def __init__(self, redis_client: aioredis.Redis) -> None:
        self.hubs: dict[str, Hub] = {}
        self.dropped: list[str] = []
        self.pipeline = LivePipeline(
            self.hubs,
            self._drop,
            lambda p: Tailer(
                tail_client(redis_client),
                redis_client,
                p.delivered,
                mode="notify",
                notices=p,
            ),
        )
        self.tailer = self.pipeline.tailer

    def _drop(self, hub: Hub) -> None:
        hub.drop()
        del self.hubs[hub.game_id]
        self.pipeline.unwatch(hub.game_id)
        self.dropped.append(hub.game_id)

    async def hub(self, game_id: str = "g", version: int = START) -> Hub:
        """A hub at ``version`` of the seeded game, watched, once the tailer has
        subscribed to the game and read it (its stream is empty): from then on only
        the pipeline marks it."""
        hub = self.hubs[game_id] = Hub(game_id, CLASSIC, LOG[:version])
        self.pipeline.watch(game_id, hub.version)
        for _ in range(500):
            if game_id in self.tailer._placed and game_id not in self.tailer._marked:
                break
            await asyncio.sleep(0.01)
        assert game_id in self.tailer._placed and game_id not in self.tailer._marked
        return hub

    def line(self, game_id: str = "g") -> GameLine:
        line = self.pipeline.line(game_id)
        assert line is not None
        return line

    def marked(self, game_id: str = "g") -> bool:
        """Whether the tailer is to read the game again soon (and forget it was)."""
        marked = game_id in self.tailer._marked
        self.tailer._marked.discard(game_id)
        return marked


@asynccontextmanager
async def process_on(redis_client: aioredis.Redis) -> AsyncIterator[Process]:
    process = Process(redis_client)
    try:
        yield process
    finally:
        await process.tailer.close()


def move(version: int = START) -> list[LoggedEvent]:
    """The seeded game's events after ``version`` up to the next player's move (a fresh
    list each time: the pipeline tells lists apart by identity)."""
    return list(LOG[version : version + 2])


def stored(logged: Sequence[LoggedEvent]) -> list[StoredEvent]:
    return [StoredEvent(e.version, e.at_ms, encode_event(e.event)) for e in logged]


def assert_idle(process: Process, version: int) -> None:
    """The line is IDLE, and the hub and the tailer's position are at ``version``."""
    line = process.line()
    assert (line.stage, line.logged, line.counted, line.reread) == (Stage.IDLE, None, 0, False)
    assert process.hubs["g"].version == process.tailer.position("g") == version
    assert not process.hubs["g"].ahead


async def test_an_append_folded_ahead_is_shown_once_appended(
    redis_client: aioredis.Redis,
) -> None:
    """IDLE to AHEAD to IDLE: the hub folds the events ahead and shows nothing until ``appended``, which shows them and moves the tailer's position with the hub."""
    async with process_on(redis_client) as process:
        hub = await process.hub()
        socket = watched(hub, [None])[None]
        ours = move()
        process.pipeline.appending("g", ours)
        line = process.line()
        assert (line.stage, line.logged) == (Stage.AHEAD, ours)
        assert line.logged is ours and hub.ahead and hub.version == START
        await settle()
        assert len(socket.sent) == 1  # the snapshot alone
        process.pipeline.appended("g", ours)
        assert_idle(process, START + 2)
        assert not process.marked()
        await settle()
        assert [m["version"] for m in socket.sent[1:]] == [START + 1, START + 2]
        assert rebuild(socket.sent) == CLASSIC.view(hub.state, None)


async def test_an_append_the_hub_cannot_fold_ahead_is_folded_once_appended(
    redis_client: aioredis.Redis,
) -> None:
    """IDLE to IN_FLIGHT_UNSHOWN when the hub is behind the append; events delivered meanwhile are folded at once, and ``appended`` folds the append's events after them, with nothing to read again."""
    async with process_on(redis_client) as process:
        hub = await process.hub(version=START - 2)
        ours = move()
        process.pipeline.appending("g", ours)
        assert (process.line().stage, hub.ahead) == (Stage.IN_FLIGHT_UNSHOWN, False)
        process.pipeline.delivered("g", stored(LOG[START - 2 : START]))
        assert hub.version == process.tailer.position("g") == START
        assert process.line().stage is Stage.IN_FLIGHT_UNSHOWN
        process.pipeline.appended("g", ours)
        assert_idle(process, START + 2)
        assert not process.marked()


async def test_an_unshown_append_with_events_still_unread_has_its_game_read_again(
    redis_client: aioredis.Redis,
) -> None:
    """IN_FLIGHT_UNSHOWN to IDLE on ``appended`` while events before the append are unread: the hub folds nothing past the gap, and the tailer reads the game again."""
    async with process_on(redis_client) as process:
        await process.hub(version=START - 2)
        ours = move()
        process.pipeline.appending("g", ours)
        process.pipeline.appended("g", ours)
        assert_idle(process, START - 2)
        assert process.marked()


async def test_an_unshown_append_the_tailer_delivered_first_is_not_folded_twice(
    redis_client: aioredis.Redis,
) -> None:
    """IN_FLIGHT_UNSHOWN to IDLE when the tailer delivered the append's own events first (their notification was read): ``appended`` finds them folded already."""
    async with process_on(redis_client) as process:
        hub = await process.hub(version=START - 2)
        ours = move()
        process.pipeline.appending("g", ours)
        process.pipeline.delivered("g", stored(LOG[START - 2 : START + 2]))
        assert hub.apply_logged(ours) is Fold.ALREADY_HAD
        process.pipeline.appended("g", ours)
        assert_idle(process, START + 2)
        assert not process.marked()


async def test_a_failed_append_ahead_is_undone_its_count_taken_back_and_read_again(
    redis_client: aioredis.Redis,
) -> None:
    """AHEAD to IDLE on ``append_failed``: the hub is set back to its confirmed log, the notifications counted for the append are taken back, and the game is read again."""
    async with process_on(redis_client) as process:
        hub = await process.hub()
        socket = watched(hub, [None])[None]
        assert process.pipeline.notified("g")  # the channel is live: appends are counted
        theirs = other_move(LOG, START)
        process.pipeline.appending("g", theirs)
        line = process.line()
        assert (line.stage, line.counted, line.expected) == (Stage.AHEAD, len(theirs), len(theirs))
        assert not process.pipeline.notified("g")  # one of ours, counted off
        process.pipeline.append_failed("g")
        assert_idle(process, START)
        assert line.expected == 0
        assert process.marked()
        process.pipeline.delivered("g", stored(LOG[START : START + 2]))
        await settle()
        assert rebuild(socket.sent) == CLASSIC.view(hub.state, None)
        assert hub.version == START + 2


async def test_a_failed_unshown_append_takes_its_count_back_and_is_read_again(
    redis_client: aioredis.Redis,
) -> None:
    """IN_FLIGHT_UNSHOWN to IDLE on ``append_failed``: nothing to undo in the hub, the count is taken back, and the game is read again."""
    async with process_on(redis_client) as process:
        await process.hub(version=START - 2)
        process.pipeline.notified("g")
        ours = move()
        process.pipeline.appending("g", ours)
        assert (process.line().stage, process.line().expected) == (Stage.IN_FLIGHT_UNSHOWN, 2)
        process.pipeline.append_failed("g")
        assert_idle(process, START - 2)
        assert process.line().expected == 0
        assert process.marked()


async def test_events_delivered_while_ahead_are_left_and_read_again_once_shown(
    redis_client: aioredis.Redis,
) -> None:
    """Delivered while AHEAD, events are left unfolded and the line notes a second read, which ``appended`` asks the tailer for once the append is shown."""
    async with process_on(redis_client) as process:
        hub = await process.hub()
        ours = move()
        process.pipeline.appending("g", ours)
        process.pipeline.delivered("g", stored(LOG[START : START + 4]))
        assert (process.line().reread, hub.version) == (True, START)
        assert process.tailer.position("g") == START
        process.pipeline.appended("g", ours)
        assert_idle(process, START + 2)
        assert process.marked()


async def test_events_delivered_while_ahead_are_read_again_after_a_failure_too(
    redis_client: aioredis.Redis,
) -> None:
    """Delivered while AHEAD and followed by ``append_failed``: the undo clears the note and the failure reads the game again, once."""
    async with process_on(redis_client) as process:
        await process.hub()
        process.pipeline.appending("g", other_move(LOG, START))
        process.pipeline.delivered("g", stored(LOG[START : START + 2]))
        assert process.line().reread
        process.pipeline.append_failed("g")
        assert_idle(process, START)
        assert process.marked()


async def test_notifications_are_counted_off_only_on_a_live_channel(
    redis_client: aioredis.Redis,
) -> None:
    """An append's notifications are counted only once the game's channel has delivered one; counted ones are swallowed, the next is read; a resubscription clears the count and the channel's liveness."""
    async with process_on(redis_client) as process:
        await process.hub()
        pipeline = process.pipeline
        first = move()
        pipeline.appending("g", first)
        assert (process.line().counted, process.line().expected) == (0, 0)
        pipeline.appended("g", first)
        assert pipeline.notified("g")  # not counted: read
        assert process.line().live
        second = move(START + 2)
        pipeline.appending("g", second)
        assert (process.line().counted, process.line().expected) == (2, 2)
        pipeline.appended("g", second)
        assert process.line().counted == 0
        assert [pipeline.notified("g") for _ in range(3)] == [False, False, True]
        assert pipeline.expect("g", 3)
        pipeline.channel_reset("g")
        line = process.line()
        assert (line.live, line.expected) == (False, 0)
        assert not pipeline.expect("g", 1)


async def test_a_hub_made_while_an_append_is_in_flight_starts_in_flight(
    redis_client: aioredis.Redis,
) -> None:
    """An append announced for a game with no hub is remembered: a line made meanwhile starts IN_FLIGHT_UNSHOWN with it, and ``appended`` folds it."""
    async with process_on(redis_client) as process:
        ours = move()
        process.pipeline.appending("g", ours)
        assert process.pipeline.line("g") is None
        await process.hub()
        line = process.line()
        assert (line.stage, line.logged, line.counted) == (Stage.IN_FLIGHT_UNSHOWN, ours, 0)
        process.pipeline.appended("g", ours)
        assert_idle(process, START + 2)


async def test_appends_to_games_with_no_hub_are_checked_too(
    redis_client: aioredis.Redis,
) -> None:
    """With no hub, an append's end must follow its announcement: appended or failed once, with the same list."""
    async with process_on(redis_client) as process:
        pipeline = process.pipeline
        ours = move()
        pipeline.appending("h", ours)
        with pytest.raises(AssertionError):
            pipeline.appending("h", move())
        pipeline.appended("h", ours)
        with pytest.raises(AssertionError):
            pipeline.appended("h", ours)
        with pytest.raises(AssertionError):
            pipeline.append_failed("h")
        pipeline.appending("h", ours)
        pipeline.append_failed("h")
        with pytest.raises(AssertionError):
            pipeline.appended("h", move())


async def test_a_hub_whose_fold_fails_is_dropped_and_the_append_still_ends(
    redis_client: aioredis.Redis,
) -> None:
    """A fold that raises while folding ahead drops the hub (its line goes, the tailer stops reading it); the append in flight is remembered, so that its end is accepted, and a hub made afresh starts IN_FLIGHT_UNSHOWN."""
    async with process_on(redis_client) as process:
        hub = await process.hub()
        broken = [LoggedEvent(START + 1, 1, LOG[START].event), LoggedEvent(START + 2, 1, "?")]
        process.pipeline.appending("g", broken)
        assert process.dropped == ["g"] and not hub.ahead
        assert process.pipeline.line("g") is None and process.tailer.position("g") is None
        await process.hub()
        assert process.line().stage is Stage.IN_FLIGHT_UNSHOWN
        process.pipeline.append_failed("g")
        assert_idle(process, START)


async def test_a_hub_whose_delivery_fails_is_dropped(redis_client: aioredis.Redis) -> None:
    """A delivered event the hub cannot decode drops the hub, distinctly from a fold in order: the line goes with it."""
    async with process_on(redis_client) as process:
        await process.hub()
        process.pipeline.delivered("g", [StoredEvent(START + 1, 1, b"not an event")])
        assert process.dropped == ["g"] and process.pipeline.line("g") is None


async def test_transitions_out_of_turn_raise(redis_client: aioredis.Redis) -> None:
    """A second ``appending`` while one is in flight, an ``appended`` or ``append_failed`` with none in flight, an ``appended`` with another list than announced, and a second ``watch`` raise, and change nothing."""
    async with process_on(redis_client) as process:
        hub = await process.hub()
        pipeline = process.pipeline
        with pytest.raises(AssertionError):
            pipeline.appended("g", move())
        with pytest.raises(AssertionError):
            pipeline.append_failed("g")
        ours = move()
        pipeline.appending("g", ours)
        with pytest.raises(AssertionError):
            pipeline.appending("g", move())
        with pytest.raises(AssertionError):
            pipeline.appended("g", move())  # equal events, another list
        assert process.line().stage is Stage.AHEAD and hub.ahead
        with pytest.raises(AssertionError):
            pipeline.watch("g", START)
        pipeline.appended("g", ours)
        assert_idle(process, START + 2)


async def test_a_broken_invariant_is_caught(redis_client: aioredis.Redis) -> None:
    """The invariants are asserted: a line that says AHEAD while its hub is not, one that holds events while IDLE, reread outside AHEAD, notifications expected on a channel that is not live, or a tailer not at the hub's version all fail the check."""
    async with process_on(redis_client) as process:
        hub = await process.hub()
        pipeline = process.pipeline
        line = process.line()
        assert pipeline._holds("g", line)
        for broken in (
            GameLine(stage=Stage.AHEAD, logged=move()),
            GameLine(logged=move()),
            GameLine(counted=1),
            GameLine(reread=True),
            GameLine(expected=1),
        ):
            with pytest.raises(AssertionError):
                pipeline._holds("g", broken)
        process.tailer.advance("g", START - 1)
        with pytest.raises(AssertionError):
            pipeline._holds("g", line)
        process.tailer.advance("g", hub.version)
        assert pipeline._holds("g", line)


def test_fold_outcomes_are_distinct_and_not_truth_values() -> None:
    """Every outcome of a fold is its own value, and using one as a truth value raises (a dropped hub is never "True" like a fold in order)."""
    assert len({f.value for f in Fold}) == len(Fold) == 7
    for outcome in Fold:
        with pytest.raises(TypeError):
            bool(outcome)


def test_a_hub_says_what_each_fold_did() -> None:
    """A hub's folds answer APPLIED, ALREADY_HAD, GAP, DEFERRED_AHEAD, REFUSED and UNDONE, each where it applies."""
    hub = Hub("g", CLASSIC, LOG[:START])
    assert hub.apply_logged(LOG[START - 2 : START]) is Fold.ALREADY_HAD
    assert hub.apply_logged(LOG[START + 1 : START + 2]) is Fold.GAP
    assert hub.undo() is Fold.REFUSED
    assert hub.fold_ahead(LOG[START + 1 : START + 2]) is Fold.REFUSED
    ahead = move()
    assert hub.fold_ahead(ahead) is Fold.APPLIED
    assert hub.fold_ahead(move(START + 2)) is Fold.REFUSED
    assert hub.apply_logged(move(START + 2)) is Fold.DEFERRED_AHEAD
    assert hub.confirm(move()) is Fold.REFUSED  # equal events, another list
    assert hub.undo() is Fold.UNDONE and hub.version == START
    assert hub.apply_logged(LOG[START : START + 3]) is Fold.APPLIED
    assert hub.version == START + 3
    state = CLASSIC.fold(e.event for e in LOG[: START + 3])
    assert CLASSIC.view(hub.state, None) == CLASSIC.view(state, None)
