"""The rating model, pure: openskill's Plackett-Luce over a rated game's ranks, the
displayed rating, and ``RatingBook``, the ratings of one variant folded in memory.

Plackett-Luce rates any number of players from their order of finish (ties allowed),
so one model fits Duel (2 players) and classic Splendor (2-4). A player's skill is the
library's ``mu`` (mean) and ``sigma`` (uncertainty), openskill's defaults: a newcomer
is ``mu`` 25, ``sigma`` 25/3. What is shown is the conservative ordinal, ``mu - 3
sigma`` (the skill a player has with ~99.9 % confidence), on a familiar scale:

    rating = 1500 + 30 * (mu - 3 * sigma)

so a newcomer shows 1500 and, between two settled players, 400 points are about 10 to 1
odds of winning, as in Elo (docs/ratings.md). Nothing here reads a clock or Redis: the
live read model (``server.players.ratings``) and the rebuild both fold games with ``rate``.

Which rated games move ratings, beside ``events.rated`` (every human seat completed two
turns): between the same two accounts at most ``DAILY_PAIR_GAMES`` counted games a
UTC day (the day of the game's end), a game counting only if none of its pairs of
accounts has had that many that day (``pair_fields``); and an account is listed on the
leaderboard after ``LISTED_GAMES`` counted games against ``LISTED_OPPONENTS``
different opponents (``listed``), provisional before. Bots are never provisional and
no bot is one of a limited pair: a bot is nobody's second account.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from itertools import combinations
from typing import Final, Literal

import msgspec
from openskill.models import PlackettLuce

MODEL: Final = PlackettLuce()
START: Final = 1500.0
"""The displayed rating of a newcomer."""
SCALE: Final = 30.0
"""Display points per unit of ``mu``."""
VARIANTS: Final = ("classic", "duel")
DAILY_PAIR_GAMES: Final = 3
"""Counted games a UTC day between the same two accounts (per variant)."""
LISTED_GAMES: Final = 10
"""Counted games an account needs to be listed on a leaderboard."""
LISTED_OPPONENTS: Final = 5
"""Different opponents (accounts or bot levels) it needs to have met in them."""

Uncounted = Literal["early_end", "daily_limit"]
"""Why a finished rated game moved no rating: it ended before every human seat had
completed two turns (``events.rated``), or a pair of its accounts had had
``DAILY_PAIR_GAMES`` counted games on its day already."""


class Skill(msgspec.Struct, frozen=True):
    """A player's skill in one variant and how many rated games it comes from."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The displayed rating before rounding (what the leaderboard orders by)."""
        return displayed(self.mu, self.sigma)

    @property
    def rating(self) -> int:
        return round(self.ordinal)


NEW: Final = Skill(MODEL.mu, MODEL.sigma, 0)


def displayed(mu: float, sigma: float) -> float:
    """The conservative ordinal ``mu - 3 sigma`` on the display scale."""
    return float(MODEL.rating(mu=mu, sigma=sigma).ordinal(3.0, SCALE, START))


class RatedGame(msgspec.Struct, frozen=True):
    """What a finished rated game gives the ratings: its rated players (account ids or
    ``bot:<level>``), their names as shown, and their ranks (1 best, ties shared), in
    seat order."""

    id: str
    variant: str
    ended_ms: int
    players: tuple[str, ...]
    names: tuple[str, ...]
    ranks: tuple[int, ...]
    early: bool = False  # It ended before every human seat completed two turns.


def is_bot(player: str) -> bool:
    """A bot level's id (``bot:<level>``); account ids have no colon."""
    return player.startswith("bot:")


_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


def utc_day(at_ms: int) -> str:
    """The UTC day of a time in ms since the epoch, ``YYYY-MM-DD``."""
    return (_EPOCH + timedelta(milliseconds=at_ms)).strftime("%Y-%m-%d")


def pair_fields(game: RatedGame) -> list[str]:
    """The daily counters a game would add to: one per pair of its players with an
    account in it, ``"<day> <player> <player>"`` in order, the day its end's. An
    account and a bot level are a pair too: else one account losing to a bot level
    again and again would lift its rating without bound, for others to farm."""
    day = utc_day(game.ended_ms)
    players = sorted(set(game.players))
    return [f"{day} {a} {b}" for a, b in combinations(players, 2) if not (is_bot(a) and is_bot(b))]


