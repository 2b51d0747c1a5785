"""The rules of Splendor Duel: ``decide`` (the checks it shares with ``legal_actions``
are in ``checks``).

``decide(state, seat, action, rng)`` returns the events an action causes or raises a
``RuleViolation`` naming the broken rule; it never changes ``state``. Chance (a card
dealt, a blind reserve, tokens laid on the board) is drawn from ``rng`` at that moment
and written into the event. What follows an action without a choice (an ability with
a single outcome, the end of the turn, a victory) is written by ``turn.advance``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal

from events import leaving
from events.base import OutReason
from events.catalog import duel_cards
from events.colors import (
    DUEL_TOKENS,
    GEM_INDEX,
    GEMS,
    GOLD,
    PEARL,
    DuelToken,
)
from events.decks import card_levels, refill, reserve_source, slot_of
from events.duel import turn
from events.duel.actions import (
    Buy,
    ChooseRoyal,
    DiscardTokens,
    DuelAction,
    Replenish,
    Reserve,
    StealToken,
    TakeBonusToken,
    TakeTokens,
    UsePrivileges,
)
from events.duel.board import SPIRAL, Cell, cell_of, index, line_gap, on_board
from events.duel.checks import Phase, has_bonus_card, opponent, phase, privileges_leave_an_action
from events.duel.constants import MAX_RESERVED, MAX_TAKE, MAX_TOKENS, TOKEN_NAMES
from events.duel.events import (
    BoardReplenished,
    BonusTokenTaken,
    CardBought,
    CardDealt,
    CardReserved,
    DuelEvent,
    GameEnded,
    Placed,
    PrivilegesUsed,
    RoyalTaken,
    TokensDiscarded,
    TokensTaken,
    TokenStolen,
)
from events.duel.evolve import owned_colour
from events.duel.state import DuelState, PlayerState
from events.errors import IllegalAction
from events.leaving import Facts
from events.payment import payment_for
from events.token_limit import check_give_back

COST_NAMES = (*GEMS, PEARL)  # the order of a Duel card's cost

_CARDS = duel_cards()
_LEVEL = card_levels(_CARDS.values())


# ------------------------------------------------------------------ decide


def decide(
    state: DuelState,
    seat: int,
    action: DuelAction,
    rng: random.Random,
    facts: Facts | None = None,
) -> list[DuelEvent]:
    """The events ``action`` by ``seat`` causes, or a ``RuleViolation``. ``facts``:
    the time now and who is away (``events.leaving``); without them no clock is checked
    and nobody counts as away."""
    leave = leaving.decide_first(state, seat, action, facts, seat_out)
    if leave is not None:
        return leave
    player = state.players[seat]
    current = phase(state)
    match action:
        case UsePrivileges():
            return _use_privileges(state, player, action)
        case Replenish():
            return _replenish(state, player, current, rng)
        case TakeBonusToken():
            return _take_bonus_token(state, player, current, action)
        case StealToken():
            return _steal_token(state, player, current, action)
        case ChooseRoyal():
            return _choose_royal(state, player, current, action)
        case DiscardTokens():
            return _discard(state, player, current, action)
    _require_mandatory(state, player, current)
    match action:
        case TakeTokens():
            return _take_tokens(state, player, action)
        case Reserve():
            return _reserve(state, player, action, rng)
        case Buy():
            return _buy(state, player, action, rng)
    raise IllegalAction("duel.unknown_action", action=type(action).__name__)


def _require_mandatory(state: DuelState, player: PlayerState, current: Phase) -> None:
    """A mandatory action needs the ``main`` phase; otherwise say what comes first."""
    if current == "main":
        return
    if current == "replenish":
        raise IllegalAction("duel.replenish_first")
    if current == "take_bonus_token":
        raise IllegalAction("duel.bonus_token_first", color=GEMS[state.bonus_color])
    if current == "steal_token":
        raise IllegalAction("duel.steal_first", player=state.players[opponent(player.seat)].name)
    if current == "choose_royal":
        raise IllegalAction("duel.royal_first")
    if current == "discard_tokens":
        held = sum(player.tokens)
        raise IllegalAction("duel.discard_first", held=held, excess=held - MAX_TOKENS)
    raise IllegalAction("duel.mandatory_done")


def _wire(cell: Cell) -> list[int]:
    """A cell as the wire and the refusals name it: ``[row, col]``."""
    return [cell[0], cell[1]]


def _check_cells(cells: Sequence[Cell]) -> None:
    """Refuse cells off the board or named twice."""
    for cell in cells:
        if not on_board(cell):
            raise IllegalAction("cell.off_board", cell=_wire(cell))
    if len(set(cells)) != len(cells):
        raise IllegalAction("cell.twice")


def _check_gem_or_pearl(
    state: DuelState, cell: Cell, how: Literal["privileges", "take_tokens"]
) -> None:
    token = state.board[index(cell)]
    if token is None:
        raise IllegalAction("cell.empty", cell=_wire(cell))
    if token == GOLD:
        raise IllegalAction(f"{how}.cell_gold", cell=_wire(cell))


# ------------------------------------------------------------------ optional actions


def _use_privileges(
    state: DuelState, player: PlayerState, action: UsePrivileges
) -> list[DuelEvent]:
    if state.acted:
        raise IllegalAction("privileges.after_action")
    if state.replenished:
        raise IllegalAction("privileges.after_replenish")
    cells = action.cells
    if not cells:
        raise IllegalAction("privileges.no_cell")
    if player.privileges == 0:
        raise IllegalAction("privileges.none")
    if len(cells) > player.privileges:
        raise IllegalAction("privileges.too_many", held=player.privileges)
    _check_cells(cells)
    for cell in cells:
        _check_gem_or_pearl(state, cell, "privileges")
    if not privileges_leave_an_action(state, player, [index(c) for c in cells]):
        raise IllegalAction("privileges.no_action_left")
    tokens = tuple(_token_at(state, cell) for cell in cells)
    return [PrivilegesUsed(player.seat, tuple(cells), tokens)]


def _replenish(
    state: DuelState, player: PlayerState, current: Phase, rng: random.Random
) -> list[DuelEvent]:
    if state.acted:
        raise IllegalAction("replenish.after_action")
    if not any(state.bag):
        raise IllegalAction("replenish.bag_empty")
    drawn = [name for name, n in zip(TOKEN_NAMES, state.bag, strict=True) for _ in range(n)]
    rng.shuffle(drawn)
    empty = [cell for cell in SPIRAL if state.board[cell] is None]
    placed = tuple(Placed(cell_of(cell), token) for cell, token in zip(empty, drawn, strict=False))
    events: list[DuelEvent] = [BoardReplenished(player.seat, placed, current == "replenish")]
    privilege = turn.privilege_for(state, opponent(player.seat), "replenish")
    if privilege:
        events.append(privilege)
    return events


# ------------------------------------------------------------------ mandatory actions


def _take_tokens(state: DuelState, player: PlayerState, action: TakeTokens) -> list[DuelEvent]:
    cells = action.cells
    if not 1 <= len(cells) <= MAX_TAKE:
        raise IllegalAction("take_tokens.count", most=MAX_TAKE, count=len(cells))
    _check_cells(cells)
    for cell in cells:
        _check_gem_or_pearl(state, cell, "take_tokens")
    gap = line_gap(cells)
    if gap:
        kind, missing = gap
        if missing is None:
            raise IllegalAction(f"take_tokens.{kind}")
        between = state.board[index(missing)]
        if between is None:
            raise IllegalAction("take_tokens.gap_empty", cell=_wire(missing))
        if between == GOLD:
            raise IllegalAction("take_tokens.gap_gold", cell=_wire(missing))
        raise IllegalAction("take_tokens.gap_token", cell=_wire(missing), color=between)
    tokens = tuple(_token_at(state, cell) for cell in cells)
    events: list[DuelEvent] = [TokensTaken(player.seat, tuple(cells), tokens)]
    same = len(tokens) == MAX_TAKE and len(set(tokens)) == 1
    if same or tokens.count(PEARL) == 2:
        privilege = turn.privilege_for(state, opponent(player.seat), "take")
        if privilege:
            events.append(privilege)
    return turn.advance(state, player.seat, events)


def _reserve(
    state: DuelState, player: PlayerState, action: Reserve, rng: random.Random
) -> list[DuelEvent]:
    if len(player.reserved) >= MAX_RESERVED:
        raise IllegalAction("reserve.full", most=MAX_RESERVED)
    if GOLD not in state.board:
        raise IllegalAction("reserve.no_gold")
    cell = action.gold_cell
    if not on_board(cell):
        raise IllegalAction("cell.off_board", cell=_wire(cell))
    if state.board[index(cell)] != GOLD:
        raise IllegalAction("reserve.cell_not_gold", cell=_wire(cell))
    level, card_id, slot = reserve_source(
        state.pyramid, state.decks, _LEVEL, action.card, action.level, rng, "pyramid"
    )
    events: list[DuelEvent] = [CardReserved(player.seat, level, card_id, cell, slot)]
    if slot is not None:
        refill(events, CardDealt, state.decks, level, slot, rng)
    return turn.advance(state, player.seat, events)


def _buy(state: DuelState, player: PlayerState, action: Buy, rng: random.Random) -> list[DuelEvent]:
    card_id = action.card
    from_reserve = card_id in player.reserved
    where = None if from_reserve else slot_of(state.pyramid, _LEVEL, card_id)
    if not from_reserve and where is None:
        raise IllegalAction("buy.not_in_pyramid", card=card_id)
    card = _CARDS[card_id]
    _check_wild(player, card_id, card.color, action.wild_on)
    pay = payment_for(card_id, card.cost, COST_NAMES, player.bonuses, player.tokens, action.payment)
    payment = {name: n for name, n in zip(DUEL_TOKENS, pay, strict=True) if n}
    events: list[DuelEvent] = [
        CardBought(player.seat, card_id, payment, from_reserve, action.wild_on)
    ]
    if where is not None:
        refill(events, CardDealt, state.decks, *where, rng)
    return turn.advance(state, player.seat, events)


def _check_wild(player: PlayerState, card_id: str, color: str, wild_on: str | None) -> None:
    if color != "wild":
        if wild_on is not None:
            raise IllegalAction("buy.not_wild", card=card_id)
        return
    if not has_bonus_card(player):
        raise IllegalAction("buy.wild_without_bonus", card=card_id)
    if wild_on is None:
        raise IllegalAction("buy.wild_on_missing", card=card_id)
    if wild_on not in player.cards:
        raise IllegalAction("buy.wild_on_not_owned", target=wild_on)
    if owned_colour(player, wild_on) is None:
        raise IllegalAction("buy.wild_on_no_bonus", target=wild_on)


# ------------------------------------------------------------------ choices


def _take_bonus_token(
    state: DuelState, player: PlayerState, current: Phase, action: TakeBonusToken
) -> list[DuelEvent]:
    if current != "take_bonus_token":
        raise IllegalAction("take_bonus_token.not_now")
    cell = action.cell
    color = GEMS[state.bonus_color]
    if not on_board(cell):
        raise IllegalAction("cell.off_board", cell=_wire(cell))
    token = state.board[index(cell)]
    if token != color or token is None:
        raise IllegalAction("take_bonus_token.wrong_cell", cell=_wire(cell), color=color)
    events: list[DuelEvent] = [BonusTokenTaken(player.seat, cell, token)]
    return turn.advance(state, player.seat, events)


def _steal_token(
    state: DuelState, player: PlayerState, current: Phase, action: StealToken
) -> list[DuelEvent]:
    if current != "steal_token":
        raise IllegalAction("steal_token.not_now")
    if action.color == GOLD:
        raise IllegalAction("steal_token.gold")
    victim = state.players[opponent(player.seat)]
    if victim.tokens[GEM_INDEX[action.color]] == 0:
        raise IllegalAction("steal_token.none_held", player=victim.name, color=action.color)
    events: list[DuelEvent] = [TokenStolen(player.seat, victim.seat, action.color)]
    return turn.advance(state, player.seat, events)


def _choose_royal(
    state: DuelState, player: PlayerState, current: Phase, action: ChooseRoyal
) -> list[DuelEvent]:
    if current != "choose_royal":
        raise IllegalAction("choose_royal.not_now")
    if action.royal not in state.royals:
        raise IllegalAction("choose_royal.unavailable", royal=action.royal)
    events: list[DuelEvent] = [RoyalTaken(player.seat, action.royal)]
    return turn.advance(state, player.seat, events)


def _discard(
    state: DuelState, player: PlayerState, current: Phase, action: DiscardTokens
) -> list[DuelEvent]:
    if current != "discard_tokens":
        raise IllegalAction("discard_tokens.not_now", most=MAX_TOKENS)
    check_give_back(player.tokens, action.tokens, MAX_TOKENS, "discard_tokens")
    tokens: dict[str, int] = {name: n for name, n in action.tokens.items() if n}
    events: list[DuelEvent] = [TokensDiscarded(player.seat, tokens)]
    return turn.advance(state, player.seat, events)


# ------------------------------------------------------------------ time and leaving


def seat_out(state: DuelState, seat: int, reason: OutReason) -> list[DuelEvent]:
    """What follows ``seat`` going out (``events.leaving.SeatOut``): the other wins."""
    winner = opponent(seat)
    return [GameEnded((winner,), reason, leaving.ranks(2, [[winner]], [seat]))]


def idle_end(state: DuelState, humans: list[int]) -> list[DuelEvent]:
    """The end of a game its human seat left idle for a day against a bot: the bot
    wins (``events.leaving.IdleEnd``)."""
    [human] = humans
    return seat_out(state, human, "abandon")


def expire(state: DuelState, facts: Facts) -> list[DuelEvent]:
    """The events the passing of time causes now (``events.leaving.expire``)."""
    return leaving.expire(state, facts, seat_out, idle_end)


# ------------------------------------------------------------------ helpers


def _token_at(state: DuelState, cell: Cell) -> DuelToken:
    token = state.board[index(cell)]
    assert token is not None, "checked by the caller"
    return token
