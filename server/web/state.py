"""What the application holds, declared once.

``create_app`` (server/web/app.py) makes ``AppParts``: what exists before the app
serves anything. Its lifespan makes ``Running``: Redis and everything on it, from
when it starts until it ends. They are the only two attributes of Starlette's
``app.state``, and this module is the only one that reads them: a handler asks
``parts(request)`` or ``running(request)`` and gets them typed, so no handler needs a
``cast`` or a ``getattr`` on ``app.state``.

``Running``'s last fields are what runs beside the API once the service is ready:
the websockets' hubs, the bots, the timekeeper, the attendance, the archiver, the
pairing desk, the tournaments' director and their sockets' watches.
Each is None until its lifespan has started it, and stays None in an app made without
them (``create_app(plugins=False)``) or with them turned off (``SPLENDOR_BOTS=off``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.requests import HTTPConnection

from server.common.settings import Settings
from server.games.archiver import ArchiveQueue, Archiver
from server.games.chat import ChatStore
from server.games.lobby import Lobby
from server.games.service import GameService
from server.games.timekeeper import Deadlines, Timekeeper
from server.live.attendance import Attendance
from server.live.hub_registry import HubRegistry
from server.mail.mail import Mail
from server.mail.worker import MailWorker
from server.players.accounts import Accounts
from server.players.pairing_desk import Desk
from server.players.profiles import Profiles
from server.store.availability import RedisKeeper
from server.store.clients import RedisClient
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore
from server.tournaments.director import Director
from server.tournaments.service import TournamentService
from server.tournaments.watches import TournamentWatches
from server.web.drain import Drain
from server.web.login_limits import LoginLimits
from server.web.metrics_registry import Metrics
from server.web.rate_limits import ClientLimits, RateLimiter
from server.workers.analyser import Analyser, AnalysisQueue
from server.workers.bot_runner import BotRunner

__all__ = ["AppParts", "Running", "hold", "parts", "running"]


@dataclass
class AppParts:
    """What ``create_app`` makes, before the lifespan: the settings and what the
    handlers keep in memory for this process."""

    settings: Settings
    # Draining for a restart (server/web/drain.py): sockets and /healthz look at it.
    drain: Drain
    # Commands per seat token (server/web/rate_limits.py).
    rate_limiter: RateLimiter
    # Games created, seats joined and failed authentications per client address.
    client_limits: ClientLimits
    # Password guessing, counted in Redis across processes (server/web/login_limits.py).
    login_limits: LoginLimits
    # What /metrics serves (server/web/metrics_registry.py).
    metrics: Metrics
    # Each variant's catalog, encoded once (GET /api/catalog/{variant}).
    catalogs: dict[str, bytes] = field(default_factory=dict)


@dataclass
class Running:
    """What the lifespan makes: Redis and everything on it, until the lifespan ends."""

    redis: RedisClient
    store: EventStore
    lobby: Lobby
    service: GameService
    accounts: Accounts
    profiles: Profiles
    # The service's schedules: deadlines, games to archive, finished games to analyse.
    deadlines: Deadlines
    archive_queue: ArchiveQueue
    analysis_queue: AnalysisQueue
    # The table chat's rooms (server/games/chat.py).
    chat: ChatStore
    # Tournaments (server/tournaments/service.py).
    tournaments: TournamentService
    # E-mail (server/mail/), None without SPLENDOR_SMTP_URL.
    mail: Mail | None = None
    # The Redis this process started (no REDIS_URL), and what starts it again.
    embedded_redis: EmbeddedRedis | None = None
    redis_keeper: RedisKeeper | None = None
    # What runs beside the API, once started (see the module's docstring).
    hubs: HubRegistry | None = None
    bot_runner: BotRunner | None = None
    analysers: list[Analyser] = field(default_factory=list)
    timekeeper: Timekeeper | None = None
    attendance: Attendance | None = None
    archiver: Archiver | None = None
    pairing: Desk | None = None
    # The tournaments' director and the sockets' watches (server/tournaments/).
    director: Director | None = None
    tournament_watches: TournamentWatches | None = None
    mail_worker: MailWorker | None = None


def _app(holder: Starlette | HTTPConnection) -> Starlette:
    if isinstance(holder, Starlette):
        return holder
    app = holder.app
    if not isinstance(app, Starlette):
        raise TypeError(f"{holder!r} belongs to no Starlette app")
    return app


def parts(holder: Starlette | HTTPConnection) -> AppParts:
    """The ``AppParts`` of an app, or of the app a request or websocket came to."""
    held = _app(holder).state.parts
    if not isinstance(held, AppParts):
        raise TypeError(f"app.state.parts is {held!r}, not AppParts")
    return held


def running(holder: Starlette | HTTPConnection) -> Running:
    """The ``Running`` of an app (or of a request's or websocket's); raises
    ``RuntimeError`` before its lifespan has started."""
    try:
        held = _app(holder).state.running
    except AttributeError:
        raise RuntimeError("the app's lifespan has not started") from None
    if not isinstance(held, Running):
        raise TypeError(f"app.state.running is {held!r}, not Running")
    return held


def hold(app: Starlette, what: AppParts | Running) -> None:
    """Keep ``what`` in ``app.state``: what ``create_app`` and its lifespan call."""
    if isinstance(what, AppParts):
        app.state.parts = what
    else:
        app.state.running = what
