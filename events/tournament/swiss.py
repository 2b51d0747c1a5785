"""A Swiss round's pairing as a maximum-weight matching (networkx) and the Swiss
tie-breaks, Buchholz and Sonneborn-Berger (docs/tournaments.md, "Swiss")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

import msgspec

from events.tournament.log import Outcome, Pair

if TYPE_CHECKING:
    import networkx as nx

Seat = Literal["first", "second"]

# The node of the bye in the matching graph; player ids are strings, so no clash.
_BYE = ("bye",)
# Beyond this many players, each one gets edges only to the next ``NEIGHBOURS``
# players up the order of points then rating, among its own score and the next
# score above and below: a full graph of 500 takes seconds to match, this a fraction
# of one (bench/README.md, "Tournament pairing"). A round that this leaves short of
# a full pairing is matched again over every allowed edge.
FULL_GRAPH_UP_TO = 64
NEIGHBOURS = 72


class Entrant(msgspec.Struct, frozen=True):
    """A player to pair: their points, rating, whom they have met, their byes, and
    the seats they had (oldest first)."""

    player: str
    points: int
    rating: float
    met: frozenset[str] = frozenset()
    byes: int = 0
    seats: tuple[Seat, ...] = ()

    @property
    def balance(self) -> int:
        """First seats minus second seats so far."""
        return sum(1 if s == "first" else -1 for s in self.seats)

    @property
    def wants(self) -> Seat | None:
        """The seat that would even out their seats, or alternate them."""
        if self.balance > 0:
            return "second"
        if self.balance < 0:
            return "first"
        if self.seats:
            return "second" if self.seats[-1] == "first" else "first"
        return None


class SwissPairing(msgspec.Struct, frozen=True):
    """A round: its games, its bye (None with an even field), and the players the
    no-rematch rule left without a game (empty unless the field is exhausted)."""

    pairs: tuple[Pair, ...]
    bye: str | None
    unpaired: tuple[str, ...] = ()


def _seat_bonus(a: Entrant, b: Entrant) -> int:
    """2 when the two want different seats, 1 when one has no wish, 0 when both
    want the same seat."""
    wa, wb = a.wants, b.wants
    if wa is None or wb is None:
        return 1
    return 2 if wa != wb else 0


def _seated(a: Entrant, b: Entrant) -> Pair:
    """Who of the two takes the first seat: the one who wants it, else the one with
    fewer first seats, else the higher-placed (more points, then rating, then id)."""
    if a.wants != b.wants:
        if a.wants == "first" or b.wants == "second":
            return Pair(a.player, b.player)
        if b.wants == "first" or a.wants == "second":
            return Pair(b.player, a.player)
    ka = (a.balance, -a.points, -a.rating, a.player)
    kb = (b.balance, -b.points, -b.rating, b.player)
    return Pair(a.player, b.player) if ka <= kb else Pair(b.player, a.player)


def _graph(field: Sequence[Entrant], restrict: bool) -> nx.Graph:
    """The matching graph: an edge for every pair that has not met, weighted so that
    (1) any fewer squared point gaps beat every seat preference, (2) the bye goes to
    the first it can of those with the fewest byes, in order of points then rating
    (lowest first), whatever that costs the pairing of the rest."""
    n = len(field)
    top = max((e.points for e in field), default=0)
    seat_unit = 1
    gap_unit = 2 * n + 1  # More than the largest total of seat bonuses.
    base = gap_unit * (top + 1) ** 2 + 2 * seat_unit
    bye_unit = base * (n + 1)  # More than any total of pair weights.
    # Imported when a round is paired, not with the module: networkx costs a process
    # about 20 MiB, and most server processes never pair a Swiss.
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(e.player for e in field)
    levels = sorted({e.points for e in field})
    near: dict[int, set[int]] = {
        p: {q for q in levels[max(0, i - 1) : i + 2]} for i, p in enumerate(levels)
    }
    by_rating = sorted(field, key=lambda e: (e.points, e.rating, e.player))
    for i, a in enumerate(by_rating):
        partners = by_rating[i + 1 :]
        if restrict:
            partners = [b for b in partners if b.points in near[a.points]][:NEIGHBOURS]
        for b in partners:
            if b.player in a.met or a.player in b.met:
                continue
            gap = (a.points - b.points) ** 2
            g.add_edge(
                a.player, b.player, weight=base - gap_unit * gap + seat_unit * _seat_bonus(a, b)
            )
    if n % 2 == 1:
        fewest = min(e.byes for e in field)
        eligible = sorted(
            (e for e in field if e.byes == fewest), key=lambda e: (e.points, e.rating, e.player)
        )
        for i, e in enumerate(eligible):
            g.add_edge(_BYE, e.player, weight=bye_unit * (len(eligible) - i))
    return g


def pair_round(field: Sequence[Entrant]) -> SwissPairing:
    """Pairs one round: ``networkx.max_weight_matching`` with maxcardinality over
    the graph of ``_graph`` (no edge between players who have met)."""
    import networkx as nx  # as in _graph

    restrict = len(field) > FULL_GRAPH_UP_TO
    matching = nx.max_weight_matching(_graph(field, restrict), maxcardinality=True)
    if restrict and 2 * len(matching) < len(field) + len(field) % 2:
        matching = nx.max_weight_matching(_graph(field, False), maxcardinality=True)
    by_id = {e.player: e for e in field}
    pairs: list[Pair] = []
    bye: str | None = None
    for u, v in matching:
        if u == _BYE or v == _BYE:
            bye = v if u == _BYE else u
            continue
        pairs.append(_seated(by_id[u], by_id[v]))
    placed = {p for pair in pairs for p in (pair.first, pair.second)}
    if bye is not None:
        placed.add(bye)
    order = {e.player: i for i, e in enumerate(field)}
    pairs.sort(key=lambda p: min(order[p.first], order[p.second]))
    unpaired = tuple(e.player for e in field if e.player not in placed)
    return SwissPairing(tuple(pairs), bye, unpaired)


class Game(msgspec.Struct, frozen=True):
    """One Swiss result of a player: the opponent (None for a bye) and the outcome."""

    opponent: str | None
    outcome: Outcome


POINTS: Mapping[Outcome, int] = {"win": 2, "bye": 2, "shared": 1, "loss": 0}


def buchholz(games: Sequence[Game], points: Mapping[str, int]) -> int:
    """The sum of the points of the player's opponents; a bye adds nothing."""
    return sum(points[g.opponent] for g in games if g.opponent is not None)


def sonneborn_berger(games: Sequence[Game], points: Mapping[str, int]) -> float:
    """The points of the opponents beaten plus half those of the opponents with
    whom a victory was shared; a bye adds nothing."""
    total = 0.0
    for g in games:
        if g.opponent is None:
            continue
        if g.outcome == "win":
            total += points[g.opponent]
        elif g.outcome == "shared":
            total += points[g.opponent] / 2
    return total
