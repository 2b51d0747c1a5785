"""Token buckets per client: ``rate`` a second on average, ``burst`` at once.

Commands are priced per seat token (per address without one); games created, seats
joined and failed authentications per client address (``ClientLimits``). A client's
address is the peer's, or ``X-Forwarded-For``'s from a trusted proxy only
(``SPLENDOR_TRUSTED_PROXIES``, read by uvicorn): docs/operations.md.

In memory and per process: it protects a process from one client's flood, it is no
quota across a cluster (put that in the load balancer).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

from server.common.errors import ServiceError, rate_limited
from server.common.settings import Settings

T = TypeVar("T")

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

    def waiting(self, key: str) -> float | None:
        """None if ``allow(key)`` would allow now, else the seconds until it would;
        nothing is spent."""
        if self.rate <= 0:
            return None
        bucket = self._buckets.get(key)
        if bucket is None:
            return None
        tokens = min(float(self.burst), bucket[0] + (self._clock() - bucket[1]) * self.rate)
        return None if tokens >= 1.0 else (1.0 - tokens) / self.rate

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


class ClientLimits:
    """The per-address budgets of one process: games created, seats joined, failed
    authentications (a token that is no seat's), and analyses asked for (per account
    for a signed-in player)."""

    def __init__(self, settings: Settings, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.create = RateLimiter(settings.create_rate, settings.create_burst, clock=clock)
        self.join = RateLimiter(settings.join_rate, settings.join_burst, clock=clock)
        self.auth_failures = RateLimiter(
            settings.auth_failure_rate, settings.auth_failure_burst, clock=clock
        )
        self.analyses = RateLimiter(
            settings.analysis_request_rate, settings.analysis_request_burst, clock=clock
        )

    def spend_create(self, address: str) -> None:
        """Count a game created by ``address``, or raise ``rate_limited``."""
        wait = self.create.allow(address)
        if wait is not None:
            raise rate_limited(wait, "games")

    def spend_join(self, address: str) -> None:
        """Count a seat joined by ``address``, or raise ``rate_limited``."""
        wait = self.join.allow(address)
        if wait is not None:
            raise rate_limited(wait, "seats")

    def spend_analysis(self, who: str) -> None:
        """Count an analysis asked for by ``who`` (an account, or a guest's address),
        or raise ``rate_limited``."""
        wait = self.analyses.allow(who)
        if wait is not None:
            raise rate_limited(wait, "analyses")

    async def authenticate(
        self, address: str, check: Callable[[], Awaitable[T]], *, guessable: bool = False
    ) -> T:
        """``check()``, the verification of a token sent by ``address``; a failure
        (``unauthorized``) is counted, and past the address's budget it is answered
        ``rate_limited`` instead.

        A right seat token always passes: 256 random bits can't be guessed, so
        refusing it would only let someone who shares the player's address (a NAT, a
        carrier's) keep the player from their seat with a wrong token every 10 s. A
        ``guessable`` secret (the operator's metrics token) is refused whatever it is
        past the budget, the right one too, so that guesses can't be told apart."""
        if guessable:
            wait = self.auth_failures.waiting(address)
            if wait is not None:
                raise rate_limited(wait, "authentications")
        try:
            return await check()
        except ServiceError as e:
            if e.code == "unauthorized":
                wait = self.auth_failures.allow(address)
                if wait is not None and not guessable:
                    raise rate_limited(wait, "authentications") from None
            raise
