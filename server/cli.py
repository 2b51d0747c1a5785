"""The server's tools of the ``splendor`` command, one subcommand each: ``serve``,
``bots``, ``analyse``, ``export``, ``import``, ``ratings``, ``lobby``.

A tool is a ``Subcommand``: a name, a one-line help, a function that adds its
arguments to its parser, and a function that runs it and returns an exit code.
``python -m server.cli`` runs these alone; the ``splendor`` command
(``splendor.cli``) adds the client's tools (``watch``, ``bot``), which the server
never imports.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from server.common.settings import Settings, SettingsError

STARTUP_FAILURE = 3  # uvicorn's exit status when the server could not start


@dataclass(frozen=True)
class Subcommand:
    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="address to listen on (default: $HOST or 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to listen on (default: $PORT or 8000)")
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="folder of the embedded Redis's files when REDIS_URL is not set"
        " (default: $SPLENDOR_DATA_DIR or ./data)",
    )
    parser.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )


def open_address(host: str, port: int) -> str:
    """The address a person can open: a wildcard bind is reachable on localhost."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else "[::1]" if host == "::" else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def tune_gc() -> None:
    """Fewer, shorter collections: what is loaded at start-up lives as long as the
    process, so it is frozen out of every collection, and the youngest generation is
    collected every 20,000 allocations instead of 700 (a move allocates thousands of
    short-lived dicts, nearly all freed by reference counting)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def serve(args: argparse.Namespace) -> int:
    import logging.config

    import uvicorn

    from server.web.app import create_app
    from server.web.connections import server_options
    from server.web.drain import DrainingServer
    from server.web.logs import log_config
    from server.web.state import parts

    try:
        settings = Settings.from_env().with_(host=args.host, port=args.port, data_dir=args.data_dir)
    except SettingsError as e:
        print(f"splendor serve: {e}", file=sys.stderr)
        return 2
    # Before server_options, which logs which protocols it chose (server/store/fast_paths.py).
    logging.config.dictConfig(log_config(args.log_level))
    try:
        app = create_app(settings)  # checks what only the app reads (the schedule)
    except SettingsError as e:
        print(f"splendor serve: {e}", file=sys.stderr)
        return 2
    tune_gc()
    where = (
        "Redis at REDIS_URL"
        if settings.redis_url
        else f"embedded Redis in {settings.data_dir.resolve()}"
    )
    print(f"splendor-live: open {open_address(settings.host, settings.port)} ({where})", flush=True)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=args.log_level,
        log_config=log_config(args.log_level),  # no seat token in any line (server/web/logs.py)
        # What is left after the drain (HTTP requests) has the same bound.
        timeout_graceful_shutdown=max(1, round(settings.drain_seconds)),
        **server_options(settings),
    )
    # A SIGTERM drains first: health says so, sockets closed with 1012 (server/web/drain.py).
    server = DrainingServer(config, parts(app).drain, settings.drain_seconds)
    server.run()
    return 0 if server.started else STARTUP_FAILURE


def _bots_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--redis-url", help="the Redis of the servers (default: $REDIS_URL)")


def _worker_settings(command: str, args: argparse.Namespace) -> Settings | None:
    """A worker's settings (``splendor bots``, ``splendor analyse``): the environment's,
    with the servers' Redis; None, said on stderr, when they are wrong or have none."""
    try:
        settings = Settings.from_env()
    except SettingsError as e:
        print(f"splendor {command}: {e}", file=sys.stderr)
        return None
    settings = settings.with_(redis_url=args.redis_url)
    if not settings.redis_url:
        print(
            f"splendor {command}: set REDIS_URL (or --redis-url) to the servers' Redis",
            file=sys.stderr,
        )
        return None
    return settings


def _run_worker(work: Callable[[], Awaitable[None]]) -> int:
    """Run a worker until Ctrl-C or SIGTERM (a deployment's stop), either way through
    its clean-up: left to themselves, its search processes would outlive it."""
    import asyncio
    import logging.config

    from server.web.logs import log_config

    logging.config.dictConfig(log_config())  # no password of REDIS_URL in any line

    async def until_stopped() -> None:
        this = asyncio.current_task()
        assert this is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, this.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await work()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(until_stopped())
    return 0


