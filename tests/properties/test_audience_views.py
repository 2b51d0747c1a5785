"""Properties of ``server.live.audience_views.AudienceViews`` over random games of both variants.

Each example is a whole game of random legal play (classic for 2-4 players, Duel),
watched by a random set of audiences that changes as it goes (audiences come and go,
some only once the game is over). After every event, for every audience: its patch
applied to its previous view gives ``variant.view`` of the state, its ``view`` is that
view, JSON types included, and the patch names no card the audience may not see.
This checks, among the rest, each game's table of what an event may change
(``_CHANGES`` in events/classic/view.py), event by event.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import jsonpatch
from hypothesis import given, settings
from hypothesis import strategies as st

from events.base import TimeControl
from events.game import VARIANTS, Variant
from server.live.audience_views import AudienceViews
from tests.properties.test_live_properties import play as live_game

MAX_COMMANDS = 3000  # random games end in a few hundred commands; this only stops a runaway

tables = st.sampled_from([("classic", 2), ("classic", 3), ("classic", 4), ("duel", 2)])
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values: equal, and of the same JSON type all the way down (Python
    says 1 == True; JSON does not)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def hidden_from(state: Any, viewer: int | None) -> set[str]:
    """The cards ``viewer`` may not see now: others' blind reserves (classic), others'
    reserves (Duel), until the game ends."""
    if state.status == "finished":
        return set()
    hidden: set[str] = set()
    for player in state.players:
        if player.seat == viewer:
            continue
        for reserved in player.reserved:
            if isinstance(reserved, str):
                hidden.add(reserved)  # Duel: every reserve is hidden
            elif reserved.blind:
                hidden.add(reserved.card)
    return hidden


class Watch:
    """A game, its AudienceViews, and what each audience rebuilt from its patches."""

    def __init__(self, variant: Variant, players: int, churn: random.Random) -> None:
        self.variant = variant
        self.players = players
        self.state = variant.new_state()
        self.audiences = AudienceViews(variant, self.state)
        self.churn = churn
        self.rebuilt: dict[int | None, Any] = {}

    def add(self, viewer: int | None) -> None:
        view = self.audiences.view(viewer)
        assert same_json(view, self.variant.view(self.state, viewer))
        self.rebuilt[viewer] = copy.deepcopy(view)

    def drop(self, viewer: int | None) -> None:
        self.audiences.drop(viewer)
        del self.rebuilt[viewer]

    def change_audiences(self) -> None:
        """Now and then an audience comes (or comes back) or goes."""
        if self.churn.random() < 0.08:
            viewer = self.churn.choice([None, *range(self.players)])
            if viewer in self.rebuilt:
                self.drop(viewer)
            else:
                self.add(viewer)

    def apply(self, events: list[Any], at_ms: int | None = None) -> None:
        for event in events:
            self.variant.evolve(self.state, event, at_ms)
            patches = self.audiences.advance(event)
            assert set(patches) == set(self.rebuilt)
            for viewer, patch in patches.items():
                expected = self.variant.view(self.state, viewer)
                ops = json.loads(patch)
                self.rebuilt[viewer] = jsonpatch.apply_patch(self.rebuilt[viewer], ops)
                assert same_json(self.rebuilt[viewer], expected), (viewer, event)
                assert same_json(self.audiences.view(viewer), expected), (viewer, event)
                for card in hidden_from(self.state, viewer):
                    assert f'"{card}"'.encode() not in patch, (viewer, card, event)
            self.change_audiences()


def play(name: str, players: int, seed: int, audiences: list[int | None]) -> Watch:
    variant = VARIANTS[name]
    rng = random.Random(seed)
    watch = Watch(variant, players, random.Random(seed + 1))
    for viewer in audiences:
        watch.add(viewer)
    watch.apply(variant.create("g", players))
    for i in range(players):
        watch.apply(variant.join(watch.state, f"p{i}", None, rng))
    for _ in range(MAX_COMMANDS):
        if watch.state.status != "live":
            break
        seat = watch.state.seat
        action = rng.choice(variant.legal_actions(watch.state, seat))
        watch.apply(variant.decide(watch.state, seat, action, rng))
    assert watch.state.status == "finished"
    return watch


@given(tables, seeds, st.data())
@settings(max_examples=40, deadline=None)
def test_every_audience_is_patched_to_its_view(
    table: tuple[str, int], seed: int, data: st.DataObject
) -> None:
    """After every event of a random game, each audience's patch turns its last view into its view now (JSON types exact), and names no card hidden from it."""
    name, players = table
    audiences = data.draw(st.lists(st.sampled_from([None, *range(players)]), unique=True))
    watch = play(name, players, seed, audiences)
    # Audiences that come once the game is over see it whole, as everyone does.
    for viewer in [None, *range(players)]:
        if viewer not in watch.rebuilt:
            watch.add(viewer)
        assert same_json(watch.audiences.view(viewer), watch.variant.view(watch.state, viewer))


