"""The page's readers of Duel events (client/web/js/duel_words.js, turns.js) run in
Chromium on the golden games' events as the wire shows them (each field at its
default left out) and as older logs and exports named them (``"from_seat": null``):
both read the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
from playwright.sync_api import Page

from events.base import GameAborted, Resigned
from events.game import DUEL
from server.common.wire import event_to_wire
from tests.duel_helpers import DUEL_EVENTS, every_field_named, optional_fields

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

READ = """async ([logs, extra]) => {
  const { describeDuelEvent } = await import('/js/duel_words.js');
  const { turnsOf } = await import('/js/turns.js');
  const catalog = await (await fetch('/api/catalog/duel')).json();
  const names = { of: (seat) => `Seat ${seat + 1}`, bySeat: new Map([[0, 'Ana'], [1, 'Bo']]) };
  const words = [...logs.flat(), ...extra].map((e) => describeDuelEvent(e, names, catalog).text);
  return { words, turns: logs.map(turnsOf) };
}"""


def golden_logs() -> list[list[Any]]:
    """The events of every golden Duel game."""
    decode = DUEL.event_decoder().decode
    logs = []
    for path in sorted(GOLDEN.glob("duel_*.jsonl")):
        steps = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        logs.append([decode(json.dumps(e)) for step in steps[1:-1] for e in step["events"]])
    return logs


def as_read(events: list[Any], named: bool) -> list[dict[str, Any]]:
    """The events with their versions, as the wire gives them or with every field named."""
    out = []
    for version, event in enumerate(events, 1):
        wire = event_to_wire(event, version, 0, "duel")
        out.append({**wire, **every_field_named(event)} if named else wire)
    decoded: list[dict[str, Any]] = msgspec.json.decode(msgspec.json.encode(out))
    return decoded


def test_the_page_reads_duel_events_the_same_with_or_without_their_defaults(
    module_page: Page,
) -> None:
    """Every Duel event type with fields that have a default appears in the sample (golden games, two aborts, a resignation); its sentences and the turns read from it are the same whether those fields are left out (as the wire sends them) or named with their defaults."""
    logs = golden_logs()
    extra = [GameAborted("expired"), GameAborted("abort", 0), Resigned(1)]
    sample = [e for log in logs for e in log] + extra
    with_defaults = {type(e) for e in sample}
    assert {k for k in DUEL_EVENTS if optional_fields(k)} <= with_defaults
    left_out = module_page.evaluate(
        READ, [[as_read(log, False) for log in logs], as_read(extra, False)]
    )
    named = module_page.evaluate(READ, [[as_read(log, True) for log in logs], as_read(extra, True)])
    shown = [e for log in [as_read(log, False) for log in logs] for e in log]
    assert any(e["type"] == "PrivilegeTaken" and "from_seat" not in e for e in shown)
    assert left_out == named
    assert len(left_out["words"]) == len(sample) and all(left_out["words"])
    assert all(len(turns) > 20 for turns in left_out["turns"])
