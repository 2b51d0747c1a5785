"""``evolve``: apply one classic event to a state. It trusts its events: every check
was made by ``decide`` before the event existed, so nothing here decides a rule.

One small function applies each event type; ``evolve`` finds it by the event's type.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from events import clock as clocks
from events import leaving
from events.base import (
    AbandonClaimed,
    GameAborted,
    GameCreated,
    PlayerJoined,
    Resigned,
    TimeRanOut,
)
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
from events.colors import GEM_INDEX, GOLD_INDEX
from events.decks import deal, level_ids, take_face_up, undealt

_CARDS = classic_cards()
_NOBLES = classic_nobles()
_LEVEL_IDS = level_ids(_CARDS.values())


def evolve(state: ClassicState, event: ClassicEvent, at_ms: int | None = None) -> ClassicState:
    """Apply ``event`` to ``state`` in place and return it (the version goes up by one).
    ``at_ms``: the time recorded on the event, for the clocks (``events.clock``)."""
    state.version += 1
    if at_ms is not None:
        state.clock.now_ms = at_ms
    _APPLY[type(event)](state, event)
    return state


def fold(events: Iterable[ClassicEvent], state: ClassicState | None = None) -> ClassicState:
    """The state after ``events``, from a new game unless a state to continue is given
    (without the events' times: see ``Variant.fold_timed`` for the clocks)."""
    state = ClassicState() if state is None else state
    apply = _APPLY
    for event in events:
        state.version += 1
        apply[type(event)](state, event)
    return state


# ------------------------------------------------------------------ one function per event


def _game_created(state: ClassicState, event: GameCreated) -> None:
    state.game = event.game
    state.players_count = event.players
    clocks.created(state.clock, event.clock, event.seeded, event.rated)


def _player_joined(state: ClassicState, event: PlayerJoined) -> None:
    state.players.append(PlayerState(event.seat, event.name, event.bot, account=event.account))
    clocks.joined(state.clock, event.bot)


def _game_started(state: ClassicState, event: GameStarted) -> None:
    state.status = "live"
    state.first_seat = event.first_seat
    state.seat = event.first_seat
    state.turn_number = 1
    state.players[event.first_seat].turns = 1
    state.nobles = list(event.nobles)
    state.board = [list(row) for row in event.board]
    state.decks = undealt(_LEVEL_IDS, event.board)
    for name, n in event.bank.items():
        state.bank[GEM_INDEX[name]] = n
    clocks.started(state.clock, event.first_seat)


def _tokens_taken(state: ClassicState, event: TokensTaken) -> None:
    tokens = state.players[event.seat].tokens
    bank = state.bank
    for name, n in event.tokens.items():
        i = GEM_INDEX[name]
        tokens[i] += n
        bank[i] -= n
    state.acted = True
    state.passes_in_row = 0


def _card_bought(state: ClassicState, event: CardBought) -> None:
    player = state.players[event.seat]
    tokens = player.tokens
    bank = state.bank
    for name, n in event.payment.items():
        i = GEM_INDEX[name]
        tokens[i] -= n
        bank[i] += n
    card_id = event.card
    card = _CARDS[card_id]
    if event.from_reserve:
        player.reserved = [r for r in player.reserved if r.card != card_id]
    else:
        take_face_up(state.board, card.level, card_id)
    player.cards.append(card_id)
    player.bonuses[card.color] += 1
    player.points += card.points
    state.acted = True
    state.passes_in_row = 0


def _card_dealt(state: ClassicState, event: CardDealt) -> None:
    deal(state.board, state.decks, event.level, event.slot, event.card)


def _card_reserved(state: ClassicState, event: CardReserved) -> None:
    card_id = event.card
    assert card_id is not None, "a redacted event cannot be folded"
    if event.blind:
        state.decks[event.level - 1].remove(card_id)
    else:
        take_face_up(state.board, event.level, card_id)
    player = state.players[event.seat]
    player.reserved.append(Reservation(card_id, event.blind))
    player.tokens[GOLD_INDEX] += event.gold
    state.bank[GOLD_INDEX] -= event.gold
    state.acted = True
    state.passes_in_row = 0


def _tokens_returned(state: ClassicState, event: TokensReturned) -> None:
    tokens = state.players[event.seat].tokens
    bank = state.bank
    for name, n in event.tokens.items():
        i = GEM_INDEX[name]
        tokens[i] -= n
        bank[i] += n


def _noble_visited(state: ClassicState, event: NobleVisited) -> None:
    player = state.players[event.seat]
    state.nobles.remove(event.noble)
    player.nobles.append(event.noble)
    player.points += _NOBLES[event.noble].points
    state.noble_visited = True


def _turn_passed(state: ClassicState, event: TurnPassed) -> None:
    state.acted = True
    state.passes_in_row += 1


def _turn_ended(state: ClassicState, event: TurnEnded) -> None:
    clocks.turn_ended(state.clock, event.seat, event.next_seat)
    state.seat = event.next_seat
    state.turn_number += 1
    state.players[event.next_seat].turns += 1
    state.acted = False
    state.noble_visited = False


def _game_ended(state: ClassicState, event: GameEnded) -> None:
    state.status = "finished"
    ranks = event.ranks or standing(state, event.points, event.cards, ())
    state.result = Result(event.winners, event.points, event.cards, event.reason, ranks)
    clocks.ended(state.clock)


def standing(
    state: ClassicState,
    points: Sequence[int],
    cards: Sequence[int],
    also_out: Sequence[int],
) -> tuple[int, ...]:
    """The ranks at a normal end: the seats in play by most points, then fewest cards
    (the same tie-break as the winners'), then the seats out (``also_out``: going out
    now, after those out already)."""
    out = set(state.clock.outs) | set(also_out)
    playing = sorted(
        (s for s in range(state.players_count) if s not in out),
        key=lambda s: (-points[s], cards[s]),
    )
    groups: list[list[int]] = []
    for seat in playing:
        if groups and (points[groups[-1][0]], cards[groups[-1][0]]) == (points[seat], cards[seat]):
            groups[-1].append(seat)
        else:
            groups.append([seat])
    return leaving.ranks(state.players_count, groups, [*state.clock.outs, *also_out])


_APPLY: dict[type[Any], Callable[[ClassicState, Any], None]] = {
    GameCreated: _game_created,
    PlayerJoined: _player_joined,
    GameStarted: _game_started,
    TokensTaken: _tokens_taken,
    CardBought: _card_bought,
    CardDealt: _card_dealt,
    CardReserved: _card_reserved,
    TokensReturned: _tokens_returned,
    NobleVisited: _noble_visited,
    TurnPassed: _turn_passed,
    TurnEnded: _turn_ended,
    GameEnded: _game_ended,
    Resigned: leaving.apply_leave_event,
    TimeRanOut: leaving.apply_leave_event,
    AbandonClaimed: leaving.apply_leave_event,
    GameAborted: leaving.apply_leave_event,
}
