"""A token bucket per client, for commands: ``rate`` a second on average, ``burst`` at once.

In memory and per process: it protects a process from one client's flood, it is no
quota across a cluster (put that in the load balancer).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

MAX_CLIENTS: Final = 10_000


class RateLimiter:
    """``allow(key)`` spends one token of ``key``'s bucket; a rate <= 0 disables it."""

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        self.rate = rate
        self.burst = max(1, burst)
        self._clock = clock
        self._max_clients = max_clients
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)

    def allow(self, key: str) -> float | None:
        """None if allowed (a token is spent), else the seconds until one is available."""
        if self.rate <= 0:
            return None
        now = self._clock()
        tokens, at = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate
        self._buckets[key] = (tokens - 1.0, now)
        if len(self._buckets) > self._max_clients:
            self._prune(now)
        return None

    def _prune(self, now: float) -> None:
        # Buckets full again are the same as no bucket: drop them; if a flood of
        # distinct keys keeps them all busy, drop the oldest half.
        full = [
            k for k, (t, at) in self._buckets.items() if t + (now - at) * self.rate >= self.burst
        ]
        for key in full:
            del self._buckets[key]
        if len(self._buckets) > self._max_clients:
            by_age = sorted(self._buckets, key=lambda k: self._buckets[k][1])
            for key in by_age[: len(by_age) // 2]:
                del self._buckets[key]
