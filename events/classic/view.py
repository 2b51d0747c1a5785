"""What a viewer may see of a classic game: PROTOCOL.md's classic view, and events
redacted the same way. Blind reserves show their level only to anyone but their
owner until the game ends; undealt cards are never shown.

``view`` builds one view whole; ``new_views`` keeps every viewer's view of one game
up to date (the hubs' way), from the same member builders.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from events.catalog import classic_cards
from events.classic.actions import ClassicAction, TakeThree
from events.classic.events import (
    CardBought,
    CardDealt,
    CardReserved,
    ClassicEvent,
    NobleVisited,
    TokensReturned,
    TokensTaken,
    TurnEnded,
    TurnPassed,
)
from events.classic.rules import final_round, legal_actions, phase
from events.classic.state import ClassicState, PlayerState, Result
from events.colors import GEMS, TOKENS
from events.decks import card_levels
from events.leaving import leave_actions, leave_wire
from events.turns import to_move
from events.views import (
    LIVE_MEMBERS,
    SeatParts,
    TableViews,
    frame,
    player_frame,
    reserved_card,
    round_of,
    sees_hidden,
)

_LEVEL = card_levels(classic_cards().values())


def view(state: ClassicState, viewer: int | None) -> dict[str, Any]:
    """The table as ``viewer`` (a seat, or None for a spectator) may see it."""
    finished = state.status == "finished"
    players = [_player(p, sees_hidden(p.seat, viewer, finished)) for p in state.players]
    table = {
        "bank": _bank(state),
        "board": _board(state),
        "decks": _decks(state),
        "nobles": list(state.nobles),
        **{name: build(state) for name, build in LIVE_MEMBERS.items()},
    }
    legal = (
        [action_to_wire(a) for a in legal_actions(state, state.seat)]
        if to_move(state, viewer)
        else []
    ) + leave_wire(state, viewer)
    return frame(
        state, "classic", viewer, table, players, _turn(state), legal, _outcome(state.result)
    )


def _player(p: PlayerState, shown: bool) -> dict[str, Any]:
    entry = player_frame(p, TOKENS)
    entry["cards"] = list(p.cards)
    entry["nobles"] = list(p.nobles)
    entry["reserved"] = [reserved_card(r.card, shown or not r.blind, _LEVEL) for r in p.reserved]
    return entry


def _bank(state: ClassicState) -> dict[str, int]:
    return dict(zip(TOKENS, state.bank, strict=True))


def _board(state: ClassicState) -> dict[str, list[str | None]]:
    return {str(i + 1): list(row) for i, row in enumerate(state.board)}


def _decks(state: ClassicState) -> dict[str, int]:
    return {str(i + 1): len(deck) for i, deck in enumerate(state.decks)}


def _turn(state: ClassicState) -> dict[str, Any] | None:
    """``turn_frame`` with ``final_round``, written out: views rebuild it after most
    events."""
    status = state.status
    if status == "open":
        return None
    return {
        "seat": state.seat,
        "phase": phase(state) if status == "live" else None,
        "number": state.turn_number,
        "round": round_of(state),
        "final_round": final_round(state),
    }


def _outcome(result: Result | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "winners": list(result.winners),
        "points": list(result.points),
        "cards": list(result.cards),
        "reason": result.reason,
        "ranks": list(result.ranks),
    }


# What each event may change of the spectator's view, besides its frame and ``turn``:
# members of the table, and "player" for the entry of the event's seat. Events not
# listed (the set-up, the end) rebuild everything. tests/properties checks this.
_CHANGES: dict[type[Any], tuple[str, ...]] = {
    TokensTaken: ("bank", "player"),
    TokensReturned: ("bank", "player"),
    CardReserved: ("board", "decks", "bank", "player"),
    CardBought: ("board", "bank", "player"),
    CardDealt: ("board", "decks"),
    NobleVisited: ("nobles", "player"),
    TurnPassed: (),
    TurnEnded: ("clock",),
}
# Of those that change the entry of the event's seat, the fields of it they may change
# (the others rebuild it whole): token-only events are a quarter of a game's.
_FIELDS: dict[type[Any], tuple[str, ...]] = {
    TokensTaken: ("tokens",),
    TokensReturned: ("tokens",),
    CardReserved: ("tokens", "reserved"),
    NobleVisited: ("points", "nobles"),
}
# Those that never change ``turn`` (a card dealt in the middle of a turn).
_TURN_KEPT = (CardDealt,)
_FIELD: dict[str, Callable[[PlayerState, bool], Any]] = {
    "tokens": lambda p, finished: dict(zip(TOKENS, p.tokens, strict=True)),
    "bonuses": lambda p, finished: dict(zip(GEMS, p.bonuses, strict=True)),
    "points": lambda p, finished: p.points,
    "cards": lambda p, finished: list(p.cards),
    "nobles": lambda p, finished: list(p.nobles),
    "reserved": lambda p, finished: [
        reserved_card(r.card, finished or not r.blind, _LEVEL) for r in p.reserved
    ],
}
_TABLE: dict[str, Callable[[ClassicState], Any]] = {
    "bank": _bank,
    "board": _board,
    "decks": _decks,
    "nobles": lambda state: list(state.nobles),
    **LIVE_MEMBERS,
}


def new_views() -> TableViews:
    """Every viewer's view of one classic game, kept up to date (``events.views``):
    after an event only the members it may change are rebuilt, and a seat's view
    shares every member of the spectator's but its own entry (while it holds blind
    reserves), ``you`` and ``legal``."""
    return TableViews(
        "classic",
        _TABLE,
        _CHANGES,
        _player,
        _turn,
        lambda state: _outcome(state.result),
        SeatParts(_own_entry, legal_actions, leave_actions),
        _FIELDS,
        _FIELD,
        _TURN_KEPT,
    )


def _own_entry(state: ClassicState, seat: int, shared: dict[str, Any]) -> dict[str, Any]:
    """The seat's entry as it sees it, given a spectator's: its blind reserves shown."""
    player = state.players[seat]
    if state.status == "finished" or not any(r.blind for r in player.reserved):
        return shared
    return {**shared, "reserved": [{"card": r.card} for r in player.reserved]}


def action_to_wire(action: ClassicAction) -> dict[str, Any]:
    """An action as PROTOCOL.md writes it (JSON types only: lists, never tuples)."""
    wire: dict[str, Any] = msgspec.to_builtins(action)
    if isinstance(action, TakeThree):
        wire["colors"] = list(action.colors)
    return wire


def redact(event: ClassicEvent, viewer: int | None, finished: bool) -> ClassicEvent:
    """``event`` as ``viewer`` may see it: a blind reserve loses its card for others."""
    if (
        isinstance(event, CardReserved)
        and event.blind
        and not sees_hidden(event.seat, viewer, finished)
    ):
        return CardReserved(event.seat, event.level, None, True, event.gold)
    return event
