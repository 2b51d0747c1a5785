"""Rolling restarts: a process told to stop (SIGTERM, or a first Ctrl-C) drains first.

From the signal on, ``/healthz`` answers ``503 draining`` (a load balancer stops
routing to the process), a new socket is closed with 1012 (service restart) as soon as
it is accepted, and a command arriving on an open socket is not taken (it stays
unanswered: the client sends it again, with its ``command_id``, on its next socket).
Commands already being applied finish and are answered. Then every socket is closed
with 1012, after what was written to it (the answers), and the process stops the way
it did before: uvicorn's own shutdown, then the app's lifespan (the bot runner and its
worker processes, the presence book's ends, the timekeeper, Redis). The whole drain is
bounded by ``SPLENDOR_DRAIN_SECONDS``; a second signal stops at once.

``Drain`` is the app's (``AppParts.drain``, server/web/state.py), used by the sockets and ``/healthz``;
``DrainingServer`` is the uvicorn server ``splendor serve`` runs, which starts the drain
on the signal and lets uvicorn stop once it is done. Under another server nothing
drains: uvicorn alone closes every socket with 1012 at once. docs/operations.md,
"Rolling restarts".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from types import FrameType
from typing import Final, Protocol

import uvicorn

__all__ = ["CLOSE_RESTART", "RESTART_REASON", "Drain", "DrainingServer", "Restartable"]

log = logging.getLogger(__name__)

CLOSE_RESTART: Final = 1012
RESTART_REASON: Final = "The server is restarting: reconnect."


class Restartable(Protocol):
    """An open socket, as the drain sees it."""

    async def close_for_restart(self) -> None:
        """Close with 1012 once what was written to it has gone out."""
        ...


class Drain:
    """Whether this process is draining, its commands being applied, its sockets."""

    def __init__(self) -> None:
        self.draining = False
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._sockets: set[Restartable] = set()

    def begin(self) -> None:
        """From now on: no new socket, no new command, health says draining."""
        self.draining = True

    # -- from the sockets

    def admit(self, socket: Restartable) -> bool:
        """Count ``socket`` among those to close; False when draining (close it now)."""
        if self.draining:
            return False
        self._sockets.add(socket)
        return True

    def leave(self, socket: Restartable) -> None:
        self._sockets.discard(socket)

    def take_command(self) -> bool:
        """Start a command (True), or refuse it while draining (False: leave it
        unanswered; the client sends it again elsewhere)."""
        if self.draining:
            return False
        self._in_flight += 1
        self._idle.clear()
        return True

    def command_done(self) -> None:
        self._in_flight -= 1
        if self._in_flight == 0:
            self._idle.set()

    # -- the drain itself

    async def run(self, grace: float) -> None:
        """Drain: wait for the commands being applied, then close every socket with
        1012; ``grace`` seconds at most in all."""
        self.begin()
        started = time.monotonic()
        in_flight = self._in_flight
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), grace)
        sockets = list(self._sockets)
        if sockets:
            left = max(0.0, grace - (time.monotonic() - started))
            closing = [asyncio.create_task(s.close_for_restart()) for s in sockets]
            _, late = await asyncio.wait(closing, timeout=left)
            for task in late:  # uvicorn's shutdown closes those with 1012 too.
                task.cancel()
        log.info(
            "drained in %.2f s: %d command(s) were being applied, %d socket(s) closed with %d",
            time.monotonic() - started,
            in_flight,
            len(sockets),
            CLOSE_RESTART,
        )


class DrainingServer(uvicorn.Server):
    """uvicorn's server, draining ``drain`` on the first SIGTERM or SIGINT before its
    own shutdown (which then closes the listening socket). A second signal is
    uvicorn's: it stops at once."""

    def __init__(self, config: uvicorn.Config, drain: Drain, grace: float) -> None:
        super().__init__(config)
        self.drain = drain
        self.grace = grace
        self._loop: asyncio.AbstractEventLoop | None = None
        self._draining: asyncio.Task[None] | None = None

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        loop = self._loop
        if loop is None or not self.started or self.drain.draining or self.should_exit:
            super().handle_exit(sig, frame)
            return
        # This runs in the signal handler, so health says draining from this moment.
        self.drain.begin()
        log.info("signal %d: draining for up to %g s before stopping", sig, self.grace)
        loop.call_soon_threadsafe(self._start_drain, sig)

    def _start_drain(self, sig: int) -> None:
        self._draining = asyncio.get_running_loop().create_task(self._drain_then_stop(sig))

    async def _drain_then_stop(self, sig: int) -> None:
        try:
            await self.drain.run(self.grace)
        finally:
            if not self.should_exit:
                super().handle_exit(sig, None)  # uvicorn's own shutdown takes over from here.
