"""``splendor export`` and ``splendor import``: every finished game as JSON lines, one
game a line (``server.games.public_records``; the format is docs/export.md), written to a file or
read from one, on the Redis the server is configured with.

Which Redis: ``REDIS_URL`` (or ``--redis-url``) if set, as ``splendor serve`` does;
else the embedded Redis on the data folder: the one a running ``splendor serve``
keeps there (its remembered port, checked to serve that folder), or one started for
the command and stopped after it.

A file whose name ends in ``.gz`` is gzip (the standard library); ``.zst`` is
Zstandard, the compression of lichess's game database, through the ``zstandard``
package (the ``zstd`` extra): without it the command says so and does nothing.
``-`` is standard output (export) or input (import).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import io
import os
import sys
from collections.abc import AsyncIterator, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import IO, Literal, NamedTuple, cast

import msgspec

from server.common.errors import ServiceError
from server.common.settings import Settings, SettingsError
from server.games.archiver import ArchiveQueue
from server.games.hooks import ServiceHooks
from server.games.lobby import KEEP_FINISHED, Lobby
from server.games.public_records import RecordError, iso_to_ms, parse_record, record_players
from server.games.service import GameService
from server.players.accounts import accounts_named, deleted_among, mask_entries
from server.store.availability import REDIS_CONNECT_S
from server.store.clients import open_client
from server.store.embedded_redis import EmbeddedRedis, EmbeddedRedisError, serving_url
from server.store.event_store import EventStore

__all__ = [
    "TransferError",
    "export_command",
    "export_games",
    "import_command",
    "import_lines",
]

_encode = msgspec.json.Encoder().encode
CACHED_GAMES = 16  # Each game is read once, so few need to stay cached.


class TransferError(Exception):
    """The command can't run as asked; the message says why."""


class ImportCounts(NamedTuple):
    imported: int
    skipped: int  # Games already there.
    refused: int  # Lines that are not a finished game's record, each told on stderr.


# ---------------------------------------------------------------------- files


def _zstandard() -> ModuleType:
    try:
        import zstandard
    except ImportError:
        raise TransferError(
            ".zst files need the zstandard package: pip install 'splendor-live[zstd]'"
            " (or name the file .gz, or leave it uncompressed)"
        ) from None
    return zstandard


def _open(name: str, mode: Literal["rb", "wb"]) -> IO[bytes]:
    """A file opened by its suffix: ``.zst`` Zstandard, ``.gz`` gzip, else plain."""
    if name.endswith(".zst"):
        opened = _zstandard().open(name, mode)
        # Its reader does not iterate by line, so reading goes through a buffer over it.
        return cast(IO[bytes], io.BufferedReader(opened) if mode == "rb" else opened)
    if name.endswith(".gz"):
        return cast(IO[bytes], gzip.open(name, mode))
    return open(name, mode)


@contextlib.contextmanager
def open_output(name: str) -> Iterator[IO[bytes]]:
    """The file to write, compressed by its suffix; ``-`` is standard output."""
    if name == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    with _open(name, "wb") as opened:
        yield opened


@contextlib.contextmanager
def open_input(name: str) -> Iterator[IO[bytes]]:
    """The file to read, decompressed by its suffix; ``-`` is standard input."""
    if name == "-":
        yield sys.stdin.buffer
        return
    if not Path(name).is_file():
        raise TransferError(f"there is no file {name}")
    with _open(name, "rb") as opened:
        yield opened


# ---------------------------------------------------------------------- Redis


@contextlib.contextmanager
def configured_redis(settings: Settings, *, create: bool) -> Iterator[str]:
    """The URL of the Redis ``splendor serve`` would use with these settings; a data
    folder that does not exist is made only when ``create`` (an import)."""
    if settings.redis_url:
        yield settings.redis_url
        return
    running = serving_url(settings.data_dir)
    if running is not None:
        yield running
        return
    if not create and not settings.data_dir.is_dir():
        raise TransferError(
            f"there is no data folder {settings.data_dir}: give --data-dir, or set REDIS_URL"
        )
    embedded = EmbeddedRedis(settings.data_dir)
    try:
        embedded.start()
    except EmbeddedRedisError as e:
        running = serving_url(settings.data_dir)  # A server may have started meanwhile.
        if running is None:
            raise TransferError(str(e)) from None
        yield running
        return
    try:
        yield embedded.url
    finally:
        embedded.stop()


@contextlib.asynccontextmanager
async def games_on(
    url: str, keep_finished: int = KEEP_FINISHED, archive_after: float = 600.0
) -> AsyncIterator[GameService]:
    """A game service (with its lobby, listing ``keep_finished`` finished games as the
    servers do: ``Settings.finished_games``) on the Redis at ``url`` (one, or a
    cluster); the games it writes are archived ``archive_after`` seconds after their
    end (by the servers)."""
    client = await open_client(url, max_connections=64, socket_connect_timeout=REDIS_CONNECT_S)
    try:
        lobby = Lobby(client, keep_finished)
        archives = ArchiveQueue(client, after_s=archive_after)
        service = GameService(
            EventStore(client),
            lobby,
            cache_games=CACHED_GAMES,
            hooks=ServiceHooks(archives=archives),
        )
        yield service
    finally:
        await client.aclose()


