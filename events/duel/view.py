"""What a viewer may see of a Duel: PROTOCOL.md's Duel view, and events redacted the
same way. Reserved cards show only their level to anyone but their owner until the
game ends (RULES.md: the opponent sees the count and levels, not the cards); undealt
cards and the order of the bag are never shown.
"""

from __future__ import annotations

from typing import Any

import msgspec

from events.catalog import duel_cards
from events.colors import DUEL_TOKENS, GEMS
from events.decks import card_levels
from events.duel.actions import DuelAction
from events.duel.board import SIZE
from events.duel.checks import phase
from events.duel.events import CardReserved, DuelEvent
from events.duel.legal import legal_actions
from events.duel.state import DuelState
from events.turns import to_move
from events.views import frame, player_frame, reserved_card, sees_hidden, turn_frame

_LEVEL = card_levels(duel_cards().values())


def view(state: DuelState, viewer: int | None) -> dict[str, Any]:
    """The table as ``viewer`` (a seat, or None for a spectator) may see it."""
    finished = state.status == "finished"
    players = []
    for p in state.players:
        shown = sees_hidden(p.seat, viewer, finished)
        entry = player_frame(p, DUEL_TOKENS)
        entry["crowns"] = p.crowns
        entry["privileges"] = p.privileges
        entry["cards"] = list(p.cards)
        entry["royals"] = list(p.royals)
        entry["reserved"] = [reserved_card(c, shown, _LEVEL) for c in p.reserved]
        # Additions to PROTOCOL.md's frame, for the victory tile and wild cards:
        entry["colour_points"] = dict(zip(GEMS, p.colour_points, strict=True))
        entry["wilds"] = {card: GEMS[colour] for card, colour in p.wilds.items()}
        players.append(entry)
    table = {
        "board": [list(state.board[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)],
        "bag": dict(zip(DUEL_TOKENS, state.bag, strict=True)),
        "pyramid": {str(i + 1): list(row) for i, row in enumerate(state.pyramid)},
        "decks": {str(i + 1): len(deck) for i, deck in enumerate(state.decks)},
        "royals": list(state.royals),
        "privileges": state.privileges,
    }
    turn = turn_frame(state, phase, extra_turn=state.extra_turn)
    legal = actions_to_wire(legal_actions(state, state.seat)) if to_move(state, viewer) else []
    result = state.result
    outcome = {"winners": list(result.winners), "reason": result.reason} if result else None
    return frame(state, "duel", viewer, table, players, turn, legal, outcome)


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
