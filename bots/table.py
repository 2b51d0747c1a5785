"""A seat's picture of the table: the few numbers the bots reason about.

A ``Table`` is read from a PROTOCOL.md classic view (what a bot is given), or, inside
MCTS's private simulation, from a determinized ``ClassicState``. Both readings give
the same shape, so the greedy heuristic serves as a bot and as MCTS's rollout policy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from events.classic.actions import ClassicAction
from events.classic.state import ClassicState
from events.colors import GEMS, TOKENS

LEVELS = (1, 2, 3)


@dataclass(slots=True)
class SeatInfo:
    """One player as the viewer sees them."""

    seat: int
    tokens: list[int]  # white, blue, green, red, black, gold
    bonuses: list[int]  # white, blue, green, red, black
    points: int
    cards: int  # development cards bought (the tie-break)
    reserved: list[str]  # the reserved cards the viewer may see
    hidden_reserved: int  # blind reserves the viewer may not see


@dataclass(slots=True)
class Table:
    me: int
    phase: str  # "main", "return_tokens" or "choose_noble"
    bank: list[int]
    board: list[str]  # the face-up cards, every level, empty slots left out
    decks: list[int]  # cards left, levels 1..3
    nobles: list[str]
    players: list[SeatInfo]
    final_round: bool

    @property
    def mine(self) -> SeatInfo:
        return self.players[self.me]


def from_view(view: dict[str, Any]) -> Table:
    """Read a classic view (the viewer must be a seat)."""
    me = view["you"]
    if me is None:
        raise ValueError("a bot plays a seat: this view is a spectator's")
    players = []
    for p in view["players"]:
        visible = [r["card"] for r in p["reserved"] if "card" in r]
        players.append(
            SeatInfo(
                seat=p["seat"],
                tokens=[p["tokens"][t] for t in TOKENS],
                bonuses=[p["bonuses"][g] for g in GEMS],
                points=p["points"],
                cards=len(p["cards"]),
                reserved=visible,
                hidden_reserved=len(p["reserved"]) - len(visible),
            )
        )
    turn = view["turn"] or {}
    return Table(
        me=me,
        phase=turn.get("phase") or "main",
        bank=[view["bank"][t] for t in TOKENS],
        board=[c for level in LEVELS for c in view["board"][str(level)] if c is not None],
        decks=[view["decks"][str(level)] for level in LEVELS],
        nobles=list(view["nobles"]),
        players=players,
        final_round=bool(turn.get("final_round")),
    )


def from_state(state: ClassicState, seat: int, phase: str) -> Table:
    """Read a state directly (MCTS's private simulation: every card in it is a guess
    the searching bot made, so nothing is revealed). Lists are shared, not copied:
    the table is only read, and only before the state changes again."""
    players = [
        SeatInfo(
            seat=p.seat,
            tokens=p.tokens,
            bonuses=p.bonuses,
            points=p.points,
            cards=len(p.cards),
            reserved=[r.card for r in p.reserved],
            hidden_reserved=0,
        )
        for p in state.players
    ]
    return Table(
        me=seat,
        phase=phase,
        bank=state.bank,
        board=[c for row in state.board for c in row if c is not None],
        decks=[len(d) for d in state.decks],
        nobles=state.nobles,
        players=players,
        final_round=any(p.points >= 15 for p in state.players),
    )


_ACTIONS = msgspec.json.Decoder(ClassicAction)
_ENCODE = msgspec.json.Encoder()


def parse_legal(legal: list[dict[str, Any]]) -> list[ClassicAction]:
    """The view's wire actions as action values (same order)."""
    return [_ACTIONS.decode(_ENCODE.encode(a)) for a in legal]
