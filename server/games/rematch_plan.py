"""Rematches (RULES.md part 3, PROTOCOL.md "Live matches"): what a finished game's
rematch is made of, pure. server/games/rematches.py makes it.

- **One rematch per game.** The finished game's meta hash gets a field ``rematch``
  (its rematch's id) set once (``EventStore.claim_rematch``): whoever calls first
  names the new game; everyone after gets that name. The new game is then *ensured*
  (made if missing) by whoever calls, so a process dying between the two steps costs
  nothing: the next call makes the game.
- **Seats move round by one**: seat ``i`` of the finished game sits at seat
  ``(i + 1) % n`` of the rematch, with its name or bot level. The plan is kept in
  the rematch's meta (``seats``), with ``rematch_of``.
- **Each human joins with its own token**: the rematch's token of a seat is
  derived from that seat's token of the finished game (an HMAC keyed with it), so
  calling again gives the same answer, and the server never keeps a token it has
  not been shown: only its digest, written when the seat calls.
- Seats are taken in order by the rules (``PlayerJoined`` is the next seat), so the
  seats of those who have called (and the bots) are joined as a prefix: seat ``j``
  once every seat before it is a bot or has called. The game starts when its last
  seat is joined. Each join has the command id ``rematch-seat-<j>``, so two processes
  filling at once append it once.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import msgspec

__all__ = [
    "PlannedSeat",
    "join_command_id",
    "plan_seats",
    "rematch_token",
]


class PlannedSeat(msgspec.Struct, frozen=True):
    """A seat of the rematch: who sits there, and its seat in the finished game."""

    name: str
    bot: str | None
    previous: int
    account: str | None = None  # the account of the seat (a rated game's rematch is rated)


_plan_decoder = msgspec.json.Decoder(list[PlannedSeat])


def plan_seats(players: list[Any]) -> list[PlannedSeat]:
    """The rematch's seats from the finished game's players (``name``, ``bot``,
    ``account`` and ``seat`` attributes), moved round by one: seat i goes to
    (i + 1) % n."""
    n = len(players)
    by_new = {(p.seat + 1) % n: p for p in players}
    return [
        PlannedSeat(by_new[j].name, by_new[j].bot, by_new[j].seat, by_new[j].account)
        for j in range(n)
    ]


def encode_plan(plan: list[PlannedSeat]) -> bytes:
    return msgspec.json.encode(plan)


def decode_plan(raw: bytes) -> list[PlannedSeat]:
    return _plan_decoder.decode(raw)


def new_seat(previous: int, players: int) -> int:
    """The rematch seat of the finished game's seat ``previous``."""
    return (previous + 1) % players


def rematch_token(token: str, rematch_id: str) -> str:
    """The rematch's seat token of whoever holds ``token`` in the finished game."""
    digest = hmac.new(token.encode(), f"rematch:{rematch_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def join_command_id(seat: int) -> str:
    return f"rematch-seat-{seat}"
