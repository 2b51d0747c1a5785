"""``server.players.pairing_rules.group_off``: the tables of a pool of three or four,
planned with a heap over runs of neighbours, are the tables of the plain rule (the
allowed run of smallest spread, then earliest wait, then lowest place, again and
again), and nobody sits twice."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from server.players.pairing_rules import Entry, allowed_gap, group_off


def plain_tables(now_ms: int, entries: list[Entry], size: int) -> list[tuple[str, ...]]:
    """The rule as written: every run of the entries left looked at, each time."""
    left = sorted(entries, key=lambda e: (e.rating, e.since_ms, e.id))
    tables: list[tuple[str, ...]] = []
    while len(left) >= size:
        best: tuple[float, int, int] | None = None
        for start in range(len(left) - size + 1):
            run = left[start : start + size]
            spread = run[-1].rating - run[0].rating
            accounts = [e.account for e in run if e.account is not None]
            allowed = spread <= max(allowed_gap(now_ms - e.since_ms) for e in run)
            if allowed and len(accounts) == len(set(accounts)):
                key = (spread, min(e.since_ms for e in run), start)
                best = key if best is None or key < best else best
        if best is None:
            break
        start = best[2]
        tables.append(tuple(e.id for e in left[start : start + size]))
        del left[start : start + size]
    return tables


players = st.lists(
    st.tuples(
        st.sampled_from([1400.0, 1450.0, 1500.0, 1520.0, 1600.0, 1800.0, 2100.0]),
        st.integers(0, 40_000),
        st.sampled_from([None, None, "ana", "bo"]),
    ),
    max_size=16,
)


@settings(max_examples=300, deadline=None)
@given(players, st.sampled_from([3, 4]), st.integers(0, 30_000))
def test_tables_are_the_plain_rules_and_nobody_sits_twice(
    drawn: list[tuple[float, int, str | None]], size: int, later: int
) -> None:
    """Whatever the pool (ratings, waits, two tabs of one account), the full tables are those of the plain rule; with the tables of those who accepted bots, every entry sits once at most."""
    now = 40_000 + later
    entries = [
        Entry(f"e{i}", rating, since, now, account, i % 3 == 0)
        for i, (rating, since, account) in enumerate(drawn)
    ]
    plan = group_off(now, entries, size)
    full = [table for table in plan.groups if len(table) == size]
    assert full[: len(plain_tables(now, entries, size))] == plain_tables(now, entries, size)
    seated = [i for table in plan.groups for i in table]
    assert len(seated) == len(set(seated))
