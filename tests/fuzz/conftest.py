"""The fuzz tests use the server tests' fixtures: the app on the session's Redis, an
HTTP client talking to it in-process, settings without a rate limit."""

from __future__ import annotations

from tests.server.conftest import app, http, settings

__all__ = ["app", "http", "settings"]
