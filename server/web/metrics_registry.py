"""What ``GET /metrics`` (server/web/metrics.py) counts, in one process's registry
(docs/operations.md "Metrics"):

- on the command path, one counter and one histogram observation a command
  (``ServiceHooks.on_command``): commands by outcome (``ok``, ``duplicate``, or the
  error code) and their handling time;
- read when scraped, nothing kept in between: sockets by kind, hubs, games in the
  process's cache, whether the process is draining and whether its tailer finds Redis
  up, the appends the store wrote without a replica (``replica-if-any``), and from
  Redis the analysis and archive queues' lengths, and the analysis
  queue's figures, every process's (games being analysed, analysers alive, analyses
  done, the waits between a request and its analysis's start, the recent analyses'
  mean duration);
- the tournaments' director of this process (looks, looks left to the process holding
  a tournament's lease, failed looks, pairs and results it appended), and from Redis
  the tournaments open (upcoming or running, all processes);
- with e-mail on, this process's sends by outcome, and from Redis the e-mails queued
  (all processes);
- the process (CPU, memory, open files), Python's garbage collector and its version,
  by ``prometheus_client``'s own collectors.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Final, Protocol

from prometheus_client import (
    CollectorRegistry,
    Counter,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from redis.exceptions import RedisError

from server.games.service import GameService
from server.live.hub_registry import HubRegistry
from server.tournaments.director import DirectorCounts
from server.web.drain import Drain
from server.workers.analyser import AnalysisQueue, AnalysisStats, now_ms

__all__ = ["Metrics", "Queue"]


class Queue(Protocol):
    """A queue whose length is read from Redis when scraped."""

    async def length(self) -> int: ...


# In seconds. A move is decided and appended in about a millisecond, and the slow tail
# is Redis's.
COMMAND_BUCKETS: Final = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0)


class Metrics:
    """One process's metrics, in a registry of its own (an app's, not the module's
    global one: two apps in one process, as tests make, don't collide)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.commands = Counter(
            "splendor_commands",
            "Commands handled (HTTP, websocket, bots), by outcome: ok, duplicate, or the error code.",
            ["outcome"],
            registry=self.registry,
        )
        self.command_seconds = Histogram(
            "splendor_command_seconds",
            "Time to handle a command: decide, append, acknowledge.",
            buckets=COMMAND_BUCKETS,
            registry=self.registry,
        )
        self._by_outcome: dict[str, Counter] = {}
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self._live = _LiveCollector()
        self.registry.register(self._live)

    def command_handled(self, outcome: str, seconds: float) -> None:
        """``ServiceHooks.on_command``: one command's outcome and handling time."""
        counter = self._by_outcome.get(outcome)
        if counter is None:
            # ``labels`` takes a lock and builds a key, so it is called once an outcome.
            counter = self._by_outcome[outcome] = self.commands.labels(outcome)
        counter.inc()
        self.command_seconds.observe(seconds)

    async def render(
        self,
        *,
        service: GameService,
        drain: Drain,
        hubs: HubRegistry | None,
        queues: Mapping[str, Queue],
        analysis: AnalysisQueue | None = None,
        director: DirectorCounts | None = None,
        mail_outcomes: Mapping[str, int] | None = None,
    ) -> bytes:
        """The text exposition, the live gauges read now from what is given (no hubs
        in an app without sockets); ``queues`` by the names of ``QUEUE_HELP``, the
        analysis queue's figures and the tournaments' director's counts."""
        self._live.service, self._live.drain, self._live.hubs = service, drain, hubs
        self._live.director = director
        self._live.mail_outcomes = mail_outcomes
        self._live.queues = await _queue_lengths(queues)
        self._live.analysis = None
        if analysis is not None:
            with contextlib.suppress(RedisError, OSError):  # left out while Redis is down
                self._live.analysis = await analysis.stats(now_ms())
        return generate_latest(self.registry)


