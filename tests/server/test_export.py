"""Export and import of finished games (docs/export.md) against real Redis: a source
server's finished games (classic 2 and 4 players, Duel) exported as JSON lines and
imported into another Redis replay exactly; unfinished games stay out; import twice
adds nothing; nothing secret in the file; the HTTP route; the command line.

The source is a Redis of its own (module fixture); games are imported into the
session's Redis, emptied for each test, served by the ``app``/``http`` fixtures."""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from starlette.applications import Starlette

from bots.moves import moves as game_moves
from server import cli
from server.common.settings import Settings
from server.common.wire import decode_action, iso_time
from server.games.public_records import iso_to_ms, parse_record
from server.games.service import GameService
from server.store.embedded_redis import EmbeddedRedis
from server.store.event_store import EventStore
from server.store.keys import commands_key, events_key, meta_key, seats_key
from server.tools.export_import import export_games, import_lines
from server.web.app import create_app
from server.web.state import running
from tests.duel_helpers import every_field_named
from tests.server.helpers import auth, refused

COMMAND_PREFIX = "export-test-command-"
SEED = 8_305_019_277_613_408_123  # long enough that finding it in the file means it leaked


@dataclass
class Played:
    """What one source game left: its id and what a client reads of it."""

    id: str
    summary: dict[str, Any]
    events: list[dict[str, Any]]
    views: list[dict[str, Any]]  # spectator's GET view?version=N, N = 1..version
    stream: list[Any]  # the raw stream entries (entry id, fields)


@dataclass
class Source:
    """A server's Redis after finished and unfinished games, and its export."""

    url: str
    finished: dict[str, Played] = field(default_factory=dict)
    unfinished: dict[str, str] = field(default_factory=dict)  # id -> status
    exported: bytes = b""
    secrets: list[str] = field(default_factory=list)  # seeds, tokens, digests, command ids


async def _play_to_the_end(
    app: Starlette, http: httpx.AsyncClient, variant: str, seats: list[str | None], **extra: Any
) -> tuple[str, list[str]]:
    """A seeded game played to its end: each seat's moves sent through the service
    (bots' too: the bot runner is off here). ``seats``: names, None for a bot."""
    r = await http.post(
        "/api/games",
        json={"variant": variant, "players": len(seats), "seed": SEED + len(seats), **extra},
    )
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    tokens = []
    for name in seats:
        body = {"name": name} if name else {"bot": "random"}
        joined = (await http.post(f"/api/games/{game_id}/seats", json=body)).json()
        if joined["token"]:
            tokens.append(joined["token"])
    service: GameService = running(app).service
    rng = random.Random(len(seats))
    while (view := await service.reader.view(game_id, None))["status"] != "finished":
        seat = view["turn"]["seat"]
        legal = game_moves(await service.reader.view(game_id, seat))
        action = decode_action(variant, json.dumps(_choose(legal, rng)).encode())
        await service.submit(game_id, seat, f"{COMMAND_PREFIX}{view['version']}", action)
    return game_id, tokens


def _choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Buy when possible (the game ends soon), else any action, blind reserves too."""
    buys = [a for a in legal if a["kind"] in ("buy", "buy_card")]
    return buys[-1] if buys and rng.random() < 0.9 else rng.choice(legal)


async def _read_back(http: httpx.AsyncClient, game_id: str, client: aioredis.Redis) -> Played:
    summary = (await http.get(f"/api/games/{game_id}")).json()
    events = (await http.get(f"/api/games/{game_id}/events")).json()["events"]
    views = []
    for version in range(1, summary["version"] + 1):
        r = await http.get(f"/api/games/{game_id}/view", params={"version": version})
        assert r.status_code == 200, r.text
        view = r.json()["view"]
        views.append(_timeless(view) if version == summary["version"] else view)
    stream = await client.xrange(events_key(game_id))
    return Played(game_id, summary, events, views, stream)


def _timeless(view: dict[str, Any]) -> dict[str, Any]:
    """A view without the moment it was read at: a timed game's view at its last
    version (now) has its clock read at the server's now; earlier versions' clocks
    read at their events' times, compared whole."""
    if view.get("clock"):
        view["clock"] = {k: v for k, v in view["clock"].items() if k != "now"}
    return view


