"""Swiss tournaments (events/tournament/swiss.py and standings.py): pairing by
maximum-weight matching, byes, first seats, Buchholz and Sonneborn-Berger."""

from __future__ import annotations

import itertools

import pytest

from events.base import TimeControl
from events.tournament import standings as st
from events.tournament.log import (
    GamePlayed,
    Pair,
    PlayersPaired,
    TournamentError,
    TournamentEvent,
)
from events.tournament.swiss import Entrant, Game, buchholz, pair_round, sonneborn_berger


def _swiss(rounds: int, *players: tuple[str, float]) -> st.Tournament:
    t = st.replay(st.create("s", "swiss", "duel", TimeControl(300, 3), 0, rounds=rounds))
    for name, rating in players:
        t = _apply(t, st.join(t, name, rating, 0))
    return t


def _apply(t: st.Tournament, events: list[TournamentEvent]) -> st.Tournament:
    for e in events:
        t = st.evolve(t, e)
    return t


def _round(t: st.Tournament, now: int, winners: set[str]) -> tuple[st.Tournament, PlayersPaired]:
    """Pairs the next round and plays it: a winner of ``winners`` wins, else shared."""
    events = st.pair_swiss(t, now)
    paired = events[0]
    assert isinstance(paired, PlayersPaired)
    t = _apply(t, events)
    for p in paired.pairs:
        won = next((x for x in (p.first, p.second) if x in winners), None)
        t = _apply(t, st.record(t, p.first, p.second, won, now + 1))
    return t, paired


def met(pairs: tuple[Pair, ...]) -> set[frozenset[str]]:
    return {frozenset((p.first, p.second)) for p in pairs}


def test_equal_scores_meet_and_nobody_meets_twice() -> None:
    """Four players, three rounds: winners meet winners, and the three rounds are the three distinct pairings."""
    t = _swiss(3, ("a", 1800), ("b", 1700), ("c", 1600), ("d", 1500))
    t, r1 = _round(t, 10, {"a", "c"})
    t, r2 = _round(t, 20, {"a", "b"})
    t, r3 = _round(t, 30, set())
    rounds = [met(r.pairs) for r in (r1, r2, r3)]
    assert len(rounds[0] | rounds[1] | rounds[2]) == 6
    winners = {p for m in rounds[0] for p in m if p in {"a", "c"}}
    assert frozenset(winners) in rounds[1]


def test_winners_meet_winners() -> None:
    """After a-b and c-d with a and c winning, round two is a-c and b-d."""
    field = [
        Entrant("a", 2, 1800, frozenset("b"), seats=("first",)),
        Entrant("b", 0, 1700, frozenset("a"), seats=("second",)),
        Entrant("c", 2, 1600, frozenset("d"), seats=("first",)),
        Entrant("d", 0, 1500, frozenset("c"), seats=("second",)),
    ]
    assert met(pair_round(field).pairs) == {frozenset("ac"), frozenset("bd")}


def test_players_who_met_get_no_edge_even_at_equal_scores() -> None:
    """Two leaders who have met are not paired again: each plays the one below instead."""
    field = [
        Entrant("a", 4, 1800, frozenset("bc")),
        Entrant("b", 4, 1700, frozenset("ad")),
        Entrant("c", 2, 1600, frozenset("a")),
        Entrant("d", 2, 1500, frozenset("b")),
    ]
    assert met(pair_round(field).pairs) == {frozenset("ad"), frozenset("bc")}


def test_equal_scores_come_before_seats() -> None:
    """Two who both want the second seat still meet when their scores are equal."""
    field = [
        Entrant("a", 2, 1800, seats=("first",)),
        Entrant("b", 2, 1700, seats=("first",)),
        Entrant("c", 0, 1600, seats=("second",)),
        Entrant("d", 0, 1500, seats=("second",)),
    ]
    assert met(pair_round(field).pairs) == {frozenset("ab"), frozenset("cd")}


def test_seat_wishes_choose_among_equal_scores() -> None:
    """At equal scores, those who had the first seat meet those who had the second, in whatever order they come."""
    field = [
        Entrant("a", 2, 1800, seats=("second",)),
        Entrant("b", 2, 1700, seats=("second",)),
        Entrant("c", 2, 1600, seats=("first",)),
        Entrant("d", 2, 1500, seats=("first",)),
    ]
    for order in itertools.permutations(field):
        pairs = pair_round(order).pairs
        assert {p.first for p in pairs} == {"a", "b"}, order
        assert {p.second for p in pairs} == {"c", "d"}, order


def test_first_seats_alternate() -> None:
    """Fewer first seats so far take the first seat; with as many, the one who had the second last; else the higher placed."""
    more_firsts = Entrant("a", 2, 1800, seats=("first", "first", "second"))
    fewer_firsts = Entrant("b", 2, 1400, seats=("second", "second", "first"))
    assert pair_round([more_firsts, fewer_firsts]).pairs == (Pair("b", "a"),)
    last_first = Entrant("a", 2, 1800, seats=("second", "first"))
    last_second = Entrant("b", 2, 1400, seats=("first", "second"))
    assert pair_round([last_first, last_second]).pairs == (Pair("b", "a"),)
    assert pair_round([Entrant("b", 2, 1400), Entrant("a", 2, 1800)]).pairs == (Pair("a", "b"),)