class _LiveCollector(Collector):
    """Gauges read from the app's state when scraped (nothing to keep up to date)."""

    def __init__(self) -> None:
        self.service: GameService | None = None  # None until the first scrape
        self.drain: Drain | None = None
        self.hubs: HubRegistry | None = None
        self.queues: dict[str, int] = {}
        self.analysis: AnalysisStats | None = None
        self.director: DirectorCounts | None = None
        self.mail_outcomes: Mapping[str, int] | None = None

    def collect(self) -> Iterator[Metric]:
        service, drain, hubs = self.service, self.drain, self.hubs
        if service is None or drain is None:
            return
        if hubs is not None:
            players, spectators = hubs.socket_counts()
            sockets = GaugeMetricFamily(
                "splendor_sockets", "Game websockets open on this process.", labels=["kind"]
            )
            sockets.add_metric(["player"], players)
            sockets.add_metric(["spectator"], spectators)
            yield sockets
            yield GaugeMetricFamily(
                "splendor_hubs", "Games watched over websockets on this process.", len(hubs)
            )
            yield GaugeMetricFamily(
                "splendor_redis_up",
                "1 while this process's tailer reads Redis, 0 while it finds it down.",
                0 if hubs.tailer.down is not None else 1,
            )
        durability = service.store.durability
        if durability is not None:
            # Kept by the store (server/store/durability.py), read when scraped.
            unreplicated = CounterMetricFamily(
                "splendor_unreplicated_writes",
                "Appends written on a Redis primary that had no replica to wait for"
                " (SPLENDOR_DURABILITY=replica-if-any), by primary.",
                labels=["primary"],
            )
            for primary, count in sorted(durability.seen.unreplicated.items()):
                unreplicated.add_metric([primary or "redis"], count)
            yield unreplicated
        yield GaugeMetricFamily(
            "splendor_cached_games",
            "Games folded in this process's cache.",
            service.repository.cached_games(),
        )
        yield GaugeMetricFamily(
            "splendor_draining",
            "1 once this process was told to stop (it finishes what it has).",
            1 if drain.draining else 0,
        )
        for name, help_text in QUEUE_HELP.items():
            if name in self.queues:
                yield GaugeMetricFamily(f"splendor_{name}", help_text, self.queues[name])
        if self.analysis is not None:
            yield from _analysis_metrics(self.analysis)
        if self.director is not None:
            yield from _director_metrics(self.director)
        if self.mail_outcomes is not None:
            sends = CounterMetricFamily(
                "splendor_mail_sends",
                "E-mails this process tried to send, by outcome: sent, retry (refused for now,"
                " queued again), failed (refused for good), unknown (the connection was lost"
                " during DATA: never sent again), lost (taken back by another process).",
                labels=["outcome"],
            )
            for outcome, count in sorted(self.mail_outcomes.items()):
                sends.add_metric([outcome], count)
            yield sends


def _director_metrics(counts: DirectorCounts) -> Iterator[Metric]:
    """What this process's tournament director did (server/tournaments/director.py)."""
    looks = CounterMetricFamily(
        "splendor_tournament_looks",
        "Looks at a tournament by this process's director, by outcome: done, held (another"
        " process held its lease), failed.",
        labels=["outcome"],
    )
    looks.add_metric(["done"], counts.looks)
    looks.add_metric(["held"], counts.held)
    looks.add_metric(["failed"], counts.failed)
    yield looks
    yield CounterMetricFamily(
        "splendor_tournament_pairs",
        "Tournament games paired by this process's director.",
        counts.pairs,
    )
    yield CounterMetricFamily(
        "splendor_tournament_results",
        "Tournament games' results recorded by this process's director.",
        counts.results,
    )


def _analysis_metrics(stats: AnalysisStats) -> Iterator[Metric]:
    """The analysis queue's figures (all processes, from Redis: server/workers/analyser.py)."""
    yield GaugeMetricFamily(
        "splendor_analysis_running",
        "Finished games an analyser is analysing (all processes).",
        stats.running,
    )
    yield GaugeMetricFamily(
        "splendor_analysers",
        "Analysers alive: beating within the last 30 s (all processes and machines).",
        stats.analysers,
    )
    yield CounterMetricFamily("splendor_analyses", "Analyses finished (all processes).", stats.done)
    yield HistogramMetricFamily(
        "splendor_analysis_wait_seconds",
        "Time from an analysis's request (or its game's end) to its start.",
        buckets=[(bound, float(count)) for bound, count in stats.wait_buckets],
        sum_value=stats.wait_sum,
    )
    if stats.mean_seconds is not None:
        yield GaugeMetricFamily(
            "splendor_analysis_recent_seconds",
            "Mean duration of the last analyses (the wait shown to players is made of it).",
            stats.mean_seconds,
        )


QUEUE_HELP: Final = {
    "tournaments_open": "Tournaments upcoming or running (all processes).",
    "mail_queue": "E-mails not settled: queued (due, or waiting for a retry or their hour)"
    " or being sent (all processes).",
    "analysis_queue": "Finished games waiting for their analysis (all processes).",
    "archive_queue": "Finished games waiting to be archived (all processes).",
}


async def _queue_lengths(queues: Mapping[str, Queue]) -> dict[str, int]:
    """The queues' lengths from Redis; a queue Redis can't answer for is left out."""
    lengths: dict[str, int] = {}
    for name, queue in queues.items():
        try:
            lengths[name] = await queue.length()
        except (RedisError, OSError):
            continue
    return lengths
