"""The Duel view as PROTOCOL.md writes it, the wire forms of actions and events, and
the Duel variant's registration."""

from __future__ import annotations

import random

import msgspec

from events.catalog import duel_catalog
from events.duel.actions import Buy, Reserve, TakeTokens
from events.duel.events import BoardReplenished, Placed
from events.duel.legal import legal_actions
from events.duel.view import action_to_wire, view
from events.game import DUEL, VARIANTS
from tests.duel_helpers import NAMES, Table, play

TOKEN_KEYS = ["white", "blue", "green", "red", "black", "gold", "pearl"]
GEM_KEYS = ["white", "blue", "green", "red", "black"]


def test_view_frame_and_table() -> None:
    """The shared frame plus board, bag, pyramid, decks, royals and privileges."""
    seen = view(Table().state(), 0)
    assert list(seen) == [
        "game", "variant", "version", "status", "you", "board", "bag", "pyramid",
        "decks", "royals", "privileges", "seeded", "rated", "clock", "players", "turn", "legal", "result",
    ]  # fmt: skip
    assert seen["variant"] == "duel" and seen["status"] == "live" and seen["you"] == 0
    assert seen["board"][0] == ["white", "blue", "green", "red", "black"]
    assert seen["board"][2][2] == "gold" and len(seen["board"]) == 5
    assert list(seen["bag"]) == TOKEN_KEYS and sum(seen["bag"].values()) == 0
    assert seen["pyramid"] == {
        "1": ["d1-01", "d1-02", "d1-03", "d1-04", "d1-05"],
        "2": ["d2-01", "d2-02", "d2-03", "d2-04"],
        "3": ["d3-01", "d3-02", "d3-03"],
    }
    assert seen["decks"] == {"1": 25, "2": 20, "3": 10}
    assert seen["royals"] == ["r1", "r2", "r3", "r4"] and seen["privileges"] == 2
    assert seen["turn"] == {
        "seat": 0,
        "phase": "main",
        "number": 1,
        "round": 1,
        "extra_turn": False,
    }
    assert seen["result"] is None


def test_view_players() -> None:
    """Each player: crowns, privileges, royals, tokens with pearl, bonuses per colour."""
    state = Table().own(0, "d2-05").give(0, pearl=1, gold=1).reserve(0, "d3-09").state()
    ana = view(state, 0)["players"][0]
    assert list(ana["tokens"]) == TOKEN_KEYS
    assert ana["tokens"]["pearl"] == 1 and ana["tokens"]["gold"] == 2
    assert list(ana["bonuses"]) == GEM_KEYS and ana["bonuses"]["blue"] == 2
    assert ana["crowns"] == 0 and ana["privileges"] == 0 and ana["royals"] == []
    assert ana["cards"] == ["d2-05"] and ana["points"] == 1
    assert ana["reserved"] == [{"card": "d3-09"}]
    assert ana["name"] == NAMES[0] and ana["bot"] is None and ana["seat"] == 0
    assert view(state, 0)["players"][1]["privileges"] == 1


def test_legal_only_for_the_mover() -> None:
    """The mover sees every legal action on the wire; the opponent only abort (before every first turn is done), spectators none."""
    state = Table().state()
    legal = view(state, 0)["legal"]
    assert legal == [action_to_wire(a) for a in legal_actions(state, 0)] + [{"kind": "abort"}]
    assert {"kind": "take_tokens", "cells": [[0, 0], [0, 1], [0, 2]]} in legal
    assert {"kind": "reserve", "gold_cell": [1, 0], "card": "d1-01"} in legal
    assert {"kind": "reserve", "gold_cell": [1, 0], "level": 3} in legal
    assert view(state, 1)["legal"] == [{"kind": "abort"}] and view(state, None)["legal"] == []


def test_an_open_game_view() -> None:
    """Before the start: an empty board and pyramid, no turn."""
    state = DUEL.new_state()
    for event in DUEL.create("g", 2):
        DUEL.evolve(state, event)
    seen = DUEL.view(state, None)
    assert seen["status"] == "open" and seen["turn"] is None and seen["legal"] == []
    assert seen["board"] == [[None] * 5] * 5 and seen["pyramid"]["1"] == [None] * 5


def test_the_duel_variant_is_registered() -> None:
    """VARIANTS has duel: 2 players, the Duel catalog with its rules' numbers, decoders for its actions and events."""
    assert VARIANTS["duel"] is DUEL
    assert (DUEL.min_players, DUEL.max_players) == (2, 2)
    assert DUEL.catalog() == {**duel_catalog(), "rules": DUEL.catalog()["rules"]}
    assert "royals" in duel_catalog() and DUEL.catalog()["rules"]["max_reserved"] == 3
    decode = DUEL.action_decoder().decode
    assert decode(b'{"kind": "take_tokens", "cells": [[0, 0], [1, 1]]}') == TakeTokens(
        ((0, 0), (1, 1))
    )
    assert decode(b'{"kind": "reserve", "gold_cell": [1, 0], "level": 2}') == Reserve(
        (1, 0), level=2
    )
    assert decode(b'{"kind": "buy", "card": "d1-26", "wild_on": "d1-20"}') == Buy(
        "d1-26", wild_on="d1-20"
    )


def test_actions_refuse_unknown_fields() -> None:
    """A malformed action does not decode (the server answers bad_request)."""
    decode = DUEL.action_decoder().decode
    for raw in (
        b'{"kind": "take_tokens", "cells": [[0, 0]], "extra": 1}',
        b'{"kind": "take_tokens", "cells": [[0]]}',
        b'{"kind": "steal_token", "color": "purple"}',
        b'{"kind": "take_three", "colors": ["red"]}',
    ):
        try:
            decode(raw)
        except msgspec.ValidationError:
            continue
        raise AssertionError(f"{raw!r} decoded")


def test_events_round_trip_on_the_wire() -> None:
    """Every event of a played turn encodes to JSON and decodes back equal."""
    state = Table().state()
    events = play(state, 0, Reserve((1, 0), card="d1-01"), seed=4)
    events.append(BoardReplenished(1, (Placed((1, 0), "gold"),), True))
    decoder = DUEL.event_decoder()
    for event in events:
        assert decoder.decode(msgspec.json.encode(event)) == event
    wire = msgspec.json.decode(msgspec.json.encode(events[0]))
    assert wire == {
        "type": "CardReserved", "seat": 0, "level": 1, "card": "d1-01",
        "gold_cell": [1, 0], "slot": 0,
    }  # fmt: skip


def test_variant_join_starts_the_game() -> None:
    """Through the Variant interface, two joins start a Duel."""
    state = DUEL.new_state()
    rng = random.Random(9)
    for event in DUEL.create("g", 2):
        DUEL.evolve(state, event)
    for name in NAMES:
        for event in DUEL.join(state, name, None, rng):
            DUEL.evolve(state, event)
    assert state.status == "live" and DUEL.legal_actions(state, state.seat)
