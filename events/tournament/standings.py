"""A tournament as a fold of its events: ``decide``-style functions check an action
against the state and return its events, ``evolve`` folds an event into the state,
``standings`` ranks the players (docs/tournaments.md)."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from events.base import TimeControl, VariantName
from events.tournament import arena, swiss
from events.tournament.log import (
    GamePlayed,
    Kind,
    Outcome,
    Pair,
    PauseReason,
    PlayerJoined,
    PlayerLeft,
    PlayerPaused,
    PlayersPaired,
    TournamentCreated,
    TournamentEnded,
    TournamentError,
    TournamentEvent,
)
from events.tournament.swiss import Game, Seat


class Player(msgspec.Struct, frozen=True):
    """A player's part in a tournament. ``active`` is whether they want games (not
    paused, not gone); ``in_game`` whether a game of theirs is in play; ``since_ms``
    when they last started waiting; ``paused_for`` why a paused player was paused
    (None while not paused, or paused by choice)."""

    player: str
    rating: float
    joined_ms: int
    since_ms: int
    active: bool = True
    left: bool = False
    paused_for: PauseReason | None = None
    in_game: bool = False
    last_opponent: str | None = None
    games: tuple[Game, ...] = ()
    seats: tuple[Seat, ...] = ()
    score: arena.ArenaScore = arena.ArenaScore()

    @property
    def waiting(self) -> bool:
        return self.active and not self.in_game

    @property
    def byes(self) -> int:
        return sum(1 for g in self.games if g.outcome == "bye")

    @property
    def swiss_points(self) -> int:
        return sum(swiss.POINTS[g.outcome] for g in self.games)


class Tournament(msgspec.Struct, frozen=True):
    """The state of a tournament: its settings, players (in order of joining), the
    games in play, the Swiss round reached, and whether it has ended."""

    tournament: str
    kind: Kind
    variant: VariantName
    clock: TimeControl
    starts_ms: int
    duration_ms: int | None
    rounds: int | None
    players: dict[str, Player] = msgspec.field(default_factory=dict)
    in_play: tuple[Pair, ...] = ()
    round: int = 0
    ended: bool = False

    @property
    def ends_ms(self) -> int | None:
        """When an arena ends (None for a Swiss, which ends after its rounds)."""
        return None if self.duration_ms is None else self.starts_ms + self.duration_ms

    def points(self, p: Player) -> int:
        return p.score.points if self.kind == "arena" else p.swiss_points


# ---------------------------------------------------------------------- evolve


def _with(t: Tournament, *players: Player, **changes: object) -> Tournament:
    table = dict(t.players)
    for p in players:
        table[p.player] = p
    return msgspec.structs.replace(t, players=table, **changes)


def _result(p: Player, opponent: str | None, outcome: Outcome, at_ms: int) -> Player:
    return msgspec.structs.replace(
        p,
        games=(*p.games, Game(opponent, outcome)),
        score=arena.add_result(p.score, outcome),
        in_game=False,
        last_opponent=opponent if opponent is not None else p.last_opponent,
        since_ms=at_ms,
    )


def evolve(t: Tournament | None, event: TournamentEvent) -> Tournament:
    """The state after ``event`` (which ``decide``-style functions checked)."""
    if isinstance(event, TournamentCreated):
        return Tournament(
            event.tournament, event.kind, event.variant, event.clock,
            event.starts_ms, event.duration_ms, event.rounds,
        )  # fmt: skip
    if t is None:
        raise ValueError("a tournament's events start with TournamentCreated")
    match event:
        case PlayerJoined(player=name, rating=rating, at_ms=at):
            old = t.players.get(name)
            if old is None:
                return _with(t, Player(name, rating, at, at))
            back = msgspec.structs.replace(
                old, rating=rating, active=True, since_ms=at, paused_for=None
            )
            return _with(t, back)
        case PlayerPaused(player=name, reason=why):
            return _with(t, msgspec.structs.replace(t.players[name], active=False, paused_for=why))
        case PlayerLeft(player=name):
            return _with(t, msgspec.structs.replace(t.players[name], active=False, left=True))
        case PlayersPaired(pairs=pairs, at_ms=at, round=rnd, bye=bye):
            changed: list[Player] = []
            for pair in pairs:
                a, b = t.players[pair.first], t.players[pair.second]
                changed.append(msgspec.structs.replace(a, in_game=True, seats=(*a.seats, "first")))
                changed.append(msgspec.structs.replace(b, in_game=True, seats=(*b.seats, "second")))
            if bye is not None:
                changed.append(_result(t.players[bye], None, "bye", at))
            return _with(t, *changed, in_play=(*t.in_play, *pairs), round=max(t.round, rnd))
        case GamePlayed(first=first, second=second, winner=winner, at_ms=at):
            a, b = t.players[first], t.players[second]
            oa: Outcome = "shared" if winner is None else ("win" if winner == first else "loss")
            ob: Outcome = "shared" if winner is None else ("win" if winner == second else "loss")
            rest = tuple(p for p in t.in_play if p != Pair(first, second))
            return _with(t, _result(a, second, oa, at), _result(b, first, ob, at), in_play=rest)
        case TournamentEnded():
            return msgspec.structs.replace(t, ended=True)
    raise TypeError(f"not a tournament event: {event!r}")


def replay(events: Iterable[TournamentEvent]) -> Tournament:
    """The fold of a whole log."""
    t: Tournament | None = None
    for event in events:
        t = evolve(t, event)
    if t is None:
        raise ValueError("an empty log is no tournament")
    return t


# ---------------------------------------------------------------------- decide


def create(
    tournament: str,
    kind: Kind,
    variant: VariantName,
    clock: TimeControl,
    starts_ms: int,
    *,
    duration_ms: int | None = None,
    rounds: int | None = None,
) -> list[TournamentEvent]:
    """An arena needs a positive duration, a Swiss a positive number of rounds."""
    if kind == "arena" and (duration_ms is None or duration_ms <= 0 or rounds is not None):
        raise TournamentError("bad_settings", "an arena has a positive duration and no rounds")
    if kind == "swiss" and (rounds is None or rounds <= 0 or duration_ms is not None):
        raise TournamentError("bad_settings", "a Swiss has a positive number of rounds")
    return [TournamentCreated(tournament, kind, variant, clock, starts_ms, duration_ms, rounds)]


def _open(t: Tournament, now_ms: int) -> None:
    if t.ended or (t.ends_ms is not None and now_ms >= t.ends_ms):
        raise TournamentError("tournament_over", "the tournament has ended")


def _known(t: Tournament, player: str) -> Player:
    p = t.players.get(player)
    if p is None or p.left:
        raise TournamentError("not_in_tournament", f"{player} is not in the tournament")
    return p


def join(t: Tournament, player: str, rating: float, now_ms: int) -> list[TournamentEvent]:
    """Join, or come back after a pause. A player who left stays out; a Swiss
    refuses newcomers once its last round is paired."""
    _open(t, now_ms)
    old = t.players.get(player)
    if old is not None and old.left:
        raise TournamentError("left_tournament", f"{player} left the tournament")
    if old is not None and old.active:
        raise TournamentError("already_joined", f"{player} is already in the tournament")
    if t.kind == "swiss" and t.rounds is not None and t.round >= t.rounds:
        raise TournamentError("tournament_over", "the last round is paired")
    return [PlayerJoined(player, rating, now_ms)]


def pause(t: Tournament, player: str, now_ms: int) -> list[TournamentEvent]:
    """Stop being paired; a game in play is still played and counts."""
    _open(t, now_ms)
    if not _known(t, player).active:
        raise TournamentError("already_paused", f"{player} is paused")
    return [PlayerPaused(player, now_ms)]


def leave(t: Tournament, player: str, now_ms: int) -> list[TournamentEvent]:
    """Leave for good; the points stay in the standings."""
    _known(t, player)
    return [PlayerLeft(player, now_ms)]


def pair_arena(t: Tournament, now_ms: int) -> list[TournamentEvent]:
    """The arena games to start now among the waiting players (none before the
    start, after the end, or with fewer than two waiting)."""
    if t.kind != "arena":
        raise TournamentError("wrong_kind", "not an arena")
    if t.ended or now_ms < t.starts_ms or (t.ends_ms is not None and now_ms >= t.ends_ms):
        return []
    waiting = [
        arena.Waiting(p.player, p.score.points, p.rating, p.last_opponent, p.since_ms)
        for p in t.players.values()
        if p.waiting
    ]
    pairs = arena.pair_waiting(waiting).pairs
    return [PlayersPaired(pairs, now_ms)] if pairs else []


def pair_swiss(t: Tournament, now_ms: int) -> list[TournamentEvent]:
    """The next Swiss round, once the last one's games are all played. Paused
    players sit the round out without points."""
    if t.kind != "swiss":
        raise TournamentError("wrong_kind", "not a Swiss")
    _open(t, now_ms)
    if now_ms < t.starts_ms:
        raise TournamentError("not_started", "the tournament has not started")
    if t.in_play:
        raise TournamentError("round_in_play", "the round's games are not all played")
    if t.rounds is not None and t.round >= t.rounds:
        raise TournamentError("tournament_over", "every round is paired")
    field = [
        swiss.Entrant(
            p.player,
            p.swiss_points,
            p.rating,
            frozenset(g.opponent for g in p.games if g.opponent is not None),
            p.byes,
            p.seats,
        )
        for p in t.players.values()
        if p.active
    ]
    if len(field) < 2:
        raise TournamentError("too_few_players", "a round needs two players")
    paired = swiss.pair_round(field)
    return [PlayersPaired(paired.pairs, now_ms, round=t.round + 1, bye=paired.bye)]


def record(
    t: Tournament, first: str, second: str, winner: str | None, now_ms: int
) -> list[TournamentEvent]:
    """A game in play ended: ``winner`` is one of the two, or None when shared."""
    if Pair(first, second) not in t.in_play:
        raise TournamentError("no_such_game", f"{first} and {second} have no game in play")
    if winner is not None and winner not in (first, second):
        raise TournamentError("bad_result", f"{winner} did not play this game")
    _open(t, now_ms)
    return [GamePlayed(first, second, winner, now_ms)]


def end(t: Tournament, now_ms: int) -> list[TournamentEvent]:
    """An arena ends at its end time (games still in play then do not count); a
    Swiss once its last round is played."""
    if t.ended:
        raise TournamentError("tournament_over", "the tournament has ended")
    if t.kind == "arena" and t.ends_ms is not None and now_ms < t.ends_ms:
        raise TournamentError("not_over", "the arena is still on")
    if t.kind == "swiss" and (t.in_play or (t.rounds is not None and t.round < t.rounds)):
        raise TournamentError("not_over", "rounds are left to play")
    return [TournamentEnded(now_ms)]


# ---------------------------------------------------------------------- standings


class Standing(msgspec.Struct, frozen=True):
    """One line of the standings. ``buchholz`` and ``sonneborn_berger`` are 0 in an
    arena; ``on_streak`` is always False in a Swiss."""

    rank: int
    player: str
    points: int
    games: int
    buchholz: int = 0
    sonneborn_berger: float = 0.0
    on_streak: bool = False
    left: bool = False


def standings(t: Tournament) -> tuple[Standing, ...]:
    """Every player who ever joined, best first. Arena: points, then rating, then
    who joined first. Swiss: points, Buchholz, Sonneborn-Berger, rating, joining."""
    order = {name: i for i, name in enumerate(t.players)}
    if t.kind == "arena":
        ranked = sorted(
            t.players.values(), key=lambda p: (-p.score.points, -p.rating, order[p.player])
        )
        return tuple(
            Standing(
                i + 1,
                p.player,
                p.score.points,
                sum(1 for g in p.games if g.opponent is not None),
                on_streak=p.score.on_streak,
                left=p.left,
            )
            for i, p in enumerate(ranked)
        )
    points = {p.player: p.swiss_points for p in t.players.values()}
    lines = [
        (
            p,
            swiss.buchholz(p.games, points),
            swiss.sonneborn_berger(p.games, points),
        )
        for p in t.players.values()
    ]
    lines.sort(key=lambda x: (-points[x[0].player], -x[1], -x[2], -x[0].rating, order[x[0].player]))
    return tuple(
        Standing(
            i + 1,
            p.player,
            points[p.player],
            sum(1 for g in p.games if g.opponent is not None),
            bh,
            sb,
            left=p.left,
        )
        for i, (p, bh, sb) in enumerate(lines)
    )
