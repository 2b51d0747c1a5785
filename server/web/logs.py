"""The server's log output, with no secret in it.

A seat token travels in a websocket's URL (``?token=``, PROTOCOL.md), and uvicorn
writes URLs in its lines: the HTTP access line (``uvicorn.access``), the websocket's
``"WebSocket /ws/games/…?token=…" [accepted]`` (``uvicorn.error``, not the access
logger), and at debug level the websockets library's request line and headers
(``Authorization: Bearer …``). So the secrets are taken out where every line passes:
``RedactSecrets``, a filter on every handler of ``log_config`` (uvicorn's own
configuration, plus the root logger, so the server's own lines pass the same filter
instead of Python's last-resort handler). It redacts the value of a ``token`` query parameter, of a
quick pairing ``ticket`` (its holder's seat token is derived from it, server/players/pairing_pools.py)
and of the session cookie (``splendor_session=``, in a ``Cookie`` or ``Set-Cookie``
header), a ``password`` field (``"password": "…"`` in JSON or a repr, or
``password=…``), a ``Bearer`` credential and a password in a URL
(``redis://:secret@host``), in the message, its arguments and the traceback of an
exception.

``splendor serve`` and ``splendor bots`` configure logging with ``log_config``; with
another log configuration, put ``server.web.logs.RedactSecrets`` on its handlers.
"""

from __future__ import annotations

import copy
import logging
import re
from typing import Any, Final
from urllib.parse import unquote

from uvicorn.config import LOGGING_CONFIG

REDACTED: Final = "[redacted]"

# The patterns of a query parameter (its name maybe percent-encoded), a Bearer
# credential, a URL's password and a password field, each of which may hold a secret.
_PARAMETER = re.compile(r"(?P<name>(?:(?<=[?&;\s])|^)[^=&;?\s\"']+)=(?P<value>[^&;\s\"']*)")
_BEARER = re.compile(r"(?i)(?P<scheme>\bbearer\s+)[^\s\"',;]+")
_PASSWORD = re.compile(r"(?P<start>://[^/@\s:\"']*:)[^/@\s\"']+(?=@)")
_PASSWORD_FIELD = re.compile(
    r"""(?P<key>(?P<k>["'])password(?P=k)\s*:\s*)(?P<q>["'])(?:\\.|(?!(?P=q)).)*(?P=q)""",
    re.IGNORECASE | re.DOTALL,
)
SECRET_PARAMETERS: Final = frozenset({"token", "ticket", "splendor_session", "password"})


def _parameter(match: re.Match[str]) -> str:
    if unquote(match["name"]).strip().lower() in SECRET_PARAMETERS:
        return f"{match['name']}={REDACTED}"
    return match[0]


def redact(text: str) -> str:
    """``text`` with every secret it shows replaced by ``[redacted]``."""
    if "=" in text:
        text = _PARAMETER.sub(_parameter, text)
    text = _BEARER.sub(lambda m: m["scheme"] + REDACTED, text)
    text = _PASSWORD_FIELD.sub(lambda m: f"{m['key']}{m['q']}{REDACTED}{m['q']}", text)
    if "@" in text:
        text = _PASSWORD.sub(lambda m: m["start"] + REDACTED, text)
    return text


def _redacted_arg(arg: Any) -> Any:
    """An argument kept as it is unless its text shows a secret (then its redacted text)."""
    if isinstance(arg, int | float | bool | type(None)):
        return arg
    text = arg if isinstance(arg, str) else str(arg)
    cleaned = redact(text)
    return arg if cleaned == text else cleaned


class RedactSecrets(logging.Filter):
    """Takes seat tokens, Bearer credentials and URL passwords out of a log record.

    It edits the record in place. Where a secret lies within one argument (uvicorn's
    URLs) only that argument is replaced, so the arguments stay separate (uvicorn's
    access formatter reads them one by one); where it spans the message and its
    arguments (``"Bearer %s"``), the record becomes its redacted text."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # A malformed record, which logging reports itself.
            return True
        if redact(message) != message:
            if isinstance(record.args, tuple):
                record.args = tuple(_redacted_arg(arg) for arg in record.args)
            elif isinstance(record.args, dict):
                record.args = {key: _redacted_arg(arg) for key, arg in record.args.items()}
            message = record.getMessage()
            cleaned = redact(message)
            if cleaned != message:
                record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def log_config(level: str = "info") -> dict[str, Any]:
    """uvicorn's logging configuration with ``RedactSecrets`` on every handler, and the
    root logger (the server's own lines) through the same handler as uvicorn's lines:
    warnings and above, as before it had a handler, or everything at ``debug``."""
    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"redact_secrets": {"()": RedactSecrets}}
    for handler in config["handlers"].values():
        handler["filters"] = ["redact_secrets"]
    root_level = "DEBUG" if level.lower() == "debug" else max(level.upper(), "WARNING", key=_rank)
    config["root"] = {"handlers": ["default"], "level": root_level}
    return config


def _rank(level: str) -> int:
    return logging.getLevelNamesMapping()[level]
