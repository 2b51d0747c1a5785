"""A process's background loops (the timekeeper, the archiver): each one's ``run``
in a task for as long as the app runs, then ``close`` and the task waited for."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Protocol

__all__ = ["Loop", "running"]


class Loop(Protocol):
    def close(self) -> None:
        """Stop at the next turn (and wake the loop if it sleeps)."""

    async def run(self) -> None:
        """Loop until closed."""


@asynccontextmanager
async def running(loop: Loop) -> AsyncIterator[None]:
    """``loop.run()`` in a task for the body; then closed, cancelled and waited for."""
    task = asyncio.create_task(loop.run())
    try:
        yield
    finally:
        loop.close()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
