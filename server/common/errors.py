"""The errors of PROTOCOL.md: a code, a sentence, and the HTTP status that goes with it.

The service raises ``ServiceError``; the HTTP routes turn it into a status and a
``{"code", "message"}`` body, the websocket into an ``error`` message.
"""

from __future__ import annotations

from typing import Final, Literal

from events.errors import RuleViolation

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

    ``status`` is the HTTP status: PROTOCOL.md's for the code, except ``unauthorized``,
    which is 401 for a missing token and 403 for a token that is not good here.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        status: int | None = None,
        *,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.status = STATUS[code] if status is None else status
        self.retry_after = retry_after  # In seconds; given with rate_limited and unavailable.

    def to_wire(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"ServiceError({self.code!r}, {self.message!r}, {self.status})"


def bad_request(message: str) -> ServiceError:
    return ServiceError("bad_request", message)


def not_found(message: str) -> ServiceError:
    return ServiceError("not_found", message)


def missing_token(
    message: str = "This needs a seat token: Authorization: Bearer <token>.",
) -> ServiceError:
    return ServiceError("unauthorized", message, 401)


def forbidden(message: str = "This token is not a seat token of this game.") -> ServiceError:
    return ServiceError("unauthorized", message, 403)


def conflict(expected: int, actual: int) -> ServiceError:
    return ServiceError(
        "conflict",
        f"expected_version {expected} is stale: the game is at version {actual}.",
    )


def rate_limited(retry_after: float, what: str = "commands") -> ServiceError:
    return ServiceError(
        "rate_limited",
        f"Too many {what}: try again in {retry_after:.1f} s.",
        retry_after=retry_after,
    )


UNAVAILABLE_RETRY_S: Final = 2.0


def unavailable(cause: object) -> ServiceError:
    """The store (Redis) can't be reached: nothing was done, or, for a command whose
    answer was lost, maybe done once (sending it again with its id is safe)."""
    return ServiceError(
        "unavailable",
        "The server can't reach its game store right now (Redis: "
        f"{str(cause) or type(cause).__name__}). It reconnects by itself: try again"
        " in a few seconds; a move sent again with the same command_id is applied once.",
        retry_after=UNAVAILABLE_RETRY_S,
    )


def from_violation(violation: RuleViolation) -> ServiceError:
    """A rule the game refused, with the rules' own sentence."""
    return ServiceError(violation.code, violation.message)
