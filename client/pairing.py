"""Quick pairing from Python: wait in a pool until the server makes the game.

``QuickPairing(base_url, "classic", "5+3", name="Ana")`` speaks docs/pairing.md's
socket: ``await pairing.wait()`` returns the ``Pairing`` (the game, the seat and its
token: hand them to ``client.live.LiveGame``), or None once ``cancel()`` was answered.
A dropped socket (or one closed with 1012, the server restarting) is opened again
with the ticket, so the place in the pool and the time waited are kept. With
``cookie`` (``splendor_session=…``, from ``SplendorHTTP.log_in``) the account waits
in the rated pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import websockets
from websockets.asyncio.client import ClientConnection, connect

from client.http import ProtocolError

__all__ = ["Pairing", "QuickPairing"]

RETRY_S = (0.25, 1.0, 2.0, 4.0)


@dataclass(frozen=True)
class Pairing:
    """The game a pairing made: its id, this player's seat and seat token, whether it
    is rated, and the opponent's name and rating (None for a guest)."""

    game: str
    seat: int
    token: str
    rated: bool
    opponent: str
    opponent_rating: float | None


class QuickPairing:
    """One player's wait in one pool (``clock``: ``3+2``, ``5+3`` or ``10+5``)."""

    def __init__(
        self,
        base_url: str,
        variant: str,
        clock: str,
        *,
        name: str | None = None,
        cookie: str | None = None,
        attempts: int = 8,
        lang: str | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.variant = variant
        self.clock = clock
        self.name = name
        self.cookie = cookie
        self.attempts = attempts
        self.lang = lang  # of the server's error messages (?lang= on the socket's URL)
        self.ticket: str | None = None
        self.waiting: dict[str, Any] | None = None  # the last ``waiting`` message
        self._socket: ClientConnection | None = None

    def url(self) -> str:
        query = {"variant": self.variant, "clock": self.clock}
        if self.name is not None:
            query["name"] = self.name
        if self.ticket is not None:
            query["ticket"] = self.ticket
        if self.lang is not None:
            query["lang"] = self.lang
        scheme = self.base_url.replace("https://", "wss://").replace("http://", "ws://")
        return f"{scheme}/ws/pairing?{urlencode(query)}"

    async def wait(self) -> Pairing | None:
        """Wait until paired (the game) or cancelled (None); ``ProtocolError`` if refused."""
        headers = {"Cookie": self.cookie} if self.cookie else None
        failures = 0
        while True:
            try:
                async with connect(self.url(), additional_headers=headers) as socket:
                    self._socket = socket
                    async for raw in socket:
                        done, pairing = self._handle(json.loads(raw))
                        if done:
                            return pairing
                        failures = 0
            except (OSError, websockets.ConnectionClosed, websockets.InvalidHandshake):
                pass
            finally:
                self._socket = None
            failures += 1
            if failures > self.attempts:
                raise ProtocolError("unavailable", "The pairing socket kept failing.")
            await asyncio.sleep(RETRY_S[min(failures, len(RETRY_S)) - 1])

    def _handle(self, message: dict[str, Any]) -> tuple[bool, Pairing | None]:
        """Whether a message ends the wait, and with which game (None: cancelled)."""
        kind = message.get("type")
        if kind == "waiting":
            self.waiting = message
            self.ticket = message["ticket"]
            return False, None
        if kind == "paired":
            opponent = message["opponent"]
            return True, Pairing(
                message["game"],
                message["seat"],
                message["token"],
                message["rated"],
                opponent["name"],
                opponent["rating"],
            )
        if kind == "error":
            raise ProtocolError.of(message)
        return kind == "cancelled", None

    async def cancel(self) -> None:
        """Ask to leave the pool: ``wait()`` then returns None, or the game if the
        pairing came first."""
        if self._socket is not None:
            with contextlib.suppress(websockets.ConnectionClosed):
                await self._socket.send('{"type": "cancel"}')
