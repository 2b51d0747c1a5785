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
from typing import Any

from events.catalog import classic_cards
from events.classic.state import ClassicState, PlayerState, Reservation
from events.colors import GEMS, TOKENS

_LEVEL_CARDS = {
    level: sorted(c.id for c in classic_cards().values() if c.level == level) for level in (1, 2, 3)
}


class Determinizer:
    """Reads a view once, then deals as many consistent states as asked."""

    def __init__(self, view: dict[str, Any]) -> None:
        if view["you"] is None:
            raise ValueError("a determinization is for a seat: this view is a spectator's")
        if view["status"] != "live":
            raise ValueError("only a live game has hidden cards to guess")
        self.view = view
        self.me: int = view["you"]
        seen: set[str] = set()
        for row in view["board"].values():
            seen.update(c for c in row if c is not None)
        # (seat, index in reserved, level) of every reserve the viewer can't see.
        self.hidden: list[tuple[int, int, int]] = []
        for p in view["players"]:
            seen.update(p["cards"])
            for i, r in enumerate(p["reserved"]):
                if "card" in r:
                    seen.add(r["card"])
                else:
                    self.hidden.append((p["seat"], i, r["level"]))
        # The unseen pool per level, in id order (never a set's order: runs repeat).
        self.pools = {
            level: [c for c in cards if c not in seen] for level, cards in _LEVEL_CARDS.items()
        }
        for level, pool in self.pools.items():
            expected = view["decks"][str(level)] + sum(1 for h in self.hidden if h[2] == level)
            if len(pool) != expected:
                raise ValueError(
                    f"inconsistent view: {len(pool)} level-{level} cards unseen, {expected} hidden"
                )
        turn = view["turn"]
        count = len(view["players"])
        self.first_seat = (turn["seat"] - (turn["number"] - 1)) % count

    def sample(self, rng: random.Random) -> ClassicState:
        """A state the view can't tell from the real one, hidden cards drawn at random."""
        view = self.view
        pools = {level: list(pool) for level, pool in self.pools.items()}
        guessed: dict[tuple[int, int], str] = {}
        for seat, index, level in self.hidden:
            pool = pools[level]
            guessed[seat, index] = pool.pop(rng.randrange(len(pool)))
        players = []
        for p in view["players"]:
            reserved = [
                Reservation(r["card"], False)
                if "card" in r
                else Reservation(guessed[p["seat"], i], True)
                for i, r in enumerate(p["reserved"])
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
