"""The hubs' JSON Patch: RFC 6902 operations that jsonpatch applies to the next view."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.game import VARIANTS
from server.games.projection import LoggedEvent, encode_event
from server.live.hubs import Hub
from server.live.outbox import Outbox
from server.live.socket_writers import SendWire
from server.live.view_patch import view_patch
from server.store.event_store import StoredEvent

keys = st.text(alphabet="ab/~01", min_size=1, max_size=3)
leaves = st.none() | st.integers(-3, 3) | st.text(alphabet="xyz", max_size=2)
documents = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(documents, documents)
def test_patch_applies_to_any_pair_of_documents(before: Any, after: Any) -> None:
    """Applying the patch between two JSON documents to the first gives the second."""
    assert jsonpatch.apply_patch(before, view_patch(before, after)) == after


@settings(max_examples=200, deadline=None)
@given(st.lists(leaves, max_size=12), st.data())
def test_patch_of_a_list_edited_in_the_middle(items: list[Any], data: st.DataObject) -> None:
    """Insertions and removals inside a list apply, and stay small when the list is long."""
    start = data.draw(st.integers(0, len(items)))
    removed = data.draw(st.integers(0, len(items) - start))
    inserted = data.draw(st.lists(leaves, max_size=3))
    edited = items[:start] + inserted + items[start + removed :]
    ops = view_patch(items, edited)
    assert jsonpatch.apply_patch(items, ops) == edited
    if edited != items and len(edited) >= 8:
        assert len(ops) <= removed + len(inserted)


def test_a_boolean_replacing_a_number_is_a_change() -> None:
    """A member that was 1 and is now true is replaced (1 == True in Python, not in JSON)."""
    assert view_patch({"a": 1, "b": 0}, {"a": True, "b": False}) == [
        {"op": "replace", "path": "/a", "value": True},
        {"op": "replace", "path": "/b", "value": False},
    ]


def test_keys_are_escaped_as_json_pointers() -> None:
    """``/`` and ``~`` in member names are written ``~1`` and ``~0``."""
    ops = view_patch({"a/b": 1, "c~d": 2}, {"a/b": 3, "c~d": 2, "e": 4})
    assert ops == [
        {"op": "replace", "path": "/a~1b", "value": 3},
        {"op": "add", "path": "/e", "value": 4},
    ]


TABLES = [
    (name, players)
    for name, variant in sorted(VARIANTS.items())
    for players in sorted({variant.min_players, variant.max_players})
]


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_every_view_of_seeded_games_is_reached_by_its_patch(name: str, players: int) -> None:
    """For every viewer of random legal games, each event's patch turns the view before it into the view after it, from the empty table (version 0) to the end."""
    variant = VARIANTS[name]
    for seed in range(6):
        rng = random.Random(seed)
        state = variant.new_state()
        viewers: list[int | None] = [None, *range(players)]
        views = {v: variant.view(state, v) for v in viewers}
        pending = variant.create("g", players)
        for i in range(players):
            for event in pending:
                variant.evolve(state, event)
                for v in viewers:
                    after = variant.view(state, v)
                    assert jsonpatch.apply_patch(views[v], view_patch(views[v], after)) == after
                    views[v] = after
            pending = variant.join(state, f"p{i}", None, rng)
        for _ in range(600):
            for event in pending:
                variant.evolve(state, event)
                for v in viewers:
                    after = variant.view(state, v)
                    assert jsonpatch.apply_patch(views[v], view_patch(views[v], after)) == after
                    views[v] = after
            if state.status != "live":
                break
            seat = state.seat
            pending = variant.decide(
                state, seat, rng.choice(variant.legal_actions(state, seat)), rng
            )


@pytest.mark.parametrize(("name", "players"), TABLES)
async def test_hub_diffs_rebuild_every_audience_view(name: str, players: int) -> None:
    """Through a hub (patches shared between audiences where their views agree), each audience's diffs rebuild its view at every version of seeded random games."""
    variant = VARIANTS[name]
    for seed in range(3):
        rng = random.Random(seed)
        state = variant.new_state()
        log: list[LoggedEvent] = []

        def add(events: list[Any], log: list[LoggedEvent] = log, state: Any = state) -> None:
            for event in events:
                variant.evolve(state, event)
                log.append(LoggedEvent(len(log) + 1, 1_700_000_000_000, event))

        add(variant.create("g", players))
        for i in range(players):
            add(variant.join(state, f"p{i}", None, rng))
        hub = Hub("g", variant, log)
        received: dict[int | None, list[str]] = {}
        for viewer in [None, *range(players)]:
            texts = received.setdefault(viewer, [])

            async def send(text: str, texts: list[str] = texts) -> None:
                texts.append(text)

            outbox = Outbox(hub, viewer, SendWire(send), limit=10_000)
            hub.attach(outbox, None)
        for _ in range(600):
            if state.status != "live":
                break
            start = len(log)
            seat = state.seat
            add(variant.decide(state, seat, rng.choice(variant.legal_actions(state, seat)), rng))
            hub.apply([StoredEvent(e.version, e.at_ms, encode_event(e.event)) for e in log[start:]])
            await asyncio.sleep(0)
        for _ in range(10):
            await asyncio.sleep(0)
        rebuilt: dict[int | None, dict[int, Any]] = {}
        for viewer, texts in received.items():
            decoded = [json.loads(t) for t in texts]
            messages = [m for m in decoded if m["type"] not in ("presence", "audience")]
            view = messages[0]["view"]
            rebuilt[viewer] = {view["version"]: view}
            for message in messages[1:]:
                assert message["version"] == view["version"] + 1
                view = jsonpatch.apply_patch(view, message["patch"])
                rebuilt[viewer][message["version"]] = view
        replay = variant.new_state()
        for logged in log:
            variant.evolve(replay, logged.event)
            for viewer, views in rebuilt.items():
                if logged.version in views:
                    assert views[logged.version] == variant.view(replay, viewer)
        for views in rebuilt.values():
            assert sorted(views) == list(range(min(views), len(log) + 1))
        for outbox in hub.outboxes():
            await outbox.stop()
