"""``create_app``: the Starlette application, what it holds, and its lifespan.

What the app holds is declared once, in server/web/state.py: ``AppParts``, made
here before anything is served, and ``Running``, made by the lifespan. The lifespan
is a stack of context managers, each named for what it starts, entered in this order
and left in the reverse one:

1. ``connected_redis``: the client of ``REDIS_URL``, or the embedded Redis started on
   the data folder (stopped again at the end) and its client;
2. ``serving_games``: the store, the lobby, the accounts, the profiles and the game
   service with its hooks (server/games/service.py, ``ServiceHooks``); the service
   starts keeping the lobby whole in the background, reading no game before serving
   (server/games/lobby_keeper.py), so start-up does not grow with history;
3. ``keep_redis_up``: the embedded Redis started again when it dies;
4. ``mending``: the ratings of games a stopped process ended but did not count;
5. unless ``plugins`` is false, what runs beside the API: ``live_hubs`` (the
   websockets' hubs, which bind the service's ``observer`` and ``away_since``),
   ``running_bots``, ``running_timekeeper``, ``running_archiver``,
   ``running_pairing_desk``, ``running_director``, ``watching_tournaments`` and,
   with ``SPLENDOR_SMTP_URL``, ``running_mail``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from server.common.settings import Settings, SettingsError
from server.games.archiver import ArchiveQueue, running_archiver
from server.games.chat import ChatStore
from server.games.hooks import ServiceHooks
from server.games.lobby import Lobby
from server.games.service import GameService
from server.games.timekeeper import Deadlines, running_timekeeper
from server.live.attendance import running_attendance
from server.mail.mail import Mail
from server.mail.worker import running_mail
from server.players.accounts import Accounts
from server.players.pairing_desk import ratings_of
from server.players.profiles import Profiles
from server.store.availability import REDIS_CONNECT_S, keep_redis_up
from server.store.clients import RedisClient, is_cluster, open_client
from server.store.durability import Durability
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore
from server.tools.ratings_rebuild import mending
from server.tournaments.announcements import mail_announcer
from server.tournaments.director import running_director
from server.tournaments.schedule import parse_schedules
from server.tournaments.service import TournamentService
from server.tournaments.watches import watching_tournaments
from server.web import game_socket, pairing_socket, tournament_socket
from server.web.account_routes import account_routes
from server.web.api_routes import EXCEPTION_HANDLERS, api_routes
from server.web.drain import Drain
from server.web.game_socket import live_hubs
from server.web.languages import language_routes, load_catalogs
from server.web.login_limits import LoginLimits
from server.web.mail_routes import mail_routes
from server.web.metrics import metrics_routes
from server.web.metrics_registry import Metrics
from server.web.pairing_socket import running_pairing_desk
from server.web.rate_limits import ClientLimits, RateLimiter
from server.web.security_headers import SecurityHeaders
from server.web.state import AppParts, Running, hold
from server.web.unhandled_errors import LastResort
from server.workers.analyser import AnalysisQueue
from server.workers.bot_runner import running_bots

log = logging.getLogger(__name__)

REDIS_CONNECTIONS = 512


def web_root() -> Path:
    """The static web page: ``client/web/`` inside the installed ``client`` package."""
    return Path(str(resources.files("client").joinpath("web")))


@asynccontextmanager
async def connected_redis(
    settings: Settings,
) -> AsyncIterator[tuple[RedisClient, EmbeddedRedis | None]]:
    """The client of ``settings.redis_url``, or of an embedded Redis started on the
    data folder when there is none (and stopped at the end), with that Redis."""
    embedded: EmbeddedRedis | None = None
    url = settings.redis_url
    if url is None:
        # Started from the event loop's (main) thread on purpose: the embedded
        # Redis then dies with this process even on kill -9 (PDEATHSIG).
        embedded = EmbeddedRedis(settings.data_dir).start()
        url = embedded.url
        log.info("embedded Redis on %s, files in %s", url, embedded.data_dir)
    try:
        # A Redis that can't be reached is given up on after REDIS_CONNECT_S when
        # connecting (the system's wait is minutes): requests get 503 unavailable
        # (server/store/availability.py). A Redis Cluster is told by the node the URL
        # names (server/store/clients.py): the client is then redis-py's cluster client.
        client = await open_client(
            url, max_connections=REDIS_CONNECTIONS, socket_connect_timeout=REDIS_CONNECT_S
        )
        try:
            yield client, embedded
        finally:
            await client.aclose()
    finally:
        if embedded is not None:
            embedded.stop()


@asynccontextmanager
async def serving_games(
    client: RedisClient, settings: Settings, metrics: Metrics
) -> AsyncIterator[Running]:
    """The store, the lobby, the accounts, the profiles and the game service on
    ``client``, the service started; each closed at the end."""
    # Deadlines written as games change, and rebuilt by start (server/games/timekeeper.py).
    deadlines = Deadlines(client)
    service: GameService | None = None
    # Accounts and sessions (server/players/accounts.py): passwords are hashed in
    # threads of their own.
    accounts = Accounts(client)
    try:
        # SPLENDOR_DURABILITY: appends wait for a replica (server/store/durability.py).
        store = EventStore(client, Durability.of(settings, is_cluster(client)))
        lobby = Lobby(client, settings.finished_games)
        # Profiles and ratings follow games as they finish (server/players/profiles.py).
        profiles = Profiles(client)
        archive_queue = ArchiveQueue(client, after_s=settings.archive_after)
        # Which finished games are queued for analysis (SPLENDOR_ANALYSIS, docs/analysis.md).
        analysis_queue = AnalysisQueue(client, settings.analysis)
        chat = ChatStore(client)
        # Tournaments, their players rated as quick pairing rates them (server/tournaments/).
        tournaments = TournamentService(client, ratings=ratings_of(client))
        hooks = ServiceHooks(
            scheduler=deadlines,
            archives=archive_queue,
            analyses=analysis_queue,
            chat=chat,
            on_finished=profiles.game_finished,
            on_command=metrics.command_handled,
        )
        # E-mail only with SPLENDOR_SMTP_URL (docs/email.md): the turns' notices then.
        mail = Mail(client, settings, accounts) if settings.smtp_url else None
        hooks.turns = mail
        service = GameService(store, lobby, cache_games=settings.cache_games, hooks=hooks)
        await service.listing.start()
        yield Running(
            redis=client,
            store=store,
            lobby=lobby,
            service=service,
            accounts=accounts,
            profiles=profiles,
            deadlines=deadlines,
            archive_queue=archive_queue,
            analysis_queue=analysis_queue,
            chat=chat,
            tournaments=tournaments,
            mail=mail,
        )
    finally:
        if service is not None:
            await service.listing.aclose()  # the lobby's refresh or rebuild, if running
        accounts.close()
        await deadlines.aclose()  # what the last moves noted


def create_app(
    settings: Settings | None = None,
    *,
    routes: Sequence[BaseRoute] = (),
    plugins: bool = True,
) -> Starlette:
    """The whole server as an ASGI app. ``settings`` default to the environment's.

    ``routes`` are served before the web page. ``plugins``: the websockets (games and
    quick pairing), the bots, the timekeeper and the archiver run beside the API
    (false for tests of the API alone). What the app holds: server/web/state.py.
    """
    settings = Settings.from_env() if settings is None else settings
    app_parts = AppParts(
        settings=settings,
        drain=Drain(),
        rate_limiter=RateLimiter(settings.command_rate, settings.command_burst),
        client_limits=ClientLimits(settings),
        login_limits=LoginLimits(settings),
        metrics=Metrics(),
    )
    try:
        parse_schedules(settings.scheduled_tournaments)
    except ValueError as e:
        raise SettingsError(f"SPLENDOR_SCHEDULED_TOURNAMENTS: {e}") from None
    socket_routes = (
        [*game_socket.routes, *pairing_socket.routes, *tournament_socket.routes] if plugins else []
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            client, embedded = await stack.enter_async_context(connected_redis(settings))
            now = await stack.enter_async_context(
                serving_games(client, settings, app_parts.metrics)
            )
            now.embedded_redis = embedded
            hold(app, now)
            # Started again on the same folder and port if it dies (server/store/availability.py).
            now.redis_keeper = await stack.enter_async_context(keep_redis_up(embedded))
            # Rated games a stopped process ended but did not count (server/tools/ratings_rebuild.py).
            await stack.enter_async_context(mending(now.service, now.profiles))
            if plugins:
                await stack.enter_async_context(beside_the_api(now, settings))
            yield

    web = web_root()
    app = Starlette(
        routes=[
            *account_routes(),  # before api_routes' catch-all of /api/
            *mail_routes(),  # the pages e-mails link to (docs/email.md)
            *api_routes(),
            *metrics_routes(),
            *socket_routes,
            *routes,
            # The page's catalogs, and "/" in the request's language (server/web/languages.py).
            *language_routes(web),
            # Last: the web page (hash routing, so "/" and its files are all it needs).
            Mount("/", StaticFiles(directory=web, html=True, check_dir=False), name="web"),
        ],
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[
            # Outermost: every answer, the last resort's 500 too (server/web/security_headers.py).
            Middleware(SecurityHeaders),
            # What no handler caught: one log line and the protocol's shape, no traceback.
            Middleware(LastResort),
        ],
        lifespan=lifespan,
    )
    hold(app, app_parts)
    # Every catalog read now, not on a first request (server/web/languages.py).
    load_catalogs()
    return app


@asynccontextmanager
async def beside_the_api(now: Running, settings: Settings) -> AsyncIterator[None]:
    """What runs beside the API once the service is ready, each kept in ``now`` while
    it runs: the websockets' hubs, then the bots (which play through the service as
    anyone), the timekeeper, the archiver and the pairing desk."""
    service, client = now.service, now.redis
    async with contextlib.AsyncExitStack() as stack:
        now.hubs = await stack.enter_async_context(live_hubs(service, client, settings))
        now.bot_runner, now.analysers = await stack.enter_async_context(
            running_bots(service, client, settings)
        )
        # Every process keeps the clocks' deadlines (server/games/timekeeper.py).
        now.timekeeper = await stack.enter_async_context(running_timekeeper(service, now.deadlines))
        # Who attends the open and live games: the lists, and games left (server/live/attendance.py).
        presence = now.hubs.hub_presence
        await presence.start()  # beats known before the first look
        now.attendance = await stack.enter_async_context(
            running_attendance(service, now.lobby, presence.presence)
        )
        # Every process archives the games over that fall due (server/games/archiver.py).
        now.archiver = await stack.enter_async_context(running_archiver(service, now.archive_queue))
        # Quick pairing's desk (server/web/pairing_socket.py).
        now.pairing = await stack.enter_async_context(running_pairing_desk(client, service))
        # Tournaments: every process directs them, once each (server/tournaments/director.py).
        schedules = parse_schedules(settings.scheduled_tournaments)
        now.director = await stack.enter_async_context(
            running_director(
                client,
                now.tournaments,
                service,
                schedules,
                # Their start e-mailed to those who joined (docs/email.md), with mail on.
                None if now.mail is None else mail_announcer(now.mail),
            )
        )
        now.tournament_watches = await stack.enter_async_context(
            watching_tournaments(now.tournaments)
        )
        # E-mails sent from the outbox, with SPLENDOR_SMTP_URL (server/mail/worker.py).
        if now.mail is not None:
            now.mail_worker = await stack.enter_async_context(running_mail(now.mail, service))
        yield
