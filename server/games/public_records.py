"""The public record of a finished game: what ``splendor export`` writes, one JSON
object a line, what ``GET /api/games/{id}/export`` answers, and what ``splendor
import`` reads back (docs/export.md is the format's public description).

A finished game is public (PROTOCOL.md): its record holds every event as the wire
shows it to everyone once the game is over (blind reserves revealed), with its
version and time, and the game's summary. Never the seed, a seat token or its digest,
nor a command id: the record is built from the projection and its summary alone, and
neither holds them.

Reading a record back gives the events as the store keeps them, with their original
versions and times, so an imported game replays exactly as it was played; ``restore``
writes it, once its events are shown to fold to the game its header describes.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Final, NamedTuple

import msgspec

from events.base import GameCreated
from events.clock import control_wire
from events.game import VARIANTS, Variant
from server.common.wire import event_to_wire, iso_time
from server.games.projection import OVER, Game, LoggedEvent, encode_event
from server.games.repository import GameRepository, is_game_id, tournament_of_game
from server.store.event_store import StoredEvent

__all__ = [
    "FORMAT",
    "HEADER_FIELDS",
    "RecordError",
    "Restorable",
    "header_mismatch",
    "iso_to_ms",
    "parse_record",
    "record_of",
    "record_players",
    "restore",
    "summary_of",
]

FORMAT: Final = 1
"""The format's version: readers refuse a record of a later one (docs/export.md)."""

HEADER_FIELDS: Final = (
    "variant",
    "players",
    "seats",
    "result",
    "clock",
    "seeded",
    "rated",
    "created_at",
    "ended_at",
    "rematch",
    "rematch_of",
)
"""The summary's fields a record carries, in this order, after ``format`` and ``id``."""

_decode_json = msgspec.json.Decoder(dict[str, Any]).decode
_encode_json = msgspec.json.Encoder().encode


class RecordError(ValueError):
    """A record that can't be imported; the message says why."""


class Restorable(NamedTuple):
    """A record read back: the game's id, rules, creation time, its events decoded
    and as the store keeps them, and the header it came with (to check against)."""

    id: str
    variant: Variant
    created_ms: int
    events: list[LoggedEvent]
    stored: list[StoredEvent]
    header: dict[str, Any]


def summary_of(game: Game) -> dict[str, Any]:
    """A game's summary, as ``GET /api/games/{id}`` answers it and the lobby lists
    it: its seats, status and result, never a secret (a record's header is made of
    it)."""
    public = game.variant.view(game.state, None)
    made = tournament_of_game(game.id)  # the id of a tournament's game names it
    return {
        "id": game.id,
        "variant": game.variant.name,
        "players": game.state.players_count,
        "status": public["status"],
        "seats": [
            {
                "seat": p["seat"],
                "name": p["name"],
                "bot": p["bot"],
                "account": p["account"],
                "points": p["points"],
            }
            for p in public["players"]
        ],
        "version": game.version,
        "result": public["result"],
        "created_at": iso_time(game.created_ms),
        "rematch": game.rematch,
        "rematch_of": game.rematch_of,
        # A game over is dated by its end, its last event's time.
        "ended_at": iso_time(game.log[-1].at_ms) if public["status"] in OVER else None,
        "clock": control_wire(game.state.clock.control),
        "seeded": public["seeded"],
        "rated": public["rated"],
        "tournament": None if made is None else made[0],
    }


def record_of(game: Game, summary: dict[str, Any]) -> dict[str, Any]:
    """The public record of ``game`` (finished), its header from ``summary`` (the
    service's ``GET /api/games/{id}`` body)."""
    redact = game.variant.redact
    return {
        "format": FORMAT,
        "id": game.id,
        **{name: summary[name] for name in HEADER_FIELDS},
        "events": [
            event_to_wire(redact(e.event, None, True), e.version, e.at_ms, game.variant.name)
            for e in game.log
        ],
    }