async def _fill_source(url: str) -> Source:
    source = Source(url)
    app = create_app(Settings(redis_url=url).without_rate_limits(), plugins=False)
    client = aioredis.from_url(url)
    try:
        await client.flushdb()
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://a.test") as http:
                games = [
                    await _play_to_the_end(
                        app, http, "classic", ["Ana", "Bo"], clock={"initial": 600, "increment": 5}
                    ),
                    await _play_to_the_end(app, http, "classic", ["Ana", "Bo", None, "Di"]),
                    await _play_to_the_end(app, http, "duel", ["Ana", "Bo"]),
                ]
                for game_id, tokens in games:
                    source.finished[game_id] = await _read_back(http, game_id, client)
                    meta = await client.hgetall(meta_key(game_id))
                    digests = await client.hvals(seats_key(game_id))
                    source.secrets += [meta[b"seed"].decode(), *tokens]
                    source.secrets += [d.decode() for d in digests]
                    assert await client.hlen(commands_key(game_id)) > 0
                source.unfinished = await _unfinished_games(http)
                out = io.BytesIO()
                await export_games(running(app).service, out)
                source.exported = out.getvalue()
    finally:
        await client.aclose()
    return source


async def _unfinished_games(http: httpx.AsyncClient) -> dict[str, str]:
    """An open game, a live one and an aborted one (their ids and statuses)."""
    ids = []
    for _ in range(3):
        r = await http.post("/api/games", json={"variant": "classic", "players": 2})
        ids.append(r.json()["id"])
    opened, live, aborted = ids
    await http.post(f"/api/games/{live}/seats", json={"name": "Ana"})
    await http.post(f"/api/games/{live}/seats", json={"bot": "greedy"})
    token = (await http.post(f"/api/games/{aborted}/seats", json={"name": "Ana"})).json()["token"]
    abort = {"command_id": f"{COMMAND_PREFIX}abort", "action": {"kind": "abort"}}
    r = await http.post(f"/api/games/{aborted}/commands", json=abort, headers=auth(token))
    assert r.status_code == 200, r.text
    return {opened: "open", live: "live", aborted: "aborted"}


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Source]:
    """A Redis of its own holding 3 finished games (classic 2p timed, classic 4p with a
    bot, Duel) and 3 unfinished ones, read back through the HTTP API, and its export."""
    with EmbeddedRedis(tmp_path_factory.mktemp("export-source")) as server:
        yield asyncio.run(_fill_source(server.url))


def lines(exported: bytes) -> list[bytes]:
    return exported.splitlines()


async def test_only_finished_games_are_exported_one_a_line(source: Source) -> None:
    """The export has one line per finished game (ids in order) and none for the open, live or aborted ones."""
    records = [json.loads(line) for line in lines(source.exported)]
    assert [r["id"] for r in records] == sorted(source.finished)
    for record in records:
        played = source.finished[record["id"]]
        assert record["format"] == 1
        assert record["events"] == played.events
        for name in ("variant", "players", "seats", "result", "clock", "seeded", "ended_at"):
            assert record[name] == played.summary[name]
    assert not set(source.unfinished) & {r["id"] for r in records}
    assert sorted(source.unfinished.values()) == ["aborted", "live", "open"]


async def test_the_export_holds_no_seed_token_digest_or_command_id(source: Source) -> None:
    """No game's seed, seat token, token digest or command id appears anywhere in the export."""
    text = source.exported.decode()
    assert len(source.secrets) >= 3 * 3
    for secret in source.secrets:
        assert secret not in text
    assert COMMAND_PREFIX not in text
    keys: dict[str, set[str]] = {}
    for line in lines(source.exported):
        _keys_of(json.loads(line), keys)
    assert not {"seed", "command_id", "commands", "digest", "seat_token"} & set(keys)
    # "token" is a Duel event's field: the colour of a token on the board, no secret.
    assert keys["token"] <= {"white", "blue", "green", "red", "black", "pearl", "gold"}


