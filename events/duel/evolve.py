"""``evolve``: apply one Duel event to a state. It trusts its events: every check was
made by ``decide`` before the event existed. What follows from the card data alone (a
card's bonus, prestige and crowns, an ability waiting to resolve, a royal earned at a
crown threshold) is applied here, as the card says; every choice and every draw is in
an event.
"""

from __future__ import annotations

from collections.abc import Iterable

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
from events.catalog import duel_cards, duel_royals
from events.colors import GEM_INDEX, GOLD_INDEX
from events.decks import deal, level_ids, take_face_up, undealt
from events.duel.board import index
from events.duel.constants import ROYAL_THRESHOLDS, TOKEN_COUNTS
from events.duel.events import (
    AbilityIgnored,
    BoardReplenished,
    BonusTokenTaken,
    CardBought,
    CardDealt,
    CardReserved,
    DuelEvent,
    GameEnded,
    GameStarted,
    PrivilegesUsed,
    PrivilegeTaken,
    RoyalTaken,
    TokensDiscarded,
    TokensTaken,
    TokenStolen,
    TurnEnded,
)
from events.duel.state import DuelState, Pending, PlayerState, Result

_CARDS = duel_cards()
_ROYALS = duel_royals()
_LEVEL_IDS = level_ids(_CARDS.values())

# The ability of a card or royal -> what it leaves to resolve after the card.
_PENDING: dict[str, Pending] = {
    "take_privilege": "take_privilege",
    "take_token": "take_bonus_token",
    "steal_token": "steal_token",
}
_IGNORED: dict[str, Pending] = {
    "take_token": "take_bonus_token",
    "steal_token": "steal_token",
    "take_privilege": "take_privilege",
}


def evolve(state: DuelState, event: DuelEvent, at_ms: int | None = None) -> DuelState:
    """Apply ``event`` to ``state`` in place and return it (the version goes up by one).
    ``at_ms``: the time recorded on the event, for the clocks (``events.clock``)."""
    state.version += 1
    if at_ms is not None:
        state.clock.now_ms = at_ms
    match event:
        case TokensTaken(seat=seat, cells=cells):
            _board_to_player(state, state.players[seat], cells)
            state.acted = True
        case CardBought():
            _buy(state, event)
        case CardDealt(level=level, slot=slot, card=card_id):
            deal(state.pyramid, state.decks, level, slot, card_id)
        case CardReserved(seat=seat, level=level, card=card_id, gold_cell=gold_cell, slot=slot):
            assert card_id is not None, "a redacted event cannot be folded"
            player = state.players[seat]
            if slot is None:
                state.decks[level - 1].remove(card_id)
            else:
                state.pyramid[level - 1][slot] = None
            player.reserved.append(card_id)
            state.board[index(gold_cell)] = None
            player.tokens[GOLD_INDEX] += 1
            state.acted = True
        case PrivilegeTaken(seat=seat, reason=reason, from_seat=from_seat):
            if from_seat is None:
                state.privileges -= 1
            else:
                state.players[from_seat].privileges -= 1
            state.players[seat].privileges += 1
            if reason == "ability":
                state.pending.remove("take_privilege")
        case PrivilegesUsed(seat=seat, cells=cells):
            player = state.players[seat]
            _board_to_player(state, player, cells)
            player.privileges -= len(cells)
            state.privileges += len(cells)
        case BoardReplenished(placed=placed):
            for p in placed:
                state.board[index(p.cell)] = p.token
                state.bag[GEM_INDEX[p.token]] -= 1
            state.replenished = True
        case BonusTokenTaken(seat=seat, cell=cell):
            _board_to_player(state, state.players[seat], (cell,))
            state.pending.remove("take_bonus_token")
            state.bonus_color = -1
        case TokenStolen(seat=seat, from_seat=from_seat, token=token):
            i = GEM_INDEX[token]
            state.players[from_seat].tokens[i] -= 1
            state.players[seat].tokens[i] += 1
            state.pending.remove("steal_token")
        case AbilityIgnored(ability=ability):
            state.pending.remove(_IGNORED[ability])
            if ability == "take_token":
                state.bonus_color = -1
        case RoyalTaken(seat=seat, royal=royal_id):
            player = state.players[seat]
            royal = _ROYALS[royal_id]
            state.royals.remove(royal_id)
            player.royals.append(royal_id)
            player.points += royal.points
            state.pending.remove("choose_royal")
            _gain_ability(state, royal.ability, front=True)
        case TokensDiscarded(seat=seat, tokens=tokens):
            player = state.players[seat]
            for name, n in tokens.items():
                i = GEM_INDEX[name]
                player.tokens[i] -= n
                state.bag[i] += n
        case TurnEnded(seat=seat, next_seat=next_seat):
            clocks.turn_ended(state.clock, seat, next_seat)
            state.seat = next_seat
            state.turn_number += 1
            if next_seat != seat:  # an extra turn counts in the round it came from
                state.players[next_seat].turns += 1
            state.replenished = False
            state.acted = False
            state.pending = []
            state.bonus_color = -1
            state.extra_turn = False
        case GameEnded(winners=winners, reason=reason, ranks=ranks):
            state.status = "finished"
            if not ranks:  # recorded before ranks: the winner first
                ranks = (1, 2) if winners == (0,) else (2, 1)
            state.result = Result(winners, reason, ranks)
            clocks.ended(state.clock)
        case GameStarted():
            _start(state, event)
        case PlayerJoined(seat=seat, name=name, bot=bot, account=account):
            state.players.append(PlayerState(seat, name, bot, account=account))
            clocks.joined(state.clock, bot)
        case GameCreated(game=game, players=players):
            state.game = game
            state.players_count = players
            clocks.created(state.clock, event.clock, event.seeded, event.rated)
        case Resigned() | TimeRanOut() | AbandonClaimed() | GameAborted():
            leaving.apply_leave_event(state, event)
    return state


