"""The messages a hub sends its sockets besides snapshots, as wire bytes
(PROTOCOL.md): a diff, an error in a socket's language, a chat room's history, a
rematch's news and the audience. Each is made once and written to many sockets."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from server.common.errors import ServiceError
from server.live.presence import Audience, RematchNews

__all__ = [
    "audience_message",
    "chat_history_message",
    "diff_message",
    "error_in",
    "rematch_message",
]

_encoder = msgspec.json.Encoder()


def diff_message(version: int, event: bytes, patch: bytes) -> bytes:
    return b'{"type":"diff","version":%d,"event":%b,"patch":%b}' % (version, event, patch)


def error_in(error: ServiceError) -> Callable[[str], bytes]:
    """The ``error`` message of ``error`` in a socket's language, made once a language
    however many sockets are told."""
    made: dict[str, bytes] = {}

    def message(lang: str) -> bytes:
        if lang not in made:
            made[lang] = _encoder.encode({"type": "error", **error.to_wire(lang)})
        return made[lang]

    return message


def chat_history_message(room: str, mode: str, messages: Sequence[bytes]) -> bytes:
    return b'{"type":"chat_history","room":"%b","mode":"%b","messages":[%b]}' % (
        room.encode(),
        mode.encode(),
        b",".join(messages),
    )


def rematch_message(news: RematchNews) -> bytes:
    return _encoder.encode(
        {
            "type": "rematch",
            "id": news.id,
            "accepted": sorted(news.accepted),
            "declined": sorted(news.declined),
        }
    )


def audience_message(audience: Audience) -> bytes:
    count, names = audience
    return _encoder.encode({"type": "audience", "spectators": count, "accounts": list(names)})