def _keys_of(value: Any, found: dict[str, set[str]]) -> None:
    """Every key in a JSON value, with the string values it has."""
    if isinstance(value, dict):
        for key, inner in value.items():
            found.setdefault(key, set())
            if isinstance(inner, str):
                found[key].add(inner)
            _keys_of(inner, found)
    elif isinstance(value, list):
        for inner in value:
            _keys_of(inner, found)


async def test_imported_games_replay_exactly_as_on_the_source(
    source: Source, app: Starlette, http: httpx.AsyncClient, redis_client: aioredis.Redis
) -> None:
    """Imported into an empty Redis, every game has the same stream (versions, times, bytes), events, summary and view at every version as on the source, and is listed as finished."""
    counts = await import_lines(running(app).service, lines(source.exported))
    assert counts == (3, 0, 0)
    for game_id, played in source.finished.items():
        again = await _read_back(http, game_id, redis_client)
        assert again.stream == played.stream
        assert again.events == played.events
        assert again.summary == played.summary
        assert len(again.views) == len(played.views) > 20
        for version, (theirs, ours) in enumerate(zip(played.views, again.views, strict=True), 1):
            assert ours == theirs, f"{game_id} differs at version {version}"
    listed = (await http.get("/api/games", params={"status": "finished"})).json()["games"]
    assert {g["id"] for g in listed} == set(source.finished)
    by_id = {g["id"]: g for g in listed}
    for game_id, played in source.finished.items():
        # Lists add each bot's and account's rating now and whether it is provisional
        # (docs/ratings.md), not a summary.
        added = ("rating", "provisional")
        seats = [{k: v for k, v in s.items() if k not in added} for s in by_id[game_id]["seats"]]
        assert {**by_id[game_id], "seats": seats} == played.summary


async def test_importing_twice_adds_nothing(
    source: Source, app: Starlette, redis_client: aioredis.Redis
) -> None:
    """A second import of the same file skips every game and writes nothing."""
    service: GameService = running(app).service
    assert await import_lines(service, lines(source.exported)) == (3, 0, 0)
    before = {g: await redis_client.xlen(events_key(g)) for g in source.finished}
    keys = sorted(await redis_client.keys("*"))
    assert await import_lines(service, lines(source.exported)) == (0, 3, 0)
    assert {g: await redis_client.xlen(events_key(g)) for g in source.finished} == before
    assert sorted(await redis_client.keys("*")) == keys


async def test_an_imported_game_refuses_commands_and_has_no_seats(
    source: Source, app: Starlette, http: httpx.AsyncClient, redis_client: aioredis.Redis
) -> None:
    """An imported game has no seat tokens (a token of the source is refused) and no command ids: nobody acts in it."""
    await import_lines(running(app).service, lines(source.exported))
    game_id = next(iter(source.finished))
    assert not await redis_client.exists(seats_key(game_id), commands_key(game_id))
    token = next(s for s in source.secrets if len(s) == 43)  # a seat token
    body = {"command_id": "x", "action": {"kind": "resign"}}
    r = await http.post(f"/api/games/{game_id}/commands", json=body, headers=auth(token))
    refused(r, 403, "unauthorized")


async def test_a_record_that_is_not_a_finished_games_is_refused(
    source: Source, app: Starlette, store: EventStore
) -> None:
    """A record cut short (not finished), one whose result was edited, a later format and a broken line are each refused with a reason, and write nothing."""
    record = json.loads(lines(source.exported)[0])
    cut = {**record, "events": record["events"][:-3]}
    edited = {**record, "result": {**record["result"], "winners": [9]}}
    later = {**record, "format": 2}
    bad = [json.dumps(r).encode() for r in (cut, edited, later)] + [b"{not json"]
    counts = await import_lines(running(app).service, bad)
    assert counts == (0, 0, 4)
    assert not await store.exists(record["id"])


