"""``server.web.logs``: the filter on every handler of the server's log takes out seat
tokens, pairing tickets, session cookies, password fields, Bearer credentials and URL passwords, from messages, arguments and tracebacks."""

from __future__ import annotations

import io
import logging
import logging.config
from collections.abc import Iterator

import pytest

from server.web.logs import RedactSecrets, log_config, redact

TOKEN = "o16TACa-gadSS50UhTsNUfgq_FzPqtF-A70EAre8dFk"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"/ws/games/g1?token={TOKEN}", "/ws/games/g1?token=[redacted]"),
        (f"/ws/games/g1?since=3&token={TOKEN}&x=1", "/ws/games/g1?since=3&token=[redacted]&x=1"),
        (f"/ws/games/g1?to%6Ben={TOKEN}", "/ws/games/g1?to%6Ben=[redacted]"),
        (f"Authorization: bearer {TOKEN}", "Authorization: bearer [redacted]"),
        (f"authorization: BeArEr {TOKEN}", "authorization: BeArEr [redacted]"),
        ("redis://:hunter2@db:6379/0", "redis://:[redacted]@db:6379/0"),
        (
            f"/ws/pairing?variant=duel&clock=5%2B3&ticket={TOKEN}",
            "/ws/pairing?variant=duel&clock=5%2B3&ticket=[redacted]",
        ),
        (f"cookie: a=1; splendor_session={TOKEN}", "cookie: a=1; splendor_session=[redacted]"),
        (
            f"set-cookie: splendor_session={TOKEN}; Path=/",
            "set-cookie: splendor_session=[redacted]; Path=/",
        ),
        (
            '{"username": "ana", "password": "hu\\"n ter2"}',
            '{"username": "ana", "password": "[redacted]"}',
        ),
        ("{'Password': 'hunter 2', 'a': 1}", "{'Password': '[redacted]', 'a': 1}"),
        ("username=ana&password=hunter2&x=1", "username=ana&password=[redacted]&x=1"),
        ("/api/games?status=open&limit=5", "/api/games?status=open&limit=5"),
        ("http://127.0.0.1:8000/#/watch/g1", "http://127.0.0.1:8000/#/watch/g1"),
    ],
)
def test_redact_takes_out_secrets_and_nothing_else(text: str, expected: str) -> None:
    """Token and pairing ticket parameters (even percent-encoded), the session cookie, password fields (JSON, repr or form), Bearer credentials and URL passwords are redacted; other parameters and URLs are kept."""
    assert redact(text) == expected


@pytest.fixture
def configured() -> Iterator[io.StringIO]:
    """The server's log configuration, its handlers writing to one buffer."""
    out = io.StringIO()
    config = log_config("debug")
    for handler in config["handlers"].values():
        handler["stream"] = out
    before = logging.root.handlers[:], logging.root.level
    logging.config.dictConfig(config)
    logging.getLogger("uvicorn.error").setLevel(logging.DEBUG)  # as --log-level debug does
    try:
        yield out
    finally:
        logging.root.handlers[:], root_level = before
        logging.root.setLevel(root_level)
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
            logging.getLogger(name).handlers.clear()
            logging.getLogger(name).setLevel(logging.NOTSET)


def test_every_handler_of_the_server_log_redacts(configured: io.StringIO) -> None:
    """uvicorn's access line (arguments read one by one by its formatter), its websocket line, the websockets library's request header at debug, a server module's traceback: none shows the token."""
    access = logging.getLogger("uvicorn.access")
    access.info(
        '%s - "%s %s HTTP/%s" %d',
        "127.0.0.1:5000",
        "GET",
        f"/ws/games/g1?token={TOKEN}",
        "1.1",
        200,
    )
    errors = logging.getLogger("uvicorn.error")
    errors.info('%s - "WebSocket %s" [accepted]', "127.0.0.1:5000", f"/ws/games/g1?token={TOKEN}")
    errors.debug("< %s: %s", "Authorization", f"Bearer {TOKEN}")
    try:
        raise ValueError(f"could not open ws://host/ws/games/g1?token={TOKEN}")
    except ValueError:
        logging.getLogger("server.web.game_socket").exception("failed on Bearer %s", TOKEN)
    written = configured.getvalue()
    assert '"GET /ws/games/g1?token=[redacted] HTTP/1.1" 200' in written
    assert "Authorization: Bearer [redacted]" in written
    assert "ValueError: could not open ws://host/ws/games/g1?token=[redacted]" in written
    assert TOKEN not in written


def test_the_filter_keeps_records_without_secrets_as_they_are() -> None:
    """A record with no secret keeps its message and its arguments' types."""
    record = logging.LogRecord("x", logging.INFO, "f", 1, "%s took %d ms", ("hub", 12), None)
    assert RedactSecrets().filter(record)
    assert record.args == ("hub", 12) and record.getMessage() == "hub took 12 ms"
