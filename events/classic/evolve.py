"""``evolve``: apply one classic event to a state. It trusts its events: every check
was made by ``decide`` before the event existed, so nothing here decides a rule.
"""

from __future__ import annotations

from collections.abc import Iterable

from events.base import GameCreated, PlayerJoined
from events.catalog import classic_cards, classic_nobles
from events.classic.events import (
    CardBought,
    CardDealt,
    CardReserved,
    ClassicEvent,
    GameEnded,
    GameStarted,
    NobleVisited,
    TokensReturned,
    TokensTaken,
    TurnEnded,
    TurnPassed,
)
from events.classic.state import ClassicState, PlayerState, Reservation, Result
from events.colors import GEM_INDEX

_CARDS = classic_cards()
_NOBLES = classic_nobles()


def evolve(state: ClassicState, event: ClassicEvent) -> ClassicState:
    """Apply ``event`` to ``state`` in place and return it (the version goes up by one)."""
    state.version += 1
    match event:
        case TokensTaken(seat=seat, tokens=tokens):
            player = state.players[seat]
            for name, n in tokens.items():
                i = GEM_INDEX[name]
                player.tokens[i] += n
                state.bank[i] -= n
            state.acted = True
            state.passes_in_row = 0
        case CardBought(seat=seat, card=card_id, payment=payment, from_reserve=from_reserve):
            player = state.players[seat]
            for name, n in payment.items():
                i = GEM_INDEX[name]
                player.tokens[i] -= n
                state.bank[i] += n
            card = _CARDS[card_id]
            if from_reserve:
                player.reserved = [r for r in player.reserved if r.card != card_id]
            else:
                _take_from_board(state, card.level, card_id)
            player.cards.append(card_id)
            player.bonuses[card.color] += 1
            player.points += card.points
            state.acted = True
            state.passes_in_row = 0
        case CardDealt(level=level, slot=slot, card=card_id):
            state.board[level - 1][slot] = card_id
            state.decks[level - 1].remove(card_id)
        case CardReserved(seat=seat, level=level, card=card_id, blind=blind, gold=gold):
            player = state.players[seat]
            assert card_id is not None, "a redacted event cannot be folded"
            if blind:
                state.decks[level - 1].remove(card_id)
            else:
                _take_from_board(state, level, card_id)
            player.reserved.append(Reservation(card_id, blind))
            player.tokens[5] += gold
            state.bank[5] -= gold
            state.acted = True
            state.passes_in_row = 0
        case TokensReturned(seat=seat, tokens=tokens):
            player = state.players[seat]
            for name, n in tokens.items():
                i = GEM_INDEX[name]
                player.tokens[i] -= n
                state.bank[i] += n
        case NobleVisited(seat=seat, noble=noble_id):
            player = state.players[seat]
            state.nobles.remove(noble_id)
            player.nobles.append(noble_id)
            player.points += _NOBLES[noble_id].points
            state.noble_visited = True
        case TurnPassed():
            state.acted = True
            state.passes_in_row += 1
        case TurnEnded(next_seat=next_seat):
            state.seat = next_seat
            state.turn_number += 1
            state.acted = False
            state.noble_visited = False
        case GameEnded(winners=winners, points=points, cards=cards):
            state.status = "finished"
            state.result = Result(winners, points, cards)
        case GameStarted(first_seat=first, nobles=nobles, board=board, bank=bank):
            state.status = "live"
            state.first_seat = first
            state.seat = first
            state.turn_number = 1
            state.nobles = list(nobles)
            state.board = [list(row) for row in board]
            dealt = {c for row in board for c in row if c is not None}
            state.decks = [
                sorted(c.id for c in _CARDS.values() if c.level == level and c.id not in dealt)
                for level in (1, 2, 3)
            ]
            for name, n in bank.items():
                state.bank[GEM_INDEX[name]] = n
        case PlayerJoined(seat=seat, name=name, bot=bot):
            state.players.append(PlayerState(seat, name, bot))
        case GameCreated(game=game, players=players):
            state.game = game
            state.players_count = players
    return state


def _take_from_board(state: ClassicState, level: int, card_id: str) -> None:
    row = state.board[level - 1]
    row[row.index(card_id)] = None


def fold(events: Iterable[ClassicEvent], state: ClassicState | None = None) -> ClassicState:
    """The state after ``events``, from a new game unless a state to continue is given."""
    state = ClassicState() if state is None else state
    for event in events:
        evolve(state, event)
    return state
