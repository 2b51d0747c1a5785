"""Benchmark of the hubs' views and patches; prints its figures.

    .venv/bin/python bench/views_bench.py [--games 30] [--rounds 5] [--profile]

Random games (seeded, random legal play to the end) of 4-player classic and of Duel
are replayed event by event, with every audience watching from the game's creation
(classic: the 4 seats and the spectators = 5 audiences; Duel: 3), two ways:

- **old**: what ``server.live.hubs`` did per event and audience: ``variant.view``, then
  ``members_patch`` (below; it was ``server.live.view_patch``'s) from the audience's previous view (members'
  patches shared between audiences), then the patch encoded with msgspec;
- **new**: ``server.live.audience_views.AudienceViews.advance`` (the encoded patches of every
  audience).

CPU time (``time.process_time``) of each replay minus that of a replay that only
folds the events, divided by the number of events: the µs a hub spends per event on
views + patches + encoding. Each way is timed ``--rounds`` times, interleaved (the
machine is shared: the best round is the figure, the worst says how noisy it was),
and old / new is taken round by round (median).
Also printed: the part of the new way that builds the views (spectator alone, then
with the seats' views), the rules' ``legal_actions`` of the seat to move alone (which
both ways call once an event), the events per command, and the patches' mean size.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import msgspec
from engine_bench import playout

from events.game import VARIANTS, Variant
from server.live.audience_views import AudienceViews
from server.live.view_patch import escape, patch_at

_encode = msgspec.json.Encoder().encode
_MISSING: Any = object()

# Per event: member -> (the view's member before, after, its patch) of one audience.
Shared = dict[str, tuple[Any, Any, list[dict[str, Any]]]]


def members_patch(
    before: dict[str, Any], after: dict[str, Any], shared: Shared
) -> list[dict[str, Any]]:
    """The old way's patch (what the hubs made before ``server.live.audience_views``): two whole
    views diffed member by member, reusing ``shared``, the first patch of each member
    made for the same event in another audience's views."""
    ops: list[dict[str, Any]] = []
    for key, new in after.items():
        old = before.get(key, _MISSING)
        if type(old) is type(new) and old == new:
            continue
        seen = shared.get(key)
        if (
            seen is not None
            and type(seen[1]) is type(new)
            and type(seen[0]) is type(old)
            and seen[1] == new
            and seen[0] == old
        ):
            ops.extend(seen[2])
            continue
        where = "/" + escape(key)
        if old is _MISSING:
            member_ops = [{"op": "add", "path": where, "value": new}]
        else:
            member_ops = patch_at(where, old, new)
        if seen is None:
            shared[key] = (old, new, member_ops)
        ops.extend(member_ops)
    for key in before:
        if key not in after:
            ops.append({"op": "remove", "path": "/" + escape(key)})
    return ops


def fold_only(variant: Variant, logs: list[list[Any]], viewers: list[int | None]) -> int:
    for log in logs:
        state = variant.new_state()
        for event in log:
            variant.evolve(state, event)
    return 0


def old_way(variant: Variant, logs: list[list[Any]], viewers: list[int | None]) -> int:
    size = 0
    for log in logs:
        state = variant.new_state()
        views = {v: variant.view(state, v) for v in viewers}
        for event in log:
            variant.evolve(state, event)
            shared: Shared = {}
            for v in viewers:
                after = variant.view(state, v)
                size += len(_encode(members_patch(views[v], after, shared)))
                views[v] = after
    return size


def new_way(variant: Variant, logs: list[list[Any]], viewers: list[int | None]) -> int:
    size = 0
    for log in logs:
        state = variant.new_state()
        audiences = AudienceViews(variant, state)
        for v in viewers:
            audiences.view(v)
        for event in log:
            variant.evolve(state, event)
            for patch in audiences.advance(event).values():
                size += len(patch)
    return size


def spectator_views(variant: Variant, logs: list[list[Any]], viewers: list[int | None]) -> int:
    for log in logs:
        state = variant.new_state()
        views = variant.new_views()
        for event in log:
            variant.evolve(state, event)
            views.spectator(state, event)
    return 0


def all_views(variant: Variant, logs: list[list[Any]], viewers: list[int | None]) -> int:
    seats = [v for v in viewers if v is not None]
    for log in logs:
        state = variant.new_state()
        views = variant.new_views()
        for event in log:
            variant.evolve(state, event)
            spectator = views.spectator(state, event)
            for seat in seats:
                views.seat(state, seat, spectator)
    return 0


def legal_only(variant: Variant, logs: list[list[Any]], viewers: list[int | None]) -> int:
    for log in logs:
        state = variant.new_state()
        for event in log:
            variant.evolve(state, event)
            if state.status == "live":
                variant.legal_actions(state, state.seat)
    return 0


Way = Callable[[Variant, list[list[Any]], list[int | None]], int]
WAYS: dict[str, Way] = {
    "fold": fold_only,
    "old": old_way,
    "new": new_way,
    "new: spectator view": spectator_views,
    "new: all views": all_views,
    "legal_actions alone": legal_only,
}


def measure(name: str, players: int, games: int, rounds: int) -> None:
    variant = VARIANTS[name]
    played = [playout(variant, players, seed) for seed in range(games)]
    logs = [log for _, log in played]
    events = sum(map(len, logs))
    commands = sum(moves for moves, _ in played)
    viewers: list[int | None] = [None, *range(players)]
    times: dict[str, list[float]] = {way: [] for way in WAYS}
    sizes: dict[str, int] = {}
    for _ in range(rounds):
        for way, run in WAYS.items():
            start = time.process_time()
            sizes[way] = run(variant, logs, viewers)
            times[way].append(time.process_time() - start)
    fold = min(times["fold"])

    def per_event(way: str) -> tuple[float, float]:
        best = (min(times[way]) - fold) / events * 1e6
        worst = (max(times[way]) - fold) / events * 1e6
        return best, worst

    print(
        f"\n{name}, {players} players, {len(viewers)} audiences: {games} games, "
        f"{events} events, {commands} commands ({events / commands:.2f} events a command); "
        f"fold {fold / events * 1e6:.1f} µs an event"
    )
    print(f"  {'way':<22} {'µs an event (best, worst round)':>32} {'µs a command':>13}")
    for way in WAYS:
        if way == "fold":
            continue
        best, worst = per_event(way)
        print(f"  {way:<22} {best:>20.1f} ({worst:.1f}) {best * events / commands:>13.0f}")
    # Each round's old against the same round's new: the two ran a few seconds apart,
    # under about the same load.
    ratios = sorted(
        (o - fold) / (n - fold) for o, n in zip(times["old"], times["new"], strict=True)
    )
    print(
        f"  old / new, round by round: median {ratios[len(ratios) // 2]:.1f}x "
        f"(from {ratios[0]:.1f}x to {ratios[-1]:.1f}x)"
    )
    for way in ("old", "new"):
        print(
            f"  {way} patches: {sizes[way] / events / len(viewers):.0f} bytes an audience an event"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="cProfile the new way")
    args = parser.parse_args()
    if args.profile:
        import cProfile
        import pstats

        variant = VARIANTS["classic"]
        logs = [playout(variant, 4, seed)[1] for seed in range(args.games)]
        with cProfile.Profile() as profile:
            new_way(variant, logs, [None, 0, 1, 2, 3])
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)
        return
    measure("classic", 4, args.games, args.rounds)
    measure("duel", 2, args.games, args.rounds)


if __name__ == "__main__":
    main()
