"""Table chat over real websockets: sending, and reading what a socket was told."""

from __future__ import annotations

import json
from typing import Any

from tests.server.ws_helpers import Watcher


def chat(chat_id: str, text: str | None = None, preset: str | None = None, **extra: Any) -> str:
    """A chat message as a client sends it."""
    body: dict[str, Any] = {"type": "chat", "chat_id": chat_id, **extra}
    if text is not None:
        body["text"] = text
    if preset is not None:
        body["preset"] = preset
    return json.dumps(body)


def told(watcher: Watcher, kind: str = "chat") -> list[dict[str, Any]]:
    """The ``chat`` (or ``chat_history``) messages a socket was told so far."""
    return [m for _, m in watcher.signals if m["type"] == kind]


async def settle(*watchers: Watcher) -> None:
    """Read each socket until the answer to a ping: every message sent to it before
    the ping was sent, chat included, is in (the server answers in order)."""
    for watcher in watchers:
        await watcher.drain()


async def refusal(watcher: Watcher, message: str) -> dict[str, Any]:
    """Send ``message`` and return the error it got (the socket answers in order)."""
    await watcher.conn.send(message)
    while True:
        reply = await watcher.next()
        if reply["type"] == "error":
            return reply


async def said(watcher: Watcher, count: int) -> list[dict[str, Any]]:
    """Read until the socket was told ``count`` chat messages; return them."""
    while len(told(watcher)) < count:
        await watcher.next_any()
    return told(watcher)
