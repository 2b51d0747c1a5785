"""What a viewer may see of a classic game: PROTOCOL.md's classic view, and events
redacted the same way. Blind reserves show their level only to anyone but their
owner until the game ends; undealt cards are never shown.
"""

from __future__ import annotations

from typing import Any

import msgspec

from events.classic.actions import ClassicAction, TakeThree
from events.classic.events import CardReserved, ClassicEvent
from events.classic.rules import final_round, legal_actions, phase
from events.classic.state import ClassicState
from events.colors import GEMS, TOKENS


def view(state: ClassicState, viewer: int | None) -> dict[str, Any]:
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
                "tokens": dict(zip(TOKENS, p.tokens, strict=True)),
                "bonuses": dict(zip(GEMS, p.bonuses, strict=True)),
                "points": p.points,
                "cards": list(p.cards),
                "nobles": list(p.nobles),
                "reserved": [
                    {"card": r.card} if see_all or not r.blind else {"level": _level(r.card)}
                    for r in p.reserved
                ],
            }
        )
    live = state.status == "live"
    mover = live and viewer is not None and viewer == state.seat
    result = state.result
    return {
        "game": state.game,
        "variant": "classic",
        "version": state.version,
        "status": state.status,
        "you": viewer,
        "bank": dict(zip(TOKENS, state.bank, strict=True)),
        "board": {str(i + 1): list(row) for i, row in enumerate(state.board)},
        "decks": {str(i + 1): len(deck) for i, deck in enumerate(state.decks)},
        "nobles": list(state.nobles),
        "players": players,
        "turn": {
            "seat": state.seat,
            "phase": phase(state) if live else None,
            "number": state.turn_number,
            "final_round": final_round(state),
        }
        if state.status != "open"
        else None,
        "legal": [action_to_wire(a) for a in legal_actions(state, state.seat)] if mover else [],
        "result": {
            "winners": list(result.winners),
            "points": list(result.points),
            "cards": list(result.cards),
        }
        if result
        else None,
    }


def _level(card_id: str) -> int:
    return int(card_id[0])


def action_to_wire(action: ClassicAction) -> dict[str, Any]:
    """An action as PROTOCOL.md writes it (JSON types only: lists, never tuples)."""
    wire: dict[str, Any] = msgspec.to_builtins(action)
    if isinstance(action, TakeThree):
        wire["colors"] = list(action.colors)
    return wire


def redact(event: ClassicEvent, viewer: int | None, finished: bool) -> ClassicEvent:
    """``event`` as ``viewer`` may see it: a blind reserve loses its card for others."""
    if isinstance(event, CardReserved) and event.blind and not finished and event.seat != viewer:
        return CardReserved(event.seat, event.level, None, True, event.gold)
    return event
