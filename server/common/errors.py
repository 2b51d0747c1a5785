"""The errors of PROTOCOL.md: a code, a reason, and the HTTP status that goes with it.

The service raises ``ServiceError``; the HTTP routes turn it into a status and a
``{"code", "message", "reason"}`` body, the websocket into an ``error`` message. The
reason is a stable key and its arguments (``server.common.reasons``, and the rules'
``events.reasons``); the message is its sentence in the reader's language, made by
``to_wire`` at the edge once the language is known (server/common/sentences.py).
"""

from __future__ import annotations

from typing import Any, Final, Literal

from events.errors import RuleViolation
from events.reasons import Arg, Reason
from server.common.reasons import template_of
from server.common.sentences import sentence

ErrorCode = Literal[
    "bad_request",
    "unauthorized",
    "not_found",
    "not_your_turn",
    "illegal_action",
    "conflict",
    "game_over",
    "rate_limited",
    "unavailable",
]

STATUS: Final[dict[str, int]] = {
    "bad_request": 400,
    "unauthorized": 401,
    "not_found": 404,
    "not_your_turn": 409,
    "illegal_action": 422,
    "conflict": 409,
    "game_over": 409,
    "rate_limited": 429,
    # An addition to PROTOCOL.md's codes (docs/http-api.md): the server's store (Redis)
    # can't be reached for now. The server reconnects by itself, and the client retries.
    "unavailable": 503,
}


class ServiceError(Exception):
    """A request that cannot be honoured; it changed nothing.

    ``reason`` says what was refused: a key of docs/reasons.md and its arguments.
    ``status`` is the HTTP status: PROTOCOL.md's for the code, except ``unauthorized``,
    which is 401 for a missing token and 403 for a token that is not good here.
    """

    def __init__(
        self,
        code: ErrorCode,
        key: str,
        args: dict[str, Arg] | None = None,
        status: int | None = None,
        *,
        retry_after: float | None = None,
    ) -> None:
        reason = Reason(key, args or {})
        # A key nobody defined, or arguments its sentence does not take, is a bug,
        # caught where it is raised.
        template_of(key).check(key, reason.args)
        super().__init__(code, reason)
        self.code: ErrorCode = code
        self.reason = reason
        self.status = STATUS[code] if status is None else status
        self.retry_after = retry_after  # In seconds; given with rate_limited and unavailable.

    @property
    def message(self) -> str:
        """The sentence in English (logs, tests); ``to_wire`` writes the reader's."""
        return sentence(self.reason, "en")

    def to_wire(self, lang: str = "en") -> dict[str, Any]:
        """PROTOCOL.md's error: the code, the sentence in ``lang``, the reason."""
        return {
            "code": self.code,
            "message": sentence(self.reason, lang),
            "reason": self.reason.to_wire(),
        }

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"ServiceError({self.code!r}, {self.reason.key!r}, {self.status})"


def bad_request(key: str, **args: Arg) -> ServiceError:
    return ServiceError("bad_request", key, args)


def not_found(key: str, **args: Arg) -> ServiceError:
    return ServiceError("not_found", key, args)


def missing_token(key: str = "token.missing", **args: Arg) -> ServiceError:
    return ServiceError("unauthorized", key, args, 401)


def forbidden(key: str = "token.not_here", **args: Arg) -> ServiceError:
    return ServiceError("unauthorized", key, args, 403)


def conflict(expected: int, actual: int) -> ServiceError:
    return ServiceError("conflict", "game.stale_version", {"expected": expected, "actual": actual})


def rate_limited(retry_after: float, what: str = "commands") -> ServiceError:
    """Too many requests of a kind (``what``: the key's last part, docs/reasons.md
    ``rate_limited.*``); the wait is said to a tenth of a second."""
    return ServiceError(
        "rate_limited",
        f"rate_limited.{what}",
        {"wait": round(retry_after, 1)},
        retry_after=retry_after,
    )


UNAVAILABLE_RETRY_S: Final = 2.0


def unavailable(cause: object) -> ServiceError:
    """The store (Redis) can't be reached: nothing was done, or, for a command whose
    answer was lost, maybe done once (sending it again with its id is safe). The
    reason is the cause's own when it names one (``StoreUnavailable.reason``: a
    primary with no replica under strict durability, server/store/durability.py)."""
    key = getattr(cause, "reason", "store.unavailable")
    args: dict[str, Arg]
    if not isinstance(key, str) or key == "store.unavailable":
        key, args = "store.unavailable", {"detail": str(cause) or type(cause).__name__}
    else:
        args = {}
    return ServiceError("unavailable", key, args, retry_after=UNAVAILABLE_RETRY_S)


def from_violation(violation: RuleViolation) -> ServiceError:
    """A rule the game refused, with the rules' own reason."""
    return ServiceError(violation.code, violation.reason.key, dict(violation.reason.args))
