"""What every game's view shares: PROTOCOL.md's frame (``game``, ``variant``,
``version``, ``status``, ``you``, ``players``, ``turn``, ``legal``, ``result``), the
part of a player every game shows, and the secret of reserved cards.

A game's ``view`` adds its own table and fields; the order of the keys is the frame's,
the game's table between ``you`` and ``players``.

Also the parts of ``Views``: every viewer's view of one game kept up to date as it
evolves, for the hubs (``server.live.audience_views``), which need each audience's view after
every event and patch it from the last one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Protocol, TypeVar

import msgspec

from events.base import OutReason, Status
from events.clock import Clock, clock_view
from events.colors import GEMS


class _Player(Protocol):
    @property
    def seat(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def bot(self) -> str | None: ...
    @property
    def account(self) -> str | None: ...
    @property
    def tokens(self) -> Sequence[int]: ...
    @property
    def bonuses(self) -> Sequence[int]: ...
    @property
    def points(self) -> int: ...
    @property
    def out(self) -> OutReason | None: ...


class Viewed(Protocol):
    """What the frame reads of a game's state."""

    @property
    def game(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def status(self) -> Status: ...
    @property
    def seat(self) -> int: ...
    @property
    def turn_number(self) -> int: ...
    @property
    def clock(self) -> Clock: ...


S = TypeVar("S", bound=Viewed)


def sees_hidden(owner: int, viewer: int | None, finished: bool) -> bool:
    """A player's hidden cards are seen by that player, and by everyone once the game ends."""
    return finished or owner == viewer


def reserved_card(card_id: str, shown: bool, levels: Mapping[str, int]) -> dict[str, Any]:
    """A reserved card as the wire shows it: ``{"card": id}``, or only ``{"level": n}``."""
    return {"card": card_id} if shown else {"level": levels[card_id]}


class _Viewing(Protocol):
    @property
    def view(self) -> Callable[[Any, int | None], dict[str, Any]]: ...


def reveal_reserves(variant: _Viewing, state: Any, view: dict[str, Any]) -> None:
    """Show every player's reserved cards in ``view`` as their owner sees them: a
    finished game is public, so its past views hide nothing its events show."""
    for i, player in enumerate(view["players"]):
        if player["seat"] != view["you"]:
            player["reserved"] = variant.view(state, player["seat"])["players"][i]["reserved"]


def player_frame(player: _Player, token_names: tuple[str, ...]) -> dict[str, Any]:
    """The fields of a player every game shows, in the wire's order."""
    return {
        "seat": player.seat,
        "name": player.name,
        "bot": player.bot,
        "account": player.account,
        "tokens": dict(zip(token_names, player.tokens, strict=True)),
        "bonuses": dict(zip(GEMS, player.bonuses, strict=True)),
        "points": player.points,
        "out": player.out,
    }


def round_of(state: Any) -> int:
    """The round of the seat to move: how many turns it has started (an extra turn
    counts in the round it came from); 0 before any (a game ended while open)."""
    players = state.players
    return players[state.seat].turns if state.seat < len(players) else 0


def turn_frame(state: S, phase: Callable[[S], str], **more: Any) -> dict[str, Any] | None:
    """Whose turn, its phase (while live), its number, and the game's own turn fields;
    None before the game starts."""
    if state.status == "open":
        return None
    live = state.status == "live"
    return {
        "seat": state.seat,
        "phase": phase(state) if live else None,
        "number": state.turn_number,
        **more,
    }


def frame(
    state: Viewed,
    variant: str,
    viewer: int | None,
    table: dict[str, Any],
    players: list[dict[str, Any]],
    turn: dict[str, Any] | None,
    legal: list[dict[str, Any]],
    result: dict[str, Any] | None,
) -> dict[str, Any]:
    """The whole view: the frame around a game's ``table``."""
    return {
        "game": state.game,
        "variant": variant,
        "version": state.version,
        "status": state.status,
        "you": viewer,
        **table,
        "players": players,
        "turn": turn,
        "legal": legal,
        "result": result,
    }


def seeded(state: Viewed) -> bool:
    """The view's ``seeded``: whoever chose the seed can know every draw."""
    return state.clock.seeded


def rated(state: Viewed) -> bool:
    """The view's ``rated``: the game counts for its accounts' ratings."""
    return state.clock.rated


def clock(state: Viewed) -> dict[str, Any] | None:
    """The view's ``clock`` (``events.clock.clock_view``), as of its last change."""
    return clock_view(state.clock)


# Members of every game's table, after the game's own: a game's ``view`` and its
# ``TableViews`` build them with these.
LIVE_MEMBERS: dict[str, Callable[[Any], Any]] = {
    "seeded": seeded,
    "rated": rated,
    "clock": clock,
}


# ---------------------------------------------------------------------- views kept up to date


class Views(Protocol):
    """The views of one game kept up to date as its state evolves in place: the same
    values as the game's ``view``, rebuilt member by member where the last event
    changed something, so that members left unchanged stay the same objects from one
    version to the next, and a seat's view is the spectator's but for a few members.
    """

    def spectator(self, state: Any, event: Any = None) -> dict[str, Any]:
        """``view(state, None)``: ``event`` is the only event applied to ``state`` since
        the last call, or None (unknown: everything is rebuilt)."""

    @property
    def changed(self) -> Collection[str] | None:
        """The members of the last ``spectator`` view that may be other objects than
        the view before's (the others are the same), or None: any of them."""

    def seat(self, state: Any, seat: int, spectator: dict[str, Any]) -> dict[str, Any]:
        """The members of ``view(state, seat)`` that are not ``spectator``'s (this
        state's spectator view): ``spectator | seat(...)`` is the seat's view, once
        each ``Encoded`` member in it is replaced by its ``value()``. A member the seat
        sees as spectators do is left out, or is the spectator's own object.

        The same dict as last time means: none of these members changed, nor did the
        spectator's members of these names (so the seat's patch is the spectator's)."""


class Encoded:
    """A member of a view given as its JSON: a seat's ``legal``, encoded in one go from
    the rules' actions (msgspec Structs, whose JSON is their wire form's), which the
    hubs put into patches as it is; its JSON value is made only for a whole view."""

    __slots__ = ("json",)

    def __init__(self, json: bytes) -> None:
        self.json = json

    def value(self) -> Any:
        """The member as the view holds it (JSON types: lists, never tuples)."""
        return _decode(self.json)


class TableViews:
    """``Views`` of a game whose view is the frame around a table of members (each
    built by a function of the state), the players' entries, ``turn`` and ``result``:
    both games'. After an event only what it may change is rebuilt (``changes``: per
    event type, table members, plus ``"player"`` for the entry of the event's seat or
    ``"players"`` for every entry; an event type not listed rebuilds everything), and
    what comes out equal is kept as the same object."""

    def __init__(
        self,
        variant: str,
        table: Mapping[str, Callable[[Any], Any]],
        changes: Mapping[type[Any], tuple[str, ...]],
        player: Callable[[Any, bool], dict[str, Any]],
        turn: Callable[[Any], dict[str, Any] | None],
        result: Callable[[Any], dict[str, Any] | None],
        seats: SeatParts,
        fields: Mapping[type[Any], tuple[str, ...]] | None = None,
        field: Mapping[str, Callable[[Any, bool], Any]] | None = None,
        turn_kept: Collection[type[Any]] = (),
    ) -> None:
        """``player(player_state, finished)``: a player's entry as spectators see it;
        ``turn(state)``, ``result(state)``: the view's members of those names.
        ``fields``: per event type whose ``changes`` name ``"player"``, the only fields
        of that entry it may change, each rebuilt alone by ``field[name](player_state,
        finished)`` (the entry's other fields stay the same objects); event types not
        in it rebuild the whole entry. ``turn_kept``: event types of ``changes`` that
        never change ``turn`` (it is rebuilt after every other event)."""
        self._variant = variant
        self._build = table
        self._player = player
        self._turn_of = turn
        self._result_of = result
        self._seats = seats
        self._fields = fields or {}
        self._field = field or {}
        self._turn_kept = frozenset(turn_kept)
        self._table: dict[str, Any] = {}
        self._players: list[dict[str, Any]] = []
        self._turn: dict[str, Any] | None = None
        self._result: dict[str, Any] | None = None
        self._view: dict[str, Any] = {}  # the last spectator view
        self._changed: tuple[str, ...] | None = None
        # Per event type listed, all the above in one look-up: what to rebuild (the
        # ``changes``), the fields of the seat's entry (None: all), whether ``turn``
        # is rebuilt, and the view's members it may change (``changed``).
        self._plans: dict[type[Any], _Plan] = {
            kind: (
                names,
                self._fields.get(kind),
                kind not in self._turn_kept,
                (
                    "version",
                    *{_MEMBER.get(name, name): None for name in names},
                    *(() if kind in self._turn_kept else ("turn",)),
                ),
            )
            for kind, names in changes.items()
        }

    @property
    def changed(self) -> tuple[str, ...] | None:
        return self._changed

    def spectator(self, state: Any, event: Any = None) -> dict[str, Any]:
        plan = None if event is None or not self._view else self._plans.get(type(event))
        table = self._table
        if plan is None:
            for name, build in self._build.items():
                table[name] = keep(table.get(name), build(state))
            self._keep_players(state, None)
            self._result = keep(self._result, self._result_of(state))
            self._turn = keep(self._turn, self._turn_of(state))
            self._view = frame(
                state,
                self._variant,
                None,
                table,
                self._players,
                self._turn,
                _NO_LEGAL,
                self._result,
            )
            self._changed = None
            return self._view
        # The last view with the members the event may change rebuilt: its other
        # members are the same objects, the order of its keys the same.
        changes, fields, turn, changed = plan
        view = self._view.copy()
        view["version"] = state.version
        for name in changes:
            if name == "player":
                if fields is None:
                    self._keep_players(state, event.seat)
                else:
                    self._keep_fields(state, event.seat, fields)
                view["players"] = self._players
            elif name == "players":
                self._keep_players(state, None)
                view["players"] = self._players
            else:
                view[name] = table[name] = keep(table[name], self._build[name](state))
        if turn:
            view["turn"] = self._turn = keep(self._turn, self._turn_of(state))
        self._view = view
        self._changed = changed
        return view

    def seat(self, state: Any, seat: int, spectator: dict[str, Any]) -> dict[str, Any]:
        return self._seats.members(state, seat, spectator)

    def _keep_fields(self, state: Any, seat: int, fields: tuple[str, ...]) -> None:
        """Rebuild only ``fields`` of one seat's entry: the entry is a copy of the old
        one with those that changed replaced (the others the same objects), or the
        old one itself when none did."""
        old = self._players
        if len(old) != len(state.players):
            self._keep_players(state, seat)
            return
        was = old[seat]
        player = state.players[seat]
        finished = state.status == "finished"
        build = self._field
        entry: dict[str, Any] | None = None
        for name in fields:
            before = was[name]
            value = build[name](player, finished)
            if type(value) is not type(before) or value != before:
                if entry is None:
                    entry = was.copy()
                entry[name] = value
        if entry is not None:
            self._players = entries = list(old)
            entries[seat] = entry

    def _keep_players(self, state: Any, seat: int | None) -> None:
        """Rebuild one seat's entry (or every one): the list, and each entry, stay the
        same objects where nothing changed."""
        finished = state.status == "finished"
        old = self._players
        players = state.players
        if seat is not None and len(old) == len(players):
            entry = keep(old[seat], self._player(players[seat], finished))
            if entry is not old[seat]:
                self._players = entries = list(old)
                entries[seat] = entry
            return
        entries = [
            keep(old[p.seat], self._player(p, finished))
            if p.seat < len(old)
            else self._player(p, finished)
            for p in players
        ]
        if len(entries) != len(old) or any(a is not b for a, b in zip(entries, old, strict=True)):
            self._players = entries


# An event type's plan: ``changes``, entry fields or None, turn rebuilt, ``changed``.
_Plan = tuple[tuple[str, ...], "tuple[str, ...] | None", bool, tuple[str, ...]]
_NO_LEGAL: list[dict[str, Any]] = []  # a spectator's ``legal``, shared, never changed
_MEMBER = {"player": "players"}  # what a name of ``changes`` that is no member changes


def keep(old: Any, new: Any) -> Any:
    """``old`` if ``new`` is the same JSON value (so that it stays the same object),
    else ``new``."""
    return old if type(old) is type(new) and old == new else new


class _Seat:
    """What ``SeatParts`` keeps of one seat between events."""

    __slots__ = ("entry", "last", "members", "mine", "own", "players", "reserved")

    def __init__(self) -> None:
        self.entry: Any = None  # the spectator's entry of the seat ...
        self.reserved: list[Any] = []  # ... and the seat's reserved cards, when ...
        self.own: dict[str, Any] = {}  # ... the seat's own entry was made from them
        self.players: Any = None  # the spectator's players, when ...
        self.mine: list[dict[str, Any]] = []  # ... the seat's own players were made
        self.members: dict[str, Any] | None = None  # last given, while not to move
        self.last: dict[str, Any] | None = None  # last given


class SeatParts:
    """What a seat's view has of its own: ``you``, its own entry in ``players`` when
    it sees more of it than a spectator does (its reserved cards: what a game hides
    from the others), ``legal`` while it is to move. Kept per seat, so that they stay
    the same objects while they do not change."""

    def __init__(
        self,
        own: Callable[[Any, int, dict[str, Any]], dict[str, Any]],
        legal: Callable[[Any, int], list[Any]],
        leave: Callable[[Any, int], list[Any]] | None = None,
    ) -> None:
        """``own(state, seat, entry)``: the seat's entry as it sees it, given the
        spectator's ``entry`` (the same object when it sees nothing more), which may
        depend on nothing else than the seat's reserved cards; ``legal(state, seat)``:
        the game's, whose actions encode to their wire form's JSON; ``leave(state,
        seat)``: the leave actions the seat may send whether it is to move or not
        (``events.leaving.leave_actions``), after the game's in ``legal``."""
        self._make_own = own
        self._legal_actions = legal
        self._leave = leave
        self._seats: dict[int, _Seat] = {}
        self._actions: list[Any] = []
        self._legal = Encoded(b"[]")

    def members(self, state: Any, seat: int, spectator: dict[str, Any]) -> dict[str, Any]:
        """The members of the seat's view that are not ``spectator``'s: ``you``, the
        seat's ``players`` when it sees its own entry differently, and, while it is to
        move, ``legal``. The same dict as last time when none of them changed."""
        players: list[dict[str, Any]] = spectator["players"]
        kept = self._seats.get(seat)
        if kept is None:
            kept = self._seats[seat] = _Seat()
        if not 0 <= seat < len(players):  # not seated yet: it sees what spectators see
            if kept.members is None:
                kept.members = {"you": seat}
            return kept.members
        shared = players[seat]
        reserved = state.players[seat].reserved
        if kept.entry is not shared or kept.reserved != reserved:
            kept.own = self._make_own(state, seat, shared)
            kept.entry = shared
            kept.reserved = list(reserved)
            kept.members = None
        own = kept.own
        mover = state.status == "live" and seat == state.seat
        leave = self._leave(state, seat) if self._leave is not None else []
        members = kept.members
        if (
            members is not None
            and not mover
            and not leave
            and "legal" not in members
            and (own is shared or kept.players is players)
        ):
            return members
        members = {"you": seat}
        if own is not shared:
            if kept.players is not players or kept.mine[seat] is not own:
                kept.mine = list(players)
                kept.mine[seat] = own
                kept.players = players
            members["players"] = kept.mine
        if mover:
            actions = self._legal_actions(state, seat)
            members["legal"] = self.legal(actions + leave if leave else actions)
        elif leave:
            members["legal"] = self.legal(leave)
        last = kept.last
        if (
            last is not None
            and len(last) == len(members)
            and last.get("players") is members.get("players")
            and last.get("legal") is members.get("legal")
        ):
            members = last  # nothing changed (``you`` never does): the same dict says so
        kept.last = members
        kept.members = None if mover or leave else members
        return members

    def legal(self, actions: list[Any]) -> Encoded:
        """``actions`` encoded: the same object as last time when they are the same."""
        if actions != self._actions:
            self._legal = Encoded(_encode(actions))
            self._actions = actions
        return self._legal


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode
