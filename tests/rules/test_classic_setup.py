"""Classic set-up: seats, the opening drawn by join, the bank for 2, 3 and 4 players."""

from __future__ import annotations

import random

import pytest

from events.base import GameCreated
from events.catalog import classic_nobles
from events.classic.actions import TakeThree
from events.classic.events import GameStarted
from events.classic.evolve import evolve, fold
from events.classic.rules import decide, join
from events.classic.state import ClassicState
from events.errors import RuleViolation
from tests.classic_helpers import CARDS, Table, kinds


def opened(players: int, seed: int) -> tuple[ClassicState, GameStarted]:
    """A game of ``players`` filled seat by seat; the GameStarted that the last join made."""
    rng = random.Random(seed)
    state = evolve(ClassicState(), GameCreated("g", "classic", players))
    started = None
    for s in range(players):
        for event in join(state, f"P{s}", None, rng):
            evolve(state, event)
            if isinstance(event, GameStarted):
                started = event
    assert started is not None
    return state, started


@pytest.mark.parametrize(("players", "per_gem"), [(2, 4), (3, 5), (4, 7)])
def test_gem_tokens_per_colour_depend_on_player_count(players: int, per_gem: int) -> None:
    """The bank opens with 4, 5 or 7 tokens of each colour for 2, 3 or 4 players."""
    state, started = opened(players, seed=1)
    assert state.bank[:5] == [per_gem] * 5
    assert {k: v for k, v in started.bank.items() if k != "gold"} == dict.fromkeys(
        ("white", "blue", "green", "red", "black"), per_gem
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_gold_is_always_five(players: int) -> None:
    """Decision: 5 gold tokens whatever the number of players (not the Greek rulebook's 7)."""
    state, _ = opened(players, seed=2)
    assert state.bank[5] == 5


@pytest.mark.parametrize("players", [2, 3, 4])
def test_players_plus_one_nobles_are_revealed(players: int) -> None:
    """players + 1 distinct nobles from the ten are on the table; the rest are out."""
    state, started = opened(players, seed=3)
    assert len(state.nobles) == players + 1
    assert len(set(state.nobles)) == players + 1
    assert set(state.nobles) <= set(classic_nobles())
    assert list(started.nobles) == state.nobles


@pytest.mark.parametrize("players", [2, 3, 4])
def test_four_cards_of_each_level_are_dealt(players: int) -> None:
    """The board holds 4 distinct cards per level; the decks keep 36, 26 and 16."""
    state, _ = opened(players, seed=4)
    for level, row in enumerate(state.board, start=1):
        assert len(row) == 4
        assert all(card is not None and CARDS[card].level == level for card in row)
        assert len(set(row)) == 4
    assert [len(deck) for deck in state.decks] == [36, 26, 16]
    dealt = {c for row in state.board for c in row}
    assert not dealt & {c for deck in state.decks for c in deck}


def test_first_seat_is_drawn_at_random_and_recorded() -> None:
    """Decision: the first seat is random, written in GameStarted, and has the first turn."""
    firsts = set()
    for seed in range(40):
        state, started = opened(4, seed)
        assert state.seat == started.first_seat == state.first_seat
        firsts.add(started.first_seat)
    assert firsts == {0, 1, 2, 3}


def test_the_opening_depends_on_the_generator_only() -> None:
    """The same generator gives the same opening; the log holds it, so a replay needs no rng."""
    _, a = opened(3, seed=9)
    _, b = opened(3, seed=9)
    assert a == b


def test_the_game_starts_when_the_last_seat_is_filled() -> None:
    """join seats players in order; only the last join adds GameStarted."""
    rng = random.Random(0)
    state = evolve(ClassicState(), GameCreated("g", "classic", 3))
    first = join(state, "Ana", None, rng)
    assert kinds(first) == ["PlayerJoined"]
    fold(first, state)
    second = join(state, "Bot", "easy", rng)
    assert kinds(second) == ["PlayerJoined"]
    fold(second, state)
    assert state.status == "open"
    last = join(state, "Cy", None, rng)
    assert kinds(last) == ["PlayerJoined", "GameStarted"]
    fold(last, state)
    assert state.status == "live"
    assert [(p.seat, p.name, p.bot) for p in state.players] == [
        (0, "Ana", None),
        (1, "Bot", "easy"),
        (2, "Cy", None),
    ]


def test_every_seat_gets_a_name_of_its_own() -> None:
    """A name already at the table is numbered from 2 ("Greedy bot 2"), case-blind, so no two seats share one."""
    state = evolve(ClassicState(), GameCreated("g", "classic", 4))
    rng = random.Random(3)
    names = []
    for name, bot in (
        ("Greedy bot", "greedy"),
        ("Greedy bot", "greedy"),
        ("greedy BOT", None),
        ("Ana", None),
    ):
        events = join(state, name, bot, rng)
        names.append(events[0].name)
        for event in events:
            evolve(state, event)
    assert names == ["Greedy bot", "Greedy bot 2", "greedy BOT 3", "Ana"]


def test_a_full_game_refuses_another_player() -> None:
    """join refuses a player once every seat is taken."""
    state, _ = opened(2, seed=0)
    with pytest.raises(RuleViolation) as refused:
        join(state, "Late", None, random.Random(0))
    assert refused.value.code == "illegal_action"
    assert "no free seat" in refused.value.message


def test_no_action_before_the_game_starts() -> None:
    """An open game refuses actions: it is still waiting for players."""
    state = fold(Table(2).events[:2])  # created, one player joined
    with pytest.raises(RuleViolation) as refused:
        decide(state, 0, TakeThree(("white", "blue", "green")), random.Random(0))
    assert refused.value.code == "illegal_action"
    assert "waiting for players" in refused.value.message
