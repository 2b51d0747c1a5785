"""Settings from the environment: every SPLENDOR_* variable read in one place, bad values refused."""

from __future__ import annotations

import pytest

from server.common.settings import Settings, SettingsError


def test_the_live_and_bot_settings_come_from_the_environment() -> None:
    """The websocket buffer, the tailer's way, the bots' mode, pause, MCTS time, the analysis's mode, budget, analysers and request limit, and quick pairing's offer time are read from their variables."""
    settings = Settings.from_env(
        {
            "SPLENDOR_WS_BUFFER": "8192",
            "SPLENDOR_TAIL": "poll",
            "SPLENDOR_BOTS": "off",
            "SPLENDOR_BOT_DELAY": "0",
            "SPLENDOR_MCTS_SECONDS": "2.5",
            "SPLENDOR_ANALYSIS_BUDGET": "0",
            "SPLENDOR_PAIRING_OFFER_AFTER": "0.5",
            "SPLENDOR_ANALYSIS": "every",
            "SPLENDOR_ANALYSERS": "3",
            "SPLENDOR_ANALYSIS_REQUEST_RATE": "0.5",
            "SPLENDOR_ANALYSIS_REQUEST_BURST": "4",
        }
    )
    assert settings.analysis_budget == 0
    assert settings.pairing_offer_after == 0.5
    assert (settings.analysis, settings.analysers) == ("every", 3)
    assert (settings.analysis_request_rate, settings.analysis_request_burst) == (0.5, 4)
    assert (settings.ws_buffer, settings.tail, settings.bots) == (8192, "poll", "off")
    assert (settings.bot_delay, settings.mcts_seconds) == (0.0, 2.5)
    default = Settings.from_env({})
    assert (default.ws_buffer, default.tail, default.bots) == (256 * 1024, "auto", "inline")
    assert (default.bot_delay, default.mcts_seconds) == (0.4, 1.0)
    assert default.analysis_budget == 300
    assert default.pairing_offer_after == 20.0
    assert (default.analysis, default.analysers) == ("request", 1)  # docs/analysis.md


@pytest.mark.parametrize(
    "name,value",
    [
        ("SPLENDOR_WS_BUFFER", "0"),
        ("SPLENDOR_WS_BUFFER", "lots"),
        ("SPLENDOR_TAIL", "sometimes"),
        ("SPLENDOR_BOTS", "maybe"),
        ("SPLENDOR_BOT_DELAY", "soon"),
        ("SPLENDOR_ANALYSIS_BUDGET", "-1"),
        ("SPLENDOR_ANALYSIS", "sometimes"),
        ("SPLENDOR_ANALYSERS", "-1"),
        ("SPLENDOR_REQUEST_TIMEOUT", "0"),
        ("SPLENDOR_KEEP_ALIVE_TIMEOUT", "-1"),
        ("SPLENDOR_CREATE_BURST", "0"),
        ("SPLENDOR_AUTH_FAILURE_RATE", "often"),
        ("SPLENDOR_DRAIN_SECONDS", "-1"),
    ],
)
def test_a_bad_value_is_refused_with_its_name(name: str, value: str) -> None:
    """A value the server cannot use stops it with a message naming the variable."""
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_the_connection_and_limit_settings_come_from_the_environment() -> None:
    """Timeouts, pings, the per-address limits and the trusted proxies are read from their variables; no proxy is trusted by default."""
    settings = Settings.from_env(
        {
            "SPLENDOR_REQUEST_TIMEOUT": "2.5",
            "SPLENDOR_KEEP_ALIVE_TIMEOUT": "3",
            "SPLENDOR_WS_PING_INTERVAL": "0",
            "SPLENDOR_WS_PING_TIMEOUT": "7",
            "SPLENDOR_CREATE_RATE": "0",
            "SPLENDOR_CREATE_BURST": "5",
            "SPLENDOR_JOIN_RATE": "2",
            "SPLENDOR_JOIN_BURST": "6",
            "SPLENDOR_AUTH_FAILURE_RATE": "0.5",
            "SPLENDOR_AUTH_FAILURE_BURST": "4",
            "SPLENDOR_TRUSTED_PROXIES": "10.0.0.1, 10.0.0.2",
        }
    )
    assert (settings.request_timeout, settings.keep_alive_timeout) == (2.5, 3.0)
    assert (settings.ws_ping_interval, settings.ws_ping_timeout) == (0.0, 7.0)
    assert (settings.create_rate, settings.create_burst) == (0.0, 5)
    assert (settings.join_rate, settings.join_burst) == (2.0, 6)
    assert (settings.auth_failure_rate, settings.auth_failure_burst) == (0.5, 4)
    assert settings.trusted_proxies == ("10.0.0.1", "10.0.0.2")
    assert Settings.from_env({}).trusted_proxies == ()


def test_the_account_settings_come_from_the_environment() -> None:
    """The log-in limits (per address, per account and address, per account, new addresses, the back-off), Secure cookies and the allowed origins are read from their variables; a bad value names its variable."""
    settings = Settings.from_env(
        {
            "SPLENDOR_LOGIN_RATE": "1",
            "SPLENDOR_LOGIN_BURST": "3",
            "SPLENDOR_ACCOUNT_LOGIN_RATE": "0.5",
            "SPLENDOR_ACCOUNT_LOGIN_BURST": "2",
            "SPLENDOR_ACCOUNT_ADDRESS_LOGIN_RATE": "0.25",
            "SPLENDOR_ACCOUNT_ADDRESS_LOGIN_BURST": "4",
            "SPLENDOR_NEW_ADDRESS_LOGIN_RATE": "0.125",
            "SPLENDOR_NEW_ADDRESS_LOGIN_BURST": "6",
            "SPLENDOR_LOGIN_BACKOFF": "10",
            "SPLENDOR_LOGIN_BACKOFF_CAP": "320",
            "SPLENDOR_SECURE_COOKIES": "1",
            "SPLENDOR_ALLOWED_ORIGINS": "https://a.example, https://b.example",
        }
    )
    assert (settings.login_rate, settings.login_burst) == (1.0, 3)
    assert (settings.account_login_rate, settings.account_login_burst) == (0.5, 2)
    assert (settings.account_address_login_rate, settings.account_address_login_burst) == (0.25, 4)
    assert (settings.new_address_login_rate, settings.new_address_login_burst) == (0.125, 6)
    assert (settings.login_backoff, settings.login_backoff_cap) == (10.0, 320.0)
    assert settings.secure_cookies is True
    assert settings.allowed_origins == ("https://a.example", "https://b.example")
    default = Settings.from_env({})
    assert (default.secure_cookies, default.allowed_origins) == (False, ())
    for name, value in (
        ("SPLENDOR_SECURE_COOKIES", "yes"),
        ("SPLENDOR_LOGIN_BURST", "0"),
        ("SPLENDOR_ACCOUNT_ADDRESS_LOGIN_BURST", "0"),
        ("SPLENDOR_LOGIN_BACKOFF", "-1"),
    ):
        with pytest.raises(SettingsError, match=name):
            Settings.from_env({name: value})
