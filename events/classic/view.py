"""What a viewer may see of a classic game: PROTOCOL.md's classic view, and events
redacted the same way. Blind reserves show their level only to anyone but their
owner until the game ends; undealt cards are never shown.
"""

from __future__ import annotations

from typing import Any

import msgspec

from events.catalog import classic_cards
from events.classic.actions import ClassicAction, TakeThree
from events.classic.events import CardReserved, ClassicEvent
from events.classic.rules import final_round, legal_actions, phase
from events.classic.state import ClassicState
from events.colors import TOKENS
from events.decks import card_levels
from events.turns import to_move
from events.views import frame, player_frame, reserved_card, sees_hidden, turn_frame

_LEVEL = card_levels(classic_cards().values())


def view(state: ClassicState, viewer: int | None) -> dict[str, Any]:
    """The table as ``viewer`` (a seat, or None for a spectator) may see it."""
    finished = state.status == "finished"
    players = []
    for p in state.players:
        shown = sees_hidden(p.seat, viewer, finished)
        entry = player_frame(p, TOKENS)
        entry["cards"] = list(p.cards)
        entry["nobles"] = list(p.nobles)
        entry["reserved"] = [
            reserved_card(r.card, shown or not r.blind, _LEVEL) for r in p.reserved
        ]
        players.append(entry)
    table = {
        "bank": dict(zip(TOKENS, state.bank, strict=True)),
        "board": {str(i + 1): list(row) for i, row in enumerate(state.board)},
        "decks": {str(i + 1): len(deck) for i, deck in enumerate(state.decks)},
        "nobles": list(state.nobles),
    }
    turn = turn_frame(state, phase, final_round=final_round(state))
    legal = (
        [action_to_wire(a) for a in legal_actions(state, state.seat)]
        if to_move(state, viewer)
        else []
    )
    result = state.result
    outcome = (
        {
            "winners": list(result.winners),
            "points": list(result.points),
            "cards": list(result.cards),
        }
        if result
        else None
    )
    return frame(state, "classic", viewer, table, players, turn, legal, outcome)


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
