"""One interface over both games, so the server, the hubs and the bots never ask
which variant they hold. Each variant module fills a ``Variant``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import msgspec

from events import leaving
from events.base import GameCreated, TimeControl
from events.catalog import classic_catalog, duel_catalog
from events.classic import actions as classic_actions
from events.classic import events as classic_events
from events.classic import evolve as classic_evolve
from events.classic import rules as classic_rules
from events.classic import view as classic_view
from events.classic.state import ClassicState
from events.clock import ABANDON_MS, ABANDON_REALTIME_MS, OPEN_GAME_MS
from events.duel import actions as duel_actions
from events.duel import events as duel_events
from events.duel import evolve as duel_evolve
from events.duel import legal as duel_legal
from events.duel import rules as duel_rules
from events.duel import setup as duel_setup
from events.duel import view as duel_view
from events.duel.constants import rule_numbers as duel_rule_numbers
from events.duel.state import DuelState
from events.leaving import Facts
from events.views import Views


def with_rules(
    catalog: Callable[[], dict[str, object]], numbers: Callable[[], dict[str, Any]]
) -> Callable[[], dict[str, object]]:
    """A variant's catalog with its rules' numbers as ``rules`` (for the page's words),
    and those of online play both games share (RULES.md part 3)."""
    return lambda: {
        **catalog(),
        "rules": {
            **numbers(),
            "open_game_seconds": OPEN_GAME_MS // 1000,
            "abandon_seconds": ABANDON_MS // 1000,
            "abandon_realtime_seconds": ABANDON_REALTIME_MS // 1000,
        },
    }


@dataclass(frozen=True)
class Variant:
    """The rules of one game, as plain functions (see each variant's modules)."""

    name: str
    min_players: int
    max_players: int
    new_state: Callable[[], Any]
    # join(state, name, bot, rng, account=None): ``account`` is the username of the
    # account a player's seat is for (None: a guest, or a bot).
    join: Callable[..., list[Any]]
    # decide(state, seat, action, rng, facts=None): ``facts`` (events.leaving.Facts)
    # give the time now and who is away; without them no clock is checked.
    decide: Callable[..., list[Any]]
    # evolve(state, event, at_ms=None): ``at_ms`` is the event's recorded time, for
    # the clocks (events.clock); folds without times leave the clocks at 0.
    evolve: Callable[..., Any]
    # The game's own moves for ``seat`` (empty when not its move): what bots choose
    # from. The leave actions are ``leave_actions``; a view's ``legal`` lists both.
    legal_actions: Callable[[Any, int], list[Any]]
    # The events the passing of time causes at ``facts.now_ms`` (events.leaving).
    expire: Callable[[Any, Facts], list[Any]]
    view: Callable[[Any, int | None], dict[str, Any]]
    redact: Callable[[Any, int | None, bool], Any]
    catalog: Callable[[], dict[str, object]]
    event_type: Any  # the tagged union of the variant's events
    action_type: Any  # the tagged union of the variant's actions
    # Every viewer's view of one game kept up to date, as the hubs need them: the
    # same values as ``view``.
    new_views: Callable[[], Views]

    def create(
        self,
        game_id: str,
        players: int,
        clock: TimeControl | None = None,
        seeded: bool = False,
        rated: bool = False,
    ) -> list[Any]:
        """The first event of every game: its table, its time control, whether it is
        rated."""
        return [GameCreated(game_id, self.name, players, clock, seeded, rated)]  # type: ignore[arg-type]

    def fold(self, events: Iterable[Any], state: Any = None) -> Any:
        """The state after ``events`` (the clocks need ``fold_timed``)."""
        state = self.new_state() if state is None else state
        for event in events:
            self.evolve(state, event)
        return state

    def fold_timed(self, logged: Iterable[tuple[int, Any]], state: Any = None) -> Any:
        """The state after ``(at_ms, event)`` pairs: the events with their times."""
        state = self.new_state() if state is None else state
        evolve = self.evolve
        for at_ms, event in logged:
            evolve(state, event, at_ms)
        return state

    @staticmethod
    def leave_actions(state: Any, seat: int | None, facts: Facts | None = None) -> list[Any]:
        """``abort`` and ``claim_abandon`` while ``seat`` may send them (never
        ``resign``, which a seat may send at any time): ``events.leaving``."""
        return leaving.leave_actions(state, seat, facts)

    @staticmethod
    def deadline(state: Any) -> int | None:
        """When time alone will change the game next (``expire`` then has events)."""
        return leaving.deadline(state)

    def event_decoder(self) -> msgspec.json.Decoder[Any]:
        return msgspec.json.Decoder(self.event_type)

    def action_decoder(self) -> msgspec.json.Decoder[Any]:
        return msgspec.json.Decoder(self.action_type)


CLASSIC = Variant(
    name="classic",
    min_players=2,
    max_players=4,
    new_state=ClassicState,
    join=classic_rules.join,
    decide=classic_rules.decide,
    evolve=classic_evolve.evolve,
    legal_actions=classic_rules.legal_actions,
    expire=classic_rules.expire,
    view=classic_view.view,
    redact=classic_view.redact,
    catalog=with_rules(classic_catalog, classic_rules.rule_numbers),
    event_type=classic_events.ClassicEvent,
    action_type=classic_actions.ClassicAction,
    new_views=classic_view.new_views,
)

DUEL = Variant(
    name="duel",
    min_players=2,
    max_players=2,
    new_state=DuelState,
    join=duel_setup.join,
    decide=duel_rules.decide,
    evolve=duel_evolve.evolve,
    legal_actions=duel_legal.legal_actions,
    expire=duel_rules.expire,
    view=duel_view.view,
    redact=duel_view.redact,
    catalog=with_rules(duel_catalog, duel_rule_numbers),
    event_type=duel_events.DuelEvent,
    action_type=duel_actions.DuelAction,
    new_views=duel_view.new_views,
)

VARIANTS: dict[str, Variant] = {"classic": CLASSIC, "duel": DUEL}


def variant(name: str) -> Variant:
    return VARIANTS[name]
