"""A process's background loops (the timekeeper, the archiver): each one's ``run``
in a task for as long as the app runs, then ``close`` and the task waited for; and
their sleep between turns, cut short when they are closed."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from typing import Any, Protocol

__all__ = ["Loop", "Sleeper", "in_task", "running"]


class Loop(Protocol):
    def close(self) -> None:
        """Stop at the next turn (and wake the loop if it sleeps)."""

    async def run(self) -> None:
        """Loop until closed."""


class Sleeper:
    """A loop's sleep between its turns, which ``wake`` cuts short (closing)."""

    def __init__(self) -> None:
        self._woken = asyncio.Event()

    def wake(self) -> None:
        self._woken.set()

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            return
        self._woken.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._woken.wait(), seconds)


@asynccontextmanager
async def in_task(work: Coroutine[Any, Any, None], name: str | None = None) -> AsyncIterator[None]:
    """``work`` in a task for the body (a lifespan's); then cancelled and waited for."""
    task = asyncio.create_task(work, name=name)
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@asynccontextmanager
async def running(loop: Loop) -> AsyncIterator[None]:
    """``loop.run()`` in a task for the body; then closed, cancelled and waited for."""
    async with in_task(loop.run()):
        try:
            yield
        finally:
            loop.close()
