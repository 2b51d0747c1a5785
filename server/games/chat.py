"""Table chat: two rooms a game, kept apart from its log (docs/chat.md).

``players`` is read and written by the seats' sockets, ``spectators`` by the sockets
without a seat token; the seats read ``spectators`` too once the game is over. What
is said is checked here (``chat_text``, ``SocketChat``), kept in one Redis list a room
in the game's slot (``ChatStore``: ``game:{<id>}:chat:<room>``, the last ``KEPT``
messages), and carried to every process's sockets on the game's signals channel
(``server.live.game_signals``), in the same script that keeps it. A room's list is
deleted ``RETENTION_MS`` after the game's end (``ChatStore.ended``, told by the
service's hooks when the game ends, and by every message written after that).

A message is kept as its websocket form (PROTOCOL.md: ``{"type": "chat", "room",
"id", "seat", "name", "text"? | "preset"?, "at"}``, and ``guest`` for a guest's
number) plus ``account``, the writer's account if any, so that a deleted account's
messages are shown as ``DELETED_NAME`` at read time (``server.players.accounts``);
``wire_of`` leaves ``account`` out.
"""

from __future__ import annotations

import secrets
import unicodedata
from collections import deque
from collections.abc import Sequence
from typing import Any, Final, Literal, cast, get_args

import msgspec

from server.common.errors import bad_request, rate_limited
from server.common.wire import iso_time
from server.store.clients import RedisClient
from server.store.keys import chat_key, chat_signal, signals_channel

__all__ = [
    "HISTORY",
    "KEPT",
    "MAX_CHAT_ID",
    "MAX_TEXT",
    "PRESETS",
    "RATE_COUNT",
    "RATE_WINDOW_MS",
    "RETENTION_MS",
    "ROOMS",
    "ChatStore",
    "Preset",
    "Room",
    "SocketChat",
    "chat_text",
    "new_message",
    "wire_of",
]

Room = Literal["players", "spectators"]
Preset = Literal["hello", "good_luck", "well_played", "thanks", "good_game", "rematch?"]
ROOMS: Final[tuple[Room, ...]] = get_args(Room)
PRESETS: Final[tuple[Preset, ...]] = get_args(Preset)

MAX_TEXT: Final = 200  # characters (code points) after NFC and trimming
MAX_CHAT_ID: Final = 128
HISTORY: Final = 50  # the messages a socket is sent after its snapshot, a room
KEPT: Final = 500  # the messages a room keeps (GET /api/games/{id}/chat gives them all)
RATE_COUNT: Final = 5  # messages a socket may send ...
RATE_WINDOW_MS: Final = 10_000  # ... in this long
RETENTION_MS: Final = 7 * 86_400_000  # a room is deleted this long after the game's end

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(dict[str, Any]).decode


def _refused_char(char: str) -> bool:
    """A character a chat message may not hold: a control (Cc: NUL, tab, line feed
    ...), a format character (Cf: every bidirectional mark, embedding, override and
    isolate, and the zero-width ones: space, joiners, word joiner, BOM), a surrogate
    (Cs: only a JSON escape makes one, and it is no character) or a line or paragraph
    separator (Zl, Zp)."""
    return unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp")


def chat_text(text: str) -> str:
    """``text`` as a chat message holds it: NFC, trimmed, 1 to ``MAX_TEXT``
    characters, none refused (``bad_request`` otherwise)."""
    normal = unicodedata.normalize("NFC", text).strip()
    if not 1 <= len(normal) <= MAX_TEXT:
        raise bad_request("chat.text_length", most=MAX_TEXT)
    refused = next((c for c in normal if _refused_char(c)), None)
    if refused is not None:
        raise bad_request("chat.text_hidden", char=f"U+{ord(refused):04X}")
    return normal


def check_chat_id(chat_id: str) -> None:
    if not 1 <= len(chat_id) <= MAX_CHAT_ID:
        raise bad_request("chat.chat_id", most=MAX_CHAT_ID)


