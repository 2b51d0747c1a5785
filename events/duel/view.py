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
from events.duel.actions import DuelAction
from events.duel.board import SIZE
from events.duel.checks import phase
from events.duel.events import CardReserved, DuelEvent
from events.duel.legal import legal_actions
from events.duel.state import DuelState

_CARDS = duel_cards()


def view(state: DuelState, viewer: int | None) -> dict[str, Any]:
    """The table as ``viewer`` (a seat, or None for a spectator) may see it."""
    finished = state.status == "finished"
    players = []
    for p in state.players:
        see_all = finished or p.seat == viewer
        players.append(
            {
                "seat": p.seat,
                "name": p.name,
                "bot": p.bot,
                "tokens": dict(zip(DUEL_TOKENS, p.tokens, strict=True)),
                "bonuses": dict(zip(GEMS, p.bonuses, strict=True)),
                "points": p.points,
                "crowns": p.crowns,
                "privileges": p.privileges,
                "cards": list(p.cards),
                "royals": list(p.royals),
                "reserved": [
                    {"card": c} if see_all else {"level": _CARDS[c].level} for c in p.reserved
                ],
                # Additions to PROTOCOL.md's frame, for the victory tile and wild cards:
                "colour_points": dict(zip(GEMS, p.colour_points, strict=True)),
                "wilds": {card: GEMS[colour] for card, colour in p.wilds.items()},
            }
        )
    live = state.status == "live"
    mover = live and viewer is not None and viewer == state.seat
    result = state.result
    return {
        "game": state.game,
        "variant": "duel",
        "version": state.version,
        "status": state.status,
        "you": viewer,
        "board": [list(state.board[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)],
        "bag": dict(zip(DUEL_TOKENS, state.bag, strict=True)),
        "pyramid": {str(i + 1): list(row) for i, row in enumerate(state.pyramid)},
        "decks": {str(i + 1): len(deck) for i, deck in enumerate(state.decks)},
        "royals": list(state.royals),
        "privileges": state.privileges,
        "players": players,
        "turn": {
            "seat": state.seat,
            "phase": phase(state) if live else None,
            "number": state.turn_number,
            "extra_turn": state.extra_turn,
        }
        if state.status != "open"
        else None,
        "legal": actions_to_wire(legal_actions(state, state.seat)) if mover else [],
        "result": {"winners": list(result.winners), "reason": result.reason} if result else None,
    }


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
    if isinstance(event, CardReserved) and not finished and event.seat != viewer:
        return msgspec.structs.replace(event, card=None)
    return event
