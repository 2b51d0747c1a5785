"""What a viewer may see of a Duel: PROTOCOL.md's Duel view, and events redacted the
same way. Reserved cards show only their level to anyone but their owner until the
game ends (RULES.md: the opponent sees the count and levels, not the cards); undealt
cards and the order of the bag are never shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from events.catalog import duel_cards
from events.colors import DUEL_TOKENS, GEMS
from events.decks import card_levels
from events.duel.actions import DuelAction
from events.duel.board import SIZE
from events.duel.checks import phase
from events.duel.events import (
    AbilityIgnored,
    BoardReplenished,
    BonusTokenTaken,
    CardBought,
    CardDealt,
    CardReserved,
    DuelEvent,
    PrivilegesUsed,
    PrivilegeTaken,
    RoyalTaken,
    TokensDiscarded,
    TokensTaken,
    TokenStolen,
    TurnEnded,
)
from events.duel.legal import legal_actions
from events.duel.state import DuelState, PlayerState
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
    turn_frame,
)

_LEVEL = card_levels(duel_cards().values())


def view(state: DuelState, viewer: int | None) -> dict[str, Any]:
    """The table as ``viewer`` (a seat, or None for a spectator) may see it."""
    finished = state.status == "finished"
    players = [_player(p, sees_hidden(p.seat, viewer, finished)) for p in state.players]
    table = {name: build(state) for name, build in _TABLE.items()}
    legal = actions_to_wire(legal_actions(state, state.seat)) if to_move(state, viewer) else []
    legal += leave_wire(state, viewer)
    return frame(state, "duel", viewer, table, players, _turn(state), legal, _outcome(state))


def _player(p: PlayerState, shown: bool) -> dict[str, Any]:
    entry = player_frame(p, DUEL_TOKENS)
    entry["crowns"] = p.crowns
    entry["privileges"] = p.privileges
    entry["cards"] = list(p.cards)
    entry["royals"] = list(p.royals)
    entry["reserved"] = [reserved_card(c, shown, _LEVEL) for c in p.reserved]
    # Additions to PROTOCOL.md's frame, for the victory tile and wild cards:
    entry["colour_points"] = dict(zip(GEMS, p.colour_points, strict=True))
    entry["wilds"] = {card: GEMS[colour] for card, colour in p.wilds.items()}
    return entry


_TABLE: dict[str, Callable[[DuelState], Any]] = {
    "board": lambda state: [list(state.board[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)],
    "bag": lambda state: dict(zip(DUEL_TOKENS, state.bag, strict=True)),
    "pyramid": lambda state: {str(i + 1): list(row) for i, row in enumerate(state.pyramid)},
    "decks": lambda state: {str(i + 1): len(deck) for i, deck in enumerate(state.decks)},
    "royals": lambda state: list(state.royals),
    "privileges": lambda state: state.privileges,
    **LIVE_MEMBERS,
}


def _turn(state: DuelState) -> dict[str, Any] | None:
    return turn_frame(state, phase, round=round_of(state), extra_turn=state.extra_turn)


def _outcome(state: DuelState) -> dict[str, Any] | None:
    result = state.result
    if result is None:
        return None
    return {"winners": list(result.winners), "reason": result.reason, "ranks": list(result.ranks)}


# What each event may change of the spectator's view besides its frame and ``turn``:
# members of the table, and "player" for the entry of the event's seat or "players"
# for both (a privilege or a token taken from the opponent). Events not listed (the
# set-up, the end) rebuild everything. tests/properties checks this.
_CHANGES: dict[type[Any], tuple[str, ...]] = {
    TokensTaken: ("board", "player"),
    PrivilegesUsed: ("board", "privileges", "player"),
    PrivilegeTaken: ("privileges", "players"),
    BoardReplenished: ("board", "bag"),
    CardReserved: ("board", "pyramid", "decks", "player"),
    CardBought: ("pyramid", "bag", "player"),
    CardDealt: ("pyramid", "decks"),
    BonusTokenTaken: ("board", "player"),
    TokenStolen: ("players",),
    AbilityIgnored: (),
    RoyalTaken: ("royals", "player"),
    TokensDiscarded: ("bag", "player"),
    TurnEnded: ("clock",),
}


def new_views() -> TableViews:
    """Every viewer's view of one Duel kept up to date (``events.views``): after an
    event only the members it may change are rebuilt, and a seat's view shares every
    member of the spectator's but its own entry (while it holds reserved cards),
    ``you`` and ``legal``."""
    return TableViews(
        "duel",
        _TABLE,
        _CHANGES,
        _player,
        _turn,
        _outcome,
        SeatParts(_own_entry, legal_actions, leave_actions),
    )


def _own_entry(state: DuelState, seat: int, shared: dict[str, Any]) -> dict[str, Any]:
    """The seat's entry as it sees it, given a spectator's: its reserves shown."""
    player = state.players[seat]
    if state.status == "finished" or not player.reserved:
        return shared
    return {**shared, "reserved": [{"card": card} for card in player.reserved]}


def actions_to_wire(actions: list[DuelAction]) -> list[dict[str, Any]]:
    """Actions as PROTOCOL.md writes them: plain JSON values (cells as ``[row, col]``
    lists, not tuples), so a view compares equal to its JSON form."""
    wire: list[dict[str, Any]] = _decode_wire(_encode_wire(actions))
    return wire


def action_to_wire(action: DuelAction) -> dict[str, Any]:
    """One action as PROTOCOL.md writes it."""
    return actions_to_wire([action])[0]


_encode_wire = msgspec.json.Encoder().encode
_decode_wire = msgspec.json.Decoder().decode


def redact(event: DuelEvent, viewer: int | None, finished: bool) -> DuelEvent:
    """``event`` as ``viewer`` may see it: a reserve loses its card for everyone else."""
    if isinstance(event, CardReserved) and not sees_hidden(event.seat, viewer, finished):
        return msgspec.structs.replace(event, card=None)
    return event
