"""The server tests' fixtures (the app on the session's Redis, its HTTP client) for
the language tests."""

from __future__ import annotations

from tests.server.conftest import app, http, service, settings

__all__ = ["app", "http", "service", "settings"]
