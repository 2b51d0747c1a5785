"""Wire shapes of the server, apart from the domain: request bodies, events as clients
see them, timestamps. Requests are decoded strictly (unknown fields refused, types
checked) so bad input is turned away before it reaches the service.

Every JSON the server reads from a client (HTTP bodies, actions, websocket messages)
goes through ``decode_with``: whatever its bytes, depth or size, it is a value or a
``bad_request``, never another exception.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any, Final, Literal, TypeVar

import msgspec

from events.base import TimeControl
from events.clock import iso_ms
from events.game import VARIANTS
from events.turns import bot_name
from server.common.errors import bad_request

BOT_LEVELS: Final = ("random", "greedy", "mcts")
BotLevel = Literal["random", "greedy", "mcts"]
MAX_NAME: Final = 40
MAX_COMMAND_ID: Final = 128

T = TypeVar("T")

# Each variant's decoder of actions, made at its first action.
_ACTION_DECODERS: dict[str, msgspec.json.Decoder[Any]] = {}


MAX_INITIAL: Final = 3 * 3600  # A real-time bank holds at most 3 hours.
MAX_INCREMENT: Final = 180
MAX_PER_MOVE: Final = 14 * 86_400  # Correspondence allows at most 14 days a move.


class ClockRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``"clock"`` of ``POST /api/games``, in seconds: ``{"initial", "increment"}``
    (real-time) or ``{"per_move"}`` (correspondence)."""

    initial: int | None = None
    increment: int | None = None
    per_move: int | None = None


class CreateGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /api/games``; ``players`` defaults to the variant's smallest table;
    without ``clock`` the game is untimed; ``rated`` needs a session (docs/accounts.md)."""

    variant: str
    players: int | None = None
    seed: int | None = None
    clock: ClockRequest | None = None
    rated: bool = False


def time_control(clock: ClockRequest | None) -> TimeControl | None:
    """The time control a request asks for, checked, or ``bad_request``."""
    if clock is None:
        return None
    if clock.per_move is not None:
        if clock.initial is not None or clock.increment is not None:
            raise bad_request("clock.both_kinds")
        if not 1 <= clock.per_move <= MAX_PER_MOVE:
            raise bad_request("clock.per_move", most=MAX_PER_MOVE)
        return TimeControl(per_move=clock.per_move)
    if clock.initial is None:
        raise bad_request("clock.missing")
    if not 1 <= clock.initial <= MAX_INITIAL:
        raise bad_request("clock.initial", most=MAX_INITIAL)
    increment = clock.increment or 0
    if not 0 <= increment <= MAX_INCREMENT:
        raise bad_request("clock.increment", most=MAX_INCREMENT)
    return TimeControl(initial=clock.initial, increment=increment)


class JoinSeat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /api/games/{id}/seats``: a player's name, or a bot's level (exactly one),
    or neither for the account of the request's session (docs/accounts.md)."""

    name: str | None = None
    bot: BotLevel | None = None


class Command(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /api/games/{id}/commands``; the action is decoded by the game's variant."""

    command_id: str
    action: msgspec.Raw
    expected_version: int | None = None


_INVALID: Final = {
    "request": "request.invalid",
    "action": "request.invalid_action",
    "message": "request.invalid_message",
}
"""The reason of a body that decodes but does not fit, by what it is."""


def decode_with(
    decode: Callable[[bytes], T],
    data: bytes,
    what: Literal["request", "action", "message"] = "request",
) -> T:
    """``decode(data)`` (a msgspec JSON decoder's), or ``bad_request`` saying what is
    wrong with ``what``. msgspec raises more than its own errors on hostile input: a
    string that is not UTF-8 is a ``UnicodeDecodeError``, JSON nested deeper than the
    interpreter's recursion limit (about 1,000) a ``RecursionError``; both are the
    client's malformed JSON."""
    try:
        return decode(data)
    except msgspec.ValidationError as e:
        raise bad_request(_INVALID[what], detail=str(e)) from None
    except msgspec.DecodeError as e:
        raise bad_request("request.malformed", detail=str(e)) from None
    except UnicodeDecodeError:
        raise bad_request("request.not_utf8") from None
    except RecursionError:
        raise bad_request("request.too_deep") from None


def decode_action(variant: str, raw: bytes) -> Any:
    """A JSON action of a game of ``variant`` (a variant this server plays) as the
    variant's action Struct, or ``bad_request``."""
    decoder = _ACTION_DECODERS.get(variant)
    if decoder is None:
        decoder = _ACTION_DECODERS[variant] = VARIANTS[variant].action_decoder()
    return decode_with(decoder.decode, raw, "action")


def decode(data: bytes, kind: type[Any]) -> Any:
    """``data`` as a ``kind`` Struct, or ``bad_request`` saying what is wrong."""
    return decode_with(lambda raw: msgspec.json.decode(raw, type=kind), data)


def check_command(command: Command) -> None:
    if not command.command_id or len(command.command_id) > MAX_COMMAND_ID:
        raise bad_request("request.command_id", most=MAX_COMMAND_ID)
    if command.expected_version is not None and command.expected_version < 0:
        raise bad_request("request.expected_version")


def player_name(join: JoinSeat) -> tuple[str, str | None]:
    """The seat's name and bot level from a join request, checked."""
    if (join.name is None) == (join.bot is None):
        raise bad_request("request.name_or_bot")
    if join.bot is not None:
        return bot_name(join.bot), join.bot
    name = unicodedata.normalize("NFC", join.name or "")
    hidden = next((c for c in name if _hidden(c)), None)
    if hidden is not None:
        raise bad_request("request.name_hidden", char=f"U+{ord(hidden):04X}")
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME:
        raise bad_request("request.name_length", most=MAX_NAME)
    return name, None


# Characters that make a name show as something else than it is: bidirectional
# embeddings, overrides, isolates and marks (U+202E turns "Ana" around), and
# zero-width ones (two names that look the same).
_INVISIBLE: Final = frozenset(
    "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2066\u2067\u2068\u2069\ufeff"
)


def _hidden(char: str) -> bool:
    """A control character (NUL, CR, LF, tab ..., line and paragraph separators) or
    one of ``_INVISIBLE``."""
    return char in _INVISIBLE or unicodedata.category(char) in ("Cc", "Zl", "Zp")


iso_time = iso_ms
"""Milliseconds since the epoch as ISO-8601 UTC: ``2025-01-31T12:00:00.123Z``."""


# The variants whose wire events name every field, defaults included (docs/http-api.md),
# so that classic's clients never guess a missing one. Every other variant's events leave out
# each field at its default, as their Structs' ``omit_defaults`` encodes them
# (docs/duel.md: the fields marked ``?``).
_EVERY_FIELD: Final = frozenset({"classic"})


def event_to_wire(event: Any, version: int, at_ms: int, variant: str) -> dict[str, Any]:
    """PROTOCOL.md's event of a ``variant`` game: ``{"version", "type", "at",
    ...fields}``, a Duel game's without the fields at their default."""
    wire: dict[str, Any] = {
        "version": version,
        "type": type(event).__struct_config__.tag,
        "at": iso_time(at_ms),
    }
    if variant in _EVERY_FIELD:
        for name in event.__struct_fields__:
            wire[name] = msgspec.to_builtins(getattr(event, name))
    else:
        wire.update(msgspec.to_builtins(event))  # Its "type" is the tag set above.
    return wire
