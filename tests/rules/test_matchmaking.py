"""Quick pairing's pure rules (server/players/pairing_rules.py): the gap curve and who is paired, at explicit times."""

from __future__ import annotations

import math

from server.players.pairing_rules import (
    ANYONE_AFTER_S,
    FRESH_MS,
    GRACE_MS,
    POOLS,
    Entry,
    allowed_gap,
    group_off,
    pair_off,
    pool_named,
    pool_of,
)


def entry(name: str, rating: float, since_ms: int = 0, seen_ms: int | None = None) -> Entry:
    return Entry(name, rating, since_ms, since_ms if seen_ms is None else seen_ms)


def test_gap_widens_with_the_wait() -> None:
    """The allowed gap is 100 at once, 350 after 5 s, 600 after 10 s, anyone after 30 s."""
    assert allowed_gap(0) == 100
    assert allowed_gap(5_000) == 350
    assert allowed_gap(10_000) == 600
    assert allowed_gap(int(ANYONE_AFTER_S * 1000) - 1) < 1600
    assert math.isinf(allowed_gap(int(ANYONE_AFTER_S * 1000)))


def test_pools_are_the_lichess_controls_of_both_games() -> None:
    """Twenty-four pools: 3+2, 5+3, 10+5 for classic (two, three and four players) and Duel, rated and casual, by name."""
    names = {p.name for p in POOLS}
    assert len(names) == 24
    assert "classic-5+3-casual" in names and "duel-10+5-rated" in names
    assert "classic-3p-5+3-casual" in names and "classic-4p-10+5-rated" in names
    four = pool_named("classic-4p-3+2-casual")
    assert four is not None and (four.players, four.rated) == (4, False)
    assert pool_of("classic", 3, "5+3", True) == pool_named("classic-3p-5+3-rated")
    assert pool_of("duel", 3, "5+3", True) is None
    pool = pool_named("duel-3+2-rated")
    assert pool is not None and (pool.initial_s, pool.increment_s, pool.rated) == (180, 2, True)
    assert pool_named("classic-1+0-casual") is None


def test_closest_pair_first() -> None:
    """Of four players at once, the two closest are paired, then the next closest."""
    plan = pair_off(0, [entry("a", 1500), entry("b", 1560), entry("c", 1590), entry("d", 1650)])
    assert plan.pairs == [("b", "c"), ("a", "d")] or plan.pairs[0] == ("b", "c")
    assert plan.pairs[0] == ("b", "c")


def test_too_far_waits_until_the_gap_has_grown() -> None:
    """Two players 400 apart are not paired at once, nor at 5 s, but at 6 s (gap 400)."""

    def at(now: int) -> list[tuple[str, str]]:
        return pair_off(now, [entry("low", 1400, 0, now), entry("high", 1800, 0, now)]).pairs

    assert at(0) == [] and at(5_000) == []
    assert at(6_000) == [("low", "high")]


def test_long_waiter_widens_the_pair() -> None:
    """A newcomer is paired with a player who waited long enough for both of them."""
    entries = [entry("old", 1500, 0, seen_ms=20_000), entry("new", 2000, since_ms=20_000)]
    assert pair_off(20_000, entries).pairs == [("old", "new")]


def test_anyone_after_thirty_seconds() -> None:
    """After 30 s a player accepts any rating."""
    entries = [entry("weak", 600, 0, seen_ms=29_000), entry("strong", 2900, 0, seen_ms=29_000)]
    assert pair_off(29_999, entries).pairs == []
    assert pair_off(30_000, entries).pairs == [("weak", "strong")]


def test_ties_go_to_the_longest_waiting() -> None:
    """At equal distance the pair whose player has waited longer is made first."""
    entries = [entry("a", 1500, since_ms=5), entry("mid", 1550, since_ms=9), entry("b", 1600, 1)]
    assert pair_off(10, entries).pairs == [("mid", "b")]


def test_silent_players_wait_unpaired_then_leave_after_the_grace() -> None:
    """A player unseen for more than FRESH_MS (its connection dropped) is not paired but
    keeps its place; unseen for more than the grace it is gone."""
    entries = [entry("x", 1500, 0, seen_ms=0), entry("y", 1500, 0, seen_ms=GRACE_MS)]
    assert pair_off(FRESH_MS, entries).pairs == [("x", "y")]
    stale = pair_off(FRESH_MS + 1, entries)
    assert stale.pairs == [] and stale.gone == []
    gone = pair_off(GRACE_MS + 1, entries)
    assert gone.gone == ["x"] and gone.pairs == []


