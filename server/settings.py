"""Server settings: defaults, overridden by the environment, then by the command line.

Every setting has an environment variable (``SPLENDOR_*``, plus the conventional
``REDIS_URL``, ``HOST`` and ``PORT``), so a Procfile or a container needs no flags.
docs/operations.md lists them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, Literal, get_args

MAX_BODY_BYTES: Final = 64 * 1024
WS_BUFFER_BYTES: Final = 256 * 1024

TailMode = Literal["auto", "notify", "poll"]
BotsMode = Literal["inline", "off"]


class SettingsError(ValueError):
    """An environment variable holds a value the server cannot use."""


@dataclass(frozen=True)
class Settings:
    """What a server process needs to know; immutable once built."""

    # Redis: a URL (Redis 6.2+, Valkey, Cluster) or, when None, an embedded one.
    redis_url: str | None = None
    # Where the embedded Redis keeps its files (append-only log, snapshot, logs).
    data_dir: Path = Path("data")
    host: str = "127.0.0.1"
    port: int = 8000
    # Commands per second a client may send on average, and the burst it may send at once.
    command_rate: float = 10.0
    command_burst: int = 30
    # Games whose projection stays in memory (least recently used ones are dropped).
    cache_games: int = 2000
    max_body_bytes: int = MAX_BODY_BYTES
    # Live websockets: bytes one socket may be behind before its diffs are dropped for
    # a snapshot; how the tailer waits for other processes' events (auto: keyspace
    # notifications when Redis allows them, else poll).
    ws_buffer: int = WS_BUFFER_BYTES
    tail: TailMode = "auto"
    # Presence: how often a process tells the others it is alive (seconds); its
    # sockets stop counting DEAD_AFTER_BEATS beats after it dies (server/presence.py).
    presence_beat: float = 3.0
    # Bot seats: played by this process (inline) or by a `splendor bots` worker (off);
    # a bot's pause before it answers, so a person can follow (0 in tests); MCTS's
    # thinking time a move.
    bots: BotsMode = "inline"
    bot_delay: float = 0.4
    mcts_seconds: float = 1.0

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
            ws_buffer=_int(env, "SPLENDOR_WS_BUFFER", base.ws_buffer, least=1),
            tail=_choice(env, "SPLENDOR_TAIL", get_args(TailMode), base.tail),
            presence_beat=max(0.05, _float(env, "SPLENDOR_PRESENCE_BEAT", base.presence_beat)),
            bots=_choice(env, "SPLENDOR_BOTS", get_args(BotsMode), base.bots),
            bot_delay=max(0.0, _float(env, "SPLENDOR_BOT_DELAY", base.bot_delay)),
            mcts_seconds=max(0.01, _float(env, "SPLENDOR_MCTS_SECONDS", base.mcts_seconds)),
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