def _board_to_player(
    state: DuelState, player: PlayerState, cells: Iterable[tuple[int, int]]
) -> None:
    for cell in cells:
        i = index(cell)
        token = state.board[i]
        assert token is not None, "a take from an empty cell cannot be folded"
        state.board[i] = None
        player.tokens[GEM_INDEX[token]] += 1


def _buy(state: DuelState, event: CardBought) -> None:
    player = state.players[event.seat]
    for name, n in event.payment.items():
        i = GEM_INDEX[name]
        player.tokens[i] -= n
        state.bag[i] += n
    card = _CARDS[event.card]
    if event.from_reserve:
        player.reserved.remove(event.card)
    else:
        take_face_up(state.pyramid, card.level, event.card)
    player.cards.append(event.card)
    colour = owned_colour(player, event.wild_on) if event.wild_on else GEM_INDEX.get(card.color)
    if colour is not None:
        if card.color == "wild":
            player.wilds[event.card] = colour
        player.bonuses[colour] += card.bonus
        player.colour_points[colour] += card.points
    player.points += card.points
    before = player.crowns
    player.crowns += card.crowns
    state.acted = True
    _gain_ability(state, card.ability, front=False)
    if card.ability == "take_token":
        state.bonus_color = GEM_INDEX[card.color]
    for threshold in ROYAL_THRESHOLDS:
        if before < threshold <= player.crowns:
            state.pending.append("choose_royal")


def _gain_ability(state: DuelState, ability: str, *, front: bool) -> None:
    """A card's ability queues after the card; a royal's resolves before what waits."""
    if ability == "extra_turn":
        state.extra_turn = True
    elif ability in _PENDING:
        if front:
            state.pending.insert(0, _PENDING[ability])
        else:
            state.pending.append(_PENDING[ability])


def owned_colour(player: PlayerState, card_id: str) -> int | None:
    """The colour index of a card ``player`` owns (a wild one's is where it was put), if any."""
    if card_id in player.wilds:
        return player.wilds[card_id]
    card = _CARDS.get(card_id)
    if card is None or card.bonus == 0:
        return None
    return GEM_INDEX.get(card.color)


def _start(state: DuelState, event: GameStarted) -> None:
    state.status = "live"
    state.first_seat = event.first_seat
    state.seat = event.first_seat
    state.turn_number = 1
    state.players[event.first_seat].turns = 1
    state.board = [token for row in event.board for token in row]
    state.bag = list(TOKEN_COUNTS)
    for token in state.board:
        if token is not None:
            state.bag[GEM_INDEX[token]] -= 1
    state.pyramid = [list(row) for row in event.pyramid]
    state.decks = undealt(_LEVEL_IDS, event.pyramid)
    state.royals = list(event.royals)
    state.privileges = event.privileges
    clocks.started(state.clock, event.first_seat)


def fold(events: Iterable[DuelEvent], state: DuelState | None = None) -> DuelState:
    """The state after ``events``, from a new game unless a state to continue is given."""
    state = DuelState() if state is None else state
    for event in events:
        evolve(state, event)
    return state