@given(tables, st.sampled_from([None, TimeControl(initial=5, increment=1)]), seeds, st.data())
@settings(max_examples=30, deadline=None)
def test_leaving_and_clocks_are_patched_too(
    table: tuple[str, int], control: TimeControl | None, seed: int, data: st.DataObject
) -> None:
    """Random games with clocks, resignations, aborts, abandon claims and timeouts (tests/properties/test_live_properties.py): each audience's patches give its view after every event, the clock and the leave actions in legal included."""
    name, players = table
    played = live_game(name, players, control, seed)
    audiences = data.draw(st.lists(st.sampled_from([None, *range(players)]), unique=True))
    watch = Watch(VARIANTS[name], players, random.Random(seed + 1))
    for viewer in audiences:
        watch.add(viewer)
    for at_ms, event in played.log:
        watch.apply([event], at_ms)
    assert watch.state == played.state


def test_an_event_with_no_audience_is_caught_up_on_the_next_view() -> None:
    """Events applied while nobody watches are seen whole by the next audience, whose patches then follow."""
    variant = VARIANTS["classic"]
    rng = random.Random(7)
    watch = Watch(variant, 3, random.Random(0))
    watch.apply(variant.create("g", 3))
    for i in range(3):
        watch.apply(variant.join(watch.state, f"p{i}", None, rng))
    for turn in range(60):
        if turn % 10 == 0:
            for viewer in list(watch.rebuilt):
                watch.drop(viewer)  # nobody watches for a while
        if turn % 10 == 5:
            watch.add(None)
            watch.add(turn % 3)
        seat = watch.state.seat
        action = rng.choice(variant.legal_actions(watch.state, seat))
        watch.apply(variant.decide(watch.state, seat, action, rng))


def test_views_are_shared_between_audiences() -> None:
    """A seat's view shares the spectator's members (the same objects) but the ones it sees differently."""
    variant = VARIANTS["classic"]
    watch = play("classic", 4, 3, [None, 0, 1, 2, 3])
    spectator = watch.audiences.view(None)
    seat = watch.audiences.view(0)
    assert seat["bank"] is spectator["bank"] and seat["board"] is spectator["board"]
    assert seat["you"] == 0 and spectator["you"] is None
    assert variant.view(watch.state, 0) == seat


def test_a_seat_not_taken_sees_what_spectators_see() -> None:
    """Viewers naming no seat of the game (not taken yet, or none at all) get the spectators' view with their own ``you``, hidden cards never shown."""
    watch = play("classic", 2, 11, [None, 0, 1, 3, -1])
    for viewer in (3, -1):
        assert watch.audiences.view(viewer) == watch.variant.view(watch.state, viewer)


@given(tables, seeds)
@settings(max_examples=10, deadline=None)
def test_members_not_named_changed_are_the_same_objects(table: tuple[str, int], seed: int) -> None:
    """After every event, the spectator view's members that its Views does not name as changed are the very objects of the view before, and the view is the rules' view."""
    name, players = table
    variant = VARIANTS[name]
    state = variant.new_state()
    views = variant.new_views()
    before = views.spectator(state)
    rng = random.Random(seed)

    def apply(events: list[Any]) -> None:
        nonlocal before
        for event in events:
            variant.evolve(state, event)
            now = views.spectator(state, event)
            assert same_json(now, variant.view(state, None)), event
            if views.changed is not None:
                assert list(now) == list(before)
                for key in now.keys() - set(views.changed):
                    assert now[key] is before[key], (key, event)
            before = now

    apply(variant.create("g", players))
    for i in range(players):
        apply(variant.join(state, f"p{i}", None, rng))
    for _ in range(MAX_COMMANDS):
        if state.status != "live":
            break
        seat = state.seat
        apply(variant.decide(state, seat, rng.choice(variant.legal_actions(state, seat)), rng))
