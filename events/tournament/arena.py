"""An arena's two rules: the points of a player's results (2 a win, 1 a shared
victory, 0 a loss; a win doubled while on a streak) and who plays whom among the
players waiting for a game (docs/tournaments.md, "Arena")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from events.tournament.log import Outcome, Pair

WIN_POINTS = 2
SHARED_POINTS = 1
# Two wins in a row put a player on a streak: every later win scores double.
STREAK_AFTER = 2


class ArenaScore(msgspec.Struct, frozen=True):
    """A player's points and how many games in a row they have won."""

    points: int = 0
    wins_in_a_row: int = 0

    @property
    def on_streak(self) -> bool:
        """Whether the next win scores double."""
        return self.wins_in_a_row >= STREAK_AFTER


def add_result(score: ArenaScore, outcome: Outcome) -> ArenaScore:
    """The score after one more game. Only a win is doubled on a streak; a loss or
    a shared victory ends the streak (a shared victory still scores its 1)."""
    if outcome in ("win", "bye"):
        points = WIN_POINTS * (2 if score.on_streak else 1)
        return ArenaScore(score.points + points, score.wins_in_a_row + 1)
    if outcome == "shared":
        return ArenaScore(score.points + SHARED_POINTS, 0)
    return ArenaScore(score.points, 0)


def score_results(outcomes: Iterable[Outcome]) -> ArenaScore:
    """The fold of a player's results, oldest first, into their arena score."""
    score = ArenaScore()
    for outcome in outcomes:
        score = add_result(score, outcome)
    return score


class Waiting(msgspec.Struct, frozen=True):
    """A player waiting for an arena game."""

    player: str
    score: int
    rating: float
    last_opponent: str | None
    since_ms: int


class ArenaPairing(msgspec.Struct, frozen=True):
    """The games to start, and who goes on waiting (in the order given)."""

    pairs: tuple[Pair, ...]
    waiting: tuple[str, ...]


def _rematch(a: Waiting, b: Waiting) -> bool:
    return a.last_opponent == b.player or b.last_opponent == a.player


def _seated(a: Waiting, b: Waiting) -> Pair:
    """The one who has waited longer takes the first seat."""
    return (
        Pair(a.player, b.player)
        if (a.since_ms, a.player) <= (b.since_ms, b.player)
        else Pair(b.player, a.player)
    )


def _closest(to: Waiting, among: Sequence[Waiting]) -> Waiting:
    return min(
        among,
        key=lambda w: (abs(w.score - to.score), abs(w.rating - to.rating), w.since_ms, w.player),
    )


def pair_waiting(waiting: Sequence[Waiting]) -> ArenaPairing:
    """Pairs the waiting players. With an odd number, the one who arrived last is
    held back. The rest, in order of score then rating, are taken lowest first, each
    with the next one in that order who is not their last opponent (so the closest
    score first, then the closest rating). The one held back then takes the closest
    player left alone by that, if any is not their last opponent, and waits on
    otherwise. Two players who last met each other are paired again only when they
    are the only two waiting."""
    if len(waiting) == 2 and _rematch(waiting[0], waiting[1]):
        return ArenaPairing((_seated(waiting[0], waiting[1]),), ())
    pool = list(waiting)
    held: Waiting | None = None
    if len(pool) % 2 == 1:
        held = max(pool, key=lambda w: (w.since_ms, w.player))
        pool.remove(held)
    order = sorted(pool, key=lambda w: (w.score, w.rating, w.since_ms, w.player))
    taken = [False] * len(order)
    pairs: list[Pair] = []
    alone: list[Waiting] = []
    for i, a in enumerate(order):
        if taken[i]:
            continue
        for j in range(i + 1, len(order)):
            if not taken[j] and not _rematch(a, order[j]):
                taken[i] = taken[j] = True
                pairs.append(_seated(a, order[j]))
                break
        else:
            alone.append(a)
    if held is not None:
        others = [w for w in alone if not _rematch(held, w)]
        if others:
            mate = _closest(held, others)
            alone.remove(mate)
            pairs.append(_seated(held, mate))
        else:
            alone.append(held)
    stay = {w.player for w in alone}
    return ArenaPairing(tuple(pairs), tuple(w.player for w in waiting if w.player in stay))
