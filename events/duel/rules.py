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
    raise IllegalAction(f"{type(action).__name__} is not a Splendor Duel action.")


def _require_mandatory(state: DuelState, player: PlayerState, current: Phase) -> None:
    """A mandatory action needs the ``main`` phase; otherwise say what comes first."""
    if current == "main":
        return
    raise IllegalAction(_waiting_for(state, player, current))


def _waiting_for(state: DuelState, player: PlayerState, current: Phase) -> str:
    if current == "replenish":
        return (
            "No mandatory action is possible with this board: you must replenish the board first."
        )
    if current == "take_bonus_token":
        color = GEMS[state.bonus_color]
        return f"Your card lets you take a {color} token from the board: choose which one first."
    if current == "steal_token":
        name = state.players[opponent(player.seat)].name
        return f"Choose which token to steal from {name} first."
    if current == "choose_royal":
        return "You reached a crown threshold: choose a royal card first."
    if current == "discard_tokens":
        held = sum(player.tokens)
        return (
            f"You hold {held} tokens: put {held - MAX_TOKENS} back into the bag "
            f"before anything else."
        )
    return "Your mandatory action of this turn is done."


def _wire(cell: Cell) -> str:
    return f"[{cell[0]}, {cell[1]}]"


def _cells_problem(cells: Sequence[Cell]) -> str | None:
    """Cells off the board or named twice."""
    for cell in cells:
        if not on_board(cell):
            return f"Cell {_wire(cell)} is off the board: rows and columns go from 0 to 4."
    if len(set(cells)) != len(cells):
        return "A cell is named twice."
    return None


def _gem_or_pearl_problem(state: DuelState, cell: Cell, how: str) -> str | None:
    token = state.board[index(cell)]
    if token is None:
        return f"Cell {_wire(cell)} is empty."
    if token == GOLD:
        return (
            f"Cell {_wire(cell)} holds gold, which {how} can't take: "
            f"gold comes only with a reserve."
        )
    return None


# ------------------------------------------------------------------ optional actions


def _use_privileges(
    state: DuelState, player: PlayerState, action: UsePrivileges
) -> list[DuelEvent]:
    if state.acted:
        raise IllegalAction(
            "Privileges are used at the start of a turn, before its mandatory action."
        )
    if state.replenished:
        raise IllegalAction("Privileges are used before replenishing the board, not after.")
    cells = action.cells
    if not cells:
        raise IllegalAction("Name at least one cell: each privilege takes one token.")
    if player.privileges == 0:
        raise IllegalAction("You hold no privilege.")
    if len(cells) > player.privileges:
        raise IllegalAction(
            f"You hold {player.privileges} privilege{_s(player.privileges)}: "
            f"you can take at most {player.privileges} token{_s(player.privileges)} with them."
        )
    problem = _cells_problem(cells)
    for cell in cells:
        problem = problem or _gem_or_pearl_problem(state, cell, "a privilege")
    if problem:
        raise IllegalAction(problem)
    if not privileges_leave_an_action(state, player, [index(c) for c in cells]):
        raise IllegalAction(
            "Taking these tokens would leave you no mandatory action, even after "
            "replenishing the board: take fewer."
        )
    tokens = tuple(_token_at(state, cell) for cell in cells)
    return [PrivilegesUsed(player.seat, tuple(cells), tokens)]


def _replenish(
    state: DuelState, player: PlayerState, current: Phase, rng: random.Random
) -> list[DuelEvent]:
    if state.acted:
        raise IllegalAction(
            "The board is replenished at the start of a turn, before its mandatory action."
        )
    if not any(state.bag):
        raise IllegalAction("The bag is empty: there is nothing to replenish the board with.")
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
        raise IllegalAction(f"take_tokens takes 1 to {MAX_TAKE} tokens, not {len(cells)}.")
    problem = _cells_problem(cells)
    for cell in cells:
        problem = problem or _gem_or_pearl_problem(state, cell, "take_tokens")
    if problem:
        raise IllegalAction(problem)
    gap = line_gap(cells)
    if gap:
        sentence, missing = gap
        if missing is not None:
            sentence += f": {_wire(missing)} lies between them and {_holds(state, missing)}"
        raise IllegalAction(sentence[0].upper() + sentence[1:] + ".")
    tokens = tuple(_token_at(state, cell) for cell in cells)
    events: list[DuelEvent] = [TokensTaken(player.seat, tuple(cells), tokens)]
    same = len(tokens) == MAX_TAKE and len(set(tokens)) == 1
    if same or tokens.count(PEARL) == 2:
        privilege = turn.privilege_for(state, opponent(player.seat), "take")
        if privilege:
            events.append(privilege)
    return turn.advance(state, player.seat, events)


def _holds(state: DuelState, cell: Cell) -> str:
    token = state.board[index(cell)]
    if token is None:
        return "is empty"
    if token == GOLD:
        return "holds gold"
    return f"holds a {token} token you did not name"


