"""Quick pairing's rules, pure: the pools, the allowed rating gap, who is paired.

No I/O and no clock here: ``pair_off(now_ms, entries)`` gets the time and the
waiting players as inputs and says who plays whom and who has left; the Redis side
(``server.players.pairing_pools``) reads the entries, calls it, and claims the pairs in one Lua
script so nobody is paired twice. docs/pairing.md tells the whole design.

**The curve.** A player who has waited ``w`` seconds accepts an opponent within
``gap(w) = 100 + 50·w`` rating points (100 at once, 350 after 5 s, 600 after 10 s),
and anyone once ``w`` reaches ``ANYONE_AFTER_S`` (30 s). A pair is allowed when its
rating difference is within the *larger* of its two players' gaps: a player who has
waited long is not kept waiting by a newcomer's narrow range (the newcomer still
gets the closest player there is, below).

**Closest first.** Among the allowed pairs, the one of smallest rating difference is
made first (ties: the one whose earlier player has waited longer, then by ids, so
the plan is deterministic), then the next among those left, and so on. Candidates
are each player's ``NEIGHBOURS`` nearest ratings on either side: the closest pair is
always among them, and a pool of a thousand is planned in milliseconds.

**Pools of three and four** (classic only): ``group_off(now_ms, entries, size)`` makes
tables of ``size`` players, the tightest rating spread first (a table is allowed when
its spread is within the largest gap of its players), then puts together the players
left who accepted that bots fill the seats nobody took (``Entry.fill``): two or more
of them make a table, the rest of its seats bots'.
"""

from __future__ import annotations

import heapq
from typing import Final

import msgspec

__all__ = [
    "ANYONE_AFTER_S",
    "CLOCKS",
    "FILL_BOT",
    "FRESH_MS",
    "GRACE_MS",
    "OFFER_AFTER_MS",
    "POOLS",
    "Entry",
    "Plan",
    "Pool",
    "allowed_gap",
    "group_off",
    "pair_off",
    "pool_named",
    "pool_of",
]

BASE_GAP: Final = 100.0
GAP_PER_S: Final = 50.0
ANYONE_AFTER_S: Final = 30.0
NEIGHBOURS: Final = 8
GRACE_MS: Final = 10_000
"""A waiting player with no sign of life for this long (its connection dropped, its
server process died) leaves the pool."""
FRESH_MS: Final = 2_000
"""A waiting player is paired only if seen this recently (its server touches it every
quarter second while its connection is open): one whose connection dropped keeps its
place for the grace, to come back to, but is not given a game meanwhile."""
OFFER_AFTER_MS: Final = 20_000
"""After this long alone in a pool a player is offered to play a bot meanwhile, or
another time control; in a pool of three or four, that bots fill the seats left
(``SPLENDOR_PAIRING_OFFER_AFTER`` sets it: docs/pairing.md)."""
FILL_BOT: Final = "greedy"
"""The bot that takes the seats of a table of three or four nobody else took."""


class Pool(msgspec.Struct, frozen=True):
    """One queue: a variant, its number of players, a real-time control, and rated
    (accounts only) or casual (guests and accounts)."""

    variant: str
    initial_s: int
    increment_s: int
    rated: bool
    players: int = 2

    @property
    def clock(self) -> str:
        """The control as players write it: ``5+3`` (minutes + seconds)."""
        return f"{self.initial_s // 60}+{self.increment_s}"

    @property
    def name(self) -> str:
        """``classic-5+3-rated`` (``classic-4p-5+3-rated`` for four players): its
        keys' hash tag and its name on the wire."""
        size = "" if self.players == 2 else f"-{self.players}p"
        return f"{self.variant}{size}-{self.clock}-{'rated' if self.rated else 'casual'}"


CLOCKS: Final = ((180, 2), (300, 3), (600, 5))
"""lichess's pools of blitz and rapid that fit a game of Splendor: 3+2, 5+3, 10+5."""

SIZES: Final = (("classic", 2), ("duel", 2), ("classic", 3), ("classic", 4))
"""The games paired: classic for two, three and four players, and Duel."""

POOLS: Final = tuple(
    Pool(variant, initial, increment, rated, players)
    for variant, players in SIZES
    for initial, increment in CLOCKS
    for rated in (False, True)
)
_BY_NAME: Final = {p.name: p for p in POOLS}


def pool_named(name: str) -> Pool | None:
    return _BY_NAME.get(name)


def pool_of(variant: str, players: int, clock: str, rated: bool) -> Pool | None:
    """The pool of a game, a number of players, a clock (``5+3``) and rated or not."""
    for pool in POOLS:
        if (pool.variant, pool.players, pool.clock, pool.rated) == (
            variant,
            players,
            clock,
            rated,
        ):
            return pool
    return None


class Entry(msgspec.Struct, frozen=True):
    """A waiting player as the matcher sees it: its id, rating, since when it waits
    (ms), when it last showed it is still there (ms), and its account (None: a guest).
    Two entries of one account (two tabs) are never paired together."""

    id: str
    rating: float
    since_ms: int
    seen_ms: int
    account: str | None = None
    fill: bool = False  # It accepted that bots fill a table of three or four.


class Plan(msgspec.Struct, frozen=True):
    """What one round of matching decided: the pairs, closest first (of entries seen
    within ``FRESH_MS``), and the entries that left (no sign of life for ``GRACE_MS``).
    ``groups``: the tables of a pool of three or four, full ones first, then those
    bots fill (fewer players than the pool's)."""

    pairs: list[tuple[str, str]]
    gone: list[str]
    groups: list[tuple[str, ...]] = msgspec.field(default_factory=list)

    def tables(self) -> list[tuple[str, ...]]:
        """Every game the plan makes: its pairs and its groups."""
        return [*self.pairs, *self.groups]


