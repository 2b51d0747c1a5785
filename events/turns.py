"""Seats and whose move it is, the same in every game: who may join, and the checks
every ``decide`` makes before its game's own rules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from events.base import PlayerJoined, Status
from events.errors import GameOver, IllegalAction, NotYourTurn


class _Player(Protocol):
    @property
    def name(self) -> str: ...


class Table(Protocol):
    """What these checks read of a game's state."""

    @property
    def status(self) -> Status: ...
    @property
    def players_count(self) -> int: ...
    @property
    def players(self) -> Sequence[_Player]: ...
    @property
    def seat(self) -> int: ...


def take_seat(state: Table, name: str, bot: str | None) -> PlayerJoined:
    """A player takes the next free seat (the game starts when it was the last)."""
    if state.status != "open" or len(state.players) >= state.players_count:
        raise IllegalAction("This game has no free seat left.")
    return PlayerJoined(len(state.players), name, bot)


def check_turn(state: Table, seat: int) -> None:
    """``seat`` may act: the game is live and it is that seat's move."""
    if state.status == "finished":
        raise GameOver("The game is over.")
    if state.status != "live":
        raise IllegalAction("The game has not started: it is waiting for players.")
    if seat != state.seat:
        raise NotYourTurn(f"It is {state.players[state.seat].name}'s turn, not yours.")


def to_move(state: Table, seat: int | None) -> bool:
    """The game is live and ``seat`` is the seat to move."""
    return state.status == "live" and seat == state.seat
