"""What every game shares: the events of the lobby, the frame of a seat, and the
events and actions of time and leaving (RULES.md part 3), the same in both games."""

from __future__ import annotations

from typing import Literal

import msgspec

# The name of a game on the wire; `events.game.Variant` is the interface over each game.
VariantName = Literal["classic", "duel"]
Status = Literal["open", "live", "finished", "aborted"]
OutReason = Literal["time", "resign", "abandon"]
AbortReason = Literal["abort", "first_move", "expired", "idle"]


class TimeControl(msgspec.Struct, frozen=True):
    """A game's time control, in seconds: real-time (``initial`` bank and Fischer
    ``increment``) or correspondence (``per_move``). A game without one is untimed."""

    initial: int | None = None
    increment: int | None = None
    per_move: int | None = None

    @property
    def realtime(self) -> bool:
        return self.initial is not None


class GameCreated(
    msgspec.Struct, frozen=True, tag="GameCreated", tag_field="type", omit_defaults=True
):
    """``clock`` and ``seeded`` came with live matches, ``rated`` with accounts: older
    streams decode with the defaults (untimed, not seeded, casual)."""

    game: str
    variant: VariantName
    players: int
    clock: TimeControl | None = None
    seeded: bool = False
    rated: bool = False


class PlayerJoined(
    msgspec.Struct, frozen=True, tag="PlayerJoined", tag_field="type", omit_defaults=True
):
    """A seat taken. ``account`` (came with accounts) is the account's username as it
    was typed at sign-up, None for a guest or a bot; its lowercase is the account's id.

    ``bot`` has no default so that it is always written (``"bot": null``), as it was
    before ``omit_defaults``: recorded logs encode back to the same bytes, and
    ``account`` is written only when there is one."""

    seat: int
    name: str
    bot: str | None
    account: str | None = None


class Seat(msgspec.Struct):
    """Who sits at a seat. Tokens of the seat live in the server, never in events."""

    seat: int
    name: str
    bot: str | None = None
    account: str | None = None


# ---------------------------------------------------------------------- leaving, both games


class _Event(msgspec.Struct, frozen=True, tag_field="type", omit_defaults=True):
    pass


class Resigned(_Event, frozen=True, tag="Resigned"):
    seat: int


class TimeRanOut(_Event, frozen=True, tag="TimeRanOut"):
    seat: int


class AbandonClaimed(_Event, frozen=True, tag="AbandonClaimed"):
    """``seat`` claimed that ``against`` (the seat to move, away 60 s untimed or 30 s
    real-time) abandoned; ``seat == against``: nobody claimed, the seat was away a
    day from an idle untimed game that bots are left in (events/leaving.py)."""

    seat: int
    against: int


class GameAborted(_Event, frozen=True, tag="GameAborted"):
    """No result: ``abort`` (a seated player, ``seat``), ``first_move`` (``seat`` let
    its first turn's window pass), ``expired`` (an open game nobody filled, or whose
    seated people all left), ``idle`` (a live untimed game of humans only that no
    human seat attended for a day)."""

    reason: AbortReason
    seat: int | None = None


class _Action(msgspec.Struct, frozen=True, tag_field="kind", forbid_unknown_fields=True):
    pass


class Resign(_Action, frozen=True, tag="resign"):
    pass


class Abort(_Action, frozen=True, tag="abort"):
    pass


class ClaimAbandon(_Action, frozen=True, tag="claim_abandon"):
    pass


LeaveAction = Resign | Abort | ClaimAbandon
LEAVE_KINDS = frozenset({"resign", "abort", "claim_abandon"})
