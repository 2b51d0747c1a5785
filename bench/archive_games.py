"""Finished games as the store keeps them, played in-process by bots with the times
of people at a table: the corpus ``archive_bench.py`` measures and
``archive_dictionary.py`` builds the archive's dictionary from.

A game is its stored log: ``(at_ms, event bytes)`` per version, the bytes
``server.games.projection.encode_event`` writes, each command's events at one time, the
time between commands drawn like a person's thinking (a few seconds, sometimes a
minute), and the seat tokens' digests.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any, NamedTuple

from bots import choose
from events.base import TimeControl
from events.game import VARIANTS
from events.leaving import Facts, TimeIsUp
from server.games.projection import encode_event

START_MS = 1_767_225_600_000  # 2026-01-01
KINDS = (("classic", 2), ("classic", 4), ("duel", 2))
CONTROLS = (None, TimeControl(initial=300, increment=3), TimeControl(initial=600, increment=5))
NAMES = ("Ana", "Bruno", "Chloé", "Dmitri", "Eun-ji", "Farid", "Greta", "Hugo", "player 7")


class PlayedGame(NamedTuple):
    game_id: str
    variant: str
    players: int
    log: list[tuple[int, bytes]]  # (at_ms, event) of versions 1..n
    digests: list[str]  # seat -> SHA-256 of its token, hex


def think_ms(rng: random.Random) -> int:
    """A person's time for a move: mostly seconds, sometimes much longer."""
    return int(min(rng.lognormvariate(8.8, 0.9), 90_000))


def play(variant: str, players: int, rng: random.Random, levels: tuple[str, ...]) -> PlayedGame:
    """One game played to its end by bots of ``levels`` (one per seat, cycled)."""
    rules = VARIANTS[variant]
    game_id = "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(10))
    clock = rng.choice(CONTROLS)
    now = START_MS + rng.randrange(10**10)
    state = rules.new_state()
    log: list[tuple[int, bytes]] = []

    def record(events: list[Any]) -> None:
        for event in events:
            rules.evolve(state, event, now)
            log.append((now, encode_event(event)))

    def draws() -> random.Random:
        return random.Random(f"{game_id}:{len(log)}")

    record(rules.create(game_id, players, clock))
    for seat, name in enumerate(rng.sample(NAMES, players)):
        now += rng.randrange(500, 20_000)
        bot = levels[seat % len(levels)] if rng.random() < 0.2 else None
        record(rules.join(state, name, bot, draws()))
    while state.status not in ("finished", "aborted"):
        seat = state.seat
        now += think_ms(rng)
        wire = choose(levels[seat % len(levels)], rules.view(state, seat), rng)
        action = rules.action_decoder().decode(json.dumps(wire).encode())
        try:
            record(rules.decide(state, seat, action, draws(), Facts(now)))
        except TimeIsUp:  # a flag fell: the loss on time, as the timekeeper records it
            record(rules.expire(state, Facts(now)))
    digests = [hashlib.sha256(rng.randbytes(32)).hexdigest() for _ in range(players)]
    return PlayedGame(game_id, variant, players, log, digests)


def corpus(games_per_kind: int, seed: int) -> list[PlayedGame]:
    """``games_per_kind`` games of each of classic 2p, classic 4p and Duel."""
    rng = random.Random(seed)
    levels = (("greedy",), ("greedy", "random"), ("random",))
    return [
        play(variant, players, rng, levels[i % 3] if i % 3 != 2 else ("greedy",))
        for variant, players in KINDS
        for i in range(games_per_kind)
    ]
