"""The Duel bots: always a legal action, whole games to the end, and the greedy
heuristic making the obvious good moves. Positions come from the real engine only:
seeded random games (``tests.duel_helpers.random_game``) and tables written as events.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from bots import choose, duel_greedy, duel_mcts, duel_random
from bots.duel_arena import new_game, play, to_action
from events.catalog import duel_cards
from events.duel.evolve import evolve
from events.duel.rules import decide
from events.duel.state import DuelState
from events.duel.view import view
from tests.duel_helpers import Table, random_game

CARDS = duel_cards()
POINTS_ONLY = ("d3-02", "d3-04", "d3-06", "d3-08")  # 4 prestige, no crown, no ability
# d1-30: 3 prestige for 4 red and a pearl; d1-14: a crown; d1-27: a wild card.
WIN_PYRAMID = (
    ("d1-01", "d1-14", "d1-30", "d1-27", "d1-07"),
    ("d2-01", "d2-03", "d2-05", "d2-06"),
    ("d3-01", "d3-03", "d3-05"),
)


def positions(seeds: range, every: int) -> Iterator[dict[str, Any]]:
    """The mover's view at every ``every``-th live position of seeded random games."""
    for seed in seeds:
        for step, (state, _, _, _) in enumerate(random_game(seed)):
            if state.status == "live" and step % every == 0:
                yield view(state, state.seat)


def test_random_always_answers_a_legal_action() -> None:
    """Over the positions of 40 random games, the random bot answers one of ``legal``."""
    rng = random.Random(1)
    count = 0
    for seen in positions(range(40), 1):
        assert duel_random.choose(seen, rng) in seen["legal"]
        count += 1
    assert count > 6000


def test_greedy_always_answers_a_legal_action() -> None:
    """Over the positions of 40 random games (every 2nd), greedy answers one of ``legal``."""
    rng = random.Random(1)
    phases: Counter[str] = Counter()
    for seen in positions(range(40), 2):
        assert duel_greedy.choose(seen, rng) in seen["legal"]
        phases[seen["turn"]["phase"]] += 1
    assert phases["main"] > 2500
    assert {"discard_tokens", "choose_royal", "steal_token"} <= set(phases)


def test_random_rarely_spends_privileges_or_replenishes() -> None:
    """With privileges and a bag to replenish from, the random bot mostly takes a mandatory action; privileges ~10% and the replenish ~5% of the time."""
    seen = _privileged_view()
    groups = Counter(a["kind"] for a in seen["legal"])
    assert groups["use_privileges"] > 20 and groups["replenish"] == 1
    rng = random.Random(7)
    kinds = Counter(duel_random.choose(seen, rng)["kind"] for _ in range(2000))
    assert 120 < kinds["use_privileges"] < 280
    assert 50 < kinds["replenish"] < 160
    assert kinds["take_tokens"] > 400 and kinds["reserve"] > 400


def _privileged_view() -> dict[str, Any]:
    """Seat 0 to move holding 2 privileges, with tokens in the bag."""
    table = Table(first_seat=1).privilege(0).give(1, white=1, blue=1).discard(1, white=1, blue=1)
    state = table.state(mover=0)
    assert state.players[0].privileges == 2 and any(state.bag)
    return view(state, 0)


@pytest.mark.parametrize("greedy_seat", [0, 1])
def test_greedy_beats_random_in_whole_games(greedy_seat: int) -> None:
    """Greedy against random, in-process through the engine: 4 games end, greedy winning."""
    for seed in range(4):
        rng = random.Random(seed)
        state = new_game(["greedy", "random"][:: 1 if greedy_seat == 0 else -1], rng)
        bots = [_bot("random", seed), _bot("random", seed)]
        bots[greedy_seat] = _bot("greedy", seed)
        result = play(state, bots, rng)
        assert result is not None and result.winners == (greedy_seat,)


def _bot(level: str, seed: int) -> Any:
    rng = random.Random(seed)
    return lambda seen: choose(level, seen, rng)


def test_greedy_is_deterministic_given_a_seed() -> None:
    """Two whole greedy-vs-greedy games on the same seeds make the same moves."""

    def record(seed: int) -> list[dict[str, Any]]:
        moves: list[dict[str, Any]] = []
        rng = random.Random(seed)
        bot_rng = random.Random(seed + 1)

        def greedy(seen: dict[str, Any]) -> dict[str, Any]:
            moves.append(duel_greedy.choose(seen, bot_rng))
            return moves[-1]

        state = new_game(["a", "b"], rng)
        assert play(state, [greedy, greedy], rng) is not None
        return moves

    first = record(3)
    assert len(first) >= 40
    assert record(3) == first


def test_choose_dispatches_duel_views_to_the_duel_bots() -> None:
    """``bots.choose`` answers a Duel view with the Duel bots: random, greedy and Duel MCTS."""
    seen = view(Table().state(), 0)
    assert choose("random", seen, random.Random(0)) in seen["legal"]
    assert choose("greedy", seen, random.Random(0)) == duel_greedy.choose(seen, random.Random(0))
    searched = seen["legal"][duel_mcts.search(seen, random.Random(0), iterations=10)[0]]
    assert choose("mcts", seen, random.Random(0), iterations=10) == searched