async def test_the_export_route_gives_one_game_as_a_file(
    source: Source, app: Starlette, http: httpx.AsyncClient
) -> None:
    """GET /api/games/{id}/export answers the game's record (the export's line, byte for byte) as an attachment; 404 for an unknown game; 409 conflict for an open, live or aborted one."""
    await import_lines(running(app).service, lines(source.exported))
    for line in lines(source.exported):
        game_id = json.loads(line)["id"]
        r = await http.get(f"/api/games/{game_id}/export")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "application/json"
        assert r.headers["content-disposition"] == f'attachment; filename="{game_id}.json"'
        assert r.content == line
    refused(await http.get("/api/games/nosuchgame/export"), 404, "not_found")
    open_game = (await http.post("/api/games", json={"variant": "duel"})).json()["id"]
    r = await http.get(f"/api/games/{open_game}/export")
    refused(r, 409, "conflict")
    assert "open" in r.json()["message"]


async def test_since_keeps_the_games_ended_at_or_after_it(source: Source) -> None:
    """--since filters by the game's end: a time between two games' ends keeps the later ones only."""
    ends = sorted(iso_to_ms(json.loads(line)["ended_at"]) for line in lines(source.exported))
    app = create_app(Settings(redis_url=source.url), plugins=False)
    async with app.router.lifespan_context(app):
        for since, count in ((ends[1], 2), (ends[-1] + 1, 0), (0, 3)):
            out = io.BytesIO()
            written, left_out = await export_games(running(app).service, out, since)
            assert (written, left_out) == (count, 6 - count)
            kept = [iso_to_ms(json.loads(line)["ended_at"]) for line in lines(out.getvalue())]
            assert all(end >= since for end in kept)


def test_iso_times_read_back_to_the_same_millisecond() -> None:
    """iso_to_ms inverts the wire's iso_time to the millisecond, with Z, an offset or none."""
    rng = random.Random(3)
    for _ in range(2000):
        ms = rng.randrange(0, 4_000_000_000_000)
        assert iso_to_ms(iso_time(ms)) == ms
    assert iso_to_ms("2025-03-01T11:00:00.250+01:00") == iso_to_ms("2025-03-01T10:00:00.250Z")
    assert iso_to_ms("2025-03-01") == iso_to_ms("2025-03-01T00:00:00.000Z")


def test_parse_record_gives_the_stored_events(source: Source) -> None:
    """A record read back gives the events with their versions, times and the store's bytes."""
    for line in lines(source.exported):
        restorable = parse_record(line)
        played = source.finished[restorable.id]
        assert [(f"{e.version}-0".encode(), e.at_ms, e.data) for e in restorable.stored] == [
            (entry_id, int(fields[b"t"]), fields[b"e"]) for entry_id, fields in played.stream
        ]


def test_a_duel_record_naming_its_defaults_reads_back_the_same(source: Source) -> None:
    """A Duel record leaves out its events' fields at their default (no "from_seat" in the setup's PrivilegeTaken); the same record naming them ("from_seat": null, "forced": false, ...) reads back to the same stored events."""
    (line,) = [line for line in lines(source.exported) if json.loads(line)["variant"] == "duel"]
    record = json.loads(line)
    setup = next(e for e in record["events"] if e["type"] == "PrivilegeTaken")
    assert setup["reason"] == "setup" and "from_seat" not in setup
    restorable = parse_record(line)
    record["events"] = [
        {**wire, **every_field_named(logged.event)}
        for wire, logged in zip(record["events"], restorable.events, strict=True)
    ]
    named = json.dumps(record).encode()
    assert b'"from_seat": null' in named and named != line
    assert parse_record(named).stored == restorable.stored


# ---------------------------------------------------------------------- the command line