def test_twenty_spread_players_all_paired_closest_first() -> None:
    """Twenty players of spread ratings, matched once a second, are all paired once,
    each round closest first, and no pair wider than the curve allowed at its time."""
    ratings = [1000 + 90 * i + (i % 3) * 41 for i in range(20)]
    waiting = {f"p{i}": r for i, r in enumerate(ratings)}
    paired: list[tuple[int, float]] = []  # (time, difference)
    seen_pairs: list[tuple[str, str]] = []
    for now in range(0, 31_000, 1_000):
        plan = pair_off(now, [Entry(i, r, 0, now) for i, r in waiting.items()])
        differences = [abs(waiting[a] - waiting[b]) for a, b in plan.pairs]
        assert differences == sorted(differences)
        assert all(d <= allowed_gap(now) for d in differences)
        for (a, b), difference in zip(plan.pairs, differences, strict=True):
            paired.append((now, difference))
            seen_pairs.append((a, b))
            del waiting[a], waiting[b]
    flat = [p for pair in seen_pairs for p in pair]
    assert not waiting and len(flat) == len(set(flat)) == 20
    assert paired[0] == (0, min(abs(x - y) for x in ratings for y in ratings if x != y))
    assert paired[-1][0] > 0  # the widest waited for the gap to grow


def test_an_account_never_plays_itself() -> None:
    """Two entries of one account (two tabs) are not paired together, but each with another."""
    same = [Entry("t1", 1500, 0, 0, "ana"), Entry("t2", 1500, 0, 0, "ana")]
    assert pair_off(0, same).pairs == []
    plan = pair_off(0, [*same, Entry("b", 1510, 0, 0, "bo")])
    assert len(plan.pairs) == 1 and "b" in plan.pairs[0]


def test_a_pool_of_three_fills_with_the_tightest_run_of_ratings() -> None:
    """Five players in a pool of three: the three of smallest rating spread sit together at once; the two left wait (no table of two without bots)."""
    entries = [
        entry("a", 1300),
        entry("b", 1500),
        entry("c", 1520),
        entry("d", 1540),
        entry("e", 1900),
    ]
    plan = group_off(0, entries, 3)
    assert plan.groups == [("b", "c", "d")] and plan.pairs == []


def test_a_pool_of_four_waits_for_its_fourth_then_widens_with_time() -> None:
    """Four players 450 points apart make no table at once (gap 100), and do after 10 s of wait (gap 600); three players never make a full table of four."""
    entries = [entry(n, r) for n, r in (("a", 1300), ("b", 1450), ("c", 1600), ("d", 1750))]
    assert group_off(0, entries, 4).groups == []
    fresh = [Entry(e.id, e.rating, 0, 10_000) for e in entries]
    assert group_off(10_000, fresh, 4).groups == [("a", "b", "c", "d")]
    assert group_off(10_000, fresh[:3], 4).groups == []


def test_players_who_accept_bots_sit_together_with_bots_in_the_seats_left() -> None:
    """In a pool of four: two players who accepted bots (fill) make a table of two (bots take the other seats) at once; one alone who accepted, or players who did not, wait; the same account is never seated twice."""

    def willing(name: str, since: int, fill: bool = True, account: str | None = None) -> Entry:
        return Entry(name, 1500, since, 30_000, account, fill)

    assert group_off(30_000, [willing("a", 0), willing("b", 5_000)], 4).groups == [("a", "b")]
    assert group_off(30_000, [willing("a", 0), willing("b", 5_000, False)], 4).groups == []
    assert group_off(30_000, [willing("a", 0)], 4).groups == []
    twins = [willing("a", 0, account="ana"), willing("b", 1, account="ana")]
    assert group_off(30_000, twins, 3).groups == []
    stale = [willing("a", 0), Entry("b", 1500, 0, 30_000 - FRESH_MS - 1, None, True)]
    assert group_off(30_000, stale, 4).groups == []  # only players seen lately are seated
