"""Determinization for Splendor Duel: from one seat's view to a full ``DuelState``
consistent with it.

A Duel seat's view hides the opponent's reserved cards (only their level shows) and
the cards still in the decks. Both come from one unseen pool per level: every card of
that level not visible anywhere (pyramid, both seats' cards, the reserves the viewer
sees, its own). A determinization deals each hidden reserve a card drawn at random
from its level's pool; the rest of the pool is the deck. Neither the decks' order nor
the bag's draws need a guess: the rules engine draws a dealt card, a blind reserve
and the tokens laid on a replenished board from the iteration's random source at the
moment they happen, so every iteration guesses them afresh. The bag's contents are
public (counts per kind).

Nothing here reads a hidden card: the state is built from the view and the public
catalog only. What a view doesn't say outright follows from what it does:
- ``acted``: whether the turn's mandatory action is done, from the phase (``main``
  and ``replenish`` come before it, every other phase after);
- ``pending``: the choice the phase names, then a royal still owed (a seat holds one
  royal per crown threshold crossed: 3 and 6), for a choice that waits before it;
- ``bonus_color``: the colour of the card the mover bought last, whose ability waits;
- ``replenished``: the board was replenished this turn exactly when a seat in its
  ``main`` phase holding privileges, with a gem or a pearl on the board, is offered
  no ``use_privileges`` (only the mover's view lists actions: for the other seat's it
  is False, which changes nothing that seat's view shows);
- ``first_seat``: no rule of a live Duel turn reads it (0).

The guesses take no account of what the opponent's past phases told (a forced
``replenish`` says its hidden reserves were unaffordable then): each hidden reserve
is uniform over its level's unseen pool, as in the classic bot.
"""

from __future__ import annotations

import random
from typing import Any

from bots.determinize import UnseenCards
from events.catalog import duel_cards
from events.colors import DUEL_TOKENS, GEM_INDEX, GEMS, GOLD
from events.duel.constants import ROYAL_THRESHOLDS
from events.duel.state import DuelState, Pending, PlayerState

_CARDS = duel_cards()
_LEVEL_CARDS = {
    level: sorted(c.id for c in _CARDS.values() if c.level == level) for level in (1, 2, 3)
}
_AFTER_ACTION = ("take_bonus_token", "steal_token", "choose_royal", "discard_tokens")


class DuelDeterminizer(UnseenCards):
    """Reads a Duel view once, then deals as many consistent states as asked."""

    def __init__(self, view: dict[str, Any], public: bool = False) -> None:
        if view.get("variant") != "duel":
            raise ValueError("not a Splendor Duel view")
        face_up = (c for row in view["pyramid"].values() for c in row)
        super().__init__(view, face_up, _LEVEL_CARDS, public)
        self._turn = _turn_facts(view)

    def sample(self, rng: random.Random) -> DuelState:
        """A state the view can't tell from the real one, hidden cards drawn at random."""
        view = self.view
        pools, reserved = self.deal(rng)
        turn = view["turn"]
        # The view gives the mover's round only; the other seat's (one fewer or the
        # same) no rule reads, so both are given it.
        rounds = int(turn.get("round", 0))
        players = [_player(p, reserved[p["seat"]], rounds) for p in view["players"]]
        acted, pending, bonus_color, replenished = self._turn
        return DuelState(
            game=view["game"],
            players_count=2,
            status="live",
            version=view["version"],
            players=players,
            board=[token for row in view["board"] for token in row],
            bag=[view["bag"][t] for t in DUEL_TOKENS],
            pyramid=[list(view["pyramid"][str(level)]) for level in (1, 2, 3)],
            decks=[pools[level] for level in (1, 2, 3)],
            royals=list(view["royals"]),
            privileges=view["privileges"],
            first_seat=0,
            seat=turn["seat"],
            turn_number=turn["number"],
            replenished=replenished,
            acted=acted,
            pending=list(pending),
            bonus_color=bonus_color,
            extra_turn=bool(turn.get("extra_turn")),
        )


def _player(p: dict[str, Any], reserved: list[str], turns: int) -> PlayerState:
    return PlayerState(
        seat=p["seat"],
        name=p["name"],
        bot=p["bot"],
        tokens=[p["tokens"][t] for t in DUEL_TOKENS],
        bonuses=[p["bonuses"][g] for g in GEMS],
        colour_points=[p["colour_points"][g] for g in GEMS],
        points=p["points"],
        crowns=p["crowns"],
        privileges=p["privileges"],
        cards=list(p["cards"]),
        wilds={card: GEM_INDEX[colour] for card, colour in p["wilds"].items()},
        royals=list(p["royals"]),
        reserved=reserved,
        out=p.get("out"),
        account=p.get("account"),
        turns=turns,
    )


def _turn_facts(view: dict[str, Any]) -> tuple[bool, list[Pending], int, bool]:
    """``acted``, ``pending``, ``bonus_color`` and ``replenished`` of the turn shown."""
    turn = view["turn"]
    phase = turn["phase"]
    mover = view["players"][turn["seat"]]
    acted = phase in _AFTER_ACTION
    pending: list[Pending] = []
    if phase in ("take_bonus_token", "steal_token", "choose_royal"):
        pending.append(phase)
        owed = sum(mover["crowns"] >= t for t in ROYAL_THRESHOLDS) - len(mover["royals"])
        if phase != "choose_royal" and owed > 0:
            pending.append("choose_royal")
    bonus_color = -1
    if phase == "take_bonus_token":
        # The ability is the card just bought (no royal nor wild card has it).
        bonus_color = GEM_INDEX[_CARDS[mover["cards"][-1]].color]
    gem_on_board = any(t is not None and t != GOLD for row in view["board"] for t in row)
    replenished = (
        phase == "main"
        and view["you"] == turn["seat"]
        and mover["privileges"] > 0
        and gem_on_board
        and not any(a["kind"] == "use_privileges" for a in view["legal"])
    )
    return acted, pending, bonus_color, replenished


def determinize(view: dict[str, Any], rng: random.Random) -> DuelState:
    """One state consistent with ``view``, its hidden cards drawn at random."""
    return DuelDeterminizer(view).sample(rng)
