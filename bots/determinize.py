"""Determinization: from one seat's view to a full ``ClassicState`` consistent with it.

A seat's view hides two things: the cards still in the decks (their identity and
order) and the opponents' blind reserves (only their level shows). Both come from the
same unseen pool, per level: every card of that level not visible anywhere (board,
cards bought, reserves the viewer may see). A determinization deals the hidden
reserves at random from the pool and leaves the rest as the deck; the deck's order
needs no choice because the rules engine draws each dealt card at random from it.

Nothing here reads a hidden card: the state is built from the view and the public
catalog only, so a bot searching it cannot cheat. The state is the bot's private
simulation, never sent anywhere, and some bookkeeping the view doesn't show is set
to its usual value (``passes_in_row`` = 0, ``noble_visited`` = False, which is what
it is whenever a seat is asked to move).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from events.catalog import classic_cards
from events.classic.state import ClassicState, PlayerState, Reservation
from events.colors import GEMS, TOKENS

_LEVEL_CARDS = {
    level: sorted(c.id for c in classic_cards().values() if c.level == level) for level in (1, 2, 3)
}


class UnseenCards:
    """What a seat's view hides of the cards, in either game: the reserves it can't see
    (``hidden``: seat, index in ``reserved``, level) and, per level, the unseen pool
    (``pools``: every card of the level visible nowhere, in id order), which holds the
    hidden reserves and the deck. A seat's view, or with ``public`` a spectator's (for
    an analysis from the public position: every reserve is then a guess)."""

    def __init__(
        self,
        view: dict[str, Any],
        face_up: Iterable[str | None],
        level_cards: Mapping[int, Sequence[str]],
        public: bool = False,
    ) -> None:
        if view["you"] is None and not public:
            raise ValueError("a determinization is for a seat: this view is a spectator's")
        if view["status"] != "live":
            raise ValueError("only a live game has hidden cards to guess")
        self.view = view
        self.me: int | None = view["you"]
        seen = {c for c in face_up if c is not None}
        self.hidden: list[tuple[int, int, int]] = []
        for p in view["players"]:
            seen.update(p["cards"])
            for i, r in enumerate(p["reserved"]):
                if "card" in r:
                    seen.add(r["card"])
                else:
                    self.hidden.append((p["seat"], i, r["level"]))
        # In id order (never a set's order: runs repeat).
        self.pools = {
            level: [c for c in cards if c not in seen] for level, cards in level_cards.items()
        }
        for level, pool in self.pools.items():
            expected = view["decks"][str(level)] + sum(1 for h in self.hidden if h[2] == level)
            if len(pool) != expected:
                raise ValueError(
                    f"inconsistent view: {len(pool)} level-{level} cards unseen, {expected} hidden"
                )

    def deal(self, rng: random.Random) -> tuple[dict[int, list[str]], list[list[str]]]:
        """The decks (the pools less the guesses) and every seat's reserved cards, each
        hidden one a card drawn at random from its level's pool."""
        pools = {level: list(pool) for level, pool in self.pools.items()}
        reserved = [[r.get("card", "") for r in p["reserved"]] for p in self.view["players"]]
        for seat, index, level in self.hidden:
            pool = pools[level]
            reserved[seat][index] = pool.pop(rng.randrange(len(pool)))
        return pools, reserved


class Determinizer(UnseenCards):
    """Reads a classic view once, then deals as many consistent states as asked."""

    def __init__(self, view: dict[str, Any], public: bool = False) -> None:
        face_up = (c for row in view["board"].values() for c in row)
        super().__init__(view, face_up, _LEVEL_CARDS, public)
        turn = view["turn"]
        count = len(view["players"])
        self.first_seat = (turn["seat"] - (turn["number"] - 1)) % count

    def _turns_of(self, seat: int) -> int:
        """The turns a seat has begun: the mover's round is in the view; a seat after it
        in this round's order has begun one fewer (no rule reads it: the view shows it)."""
        turn = self.view["turn"]
        mover: int = turn["seat"]
        count = len(self.view["players"])
        later = int((seat - self.first_seat) % count > (mover - self.first_seat) % count)
        return max(0, int(turn.get("round", 0)) - later)

    def sample(self, rng: random.Random) -> ClassicState:
        """A state the view can't tell from the real one, hidden cards drawn at random."""
        view = self.view
        pools, cards = self.deal(rng)
        players = []
        for p in view["players"]:
            reserved = [
                Reservation(card, "card" not in r)
                for card, r in zip(cards[p["seat"]], p["reserved"], strict=True)
            ]
            players.append(
                PlayerState(
                    seat=p["seat"],
                    name=p["name"],
                    bot=p["bot"],
                    tokens=[p["tokens"][t] for t in TOKENS],
                    bonuses=[p["bonuses"][g] for g in GEMS],
                    points=p["points"],
                    cards=list(p["cards"]),
                    nobles=list(p["nobles"]),
                    reserved=reserved,
                    out=p.get("out"),
                    account=p.get("account"),
                    turns=self._turns_of(p["seat"]),
                )
            )
        turn = view["turn"]
        return ClassicState(
            game=view["game"],
            players_count=len(players),
            status="live",
            version=view["version"],
            players=players,
            bank=[view["bank"][t] for t in TOKENS],
            board=[list(view["board"][str(level)]) for level in (1, 2, 3)],
            decks=[pools[level] for level in (1, 2, 3)],
            nobles=list(view["nobles"]),
            first_seat=self.first_seat,
            seat=turn["seat"],
            turn_number=turn["number"],
            acted=turn["phase"] != "main",
            noble_visited=False,
            passes_in_row=0,
        )


def determinize(view: dict[str, Any], rng: random.Random) -> ClassicState:
    """One state consistent with ``view``, its hidden cards drawn at random."""
    return Determinizer(view).sample(rng)
