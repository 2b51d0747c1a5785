"""Metrics for an operator's Prometheus: ``GET /metrics`` in its text format.

Each server process answers for itself (scrape every process, as the balancer's
backends are listed). Only a scraper holding ``SPLENDOR_METRICS_TOKEN`` gets them, as
``Authorization: Bearer <token>``: without the setting the route answers ``404`` (not
there), with a missing token ``401``, a wrong one ``403`` (PROTOCOL.md's error shape,
``unauthorized``), and past its address's budget of failed authentications ``429``.
A token rather than an address check because behind a proxy on the same host every
request comes from 127.0.0.1.

What is counted (docs/operations.md "Metrics"):

- on the command path, one counter and one histogram observation a command
  (``GameService.on_command``): commands by outcome (``ok``, ``duplicate``, or the
  error code) and their handling time;
- read when scraped, nothing kept in between: sockets by kind, hubs, games in the
  process's cache, whether the process is draining and whether its tailer finds Redis
  up, and from Redis the analysis and archive queues' lengths;
- the process (CPU, memory, open files), Python's garbage collector and its version,
  by ``prometheus_client``'s own collectors.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from typing import Any, Final, cast

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from server.common.errors import forbidden, missing_token, not_found
from server.web.api_routes import client_address
from server.web.rate_limits import ClientLimits

__all__ = ["Metrics", "metrics_routes"]

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
        """``GameService.on_command``: one command's outcome and handling time."""
        counter = self._by_outcome.get(outcome)
        if counter is None:
            # ``labels`` takes a lock and builds a key, so it is called once an outcome.
            counter = self._by_outcome[outcome] = self.commands.labels(outcome)
        counter.inc()
        self.command_seconds.observe(seconds)

    async def render(self, state: Any) -> bytes:
        """The text exposition, the live gauges read from the app's ``state`` now."""
        self._live.state = state
        self._live.queues = await _queue_lengths(state)
        return generate_latest(self.registry)


class _LiveCollector(Collector):
    """Gauges read from the app's state when scraped (nothing to keep up to date)."""

    def __init__(self) -> None:
        self.state: Any = None
        self.queues: dict[str, int] = {}

    def collect(self) -> Iterator[GaugeMetricFamily]:
        state = self.state
        if state is None:
            return
        hubs = getattr(state, "hubs", None)
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
        service = getattr(state, "service", None)
        if service is not None:
            yield GaugeMetricFamily(
                "splendor_cached_games",
                "Games folded in this process's cache.",
                service.cached_games(),
            )
        drain = getattr(state, "drain", None)
        if drain is not None:
            yield GaugeMetricFamily(
                "splendor_draining",
                "1 once this process was told to stop (it finishes what it has).",
                1 if drain.draining else 0,
            )
        for name, help_text in _QUEUE_HELP.items():
            if name in self.queues:
                yield GaugeMetricFamily(f"splendor_{name}", help_text, self.queues[name])


_QUEUE_HELP: Final = {
    "analysis_queue": "Finished games waiting for their analysis (all processes).",
    "archive_queue": "Finished games waiting to be archived (all processes).",
}


async def _queue_lengths(state: Any) -> dict[str, int]:
    """The queues' lengths from Redis; a queue Redis can't answer for is left out."""
    lengths: dict[str, int] = {}
    service = getattr(state, "service", None)
    for name, attribute in (("analysis_queue", "analyses"), ("archive_queue", "archives")):
        queue = getattr(service, attribute, None)
        length = getattr(queue, "length", None)
        if length is None:
            continue
        try:
            lengths[name] = await length()
        except (RedisError, OSError):
            continue
    return lengths


NEEDS_TOKEN: Final = (
    "The metrics need the metrics token (SPLENDOR_METRICS_TOKEN): Authorization: Bearer <token>."
)
WRONG_TOKEN: Final = "This is not the metrics token (SPLENDOR_METRICS_TOKEN)."


async def _authorized(request: Request, token: str) -> None:
    """A bearer token that is the metrics token, checked within its address's budget
    of failed authentications (server/web/rate_limits.py, shared with seat tokens): past it,
    ``429`` whatever the token, so guessing it is as slow as guessing a seat token.
    A request with no token guesses nothing and is not counted."""
    given = request.headers.get("authorization", "")
    scheme, _, value = given.partition(" ")
    if not value.strip() or scheme.lower() != "bearer":
        raise missing_token(NEEDS_TOKEN)

    async def check() -> None:
        if not hmac.compare_digest(value.strip().encode(), token.encode()):
            raise forbidden(WRONG_TOKEN)

    limits = cast(ClientLimits, request.app.state.client_limits)
    await limits.authenticate(client_address(request), check)


async def metrics(request: Request) -> Response:
    """The process's metrics, for the scraper holding the token."""
    state = request.app.state
    token: str = state.settings.metrics_token
    if not token:
        raise not_found("There are no metrics here.")
    await _authorized(request, token)
    body = await state.metrics.render(state)
    return Response(body, media_type=CONTENT_TYPE_LATEST)


def metrics_routes() -> list[BaseRoute]:
    return [Route("/metrics", metrics, methods=["GET"])]