def test_a_gzip_file_round_trips_through_the_commands(
    source: Source,
    redis_server: str,
    redis_client: aioredis.Redis,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`splendor export --out x.jsonl.gz` writes gzip holding the same lines; `splendor import` loads them (summary line), then skips them all the second time."""
    out = tmp_path / "games.jsonl.gz"
    assert cli.main(["export", "--redis-url", source.url, "--out", str(out)]) == 0
    assert "3 finished games written" in capsys.readouterr().err
    assert gzip.decompress(out.read_bytes()) == source.exported
    assert cli.main(["import", str(out), "--redis-url", redis_server]) == 0
    assert "3 games imported, 0 already there (skipped), 0 refused" in capsys.readouterr().err
    assert cli.main(["import", str(out), "--redis-url", redis_server]) == 0
    assert "0 games imported, 3 already there (skipped)" in capsys.readouterr().err


def test_a_zstandard_file_round_trips(
    source: Source, redis_server: str, redis_client: aioredis.Redis, tmp_path: Path
) -> None:
    """With the zstandard package, .zst files are written and read (Zstandard frames)."""
    zstandard = pytest.importorskip("zstandard")
    out = tmp_path / "games.jsonl.zst"
    assert cli.main(["export", "--redis-url", source.url, "--out", str(out)]) == 0
    assert zstandard.ZstdDecompressor().decompressobj().decompress(out.read_bytes()) == (
        source.exported
    )
    assert cli.main(["import", str(out), "--redis-url", redis_server]) == 0


def test_without_zstandard_a_zst_file_is_refused_with_a_clear_message(
    source: Source,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without the zstandard package, export to .zst says how to get it, exits 2 and writes nothing."""
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import zstandard fails
    out = tmp_path / "games.jsonl.zst"
    assert cli.main(["export", "--redis-url", source.url, "--out", str(out)]) == 2
    assert "pip install 'splendor-live[zstd]'" in capsys.readouterr().err
    assert not out.exists()


def test_standard_output_is_the_default(
    source: Source, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """Without --out (or with -) the lines go to standard output, the summary to standard error."""
    assert cli.main(["export", "--redis-url", source.url]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out == source.exported
    assert b"written to standard output" in captured.err


def test_without_redis_url_the_commands_use_the_data_folders_redis(
    source: Source, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without REDIS_URL, import starts the embedded Redis on --data-dir and keeps the games there; export finds them again, also while another process runs that Redis (as `splendor serve` would)."""
    monkeypatch.delenv("REDIS_URL", raising=False)
    exported = tmp_path / "games.jsonl"
    exported.write_bytes(source.exported)
    data = tmp_path / "data"
    assert cli.main(["import", str(exported), "--data-dir", str(data)]) == 0
    again = tmp_path / "again.jsonl"
    assert cli.main(["export", "--data-dir", str(data), "--out", str(again)]) == 0
    assert again.read_bytes() == source.exported
    with EmbeddedRedis(data):  # the folder's Redis is running: used, not started again
        running = tmp_path / "running.jsonl"
        assert cli.main(["export", "--data-dir", str(data), "--out", str(running)]) == 0
        assert running.read_bytes() == source.exported


def test_a_missing_file_folder_or_date_is_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """import of a missing file, or export from a data folder that does not exist, exits 2 saying so (nothing made); --since that is no date is a usage error."""
    assert cli.main(["import", str(tmp_path / "nope.jsonl"), "--redis-url", "redis://x"]) == 2
    assert "there is no file" in capsys.readouterr().err
    nowhere = tmp_path / "nowhere"
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert cli.main(["export", "--data-dir", str(nowhere)]) == 2
    assert f"there is no data folder {nowhere}" in capsys.readouterr().err
    assert not nowhere.exists()
    with pytest.raises(SystemExit) as exited:
        cli.main(["export", "--since", "yesterday"])
    assert exited.value.code == 2
    assert "is not a date" in capsys.readouterr().err


def test_a_reader_that_stops_early_ends_the_export_quietly(source: Source) -> None:
    """`splendor export | head -c 10`: the export ends with 141 (as a command killed by SIGPIPE) and no traceback."""
    assert len(source.exported) > 65_536  # more than a pipe holds (Linux): a write must fail
    command = [sys.executable, "-m", "server.cli", "export", "--redis-url", source.url]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as export:
        assert export.stdout is not None and export.stderr is not None
        assert export.stdout.read(10) == source.exported[:10]
        export.stdout.close()
        errors = export.stderr.read()
        assert export.wait(timeout=60) == 141
    assert b"Traceback" not in errors