def record_players(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries of a record that name a player (its seats, its ``PlayerJoined``
    events): what a deleted account's name is masked in (``server.players.accounts``)."""
    joined = [e for e in record["events"] if e["type"] == "PlayerJoined"]
    return [*(record["seats"] or []), *joined]


def iso_to_ms(text: str) -> int:
    """The milliseconds since the epoch of an ISO-8601 time (``Z`` or an offset; a
    time without one is UTC): the inverse of ``server.common.wire.iso_time``."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    since = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return (since.days * 86_400 + since.seconds) * 1000 + since.microseconds // 1000


def parse_record(line: bytes) -> Restorable:
    """A record (one JSON line) read back, or ``RecordError`` saying what is wrong."""
    try:
        raw = _decode_json(line)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError) as e:
        raise RecordError(f"not a JSON object: {e}") from None
    version = raw.get("format")
    if not isinstance(version, int) or version < 1:
        raise RecordError('no "format" (a number): not a splendor-live game record')
    if version > FORMAT:
        raise RecordError(f"format {version} is newer than this program reads ({FORMAT})")
    game_id = raw.get("id")
    if not isinstance(game_id, str) or not game_id:
        raise RecordError(f"invalid game id {game_id!r}")
    variant = VARIANTS.get(str(raw.get("variant")))
    if variant is None:
        raise RecordError(f"game {game_id}: unknown variant {raw.get('variant')!r}")
    wire_events = raw.get("events")
    if not isinstance(wire_events, list) or not wire_events:
        raise RecordError(f'game {game_id}: no "events"')
    try:
        created_ms = iso_to_ms(str(raw.get("created_at")))
        events = [_event(variant, wire, i) for i, wire in enumerate(wire_events, start=1)]
    except (ValueError, TypeError, msgspec.ValidationError) as e:
        raise RecordError(f"game {game_id}: {e}") from None
    created = events[0].event
    if not isinstance(created, GameCreated) or created.game != game_id:
        raise RecordError(f"game {game_id}: its first event is not its GameCreated")
    if created.variant != variant.name:
        raise RecordError(f"game {game_id}: a {created.variant} game recorded as {variant.name}")
    stored = [StoredEvent(e.version, e.at_ms, encode_event(e.event)) for e in events]
    header = {name: raw.get(name) for name in HEADER_FIELDS}
    return Restorable(game_id, variant, created_ms, events, stored, header)


async def restore(
    repository: GameRepository, record: Restorable, then: Callable[[Game], Awaitable[None]]
) -> bool:
    """Write a finished game read from a record (``splendor import``) unless a game
    with its id exists: True if written, False if it was there. Once it is written,
    ``then`` gets its projection, the game's lock held (the service lists it).

    The events are folded first and the record refused (``RecordError``) unless they
    make a finished game whose summary is the record's. The seed is a new one (the
    record never has it, and a finished game draws nothing more) and there are no
    seat tokens: nobody acts in an imported game."""
    if not is_game_id(record.id):
        raise RecordError(f"invalid game id {record.id!r}")
    lock = repository.lock(record.id)
    game = Game(record.id, record.variant, secrets.randbits(63), record.created_ms, lock)
    try:
        for logged in record.events:
            game.apply_event(logged.event, logged.at_ms)
    except Exception as e:  # evolve trusts its events: a forged log may break it anyhow
        raise RecordError(f"game {record.id}: its events do not fold ({e!r})") from None
    if game.status != "finished":
        raise RecordError(f"game {record.id}: its events end {game.status}, not finished")
    for name in ("rematch", "rematch_of"):
        linked = record.header.get(name)
        if linked is not None and not (isinstance(linked, str) and is_game_id(linked)):
            raise RecordError(f"game {record.id}: invalid {name} {linked!r}")
        setattr(game, name, linked)
    differs = header_mismatch(record.header, record_of(game, summary_of(game)))
    if differs is not None:
        raise RecordError(f"game {record.id}: its {differs!r} is not what its events give")
    meta: dict[str, bytes | str | int] = {
        "variant": game.variant.name,
        "players": game.state.players_count,
        "seed": game.seed,
        "created_at": game.created_ms,
    }
    if game.rematch is not None:
        meta["rematch"] = game.rematch
    if game.rematch_of is not None:
        meta["rematch_of"] = game.rematch_of
    async with lock:
        if not await repository.store.restore(record.id, record.stored, meta):
            return False
        repository.remember(game)
        await then(game)
    return True


def header_mismatch(given: dict[str, Any], rebuilt: dict[str, Any]) -> str | None:
    """The first header field where a record read back disagrees with the record of
    the game its events fold to (compared as JSON), or None when they agree."""
    for name in HEADER_FIELDS:
        if _as_json(_added_later(name, given.get(name))) != _as_json(rebuilt.get(name)):
            return name
    return None


def _added_later(name: str, value: Any) -> Any:
    """A header field of a record written before accounts, as it reads now: not
    ``rated``, and no seat an account's."""
    if name == "rated" and value is None:
        return False
    if name == "seats" and isinstance(value, list):
        return [{"account": None, **s} if isinstance(s, dict) else s for s in value]
    return value


def _as_json(value: Any) -> Any:
    """``value`` as JSON reads it back (tuples as lists, and so on)."""
    return msgspec.json.decode(_encode_json(value))


def _event(variant: Variant, wire: Any, expected: int) -> LoggedEvent:
    """One wire event (``event_to_wire``'s shape) as the event it shows."""
    if not isinstance(wire, dict):
        raise ValueError(f"event {expected} is not an object")
    fields = dict(wire)
    version, at = fields.pop("version", None), fields.pop("at", None)
    if version != expected:
        raise ValueError(f"event {expected} has version {version!r}: versions must be 1, 2, …")
    if not isinstance(at, str):
        raise ValueError(f'event {expected} has no "at" time')
    return LoggedEvent(version, iso_to_ms(at), msgspec.convert(fields, variant.event_type))
