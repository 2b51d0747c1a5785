"""Server settings: defaults, overridden by the environment, then by the command line.

Every setting has an environment variable (``SPLENDOR_*``, plus the conventional
``REDIS_URL``, ``HOST`` and ``PORT``), so a Procfile or a container needs no flags.
docs/operations.md lists them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Literal, get_args
from urllib.parse import urlsplit

MAX_BODY_BYTES: Final = 64 * 1024
WS_BUFFER_BYTES: Final = 256 * 1024

TailMode = Literal["auto", "notify", "poll"]
BotsMode = Literal["inline", "off"]
DurabilityMode = Literal["off", "replica", "replica-if-any"]
ChatMode = Literal["on", "off", "presets"]
AnalysisMode = Literal["request", "rated", "every", "off"]


class SettingsError(ValueError):
    """An environment variable holds a value the server cannot use."""


@dataclass(frozen=True)
class Settings:
    """What a server process needs to know; immutable once built."""

    # The Redis to use, by URL (Redis 6.2+, Valkey or a Cluster); None starts an embedded one.
    redis_url: str | None = None
    # Where the embedded Redis keeps its files (append-only log, snapshot, logs).
    data_dir: Path = Path("data")
    host: str = "127.0.0.1"
    port: int = 8000
    # Commands per second a client may send on average, and the burst it may send at once.
    command_rate: float = 10.0
    command_burst: int = 30
    # How many games' projections stay in memory; the least recently used go first.
    cache_games: int = 2000
    # How many finished (and aborted) games the lobby lists, those that ended last.
    # Older ones still open by id and are exported like any (server/games/lobby.py).
    finished_games: int = 1000
    max_body_bytes: int = MAX_BODY_BYTES
    # How many bytes one socket may fall behind before its diffs are dropped for a
    # snapshot, and how the tailer waits for other processes' events ("auto" takes
    # keyspace notifications when Redis allows them, and polls otherwise).
    ws_buffer: int = WS_BUFFER_BYTES
    tail: TailMode = "auto"
    # How often, in seconds, a process tells the others it is alive. Its sockets stop
    # counting DEAD_AFTER_BEATS beats after it dies (server/live/presence.py).
    presence_beat: float = 3.0
    # Seconds alone in a quick-pairing pool before the page offers a bot meanwhile,
    # another clock, or bots filling a table of three or four (docs/pairing.md).
    pairing_offer_after: float = 20.0
    # Who plays the bot seats: this process ("inline") or a `splendor bots` worker
    # ("off"). A bot pauses before it answers so that a person can follow (0 in
    # tests), and MCTS thinks for mcts_seconds a move.
    bots: BotsMode = "inline"
    bot_delay: float = 0.4
    mcts_seconds: float = 1.0
    # Which finished games are analysed (docs/analysis.md "When a game is analysed"):
    # those someone asks for ("request"), those and the rated ones ("rated"), all of
    # them ("every"), or none ("off"). Search iterations for each position (server/workers/analyser.py;
    # 0: this process analyses nothing), and how many analysers a `splendor serve`
    # (with its bots) or `splendor bots` process runs (0: leave the analysis to
    # `splendor analyse` workers).
    analysis: AnalysisMode = "request"
    analysis_budget: int = 300
    analysers: int = 1
    # Analyses asked for (POST /api/games/{id}/analysis) per account, or per address
    # for a guest: a rate a second and a burst (0: no limit).
    analysis_request_rate: float = 1 / 30
    analysis_request_burst: int = 10
    # Connections (server/web/connections.py), in seconds: the time a client has to
    # send a whole request, an idle keep-alive connection's life, a websocket's ping
    # period (0 sends no pings) and how long its pong may take before it is closed.
    request_timeout: float = 10.0
    keep_alive_timeout: float = 5.0
    ws_ping_interval: float = 20.0
    ws_ping_timeout: float = 20.0
    # Limits per client address (server/web/rate_limits.py) on games created, seats
    # joined and failed authentications, each a rate a second and a burst. A rate of
    # 0 sets no limit.
    create_rate: float = 0.5
    create_burst: int = 30
    join_rate: float = 1.0
    join_burst: int = 60
    auth_failure_rate: float = 0.1
    auth_failure_burst: int = 20
    # Log-in limits (server/web/account_routes.py, docs/accounts.md "Log-in limits"),
    # each a rate a second and a burst, where a rate of 0 sets no limit. Per client
    # address, they count failed log-ins, sign-ups and deletions. Per account and
    # address, they count failed log-ins strictly, and per account, failed log-ins
    # from any address more loosely. Past those, the account backs off for the
    # addresses that failed on it, with a wait from ``login_backoff`` seconds that
    # doubles up to ``login_backoff_cap``. Meanwhile an address with no recent failure
    # there still tries, within the account's budget for new addresses.
    login_rate: float = 0.2
    login_burst: int = 20
    account_address_login_rate: float = 1 / 900
    account_address_login_burst: int = 5
    account_login_rate: float = 1 / 60
    account_login_burst: int = 10
    new_address_login_rate: float = 20 / 3600
    new_address_login_burst: int = 20
    login_backoff: float = 30.0
    login_backoff_cap: float = 900.0
    # The session cookie is Secure when the request came over https, as uvicorn sees
    # it (X-Forwarded-Proto counts only from a trusted proxy), and always with this set.
    secure_cookies: bool = False
    # Origins, besides the server's own (its Host), whose pages may send requests
    # that use a session (``https://play.example.org``).
    allowed_origins: tuple[str, ...] = ()
    # Addresses of proxies whose X-Forwarded-For names the client ("*" trusts any).
    # There are none by default, so a client is the address that connects.
    trusted_proxies: tuple[str, ...] = ()
    # Rolling restarts (server/web/drain.py): seconds a stopping process may take to let
    # its commands in flight finish and close its sockets with 1012.
    drain_seconds: float = 10.0
    # Durability (server/store/durability.py): "replica" makes every append wait until a
    # replica has it (WAIT 1) before the command is answered or the move shown; a
    # replica that has not acknowledged it within the timeout (ms) gets the command
    # answered as if the connection was lost (the client sends it again), and a
    # primary with no replica gets its appends refused. "replica-if-any" waits the
    # same where the primary has a replica and writes without one where it has none.
    # None (unset) is "replica-if-any" on a Redis Cluster and "off" on one Redis.
    durability: DurabilityMode | None = None
    durability_timeout_ms: int = 1000
    # Seconds after a game's end before it is archived, which makes its log one
    # compact value and drops its stream, commands and seats (server/games/archiver.py).
    archive_after: float = 600.0
    # The bearer token a Prometheus scraper gives for GET /metrics (server/web/metrics.py).
    # When it is empty, no metrics are served. It is a secret, so the repr leaves it out.
    metrics_token: str = field(default="", repr=False)
    # Table chat (server/games/chat.py, docs/chat.md): "on", "off" (nobody writes or
    # reads, and no history is sent) or "presets" (only the preset phrases are taken).
    chat: ChatMode = "on"
    # Tournaments on a schedule (server/tournaments/schedule.py, docs/operations.md):
    # "duel 3+2 arena 60m hourly; classic 5+3 swiss 5r daily@20:00". Empty: none.
    scheduled_tournaments: str = ""
    # E-mail (docs/email.md): the SMTP server to send through, as
    # ``smtp://user:pass@host:port`` (``smtps://`` for implicit TLS, ``?starttls=1`` to
    # upgrade a plain connection). Without it nothing is sent and the page asks for no
    # address. ``mail_from`` is the From address; ``public_url`` the address of the site
    # as its players reach it, which the links in e-mails start with; ``mail_lease`` the
    # seconds a process may hold a message it claimed before another takes it back
    # (only a message whose DATA has not begun). The URL holds a password: no repr.
    smtp_url: str = field(default="", repr=False)
    mail_from: str = "splendor@localhost"
    public_url: str = ""
    mail_lease: float = 120.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Defaults overridden by the environment (``os.environ`` unless given)."""
        env = os.environ if environ is None else environ
        base = cls()
        return replace(
            base,
            redis_url=env.get("REDIS_URL") or None,
            data_dir=Path(env.get("SPLENDOR_DATA_DIR") or base.data_dir),
            host=env.get("HOST") or base.host,
            port=_int(env, "PORT", base.port),
            command_rate=_float(env, "SPLENDOR_COMMAND_RATE", base.command_rate),
            command_burst=_int(env, "SPLENDOR_COMMAND_BURST", base.command_burst),
            cache_games=_int(env, "SPLENDOR_CACHE_GAMES", base.cache_games),
            finished_games=_int(env, "SPLENDOR_FINISHED_GAMES", base.finished_games, least=1),
            ws_buffer=_int(env, "SPLENDOR_WS_BUFFER", base.ws_buffer, least=1),
            tail=_choice(env, "SPLENDOR_TAIL", get_args(TailMode), base.tail),
            presence_beat=max(0.05, _float(env, "SPLENDOR_PRESENCE_BEAT", base.presence_beat)),
            pairing_offer_after=max(
                0.0, _float(env, "SPLENDOR_PAIRING_OFFER_AFTER", base.pairing_offer_after)
            ),
            bots=_choice(env, "SPLENDOR_BOTS", get_args(BotsMode), base.bots),
            bot_delay=max(0.0, _float(env, "SPLENDOR_BOT_DELAY", base.bot_delay)),
            mcts_seconds=max(0.01, _float(env, "SPLENDOR_MCTS_SECONDS", base.mcts_seconds)),
            analysis=_choice(env, "SPLENDOR_ANALYSIS", get_args(AnalysisMode), base.analysis),
            analysis_budget=_int(env, "SPLENDOR_ANALYSIS_BUDGET", base.analysis_budget, least=0),
            analysers=_int(env, "SPLENDOR_ANALYSERS", base.analysers, least=0),
            analysis_request_rate=_float(
                env, "SPLENDOR_ANALYSIS_REQUEST_RATE", base.analysis_request_rate
            ),
            analysis_request_burst=_int(
                env, "SPLENDOR_ANALYSIS_REQUEST_BURST", base.analysis_request_burst, least=1
            ),
            request_timeout=_seconds(env, "SPLENDOR_REQUEST_TIMEOUT", base.request_timeout),
            keep_alive_timeout=_seconds(
                env, "SPLENDOR_KEEP_ALIVE_TIMEOUT", base.keep_alive_timeout
            ),
            ws_ping_interval=_float(env, "SPLENDOR_WS_PING_INTERVAL", base.ws_ping_interval),
            ws_ping_timeout=_seconds(env, "SPLENDOR_WS_PING_TIMEOUT", base.ws_ping_timeout),
            create_rate=_float(env, "SPLENDOR_CREATE_RATE", base.create_rate),
            create_burst=_int(env, "SPLENDOR_CREATE_BURST", base.create_burst, least=1),
            join_rate=_float(env, "SPLENDOR_JOIN_RATE", base.join_rate),
            join_burst=_int(env, "SPLENDOR_JOIN_BURST", base.join_burst, least=1),
            auth_failure_rate=_float(env, "SPLENDOR_AUTH_FAILURE_RATE", base.auth_failure_rate),
            auth_failure_burst=_int(
                env, "SPLENDOR_AUTH_FAILURE_BURST", base.auth_failure_burst, least=1
            ),
            login_rate=_float(env, "SPLENDOR_LOGIN_RATE", base.login_rate),
            login_burst=_int(env, "SPLENDOR_LOGIN_BURST", base.login_burst, least=1),
            account_address_login_rate=_float(
                env, "SPLENDOR_ACCOUNT_ADDRESS_LOGIN_RATE", base.account_address_login_rate
            ),
            account_address_login_burst=_int(
                env,
                "SPLENDOR_ACCOUNT_ADDRESS_LOGIN_BURST",
                base.account_address_login_burst,
                least=1,
            ),
            account_login_rate=_float(env, "SPLENDOR_ACCOUNT_LOGIN_RATE", base.account_login_rate),
            account_login_burst=_int(
                env, "SPLENDOR_ACCOUNT_LOGIN_BURST", base.account_login_burst, least=1
            ),
            new_address_login_rate=_float(
                env, "SPLENDOR_NEW_ADDRESS_LOGIN_RATE", base.new_address_login_rate
            ),
            new_address_login_burst=_int(
                env, "SPLENDOR_NEW_ADDRESS_LOGIN_BURST", base.new_address_login_burst, least=1
            ),
            login_backoff=_at_least_zero(env, "SPLENDOR_LOGIN_BACKOFF", base.login_backoff),
            login_backoff_cap=_at_least_zero(
                env, "SPLENDOR_LOGIN_BACKOFF_CAP", base.login_backoff_cap
            ),
            secure_cookies=_choice(env, "SPLENDOR_SECURE_COOKIES", ("0", "1"), "0") == "1",
            allowed_origins=_addresses(env, "SPLENDOR_ALLOWED_ORIGINS", base.allowed_origins),
            trusted_proxies=_addresses(env, "SPLENDOR_TRUSTED_PROXIES", base.trusted_proxies),
            drain_seconds=_at_least_zero(env, "SPLENDOR_DRAIN_SECONDS", base.drain_seconds),
            durability=_choice(
                env, "SPLENDOR_DURABILITY", get_args(DurabilityMode), base.durability
            ),
            durability_timeout_ms=_int(
                env, "SPLENDOR_DURABILITY_TIMEOUT_MS", base.durability_timeout_ms, least=1
            ),
            archive_after=_at_least_zero(env, "SPLENDOR_ARCHIVE_AFTER", base.archive_after),
            metrics_token=env.get("SPLENDOR_METRICS_TOKEN", base.metrics_token).strip(),
            chat=_choice(env, "SPLENDOR_CHAT", get_args(ChatMode), base.chat),
            scheduled_tournaments=env.get(
                "SPLENDOR_SCHEDULED_TOURNAMENTS", base.scheduled_tournaments
            ).strip(),
            smtp_url=_smtp_url(env, "SPLENDOR_SMTP_URL"),
            mail_from=(env.get("SPLENDOR_MAIL_FROM") or base.mail_from).strip(),
            public_url=(env.get("SPLENDOR_PUBLIC_URL") or base.public_url).strip().rstrip("/"),
            mail_lease=_seconds(env, "SPLENDOR_MAIL_LEASE", base.mail_lease),
        )

    def without_rate_limits(self) -> Settings:
        """A copy with no rate limit at all (tests and benchmarks send fast)."""
        return replace(
            self,
            command_rate=0.0,
            create_rate=0.0,
            join_rate=0.0,
            auth_failure_rate=0.0,
            login_rate=0.0,
            account_address_login_rate=0.0,
            account_login_rate=0.0,
            new_address_login_rate=0.0,
            analysis_request_rate=0.0,
        )

    def with_(self, **changes: object) -> Settings:
        """A copy with some settings changed (``None`` values are ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})  # type: ignore[arg-type]


def _int(env: Mapping[str, str], name: str, default: int, least: int | None = None) -> int:
    raw = env.get(name)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be an integer, not {raw!r}") from None
    if least is not None and value < least:
        raise SettingsError(f"{name} must be {least} or more, not {value}")
    return value


def _choice(env: Mapping[str, str], name: str, options: tuple[str, ...], default: Any) -> Any:
    raw = env.get(name)
    if not raw:
        return default
    if raw not in options:
        raise SettingsError(f"{name} must be {' or '.join(options)}, not {raw!r}")
    return raw


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number, not {raw!r}") from None


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    value = _float(env, name, default)
    if value <= 0:
        raise SettingsError(f"{name} must be a number of seconds above 0, not {value:g}")
    return value


def _at_least_zero(env: Mapping[str, str], name: str, default: float) -> float:
    value = _float(env, name, default)
    if value < 0:
        raise SettingsError(f"{name} must be a number of seconds, 0 or more, not {value:g}")
    return value


def _smtp_url(env: Mapping[str, str], name: str) -> str:
    raw = (env.get(name) or "").strip()
    if raw and urlsplit(raw).scheme not in ("smtp", "smtps"):
        raise SettingsError(f"{name} must start with smtp:// or smtps://")
    return raw


def _addresses(env: Mapping[str, str], name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    raw = env.get(name)
    if raw is None:
        return default
    return tuple(a.strip() for a in raw.split(",") if a.strip())