def listed(player: str, games: int, opponents: int) -> bool:
    """Whether a player is on the leaderboard (not provisional): any bot; an account
    with ``LISTED_GAMES`` counted games against ``LISTED_OPPONENTS`` opponents."""
    return is_bot(player) or (games >= LISTED_GAMES and opponents >= LISTED_OPPONENTS)


class Change(msgspec.Struct, frozen=True):
    """One player's rating after one game: a point of its history (the graph)."""

    game: str
    at: int  # the game's end, ms since the epoch
    rating: int
    delta: int  # the displayed rating's change
    rank: int
    of: int  # how many rated players the game had


def competition_ranks(ranks: Sequence[int]) -> tuple[int, ...]:
    """``ranks`` renumbered 1, 1, 3 … keeping their order and ties (for a game some of
    whose seats are not rated)."""
    return tuple(1 + sum(other < rank for other in ranks) for rank in ranks)


def rate(game: RatedGame, before: Mapping[str, Skill]) -> dict[str, Skill]:
    """Every player's skill after ``game``, from ``before`` (a missing player is new)."""
    old = [before.get(player, NEW) for player in game.players]
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in old]
    after = MODEL.rate(teams, ranks=[float(r) for r in game.ranks])
    return {
        player: Skill(team[0].mu, team[0].sigma, skill.games + 1)
        for player, skill, team in zip(game.players, old, after, strict=True)
    }


def changes(
    game: RatedGame, before: Mapping[str, Skill], after: Mapping[str, Skill]
) -> list[Change]:
    """Each player's history point for ``game``, in seat order."""
    count = len(game.players)
    points = []
    for player, rank in zip(game.players, game.ranks, strict=True):
        new = after[player].rating
        old = before.get(player, NEW).rating
        points.append(Change(game.id, game.ended_ms, new, new - old, rank, count))
    return points


class RatingBook:
    """The ratings of one variant folded in memory from rated games, in the order they
    are given: what ``splendor ratings rebuild`` computes before writing it whole."""

    def __init__(self, variant: str) -> None:
        self.variant = variant
        self.skills: dict[str, Skill] = {}
        self.names: dict[str, str] = {}
        self.history: dict[str, list[Change]] = {}
        self.counted: dict[str, int] = {}  # game id -> its end (ms)
        self.uncounted: dict[str, Uncounted] = {}  # game id -> why it moved nothing
        self.pairs: dict[str, int] = {}  # pair_fields -> counted games
        self.opponents: dict[str, set[str]] = {}  # account -> whom it met in counted games

    def refusal(self, game: RatedGame, pairs: Mapping[str, int]) -> Uncounted | None:
        """Why ``game`` moves no rating given the daily counters ``pairs``, or None."""
        if game.early:
            return "early_end"
        if any(pairs.get(f, 0) >= DAILY_PAIR_GAMES for f in pair_fields(game)):
            return "daily_limit"
        return None

    def count(self, game: RatedGame) -> bool:
        """Fold one game; False if it was folded already or moves no rating (then
        recorded in ``uncounted``)."""
        if game.id in self.counted or game.id in self.uncounted:
            return False
        refused = self.refusal(game, self.pairs)
        if refused is not None:
            self.uncounted[game.id] = refused
            return False
        for field in pair_fields(game):
            self.pairs[field] = self.pairs.get(field, 0) + 1
        for player in game.players:
            if not is_bot(player):
                met = self.opponents.setdefault(player, set())
                met.update(p for p in game.players if p != player)
        after = rate(game, self.skills)
        for player, name, point in zip(
            game.players, game.names, changes(game, self.skills, after), strict=True
        ):
            self.history.setdefault(player, []).append(point)
            self.names[player] = name
        self.skills.update(after)
        self.counted[game.id] = game.ended_ms
        return True

    def is_listed(self, player: str) -> bool:
        skill = self.skills.get(player, NEW)
        return listed(player, skill.games, len(self.opponents.get(player, ())))

    def listed_players(self) -> Iterable[str]:
        return (p for p in self.skills if self.is_listed(p))


def end_order(games: Sequence[RatedGame]) -> list[RatedGame]:
    """Games in the order the rebuild counts them: by end time, then id."""
    return sorted(games, key=lambda g: (g.ended_ms, g.id))