def allowed_gap(waited_ms: int) -> float:
    """The rating gap a player accepts after waiting ``waited_ms`` (infinite after
    ``ANYONE_AFTER_S``)."""
    waited_s = max(0, waited_ms) / 1000
    if waited_s >= ANYONE_AFTER_S:
        return float("inf")
    return BASE_GAP + GAP_PER_S * waited_s


def pair_off(now_ms: int, entries: list[Entry]) -> Plan:
    """Who plays whom at ``now_ms``: the allowed pairs, closest rating first; and who
    has left the pool. Nobody appears twice."""
    gone = sorted(e.id for e in entries if now_ms - e.seen_ms > GRACE_MS)
    live = sorted(
        (e for e in entries if now_ms - e.seen_ms <= FRESH_MS),
        key=lambda e: (e.rating, e.since_ms, e.id),
    )
    gaps = [allowed_gap(now_ms - e.since_ms) for e in live]
    candidates: list[tuple[float, int, str, str, int, int]] = []
    for i, a in enumerate(live):
        for j in range(i + 1, min(len(live), i + 1 + NEIGHBOURS)):
            b = live[j]
            difference = b.rating - a.rating
            same_player = a.account is not None and a.account == b.account
            if difference <= max(gaps[i], gaps[j]) and not same_player:
                first, second = sorted((a.id, b.id))
                earliest = min(a.since_ms, b.since_ms)
                candidates.append((difference, earliest, first, second, i, j))
    heapq.heapify(candidates)
    taken = [False] * len(live)
    pairs: list[tuple[str, str]] = []
    while candidates:
        _, _, _, _, i, j = heapq.heappop(candidates)
        if taken[i] or taken[j]:
            continue
        taken[i] = taken[j] = True
        pairs.append((live[i].id, live[j].id))
    return Plan(pairs, gone)


def _distinct(entries: list[Entry]) -> bool:
    """No account twice (two tabs of one account never sit at one table)."""
    accounts = [e.account for e in entries if e.account is not None]
    return len(accounts) == len(set(accounts))


def group_off(now_ms: int, entries: list[Entry], size: int) -> Plan:
    """The tables of ``size`` players at ``now_ms`` (a pool of three or four): among
    the entries seen within ``FRESH_MS``, sorted by rating, the run of ``size``
    neighbours of smallest spread that its players' gaps allow (the largest gap of
    the run: as for a pair), then the next among those left; then the players left
    who accepted bots (``fill``), oldest first, ``size`` at most a table and two at
    least. And who has left the pool."""
    if size == 2:
        return pair_off(now_ms, entries)
    gone = sorted(e.id for e in entries if now_ms - e.seen_ms > GRACE_MS)
    left = sorted(
        (e for e in entries if now_ms - e.seen_ms <= FRESH_MS),
        key=lambda e: (e.rating, e.since_ms, e.id),
    )
    groups = _full_tables(now_ms, left, size)
    taken = {i for table in groups for i in table}
    left = [e for e in left if e.id not in taken]
    willing = sorted((e for e in left if e.fill), key=lambda e: (e.since_ms, e.id))
    while len(willing) >= 2:
        table: list[Entry] = []
        for entry in list(willing):
            if len(table) < size and _distinct([*table, entry]):
                table.append(entry)
                willing.remove(entry)
        if len(table) < 2:
            break
        groups.append(tuple(e.id for e in table))
    return Plan([], gone, groups)


def _full_tables(now_ms: int, ordered: list[Entry], size: int) -> list[tuple[str, ...]]:
    """The tables of ``size`` neighbours in ``ordered`` (by rating): each time the
    allowed run of smallest spread (then earliest wait, then lowest place), among the
    entries not seated yet. Runs are kept in a heap and the entries in a linked list:
    seating a run makes new runs only across the gap it leaves (a pool of a thousand
    is planned in milliseconds)."""
    count = len(ordered)
    after = list(range(1, count + 1))  # the next entry not seated (count: none)
    before = list(range(-1, count - 1))  # the previous one (-1: none)
    seated = [False] * count
    gaps = [allowed_gap(now_ms - e.since_ms) for e in ordered]

    def run_from(start: int) -> list[int] | None:
        run = [start]
        while len(run) < size and after[run[-1]] < count:
            run.append(after[run[-1]])
        return run if len(run) == size else None

    heap: list[tuple[float, int, int, list[int]]] = []

    def consider(start: int) -> None:
        run = run_from(start)
        if run is None:
            return
        members = [ordered[i] for i in run]
        spread = members[-1].rating - members[0].rating
        if spread <= max(gaps[i] for i in run) and _distinct(members):
            heapq.heappush(heap, (spread, min(e.since_ms for e in members), start, run))

    for start in range(count):
        consider(start)
    tables: list[tuple[str, ...]] = []
    while heap:
        *_, run = heapq.heappop(heap)
        if any(seated[i] for i in run):
            continue  # Its entries are consecutive still, unless one was seated.
        for i in run:
            seated[i] = True
        tables.append(tuple(ordered[i].id for i in run))
        first, last = before[run[0]], after[run[-1]]
        if first >= 0:
            after[first] = last
        if last < count:
            before[last] = first
        # The runs across the gap start at the size - 1 entries before it.
        start = first
        for _ in range(size - 1):
            if start < 0:
                break
            consider(start)
            start = before[start]
    return tables
