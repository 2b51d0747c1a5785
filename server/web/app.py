"""``create_app``: the Starlette application, its Redis and its game service.

The lifespan connects to ``REDIS_URL`` or, without one, starts the embedded Redis on
the data folder (stopped again when the app stops), builds the store, the lobby and
the service, and starts keeping the lobby whole in the background: it reads no game
before serving (server/games/lobby_keeper.py), so start-up does not grow with history.

Other modules plug in through two lists: ``routes`` (served before the web page) and
``lifespans`` (entered once the service is ready, left before Redis goes away). The
websocket module, ``server/web/game_socket.py``, is picked up by itself when it exists: it exposes
``routes`` (with ``/ws/games/{id}``) and, optionally, ``lifespan(app)`` for its hubs.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from server.common.settings import Settings
from server.games.archiver import ArchiveQueue
from server.games.archiver import lifespan as archiver_lifespan
from server.games.lobby import Lobby
from server.games.service import GameService
from server.games.timekeeper import Deadlines
from server.games.timekeeper import lifespan as timekeeper_lifespan
from server.players.accounts import Accounts
from server.players.profiles import Profiles
from server.store.availability import REDIS_CONNECT_S, keep_redis_up
from server.store.clients import open_client
from server.store.durability import Durability
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore
from server.tools.ratings_rebuild import mending
from server.web.account_routes import account_routes
from server.web.api_routes import EXCEPTION_HANDLERS, api_routes
from server.web.drain import Drain
from server.web.languages import language_routes, load_catalogs
from server.web.metrics import Metrics, metrics_routes
from server.web.rate_limits import ClientLimits, RateLimiter
from server.web.security_headers import SecurityHeaders
from server.web.unhandled_errors import LastResort
from server.workers.analyser import AnalysisQueue

log = logging.getLogger(__name__)

Lifespan = Callable[[Starlette], AbstractAsyncContextManager[Any]]

REDIS_CONNECTIONS = 512


def web_root() -> Path:
    """The static web page: ``client/web/`` inside the installed ``client`` package."""
    return Path(str(resources.files("client").joinpath("web")))


def _plugin_parts() -> tuple[list[BaseRoute], list[Lifespan]]:
    """Routes and lifespan of ``server/web/game_socket.py`` (the websocket hubs), once it exists."""
    if importlib.util.find_spec("server.web.game_socket") is None:
        return [], []
    ws = importlib.import_module("server.web.game_socket")
    lifespan = getattr(ws, "lifespan", None)
    lifespans: list[Lifespan] = [lifespan] if lifespan is not None else []
    # The bot runner plays bot seats (server/workers/bot_runner.py), after the hubs are up.
    bots = importlib.import_module("server.workers.bot_runner")
    lifespans.append(bots.lifespan)
    # Every process keeps the clocks' deadlines (server/games/timekeeper.py).
    lifespans.append(timekeeper_lifespan)
    # Every process archives the games over that fall due (server/games/archiver.py).
    lifespans.append(archiver_lifespan)
    # Quick pairing's desk and socket (server/web/pairing_socket.py).
    pairing = importlib.import_module("server.web.pairing_socket")
    lifespans.append(pairing.lifespan)
    return list(ws.routes) + list(pairing.routes), lifespans


def create_app(
    settings: Settings | None = None,
    *,
    routes: Sequence[BaseRoute] = (),
    lifespans: Sequence[Lifespan] = (),
    plugins: bool = True,
) -> Starlette:
    """The whole server as an ASGI app. ``settings`` default to the environment's.

    ``app.state`` holds ``settings``, ``redis`` (the client), ``store``, ``lobby``,
    ``service``, ``accounts`` (server/players/accounts.py), ``rate_limiter`` (commands) and ``client_limits`` (per address) once
    the lifespan has started, and ``drain`` (server/web/drain.py).
    """
    settings = Settings.from_env() if settings is None else settings
    extra_routes, extra_lifespans = list(routes), list(lifespans)
    if plugins:
        ws_routes, ws_lifespans = _plugin_parts()
        # The websocket route /ws/games/{id} comes from server/web/game_socket.py, here.
        extra_routes = ws_routes + extra_routes
        extra_lifespans = ws_lifespans + extra_lifespans

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        embedded: EmbeddedRedis | None = None
        url = settings.redis_url
        if url is None:
            # Started from the event loop's (main) thread on purpose: the embedded
            # Redis then dies with this process even on kill -9 (PDEATHSIG).
            embedded = EmbeddedRedis(settings.data_dir).start()
            url = embedded.url
            log.info("embedded Redis on %s, files in %s", url, embedded.data_dir)
        # A Redis that can't be reached is given up on after REDIS_CONNECT_S when
        # connecting (the system's wait is minutes): requests get 503 unavailable
        # (server/store/availability.py). A Redis Cluster is told by the node the URL names
        # (server/store/clients.py): the client is then redis-py's cluster client.
        try:
            client = await open_client(
                url, max_connections=REDIS_CONNECTIONS, socket_connect_timeout=REDIS_CONNECT_S
            )
        except BaseException:
            if embedded is not None:
                embedded.stop()
            raise
        # Deadlines written as games change, and rebuilt by start (server/games/timekeeper.py).
        deadlines = Deadlines(client)
        service: GameService | None = None
        # Accounts and sessions (server/players/accounts.py): passwords hashed in threads of
        # their own.
        accounts = Accounts(client)
        try:
            # SPLENDOR_DURABILITY=replica: appends wait for a replica (server/store/durability.py).
            store = EventStore(client, Durability.of(settings))
            lobby = Lobby(client, settings.finished_games)
            service = GameService(store, lobby, cache_games=settings.cache_games)
            service.scheduler = deadlines
            service.archives = ArchiveQueue(client, after_s=settings.archive_after)
            service.analyses = AnalysisQueue(client)
            # Profiles and ratings follow games as they finish (server/players/profiles.py).
            profiles = Profiles(client)
            service.on_finished = profiles.game_finished
            service.on_command = app.state.metrics.command_handled
            await service.start()
            app.state.profiles = profiles
            app.state.ratings_of = profiles.ratings_of  # GET /api/me (server/web/account_routes.py)
            app.state.redis = client
            app.state.store = store
            app.state.lobby = lobby
            app.state.service = service
            app.state.embedded_redis = embedded
            app.state.accounts = accounts
            async with contextlib.AsyncExitStack() as stack:
                # Started again on the same folder and port if it dies (server/store/availability.py).
                app.state.redis_keeper = await stack.enter_async_context(keep_redis_up(embedded))
                # Rated games a stopped process ended but did not count (server/tools/ratings_rebuild.py).
                await stack.enter_async_context(mending(service, profiles))
                for extra in extra_lifespans:
                    await stack.enter_async_context(extra(app))
                yield
        finally:
            if service is not None:
                await service.aclose()  # the lobby's refresh or rebuild, if running
            accounts.close()
            await deadlines.aclose()  # what the last moves noted
            await client.aclose()
            if embedded is not None:
                embedded.stop()

    web = web_root()
    app = Starlette(
        routes=[
            *account_routes(),  # before api_routes' catch-all of /api/
            *api_routes(),
            *metrics_routes(),
            *extra_routes,
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
    app.state.settings = settings
    # Every catalog read now, not on a first request (server/web/languages.py).
    load_catalogs()
    # Draining for a restart (server/web/drain.py): sockets and /healthz look at it.
    app.state.drain = Drain()
    app.state.rate_limiter = RateLimiter(settings.command_rate, settings.command_burst)
    app.state.client_limits = ClientLimits(settings)
    app.state.catalogs = {}
    app.state.metrics = Metrics()
    return app
