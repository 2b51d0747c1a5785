"""Golden classic games (2, 3, 4 players): recorded logs replay to their recorded result,
and the recorded decisions, re-decided with the same generators, give the same events.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from events.classic.actions import ClassicAction
from events.classic.events import ClassicEvent, GameEnded
from events.classic.evolve import evolve, fold
from events.classic.rules import decide, join, legal_actions
from events.classic.state import ClassicState, Result
from tests.classic_helpers import decision_rng
from tests.golden.record import SEEDS, actions_path, events_path

# The results as recorded: a change here means the rules changed what a game is.
RESULTS = {
    2: Result((0,), (17, 8), (16, 15), "points", (1, 2)),
    3: Result((2,), (7, 15, 17), (17, 17, 16), "points", (3, 2, 1)),
    # a tie on points: fewest cards wins
    4: Result((3,), (15, 4, 11, 15), (18, 9, 16, 14), "points", (2, 4, 3, 1)),
}
PLAYERS = sorted(SEEDS)


def recorded_log(players: int) -> list[ClassicEvent]:
    decoder = msgspec.json.Decoder(ClassicEvent)
    return [decoder.decode(line) for line in events_path(players).read_bytes().splitlines()]


def recorded_decisions(players: int) -> list[dict[str, Any]]:
    lines = actions_path(players).read_bytes().splitlines()
    return [msgspec.json.decode(line) for line in lines]


@pytest.mark.parametrize("players", PLAYERS)
def test_the_log_replays_to_its_recorded_result(players: int) -> None:
    """Folding the recorded events finishes the game with the recorded winners and scores."""
    log = recorded_log(players)
    state = fold(log)
    assert state.status == "finished"
    assert state.result == RESULTS[players]
    last = log[-1]
    assert isinstance(last, GameEnded)
    assert (
        Result(last.winners, last.points, last.cards, last.reason, last.ranks) == RESULTS[players]
    )
    assert state.version == len(log)


@pytest.mark.parametrize("players", PLAYERS)
def test_the_log_lines_are_stable_json(players: int) -> None:
    """Each line decodes to an event that encodes back to the very same bytes."""
    lines = events_path(players).read_bytes().splitlines()
    decoder = msgspec.json.Decoder(ClassicEvent)
    assert [msgspec.json.encode(decoder.decode(line)) for line in lines] == lines


@pytest.mark.parametrize("players", PLAYERS)
def test_decide_reproduces_the_log_from_the_decisions(players: int) -> None:
    """Re-deciding each recorded (and listed) action with its derived rng gives the log."""
    log = recorded_log(players)
    action_decoder = msgspec.json.Decoder(ClassicAction)
    state = evolve(ClassicState(), log[0])
    for decision in recorded_decisions(players):
        version = decision["version"]
        assert version == state.version
        rng = decision_rng(SEEDS[players], version)
        if "join" in decision:
            events = join(state, decision["join"], None, rng)
        else:
            seat = decision["seat"]
            action = action_decoder.decode(msgspec.json.encode(decision["action"]))
            assert action in legal_actions(state, seat)
            events = decide(state, seat, action, rng)
        assert events == log[version : version + len(events)]
        for event in events:
            evolve(state, event)
    assert state.version == len(log)
    assert state.result == RESULTS[players]
