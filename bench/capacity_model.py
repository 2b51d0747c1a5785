"""The capacity model: what N concurrent players need, from measured unit costs; prints
a Markdown table (docs/operations.md, "Capacity").

    .venv/bin/python bench/capacity_model.py SMALL.json LARGE.json
        [--players 10000 100000 1000000]

Each file is what ``bench/load_bench.py --json`` wrote, for two loads (say 500 and
2,000 games): the CPU a command is the slope between them (what one more command
costs) and the rest a process's fixed cost (beats, sweeps, the lobby), so that a
light load's fixed costs are not counted per command. From the larger: server
memory a socket and an idle process, server memory a socket and an idle process, Redis memory a live game,
commands a game a second and sockets a game, all measured on people-paced games with
spectators coming and going and chat. The analysis of a finished game is measured
apart (bench/README.md, docs/analysis.md) and given here as constants. What is not
measured is an assumption, named below and printed with the table.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

# Assumptions (docs/operations.md says why each).
PLAYERS_PER_GAME = 2.2  # most games have two seats; some classic games three or four
COMMANDS_PER_GAME = 70  # a 2-player classic game: ~66 turn starts and a few choices
CORE_TARGET = 0.6  # a server process or an analyser kept below 60% of its core
SHARD_CPU_TARGET = 0.5  # a Redis primary kept below half of its one core
SHARD_MEMORY_GIB = 8.0  # live data a shard may hold (a 16 GiB machine, half free)
ANALYSIS_CPU_S = 0.75 * 6.7 + 0.25 * 25.7  # three classic games for one Duel game
# The share of finished games analysed in each mode (SPLENDOR_ANALYSIS): every game;
# the rated ones (a third, say) and asks; asks alone (one game in twenty, say).
ANALYSED_SHARE = {"every": 1.0, "rated": 0.3, "request": 0.05}


def fit(small: dict[str, Any], large: dict[str, Any], cores: str) -> tuple[float, float]:
    """CPU seconds a command (the slope) and cores a process spends anyway."""
    slope = (large[cores] - small[cores]) / (large["commands_per_s"] - small["commands_per_s"])
    fixed = (large[cores] - slope * large["commands_per_s"]) / large["processes"]
    return slope, max(0.0, fixed)


def need(units: dict[str, Any], players: int) -> dict[str, float]:
    games = players / PLAYERS_PER_GAME
    commands = games * units["commands_per_game_s"]
    sockets = games * units["sockets_per_game"]
    per_command, fixed = units["server_cpu_s_per_command"], units["server_fixed_cores"]
    # Each process spends ``fixed`` of its core anyway; commands share the rest.
    processes = max(1, math.ceil(commands * per_command / (CORE_TARGET - fixed)))
    server_gib = (
        processes * units["process_idle_rss_mib"] / 1024
        + sockets * units["server_kib_per_socket"] / 2**20
    )
    shard_cpu = commands * units["redis_primary_cpu_s_per_command"] / SHARD_CPU_TARGET
    redis_gib = games * units["redis_kib_per_live_game"] / 2**20
    shards = max(1, math.ceil(shard_cpu), math.ceil(redis_gib / SHARD_MEMORY_GIB))
    finished = commands / COMMANDS_PER_GAME
    return {
        "games": games,
        "commands": commands,
        "sockets": sockets,
        "processes": processes,
        "server_gib": server_gib,
        "shards": shards,
        "shard_cpu": shard_cpu,
        "redis_gib": redis_gib,
        "finished_per_s": finished,
        **{
            f"analysis_{mode}": finished * share * ANALYSIS_CPU_S / CORE_TARGET
            for mode, share in ANALYSED_SHARE.items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("small", type=Path)
    parser.add_argument("large", type=Path)
    parser.add_argument("--players", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    args = parser.parse_args()
    small, large = (json.loads(path.read_text()) for path in (args.small, args.large))
    units = dict(large)
    units["server_cpu_s_per_command"], units["server_fixed_cores"] = fit(
        small, large, "server_cores"
    )
    units["redis_primary_cpu_s_per_command"], _ = fit(small, large, "redis_primary_cores")
    print(
        f"Unit costs ({units['date']}, {small['games']} and {units['games']} games on"
        f" {units['processes']} processes and {units['shards']} shard(s), load average"
        f" {small['load_average']:.1f} and {units['load_average']:.1f}): server"
        f" {units['server_cpu_s_per_command'] * 1e6:.0f} µs CPU a command and"
        f" {units['server_fixed_cores'] * 100:.0f}% of a core a process anyway; Redis primary {units['redis_primary_cpu_s_per_command'] * 1e6:.0f}"
        f" µs a command (the replica {units['redis_replica_cpu_s_per_command'] * 1e6:.0f} µs"
        " at the larger load);"
        f" {units['server_kib_per_socket']:.1f} KiB a socket; an idle process"
        f" {units['process_idle_rss_mib']:.0f} MiB; Redis {units['redis_kib_per_live_game']:.1f}"
        f" KiB a live game; {units['commands_per_game_s']:.3f} commands a game a second"
        f" (a move every {units['move_every_s']:.0f} s a seat); {units['sockets_per_game']:.1f}"
        " sockets a game.\n"
    )
    print(
        "| concurrent players | games | commands/s | sockets | server processes (cores)"
        " | server memory | Redis shards (primaries) | Redis memory (live games) |"
        " finished games/s | analysis cores: every game / rated (30%) / asked (5%) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for players in args.players:
        n = need(units, players)
        print(
            f"| {players:,} | {n['games']:,.0f} | {n['commands']:,.0f} | {n['sockets']:,.0f}"
            f" | {n['processes']:,} | {n['server_gib']:,.1f} GiB | {n['shards']:,}"
            f" ({n['shard_cpu']:.1f} by CPU) | {n['redis_gib']:,.1f} GiB"
            f" | {n['finished_per_s']:,.1f} | {n['analysis_every']:,.0f} /"
            f" {n['analysis_rated']:,.0f} / {n['analysis_request']:,.0f} |"
        )


if __name__ == "__main__":
    main()
