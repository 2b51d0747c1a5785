"""Settings from the environment: every SPLENDOR_* variable read in one place, bad values refused."""

from __future__ import annotations

import pytest

from server.settings import Settings, SettingsError


def test_the_live_and_bot_settings_come_from_the_environment() -> None:
    """The websocket buffer, the tailer's way, the bots' mode, pause and MCTS time are read from their variables."""
    settings = Settings.from_env(
        {
            "SPLENDOR_WS_BUFFER": "8192",
            "SPLENDOR_TAIL": "poll",
            "SPLENDOR_BOTS": "off",
            "SPLENDOR_BOT_DELAY": "0",
            "SPLENDOR_MCTS_SECONDS": "2.5",
        }
    )
    assert (settings.ws_buffer, settings.tail, settings.bots) == (8192, "poll", "off")
    assert (settings.bot_delay, settings.mcts_seconds) == (0.0, 2.5)
    default = Settings.from_env({})
    assert (default.ws_buffer, default.tail, default.bots) == (256 * 1024, "auto", "inline")
    assert (default.bot_delay, default.mcts_seconds) == (0.4, 1.0)


@pytest.mark.parametrize(
    "name,value",
    [
        ("SPLENDOR_WS_BUFFER", "0"),
        ("SPLENDOR_WS_BUFFER", "lots"),
        ("SPLENDOR_TAIL", "sometimes"),
        ("SPLENDOR_BOTS", "maybe"),
        ("SPLENDOR_BOT_DELAY", "soon"),
    ],
)
def test_a_bad_value_is_refused_with_its_name(name: str, value: str) -> None:
    """A value the server cannot use stops it with a message naming the variable."""
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})