def bots(args: argparse.Namespace) -> int:
    from server.workers.bot_runner import run_worker

    settings = _worker_settings("bots", args)
    if settings is None:
        return 2
    return _run_worker(lambda: run_worker(settings))


def _analyse_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--redis-url", help="the Redis of the servers (default: $REDIS_URL)")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="games analysed at once, one core each at nice 19 (default: 1)",
    )


def analyse(args: argparse.Namespace) -> int:
    from server.workers.analyse_worker import run_analysers

    settings = _worker_settings("analyse", args)
    if settings is None:
        return 2
    if args.workers < 1:
        print("splendor analyse: --workers must be 1 or more", file=sys.stderr)
        return 2
    if settings.analysis_budget <= 0:
        print("splendor analyse: SPLENDOR_ANALYSIS_BUDGET is 0: nothing to do", file=sys.stderr)
        return 2
    # The games an analyser holds when it stops stay leased for another analyser.
    return _run_worker(lambda: run_analysers(settings, args.workers))


def _export_arguments(parser: argparse.ArgumentParser) -> None:
    from server.tools.export_import import export_arguments

    export_arguments(parser)


def export(args: argparse.Namespace) -> int:
    from server.tools.export_import import export_command

    return export_command(args)


def _import_arguments(parser: argparse.ArgumentParser) -> None:
    from server.tools.export_import import import_arguments

    import_arguments(parser)


def import_(args: argparse.Namespace) -> int:
    from server.tools.export_import import import_command

    return import_command(args)


def _ratings_arguments(parser: argparse.ArgumentParser) -> None:
    from server.tools.ratings_rebuild import arguments

    arguments(parser)


def ratings(args: argparse.Namespace) -> int:
    from server.tools.ratings_rebuild import command

    return command(args)


def _lobby_arguments(parser: argparse.ArgumentParser) -> None:
    from server.tools.lobby_rebuild import lobby_arguments

    lobby_arguments(parser)


def lobby(args: argparse.Namespace) -> int:
    from server.tools.lobby_rebuild import lobby_command

    return lobby_command(args)


SUBCOMMANDS: list[Subcommand] = [
    Subcommand("serve", "run the server (HTTP API, websockets, web page)", _serve_arguments, serve),
    Subcommand(
        "bots", "play every server bot seat (a worker beside the servers)", _bots_arguments, bots
    ),
    Subcommand(
        "analyse",
        "analyse the finished games queued on the servers' Redis (no bots, no web)",
        _analyse_arguments,
        analyse,
    ),
    Subcommand(
        "export",
        "write every finished game as JSON lines (docs/export.md)",
        _export_arguments,
        export,
    ),
    Subcommand("import", "load games written by `splendor export`", _import_arguments, import_),
    Subcommand(
        "ratings", "rebuild the ratings from the finished games", _ratings_arguments, ratings
    ),
    Subcommand(
        "lobby",
        "rebuild the lobby's lists from every game (`splendor lobby rebuild`)",
        _lobby_arguments,
        lobby,
    ),
]


def parser(subcommands: Sequence[Subcommand] = ()) -> argparse.ArgumentParser:
    """The command line of ``subcommands`` (the server's own by default)."""
    root = argparse.ArgumentParser(
        prog="splendor", description="Play Splendor and Splendor Duel live."
    )
    commands = root.add_subparsers(dest="command", required=True)
    for sub in subcommands or SUBCOMMANDS:
        sub_parser = commands.add_parser(sub.name, help=sub.help, description=sub.help)
        sub.add_arguments(sub_parser)
        sub_parser.set_defaults(run=sub.run)
    return root


def main(argv: Sequence[str] | None = None, subcommands: Sequence[Subcommand] = ()) -> int:
    args = parser(subcommands).parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    return run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