# ---------------------------------------------------------------------- export


async def export_games(
    service: GameService, out: IO[bytes], since_ms: int | None = None
) -> tuple[int, int]:
    """Write the record of every finished game (ended at or after ``since_ms``), by
    id; returns how many were written and how many games were left out."""
    written = left_out = 0
    for game_id in await service.store.game_ids():
        try:
            record = await service.reader.record(game_id)
        except ServiceError:  # The game is not finished, or not one this server reads.
            left_out += 1
            continue
        except (msgspec.DecodeError, msgspec.ValidationError, KeyError, ValueError) as e:
            print(f"splendor export: game {game_id} can't be read ({e}): left out", file=sys.stderr)
            left_out += 1
            continue
        if since_ms is not None and iso_to_ms(record["ended_at"]) < since_ms:
            left_out += 1
            continue
        players = record_players(record)
        if usernames := accounts_named(players):
            mask_entries(players, await deleted_among(service.store.client, usernames))
        out.write(_encode(record) + b"\n")
        written += 1
    return written, left_out


def _since(text: str) -> int:
    """``--since``: a date or an ISO-8601 time (UTC unless it says otherwise), in ms."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date (2025-03-01) or an ISO-8601 time (2025-03-01T12:00:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return iso_to_ms(moment.isoformat())


def export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        default="-",
        metavar="FILE",
        help="the file to write (.gz: gzip, .zst: Zstandard); - or none: standard output",
    )
    parser.add_argument(
        "--since",
        type=_since,
        metavar="DATE",
        help="only games that ended at or after this date or time (UTC unless given)",
    )
    redis_arguments(parser)


def export_command(args: argparse.Namespace) -> int:
    """``splendor export``: the summary line goes to standard error."""

    async def run(url: str, out: IO[bytes]) -> tuple[int, int]:
        async with games_on(url, settings.finished_games) as service:
            return await export_games(service, out, args.since)

    try:
        settings = settings_of(args)
        with configured_redis(settings, create=False) as url, open_output(args.out) as out:
            written, left_out = asyncio.run(run(url, out))
    except BrokenPipeError:  # The reader stopped (`splendor export | head`); exit as cat does.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (TransferError, SettingsError, OSError) as e:
        print(f"splendor export: {e or type(e).__name__}", file=sys.stderr)
        return 2
    where = "standard output" if args.out == "-" else args.out
    print(
        f"splendor export: {written} finished games written to {where}"
        f" ({left_out} other games left out)",
        file=sys.stderr,
    )
    return 0


# ---------------------------------------------------------------------- import


async def import_lines(service: GameService, lines: Iterable[bytes]) -> ImportCounts:
    """Import every record of ``lines``; a game already there is skipped, a line that
    is not a finished game's record refused (told on stderr) and the rest go on."""
    imported = skipped = refused = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            written = await service.restore(parse_record(line))
        except RecordError as e:
            print(f"splendor import: line {number}: {e}: not imported", file=sys.stderr)
            refused += 1
            continue
        if written:
            imported += 1
        else:
            skipped += 1
    return ImportCounts(imported, skipped, refused)


def import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        metavar="FILE",
        help="a file of `splendor export` (.gz, .zst or plain); - for standard input",
    )
    redis_arguments(parser)


def import_command(args: argparse.Namespace) -> int:
    """``splendor import``: exit code 1 when some line was refused."""

    async def run(url: str, lines: IO[bytes]) -> ImportCounts:
        async with games_on(url, settings.finished_games, settings.archive_after) as service:
            return await import_lines(service, lines)

    try:
        settings = settings_of(args)
        with open_input(args.file) as lines, configured_redis(settings, create=True) as url:
            counts = asyncio.run(run(url, lines))
    except (TransferError, SettingsError, OSError, EOFError) as e:
        print(f"splendor import: {e or type(e).__name__}", file=sys.stderr)
        return 2
    print(
        f"splendor import: {counts.imported} games imported,"
        f" {counts.skipped} already there (skipped), {counts.refused} refused",
        file=sys.stderr,
    )
    return 1 if counts.refused else 0


# ---------------------------------------------------------------------- common


def redis_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--redis-url", metavar="URL", help="the server's Redis (default: $REDIS_URL)"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help="the embedded Redis's folder when there is no REDIS_URL"
        " (default: $SPLENDOR_DATA_DIR or ./data), as for `splendor serve`",
    )


def settings_of(args: argparse.Namespace) -> Settings:
    """The environment's settings with ``redis_arguments``' options."""
    return Settings.from_env().with_(redis_url=args.redis_url, data_dir=args.data_dir)
