"""The rest of a Duel turn once its player has acted: abilities and royals resolved
in order, the discard down to 10, the victory check, the next turn.

``advance`` folds the events so far into a scratch copy of the state and writes what
follows without a choice: an ability with a single outcome (or none, which the
rulebook says to ignore), the privilege rule, the end of the turn. It stops at the
first real choice, which the phase then names.
"""

from __future__ import annotations

from events.colors import DUEL_TOKENS, GOLD_INDEX
from events.duel.board import cell_of
from events.duel.constants import (
    COLOUR_PRESTIGE_TO_WIN,
    CROWNS_TO_WIN,
    MAX_TOKENS,
    PRESTIGE_TO_WIN,
    TOKEN_NAMES,
)
from events.duel.events import (
    AbilityIgnored,
    BonusTokenTaken,
    DuelEvent,
    GameEnded,
    PrivilegeReason,
    PrivilegeTaken,
    RoyalTaken,
    TokenStolen,
    TurnEnded,
)
from events.duel.evolve import evolve
from events.duel.state import DuelState, Pending, PlayerState, Reason


def privilege_for(state: DuelState, seat: int, reason: PrivilegeReason) -> PrivilegeTaken | None:
    """The privilege rule: from the supply, else from the opponent; None if ``seat``
    already holds all of them (then nothing happens)."""
    if state.privileges > 0:
        return PrivilegeTaken(seat, reason)
    other = 1 - seat
    if state.players[other].privileges > 0:
        return PrivilegeTaken(seat, reason, other)
    return None


def bonus_token_cells(state: DuelState) -> list[int]:
    """Cells holding a token of the colour a take_token ability takes."""
    color = DUEL_TOKENS[state.bonus_color]
    return [i for i, token in enumerate(state.board) if token == color]


def stealable(state: DuelState, seat: int) -> list[int]:
    """Token kinds (gems and pearl, never gold) the opponent of ``seat`` holds."""
    victim = state.players[1 - seat]
    return [i for i, n in enumerate(victim.tokens) if n and i != GOLD_INDEX]


def victory(player: PlayerState) -> Reason | None:
    """The first victory condition ``player`` meets, if any."""
    if player.points >= PRESTIGE_TO_WIN:
        return "prestige"
    if player.crowns >= CROWNS_TO_WIN:
        return "crowns"
    if max(player.colour_points) >= COLOUR_PRESTIGE_TO_WIN:
        return "colour"
    return None


def advance(state: DuelState, seat: int, events: list[DuelEvent]) -> list[DuelEvent]:
    """``events`` followed by everything that comes without a choice (see the module)."""
    scratch = state.copy()
    for event in events:
        evolve(scratch, event)
    while scratch.pending:
        follow = _resolve(scratch, seat, scratch.pending[0])
        if follow is None:
            return events  # the player chooses: the phase names the choice
        events.append(follow)
        evolve(scratch, follow)
    player = scratch.players[seat]
    if sum(player.tokens) > MAX_TOKENS:
        return events  # phase discard_tokens
    reason = victory(player)
    events.append(TurnEnded(seat, seat if scratch.extra_turn else 1 - seat))
    if reason is not None:
        events.append(GameEnded((seat,), reason, _ranks(seat)))
    return events


def _resolve(state: DuelState, seat: int, pending: Pending) -> DuelEvent | None:
    """The event that settles ``pending`` by itself, or None when the player must choose."""
    if pending == "take_privilege":
        return privilege_for(state, seat, "ability") or AbilityIgnored(seat, "take_privilege")
    if pending == "take_bonus_token":
        cells = bonus_token_cells(state)
        if not cells:
            return AbilityIgnored(seat, "take_token")
        if len(cells) == 1:
            token = state.board[cells[0]]
            assert token is not None
            return BonusTokenTaken(seat, cell_of(cells[0]), token)
        return None
    if pending == "steal_token":
        kinds = stealable(state, seat)
        if not kinds:
            return AbilityIgnored(seat, "steal_token")
        if len(kinds) == 1:
            return TokenStolen(seat, 1 - seat, TOKEN_NAMES[kinds[0]])
        return None
    # choose_royal: a player crosses each threshold once, so with 4 royals and 2
    # thresholds a royal is always left to take.
    assert state.royals, "no royal card left to take"
    if len(state.royals) == 1:
        return RoyalTaken(seat, state.royals[0])
    return None


def _ranks(winner: int) -> tuple[int, ...]:
    return (1, 2) if winner == 0 else (2, 1)