def test_seats_alternate_over_a_tournament() -> None:
    """Over four rounds of six players, nobody has the same seat three times running nor more than 3 of 4."""
    t = _swiss(4, ("a", 1800), ("b", 1700), ("c", 1600), ("d", 1500), ("e", 1400), ("f", 1300))
    for r in range(4):
        t, _ = _round(t, 10 * (r + 1), {"a", "d", "e"} if r % 2 else {"b", "c", "f"})
    for p in t.players.values():
        assert abs(p.seats.count("first") - p.seats.count("second")) <= 2, p
        assert all(len(set(p.seats[i : i + 3])) == 2 for i in range(len(p.seats) - 2)), p


def test_the_bye_goes_to_a_lowest_score_player_without_one_and_counts_as_a_win() -> None:
    """Five players: each round's bye goes to the lowest score without a bye, and scores 2."""
    t = _swiss(3, ("a", 1900), ("b", 1800), ("c", 1700), ("d", 1600), ("e", 1500))
    t, r1 = _round(t, 10, {"a", "b", "c", "d"})
    assert r1.bye == "e"  # Everyone on 0: the lowest rating.
    assert t.players["e"].swiss_points == 2
    losers = {p.player for p in t.players.values() if p.swiss_points == 0}
    t, r2 = _round(t, 20, set())
    assert r2.bye in losers
    t, r3 = _round(t, 30, set())
    byes = [r1.bye, r2.bye, r3.bye]
    assert len(set(byes)) == 3
    assert all(p.byes <= 1 for p in t.players.values())


def test_bye_goes_to_the_lowest_score_only_among_those_without_one() -> None:
    """The lowest score has had a bye: the next lowest without one gets it."""
    field = [
        Entrant("a", 4, 1500),
        Entrant("b", 2, 1500),
        Entrant("c", 0, 1500, byes=1),
    ]
    assert pair_round(field).bye == "b"


def test_rounds_are_paired_once_played_and_no_more_than_set() -> None:
    """A round is paired only when the last is played, and no round after the last one."""
    t = _swiss(1, ("a", 1500), ("b", 1500))
    t = _apply(t, st.pair_swiss(t, 10))
    with pytest.raises(TournamentError) as refused:
        st.pair_swiss(t, 11)
    assert refused.value.code == "round_in_play"
    t = _apply(t, [GamePlayed("a", "b", "a", 12)] if Pair("a", "b") in t.in_play else
               [GamePlayed("b", "a", "a", 12)])  # fmt: skip
    with pytest.raises(TournamentError):
        st.pair_swiss(t, 13)
    t = _apply(t, st.end(t, 14))
    assert [line.player for line in st.standings(t)] == ["a", "b"]


WORKED = """
Five players, two rounds (a win 2, a shared victory 1, a loss 0, a bye 2):

    round 1: a beats b, c beats d, e has the bye
    round 2: d beats a, c beats e, b has the bye

    points:     a 2, b 2 (bye), c 4, d 2, e 2 (bye)
    Buchholz (sum of the opponents' points; a bye adds nothing):
                a: b 2 + d 2 = 4      b: a 2 = 2           c: d 2 + e 2 = 4
                d: c 4 + a 2 = 6      e: c 4 = 4
    Sonneborn-Berger (points of those beaten, half of those shared with):
                a: b 2 = 2            b: 0                 c: d 2 + e 2 = 4
                d: a 2 = 2            e: 0
    standings:  c (4), then on 2: d (Buchholz 6), a (4, SB 2), e (4, SB 0), b (2)
"""


def test_buchholz_and_sonneborn_berger_on_a_worked_example() -> None:
    """The worked example of WORKED (by hand): Buchholz 4 2 4 6 4, SB 2 0 4 2 0, ranks c d a e b."""
    t = _swiss(2, ("a", 1500), ("b", 1500), ("c", 1500), ("d", 1500), ("e", 1500))
    t = _apply(
        t,
        [
            PlayersPaired((Pair("a", "b"), Pair("c", "d")), 10, round=1, bye="e"),
            GamePlayed("a", "b", "a", 11),
            GamePlayed("c", "d", "c", 12),
            PlayersPaired((Pair("d", "a"), Pair("e", "c")), 20, round=2, bye="b"),
            GamePlayed("d", "a", "d", 21),
            GamePlayed("e", "c", "c", 22),
        ],
    )
    lines = {line.player: line for line in st.standings(t)}
    assert {p: line.points for p, line in lines.items()} == dict(a=2, b=2, c=4, d=2, e=2)
    assert {p: line.buchholz for p, line in lines.items()} == dict(a=4, b=2, c=4, d=6, e=4)
    assert {p: line.sonneborn_berger for p, line in lines.items()} == dict(a=2, b=0, c=4, d=2, e=0)
    assert [line.player for line in st.standings(t)] == ["c", "d", "a", "e", "b"]


def test_a_shared_victory_gives_half_the_opponents_points_to_sonneborn_berger() -> None:
    """Shared with an opponent on 3, beaten one on 4: SB 4 + 1.5, Buchholz 7."""
    games = [Game("x", "shared"), Game("y", "win"), Game(None, "bye")]
    points = {"x": 3, "y": 4}
    assert sonneborn_berger(games, points) == 5.5
    assert buchholz(games, points) == 7