def _reserve(
    state: DuelState, player: PlayerState, action: Reserve, rng: random.Random
) -> list[DuelEvent]:
    if len(player.reserved) >= MAX_RESERVED:
        raise IllegalAction(f"You already hold {MAX_RESERVED} reserved cards, the most allowed.")
    if GOLD not in state.board:
        raise IllegalAction("There is no gold on the board: you can't reserve a card.")
    cell = action.gold_cell
    if not on_board(cell):
        raise IllegalAction(
            f"Cell {_wire(cell)} is off the board: rows and columns go from 0 to 4."
        )
    if state.board[index(cell)] != GOLD:
        raise IllegalAction(f"Cell {_wire(cell)} holds no gold: name a cell with a gold token.")
    level, card_id, slot = reserve_source(
        state.pyramid, state.decks, _LEVEL, action.card, action.level, rng, "in the pyramid"
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
        raise IllegalAction(f"Card {card_id} is neither in the pyramid nor in your reserve.")
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
            raise IllegalAction(
                f"Only a wild card goes on another card, and {card_id} is not wild."
            )
        return
    if not has_bonus_card(player):
        raise IllegalAction(
            f"{card_id} is a wild card: it goes on a card of yours with a bonus, and you have "
            f"none yet, so you can't buy it."
        )
    if wild_on is None:
        raise IllegalAction(
            f"{card_id} is a wild card: name the card of yours it goes on (wild_on)."
        )
    if wild_on not in player.cards:
        raise IllegalAction(f"You don't own {wild_on}: a wild card goes on a card of yours.")
    if owned_colour(player, wild_on) is None:
        raise IllegalAction(f"{wild_on} has no bonus: a wild card goes on a card with a bonus.")


# ------------------------------------------------------------------ choices


def _take_bonus_token(
    state: DuelState, player: PlayerState, current: Phase, action: TakeBonusToken
) -> list[DuelEvent]:
    if current != "take_bonus_token":
        raise IllegalAction("take_bonus_token follows only a card with the take-a-token ability.")
    cell = action.cell
    color = GEMS[state.bonus_color]
    if not on_board(cell):
        raise IllegalAction(
            f"Cell {_wire(cell)} is off the board: rows and columns go from 0 to 4."
        )
    token = state.board[index(cell)]
    if token != color or token is None:
        raise IllegalAction(
            f"Cell {_wire(cell)} holds no {color} token: your card takes a {color} one."
        )
    events: list[DuelEvent] = [BonusTokenTaken(player.seat, cell, token)]
    return turn.advance(state, player.seat, events)


def _steal_token(
    state: DuelState, player: PlayerState, current: Phase, action: StealToken
) -> list[DuelEvent]:
    if current != "steal_token":
        raise IllegalAction("steal_token follows only a card or royal with the steal ability.")
    if action.color == GOLD:
        raise IllegalAction("Gold can't be stolen: take a gem or a pearl.")
    victim = state.players[opponent(player.seat)]
    if victim.tokens[GEM_INDEX[action.color]] == 0:
        raise IllegalAction(f"{victim.name} holds no {action.color} token.")
    events: list[DuelEvent] = [TokenStolen(player.seat, victim.seat, action.color)]
    return turn.advance(state, player.seat, events)


def _choose_royal(
    state: DuelState, player: PlayerState, current: Phase, action: ChooseRoyal
) -> list[DuelEvent]:
    if current != "choose_royal":
        raise IllegalAction("You choose a royal card only on reaching your 3rd or 6th crown.")
    if action.royal not in state.royals:
        raise IllegalAction(f"Royal card {action.royal} is not available.")
    events: list[DuelEvent] = [RoyalTaken(player.seat, action.royal)]
    return turn.advance(state, player.seat, events)


def _discard(
    state: DuelState, player: PlayerState, current: Phase, action: DiscardTokens
) -> list[DuelEvent]:
    if current != "discard_tokens":
        raise IllegalAction("You discard tokens only when you hold more than 10 at a turn's end.")
    check_give_back(player.tokens, action.tokens, MAX_TOKENS, "discard")
    tokens: dict[str, int] = {name: n for name, n in action.tokens.items() if n}
    events: list[DuelEvent] = [TokensDiscarded(player.seat, tokens)]
    return turn.advance(state, player.seat, events)


# ------------------------------------------------------------------ time and leaving


def seat_out(state: DuelState, seat: int, reason: OutReason) -> list[DuelEvent]:
    """What follows ``seat`` going out (``events.leaving.SeatOut``): the other wins."""
    winner = opponent(seat)
    return [GameEnded((winner,), reason, leaving.ranks(2, [[winner]], [seat]))]


def expire(state: DuelState, facts: Facts) -> list[DuelEvent]:
    """The events the passing of time causes now (``events.leaving.expire``)."""
    return leaving.expire(state, facts, seat_out)


# ------------------------------------------------------------------ helpers


def _token_at(state: DuelState, cell: Cell) -> DuelToken:
    token = state.board[index(cell)]
    assert token is not None, "checked by the caller"
    return token


def _s(n: int) -> str:
    return "" if n == 1 else "s"
