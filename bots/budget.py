"""How long a search may run. The bots are pure: nothing here reads a clock. A time
budget comes with the caller's clock (a function returning seconds, such as
``time.perf_counter``), which the search asks between iterations; without one the
budget is a count of iterations, and the answer depends only on the view and the seed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

Clock = Callable[[], float]

DEFAULT_ITERATIONS: Final = 1_000  # without a clock nor a count: about 1 s of the classic search
MAX_ITERATIONS: Final = 1_000_000  # a bound for a search with time to spare


class Budget:
    """Whether a search may run one more iteration: at most ``iterations``, and for
    at most ``seconds`` by ``clock`` (counted from when the budget is made)."""

    __slots__ = ("_clock", "_deadline", "_limit")

    def __init__(
        self,
        *,
        seconds: float | None = None,
        iterations: int | None = None,
        clock: Clock | None = None,
    ) -> None:
        if seconds is not None and clock is None:
            raise ValueError("a time budget needs the caller's clock: the bots read none")
        if seconds is None and iterations is None:
            iterations = DEFAULT_ITERATIONS
        self._limit = MAX_ITERATIONS if iterations is None else iterations
        self._clock = clock
        self._deadline = None if seconds is None or clock is None else clock() + seconds

    def allows(self, done: int) -> bool:
        """Whether an iteration may follow the ``done`` ones already run."""
        if done >= self._limit:
            return False
        return self._clock is None or self._deadline is None or self._clock() < self._deadline
