"""Metrics for an operator's Prometheus: ``GET /metrics`` in its text format.

Each server process answers for itself (scrape every process, as the balancer's
backends are listed). Only a scraper holding ``SPLENDOR_METRICS_TOKEN`` gets them, as
``Authorization: Bearer <token>``: without the setting the route answers ``404`` (not
there), with a missing token ``401``, a wrong one ``403`` (PROTOCOL.md's error shape,
``unauthorized``), and past its address's budget of failed authentications ``429``.
A token rather than an address check because behind a proxy on the same host every
request comes from 127.0.0.1.

What is counted: server/web/metrics_registry.py.
"""

from __future__ import annotations

import hmac

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from server.common.errors import forbidden, missing_token, not_found
from server.tournaments.indexes import TournamentIndexes
from server.web.metrics_registry import Queue
from server.web.request_parts import client_address
from server.web.state import parts, running

__all__ = ["metrics_routes"]


async def _authorized(request: Request, token: str) -> None:
    """A bearer token that is the metrics token, checked within its address's budget
    of failed authentications (server/web/rate_limits.py, shared with seat tokens): past it,
    ``429`` whatever the token, so guessing it is as slow as guessing a seat token.
    A request with no token guesses nothing and is not counted."""
    given = request.headers.get("authorization", "")
    scheme, _, value = given.partition(" ")
    if not value.strip() or scheme.lower() != "bearer":
        raise missing_token("metrics.token_missing")

    async def check() -> None:
        if not hmac.compare_digest(value.strip().encode(), token.encode()):
            raise forbidden("metrics.token_wrong")

    await parts(request).client_limits.authenticate(client_address(request), check, guessable=True)


async def metrics(request: Request) -> Response:
    """The process's metrics, for the scraper holding the token."""
    app_parts = parts(request)
    token = app_parts.settings.metrics_token
    if not token:
        raise not_found("metrics.none")
    await _authorized(request, token)
    now = running(request)
    queues: dict[str, Queue] = {
        "analysis_queue": now.analysis_queue,
        "archive_queue": now.archive_queue,
    }
    if now.tournaments is not None:
        queues["tournaments_open"] = _OpenTournaments(now.tournaments.indexes)
    if now.mail is not None:
        queues["mail_queue"] = now.mail.outbox
    body = await app_parts.metrics.render(
        service=now.service,
        drain=app_parts.drain,
        hubs=now.hubs,
        queues=queues,
        analysis=now.analysis_queue,
        director=None if now.director is None else now.director.counts,
        mail_outcomes=None if now.mail_worker is None else now.mail_worker.outcomes,
    )
    return Response(body, media_type=CONTENT_TYPE_LATEST)


class _OpenTournaments:
    """The tournaments open, read as the other gauges read from Redis are."""

    def __init__(self, indexes: TournamentIndexes) -> None:
        self.indexes = indexes

    async def length(self) -> int:
        return await self.indexes.open_count()


def metrics_routes() -> list[BaseRoute]:
    return [Route("/metrics", metrics, methods=["GET"])]