# ------------------------------------------------------------------ the greedy heuristic


def _greedy(state: DuelState, seat: int = 0) -> dict[str, Any]:
    seen = view(state, seat)
    answer = duel_greedy.choose(seen, random.Random(0))
    assert answer in seen["legal"]
    return answer


def test_greedy_buys_the_card_that_wins() -> None:
    """At 17 prestige with d1-30 (3 prestige) affordable, greedy buys it and wins."""
    table = Table(pyramid=WIN_PYRAMID).own(0, *POINTS_ONLY, "d1-05").give(0, red=4, pearl=1)
    state = table.state()
    assert state.players[0].points == 17
    assert _greedy(state) == {"kind": "buy", "card": "d1-30"}


def test_greedy_reserves_the_card_that_would_win_the_opponent_the_game() -> None:
    """The opponent at 17 can buy d1-30 next turn; greedy, unable to buy it, reserves it."""
    table = Table(pyramid=WIN_PYRAMID).own(1, *POINTS_ONLY, "d1-05").give(1, red=4, pearl=1)
    answer = _greedy(table.state())
    assert answer["kind"] == "reserve" and answer.get("card") == "d1-30"


def test_greedy_spends_a_privilege_to_complete_a_purchase() -> None:
    """One black short of d3-02 (4 prestige) with a privilege: greedy takes a black with it."""
    table = Table(first_seat=1).own(0, "d1-01", "d1-02").give(0, white=4, blue=2, black=1)
    state = table.state(mover=0)
    assert state.players[0].privileges == 1 and "d3-02" in state.pyramid[2]
    answer = _greedy(state)
    assert answer["kind"] == "use_privileges"
    (cell,) = answer["cells"]
    assert view(state, 0)["board"][cell[0]][cell[1]] == "black"
    play_action(state, 0, answer)
    assert _greedy(state) == {"kind": "buy", "card": "d3-02"}


def test_greedy_keeps_its_gold_when_discarding() -> None:
    """At 12 tokens after a take, greedy puts back 2 gems and keeps its gold."""
    state = Table().give(0, gold=1, pearl=1, white=4, black=4).state()
    play_action(state, 0, {"kind": "take_tokens", "cells": [[0, 1], [0, 2]]})
    answer = _greedy(state)
    assert answer["kind"] == "discard_tokens"
    assert sum(answer["tokens"].values()) == 2 and "gold" not in answer["tokens"]


def test_greedy_takes_the_royal_that_wins() -> None:
    """At 17 prestige, reaching 3 crowns: greedy takes r1 (3 prestige), which wins."""
    table = Table(pyramid=WIN_PYRAMID).own(0, *POINTS_ONLY, "d1-05", "d1-04", "d1-09")
    state = table.give(0, red=3).state()
    assert state.players[0].crowns == 2 and state.players[0].points == 17
    play_action(state, 0, {"kind": "buy", "card": "d1-14"})
    assert view(state, 0)["turn"]["phase"] == "choose_royal"
    assert _greedy(state) == {"kind": "choose_royal", "royal": "r1"}


def test_greedy_puts_a_wild_card_on_its_strongest_colour() -> None:
    """With 5 prestige in white and a blue card, greedy puts wild d1-27 on a white card."""
    table = Table(pyramid=WIN_PYRAMID).own(0, "d3-02", "d1-05", "d1-06").give(0, black=4, pearl=1)
    seen = view(table.state(), 0)
    wild_buys = [a for a in seen["legal"] if a["kind"] == "buy" and a["card"] == "d1-27"]
    assert {a["wild_on"] for a in wild_buys} == {"d3-02", "d1-05", "d1-06"}
    answer = duel_greedy.choose({**seen, "legal": wild_buys}, random.Random(0))
    assert answer["wild_on"] in ("d3-02", "d1-05")


def test_greedy_steals_the_token_the_opponent_needs() -> None:
    """The opponent holds 3 black (d1-19's price) and a white: greedy's steal takes a black."""
    pyramid = (
        ("d1-01", "d1-19", "d1-03", "d1-06", "d1-07"),
        ("d2-01", "d2-02", "d2-05", "d2-06"),
        ("d3-01", "d3-03", "d3-05"),
    )
    state = Table(pyramid=pyramid).give(0, blue=4, red=3).give(1, black=3, white=1).state()
    play_action(state, 0, {"kind": "buy", "card": "d2-02"})  # its ability: steal a token
    assert view(state, 0)["turn"]["phase"] == "steal_token"
    assert _greedy(state) == {"kind": "steal_token", "color": "black"}


def play_action(state: DuelState, seat: int, wire: dict[str, Any]) -> None:
    """Decide and fold one wire action into ``state``."""
    for event in decide(state, seat, to_action(wire), random.Random(0)):
        evolve(state, event)