class SocketChat:
    """One socket's limits: ``RATE_COUNT`` messages in ``RATE_WINDOW_MS``, and not
    the same message twice in a row (a preset counts as its name). Only messages
    taken count."""

    __slots__ = ("_last", "_sent")

    def __init__(self) -> None:
        self._sent: deque[int] = deque()
        self._last: str | None = None

    def check(self, said: str, now_ms: int) -> None:
        """Refuse ``said`` now (``bad_request`` for a repeat, else ``rate_limited``)."""
        if said == self._last:
            raise bad_request("chat.repeated")
        sent = self._sent
        while sent and sent[0] <= now_ms - RATE_WINDOW_MS:
            sent.popleft()
        if len(sent) >= RATE_COUNT:
            raise rate_limited((sent[0] + RATE_WINDOW_MS - now_ms) / 1000, "chat")

    def taken(self, said: str, now_ms: int) -> None:
        self._sent.append(now_ms)
        self._last = said


def new_message(
    room: Room,
    seat: int | None,
    name: str,
    at_ms: int,
    *,
    text: str | None = None,
    preset: Preset | None = None,
    account: str | None = None,
    guest: int | None = None,
) -> dict[str, Any]:
    """A chat message as it is kept, with a new id (random: ids are compared, never
    ordered; a room's order is its list's)."""
    message: dict[str, Any] = {
        "type": "chat",
        "room": room,
        "id": secrets.token_hex(8),
        "seat": seat,
        "name": name,
    }
    if text is not None:
        message["text"] = text
    else:
        message["preset"] = preset
    message["at"] = iso_time(at_ms)
    if guest is not None:
        message["guest"] = guest
    message["account"] = account
    return message


def wire_of(message: dict[str, Any]) -> dict[str, Any]:
    """A kept message as the websocket and ``GET /chat`` show it: without its account."""
    return {k: v for k, v in message.items() if k != "account"}


# KEYS[1] the room's list. ARGV: the kept message, how many the room keeps, when it is
# deleted (ms since the epoch; 0 while the game is not over), the game's signals
# channel and the signal carrying the message to every process.
_POST_LUA: Final = """
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
if tonumber(ARGV[3]) > 0 then redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
"""


class ChatStore:
    """The chat rooms of every game, in Redis."""

    def __init__(self, client: RedisClient) -> None:
        self._r = client
        self._post = client.register_script(_POST_LUA)

    async def post(self, game_id: str, message: dict[str, Any], ended_ms: int | None) -> bytes:
        """Keep a message in its room and have it told to every process's sockets (on
        the game's signals channel); ``ended_ms``: the game's end if it is over, from
        which the room is kept ``RETENTION_MS``. The message's websocket form."""
        wire = _encode(wire_of(message))
        room = message["room"]
        expire_at = 0 if ended_ms is None else ended_ms + RETENTION_MS
        await self._post(
            keys=[chat_key(game_id, room)],
            args=[
                _encode(message),
                KEPT,
                expire_at,
                signals_channel(game_id),
                chat_signal(room, message["id"], wire),
            ],
        )
        return wire

    async def read(
        self, game_id: str, rooms: Sequence[Room], last: int = KEPT
    ) -> dict[Room, list[dict[str, Any]]]:
        """The last ``last`` messages of each room, oldest first, as kept."""
        async with self._r.pipeline(transaction=False) as pipe:
            for room in rooms:
                pipe.lrange(chat_key(game_id, room), -last, -1)
            lists = cast(list[list[bytes]], await pipe.execute())
        return {
            room: [_decode(raw) for raw in raws] for room, raws in zip(rooms, lists, strict=True)
        }

    async def ended(self, game_id: str, ended_ms: int) -> None:
        """The game ended at ``ended_ms``: its rooms are deleted ``RETENTION_MS``
        later (at once if that is past). A room made later gets its time when written."""
        async with self._r.pipeline(transaction=False) as pipe:
            for room in ROOMS:
                pipe.pexpireat(chat_key(game_id, room), ended_ms + RETENTION_MS)
            await pipe.execute()
