"""What every game's view shares: PROTOCOL.md's frame (``game``, ``variant``,
``version``, ``status``, ``you``, ``players``, ``turn``, ``legal``, ``result``), the
part of a player every game shows, and the secret of reserved cards.

A game's ``view`` adds its own table and fields; the order of the keys is the frame's,
the game's table between ``you`` and ``players``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from events.base import Status
from events.colors import GEMS


class _Player(Protocol):
    @property
    def seat(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def bot(self) -> str | None: ...
    @property
    def tokens(self) -> Sequence[int]: ...
    @property
    def bonuses(self) -> Sequence[int]: ...
    @property
    def points(self) -> int: ...


class Viewed(Protocol):
    """What the frame reads of a game's state."""

    @property
    def game(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def status(self) -> Status: ...
    @property
    def seat(self) -> int: ...
    @property
    def turn_number(self) -> int: ...


S = TypeVar("S", bound=Viewed)


def sees_hidden(owner: int, viewer: int | None, finished: bool) -> bool:
    """A player's hidden cards are seen by that player, and by everyone once the game ends."""
    return finished or owner == viewer


def reserved_card(card_id: str, shown: bool, levels: Mapping[str, int]) -> dict[str, Any]:
    """A reserved card as the wire shows it: ``{"card": id}``, or only ``{"level": n}``."""
    return {"card": card_id} if shown else {"level": levels[card_id]}


def player_frame(player: _Player, token_names: tuple[str, ...]) -> dict[str, Any]:
    """The fields of a player every game shows, in the wire's order."""
    return {
        "seat": player.seat,
        "name": player.name,
        "bot": player.bot,
        "tokens": dict(zip(token_names, player.tokens, strict=True)),
        "bonuses": dict(zip(GEMS, player.bonuses, strict=True)),
        "points": player.points,
    }


def turn_frame(state: S, phase: Callable[[S], str], **more: Any) -> dict[str, Any] | None:
    """Whose turn, its phase (while live), its number, and the game's own turn fields;
    None before the game starts."""
    if state.status == "open":
        return None
    live = state.status == "live"
    return {
        "seat": state.seat,
        "phase": phase(state) if live else None,
        "number": state.turn_number,
        **more,
    }


def frame(
    state: Viewed,
    variant: str,
    viewer: int | None,
    table: dict[str, Any],
    players: list[dict[str, Any]],
    turn: dict[str, Any] | None,
    legal: list[dict[str, Any]],
    result: dict[str, Any] | None,
) -> dict[str, Any]:
    """The whole view: the frame around a game's ``table``."""
    return {
        "game": state.game,
        "variant": variant,
        "version": state.version,
        "status": state.status,
        "you": viewer,
        **table,
        "players": players,
        "turn": turn,
        "legal": legal,
        "result": result,
    }
