"""The Python client's clocks: a seat's time left read from a view's ``clock`` at an
explicit ``now``, and how ``splendor watch`` writes it."""

from __future__ import annotations

from typing import Any

from client.live import clock_left, clock_ticking
from client.terminal import clock_text

T = 1_700_000_000_000
T_ISO = "2023-11-14T22:13:20.000Z"  # T as ISO-8601


def timed_view(**clock: Any) -> dict[str, Any]:
    base = {"remaining": [180_000, 175_000], "running": 1, "first_move": None, "now": T_ISO}
    return {"status": "live", "turn": {"seat": 1}, "clock": {**base, **clock}}


def test_the_running_clock_ticks_down_from_the_views_now() -> None:
    """The running seat's remaining goes down with the time since the clock's now (never below 0); the other seat's stands; an untimed game or a bot's seat has none."""
    view = timed_view()
    assert clock_left(view, 1, T + 5_000) == 170_000
    assert clock_left(view, 1, T + 999_000) == 0
    assert clock_left(view, 0, T + 5_000) == 180_000
    assert clock_left(timed_view(remaining=[None, 175_000]), 0, T) is None
    assert clock_left({"status": "live", "clock": None}, 0, T) is None
    assert clock_ticking(view) and not clock_ticking({**view, "status": "finished"})


def test_a_first_move_shows_its_window() -> None:
    """On a seat's first move (running null, first_move set) its clock is what is left of the window, ticking; the other seat shows its bank."""
    view = timed_view(running=None, first_move=30_000)
    assert clock_left(view, 1, T + 12_000) == 18_000
    assert clock_left(view, 0, T + 12_000) == 180_000
    assert clock_ticking(view)


def test_clock_texts() -> None:
    """m:ss, h:mm:ss past an hour (correspondence), seconds and tenths under 10 s."""
    assert [clock_text(ms) for ms in (185_000, 10_000, 9_870, 0, 86_400_000)] == [
        "3:05",
        "0:10",
        "9.8s",
        "0.0s",
        "24:00:00",
    ]
