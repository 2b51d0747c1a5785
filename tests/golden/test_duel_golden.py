"""Golden Duel games: seeded random games recorded as JSON lines, replayed to their
recorded result. A change in the rules' output (events, draws, order) shows here.

File format (``duel_<seed>.jsonl``): a header ``{"variant", "seed"}``; one line per
step ``{"seat", "action", "events"}`` (joins have a null seat and action); a last
line ``{"result", "version"}``. Regenerate after a deliberate rules change with
``.venv/bin/python -m tests.golden.test_duel_golden``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from events.duel.events import GameStarted, TurnEnded
from events.duel.evolve import evolve
from events.duel.setup import join
from events.duel.state import DuelState
from events.game import DUEL
from tests.duel_helpers import NAMES, decision_rng, random_game

HERE = Path(__file__).parent
SEEDS = (0, 2, 15)  # won on prestige, on a colour, on crowns


def record(seed: int) -> list[dict[str, Any]]:
    """The lines of the golden file for ``seed``."""
    lines: list[dict[str, Any]] = [{"variant": "duel", "seed": seed}]
    last = None
    for state, seat, action, events in random_game(seed):
        last = state
        lines.append(
            {
                "seat": seat,
                "action": wire(action) if action is not None else None,
                "events": [wire(e) for e in events],
            }
        )
    assert last is not None and last.result is not None
    lines.append({"result": wire(last.result), "version": last.version})
    return lines


def wire(value: object) -> Any:
    """``value`` as its JSON form reads back (tuples become lists)."""
    return json.loads(msgspec.json.encode(value))


def load(seed: int) -> list[dict[str, Any]]:
    text = (HERE / f"duel_{seed}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


@pytest.mark.parametrize("seed", SEEDS)
def test_golden_log_folds_to_its_result(seed: int) -> None:
    """Folding the recorded events gives the recorded result and version."""
    lines = load(seed)
    decode = DUEL.event_decoder().decode
    events = [decode(json.dumps(e)) for line in lines[1:-1] for e in line["events"]]
    state = DUEL.fold(events)
    assert state.status == "finished"
    assert wire(state.result) == lines[-1]["result"]
    assert state.version == lines[-1]["version"]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_views_round_counts_rounds_not_extra_turns(seed: int) -> None:
    """At every version, turn.round is the mover's count of turns begun in the log, an extra turn (TurnEnded to the same seat) not counted, as the page counts rounds from the events (turns.js); the logs hold extra turns."""
    decode = DUEL.event_decoder().decode
    events = [decode(json.dumps(e)) for line in load(seed)[1:-1] for e in line["events"]]
    state = DuelState()
    begun = [0, 0]
    extra_turns = 0
    for event in events:
        evolve(state, event)
        if isinstance(event, GameStarted):
            begun[event.first_seat] += 1
        elif isinstance(event, TurnEnded):
            if event.next_seat == event.seat:
                extra_turns += 1
            else:
                begun[event.next_seat] += 1
        turn = DUEL.view(state, None)["turn"]
        if turn is not None:
            assert turn["round"] == begun[turn["seat"]]
    assert extra_turns > 0
    assert state.turn_number > 2 * max(begun)  # counting turns would overcount rounds


@pytest.mark.parametrize("seed", SEEDS)
def test_golden_actions_replay_to_the_same_events(seed: int) -> None:
    """Deciding the recorded actions again, with the recorded seed, writes the same events."""
    lines = load(seed)
    decode_action = DUEL.action_decoder().decode
    decode_event = DUEL.event_decoder().decode
    state = DuelState()
    steps = lines[1:-1]
    evolve(state, decode_event(json.dumps(steps[0]["events"][0])))
    for line in steps[1:]:
        rng = decision_rng(seed, state.version)
        if line["action"] is None:
            name = NAMES[len(state.players)]
            events = join(state, name, None, rng)
        else:
            action = decode_action(json.dumps(line["action"]))
            events = DUEL.decide(state, line["seat"], action, rng)
        assert [wire(e) for e in events] == line["events"]
        for event in events:
            evolve(state, event)
    assert wire(state.result) == lines[-1]["result"]


def write() -> None:
    for seed in SEEDS:
        lines = record(seed)
        text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
        (HERE / f"duel_{seed}.jsonl").write_text(text, encoding="utf-8")
        print(f"duel_{seed}.jsonl: {len(lines) - 2} steps, result {lines[-1]['result']}")


if __name__ == "__main__":
    write()
