"""Seats and whose move it is, the same in every game: who may join, and the checks
every ``decide`` makes before its game's own rules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from events.base import PlayerJoined, Status
from events.clock import Clock
from events.errors import GameOver, IllegalAction, NotYourTurn


class _Player(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def account(self) -> str | None: ...


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
    @property
    def clock(self) -> Clock: ...


# How a bot level is written in a seat's name: "MCTS bot", "Greedy bot".
_BOT_LEVEL_WORDS = {"mcts": "MCTS"}


def bot_name(level: str) -> str:
    """The name a bot seat takes by default: "Greedy bot", "MCTS bot"."""
    return f"{_BOT_LEVEL_WORDS.get(level, level.capitalize())} bot"


def distinct_name(name: str, taken: Sequence[str]) -> str:
    """``name``, or with the lowest number from 2 that no seat has ("Greedy bot 2"), so
    that every seat of a table has a name of its own (names compared case-blind)."""
    used = {n.casefold() for n in taken}
    if name.casefold() not in used:
        return name
    number = 2
    while f"{name} {number}".casefold() in used:
        number += 1
    return f"{name} {number}"


def same_account(a: str, b: str) -> bool:
    """Two usernames name the same account: they are compared in lowercase (its id)."""
    return a.lower() == b.lower()


def take_seat(state: Table, name: str, bot: str | None, account: str | None = None) -> PlayerJoined:
    """A player takes the next free seat (the game starts when it was the last), under a
    name no other seat has. A rated game's human seats are accounts' (bots may sit)."""
    if state.status != "open" or len(state.players) >= state.players_count:
        raise IllegalAction("seat.none_free")
    if bot is not None:
        account = None
    elif account is None:
        if state.clock.rated:
            raise IllegalAction("seat.rated_needs_account")
    elif any(p.account is not None and same_account(p.account, account) for p in state.players):
        raise IllegalAction("seat.account_seated", account=account)
    seat_name = distinct_name(name, [p.name for p in state.players])
    return PlayerJoined(len(state.players), seat_name, bot, account)


def check_turn(state: Table, seat: int) -> None:
    """``seat`` may act: the game is live and it is that seat's move."""
    if state.status == "finished":
        raise GameOver("game.over")
    if state.status == "aborted":
        raise GameOver("game.aborted")
    if state.status != "live":
        raise IllegalAction("game.not_started")
    if seat != state.seat:
        raise NotYourTurn("turn.not_yours", player=state.players[state.seat].name)


def to_move(state: Table, seat: int | None) -> bool:
    """The game is live and ``seat`` is the seat to move."""
    return state.status == "live" and seat == state.seat
