"""Record the golden classic games: seeded random legal play for 2, 3 and 4 players.

Run ``.venv/bin/python -m tests.golden.record`` from the project root to rewrite them
(only when a rule change is meant to change recorded games). For each game it writes

- ``classic_<n>p.jsonl``: the event log, one msgspec-encoded event per line;
- ``classic_<n>p.actions.jsonl``: each decision, one per line, as
  ``{"version": v, "join": name}`` or ``{"version": v, "seat": s, "action": {...}}``,
  ``v`` being the log's length before the decision. The decision's generator is
  ``decision_rng(SEEDS[n], v)``, the server's derivation, so replaying the actions
  must reproduce the log exactly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from events.classic.events import ClassicEvent, PlayerJoined
from tests.classic_helpers import random_game

HERE = Path(__file__).parent
SEEDS = {2: 20240, 3: 30331, 4: 40442}


def events_path(players: int) -> Path:
    return HERE / f"classic_{players}p.jsonl"


def actions_path(players: int) -> Path:
    return HERE / f"classic_{players}p.actions.jsonl"


def record(players: int) -> tuple[list[ClassicEvent], list[dict[str, Any]]]:
    """The log and the decisions of the golden game for ``players``."""
    log: list[ClassicEvent] = []
    decisions: list[dict[str, Any]] = []
    for _, seat, action, events in random_game(players, SEEDS[players]):
        version = len(log)
        if action is not None:
            decisions.append({"version": version, "seat": seat, "action": action})
        elif isinstance(events[0], PlayerJoined):
            decisions.append({"version": version, "join": events[0].name})
        log.extend(events)
    return log, decisions


def write_lines(path: Path, items: list[Any]) -> None:
    encoder = msgspec.json.Encoder()
    path.write_bytes(b"".join(encoder.encode(item) + b"\n" for item in items))


def main() -> None:
    for players in SEEDS:
        log, decisions = record(players)
        write_lines(events_path(players), log)
        write_lines(actions_path(players), decisions)
        print(f"{events_path(players).name}: {len(log)} events, {len(decisions)} decisions")


if __name__ == "__main__":
    main()
