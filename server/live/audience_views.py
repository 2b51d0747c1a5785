"""Each audience's view of one game, and each new event's JSON Patch for each.

An *audience* is a seat, or every spectator together (``None``). A hub keeps one
``AudienceViews`` per game: after each event it asks for every audience's patch, as
encoded JSON, ready to go into that audience's ``diff`` message.

The work is shared between audiences. The game's ``Views`` (``events.views``) keeps
the spectator's view up to date member by member (rebuilding only what the event may
have changed; a member left unchanged stays the same object), and gives each seat only
the members it sees differently (``you``, its own entry while it holds hidden cards,
``legal`` while it is to move). So the spectator's patch is made and encoded once per
event, by the identity of each member before and after; a seat whose own members did
not change gets the very same bytes, and another gets them but for its own members,
whose operations are added.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from events.game import Variant
from events.views import Encoded
from server.live.view_patch import escape, shallow_patch_at

__all__ = ["AudienceViews", "Viewer"]

Viewer = int | None  # A seat, or None for every spectator.

_encode = msgspec.json.Encoder().encode
_MISSING: Any = object()
_SCALARS = (int, str, bool, float, type(None))
# How far a member's patch looks into it. At 0, the default, a changed member is
# replaced whole, because most members are short; at 1 the patch replaces the entries
# of ``players`` (/players/2) and the rows of the boards that changed.
_DEPTH = {"players": 1, "board": 1, "pyramid": 1}
# Members whose items ``Views`` keep as the same objects while they do not change (the
# players' entries), so an item that is another object has changed.
_KEPT_ITEMS = frozenset({"players"})


class AudienceViews:
    """Each audience's current view of one game, and each new event's patch for each."""

    def __init__(self, variant: Variant, state: Any) -> None:
        """``state``: the hub's state object, which the hub changes in place with
        ``variant.evolve``, calling ``advance`` after each event (before anything
        else asks for a view)."""
        self._state = state
        self._views = variant.new_views()
        # The spectator view at this version, or None when it is to be built whole.
        self._spectator: dict[str, Any] | None = None
        # Audience -> the members of its view that are not the spectator's ({} for
        # the spectators themselves).
        self._members: dict[Viewer, dict[str, Any]] = {}
        self._whole: dict[Viewer, dict[str, Any]] = {}  # Views asked for at this version.

    def view(self, viewer: Viewer) -> dict[str, Any]:
        """The audience's current view (the audience is added if it is new). Never to
        be changed by the caller: its members are shared with other views."""
        whole = self._whole.get(viewer)
        if whole is not None:
            return whole
        spectator = self._spectator
        if spectator is None:
            spectator = self._spectator = self._views.spectator(self._state)
        members = self._members.get(viewer)
        if members is None:
            members = self._members[viewer] = self._own(viewer, spectator)
        whole = spectator | members if members else spectator
        legal = whole["legal"]
        if type(legal) is Encoded:
            whole["legal"] = legal.value()  # ``whole`` is a dict of its own here.
        self._whole[viewer] = whole
        return whole

    def drop(self, viewer: Viewer) -> None:
        """Forget an audience (its last socket left): no more patches for it."""
        self._members.pop(viewer, None)
        self._whole.pop(viewer, None)

    def advance(self, event: Any) -> dict[Viewer, bytes]:
        """For each audience, the encoded RFC 6902 patch (a JSON array) turning its
        previous view into its view of the state now, ``event`` having just been
        applied to it."""
        self._whole = {}
        was = self._spectator
        if not self._members or was is None:
            self._spectator = None  # The next view is built whole.
            return {}
        now = self._spectator = self._views.spectator(self._state, event)
        # Member -> its encoded operations, by the identity of the member before and
        # after. Every view of both versions is alive until the end of this call, so
        # no id is reused meanwhile.
        made: dict[tuple[str, int, int], bytes] = {}
        changes = _changes(was, now, self._views.changed or now.keys(), made)
        shared = b",".join(changes.values())
        everything = b"[" + shared + b"]"
        patches: dict[Viewer, bytes] = {}
        members = self._members
        state = self._state
        seat_members = self._views.seat
        for viewer, old in members.items():
            if viewer is None:
                patches[viewer] = everything
                continue
            new = members[viewer] = seat_members(state, viewer, now)
            if new is old:
                # Usually a seat's own members did not change, and then its Views gives
                # the same dict again (and none of the spectator's it overrides changed).
                patches[viewer] = everything
                continue
            own: list[bytes] = []
            keys = new.keys() if new.keys() == old.keys() else new.keys() | old.keys()
            for key in keys:
                before = old.get(key, _MISSING)
                if before is _MISSING:
                    before = was.get(key, _MISSING)
                after = new.get(key, _MISSING)
                if after is _MISSING:
                    after = now.get(key, _MISSING)
                if before is after:
                    continue
                mark = (key, id(before), id(after))
                chunk = made.get(mark)
                if chunk is None:
                    chunk = made[mark] = _member_ops(key, before, after, made)
                if chunk:
                    own.append(chunk)
            if not changes.keys().isdisjoint(keys):
                # The spectator's operations on members the seat has of its own are
                # not the seat's.
                own += [
                    chunk for key, chunk in changes.items() if key not in new and key not in old
                ]
                patches[viewer] = b"[" + b",".join(own) + b"]"
            elif not own:
                patches[viewer] = everything
            else:
                patches[viewer] = b"[" + b",".join([shared, *own] if shared else own) + b"]"
        return patches

    def _own(self, viewer: Viewer, spectator: dict[str, Any]) -> dict[str, Any]:
        if viewer is None:
            return {}
        return self._views.seat(self._state, viewer, spectator)


def _changes(
    old: dict[str, Any],
    new: dict[str, Any],
    keys: Iterable[str],
    made: dict[tuple[str, int, int], bytes],
) -> dict[str, bytes]:
    """Member -> its encoded operations, for each member that changed from one
    spectator view to the next (among ``keys``: the others are the same objects in
    both); each one added to ``made`` too."""
    changed: dict[str, bytes] = {}
    for key in keys:
        value = new[key]
        was = old.get(key, _MISSING)
        if was is not value:
            chunk = made[key, id(was), id(value)] = _member_ops(key, was, value, made)
            if chunk:
                changed[key] = chunk
    if old.keys() != new.keys():
        for key in old.keys() - new.keys():
            changed[key] = _member_ops(key, old[key], _MISSING, made)
    return changed


def _member_ops(key: str, was: Any, value: Any, made: dict[tuple[str, int, int], bytes]) -> bytes:
    """The encoded operations (a JSON array's items, without its brackets) turning one
    member of a view into its new value ``value``, another object than ``was``; empty
    when it did not change. An ``Encoded`` member goes in as its JSON.

    A member that is a list or an object is taken to have changed: ``Views`` keep a
    member that did not change as the same object (and were it not so, a replace by
    the same value would do no harm)."""
    path, depth, start = _member(key)
    kind = type(value)
    if kind in _SCALARS:
        if type(was) is kind and was == value:
            return b""
    elif kind is Encoded:
        json: bytes = value.json
        if was is not _MISSING:
            return start + json + b"}"
        return b'{"op":"add","path":' + _encode(path) + b',"value":' + json + b"}"
    elif depth and value is not _MISSING and was is not _MISSING:
        items = _items_ops(path, was, value, made, key in _KEPT_ITEMS)
        if items is not None:
            return items
        return _encode(shallow_patch_at(path, was, value, depth))[1:-1]
    if was is _MISSING:
        return _encode([{"op": "add", "path": path, "value": value}])[1:-1]
    if value is _MISSING:
        return _encode([{"op": "remove", "path": path}])[1:-1]
    return start + _encode(value) + b"}"


def _member(key: str) -> tuple[str, int, bytes]:
    """A member's path, how deep its patch looks, and the start of its replace."""
    known = _MEMBERS.get(key)
    if known is None:
        if len(_MEMBERS) >= 4096:  # Views have few members; the cache must never grow.
            _MEMBERS.clear()
        path = "/" + escape(key)
        known = _MEMBERS[key] = (path, _DEPTH.get(key, 0), _replace_start(path))
    return known


_MEMBERS: dict[str, tuple[str, int, bytes]] = {}  # Member name -> _member(name).


def _items_ops(
    path: str, was: Any, value: Any, made: dict[tuple[str, int, int], bytes], kept: bool
) -> bytes | None:
    """The items of a list (of the same length) or the members of an object (of the
    same names) that changed, each replaced whole: its operation made once an event
    (found in ``made`` by the identity of the item before and after: the players'
    entries a seat shares with the spectators). None for other changes. With ``kept``,
    an item of the list that is another object has changed."""
    chunks: list[bytes] = []
    if type(was) is list and type(value) is list and len(was) == len(value):
        for i, new in enumerate(value):
            old = was[i]
            if old is not new and (kept or type(old) is not type(new) or old != new):
                where = f"{path}/{i}"
                mark = (where, id(old), id(new))
                chunk = made.get(mark)
                if chunk is None:
                    chunk = made[mark] = _replace(where, new)
                chunks.append(chunk)
        if len(chunks) * 2 > len(value):
            return _replace(path, value)  # Most of it changed, and one replace is shorter.
        return b",".join(chunks)
    if type(was) is dict and type(value) is dict and was.keys() == value.keys():
        for name, new in value.items():
            old = was[name]
            if old is not new and (type(old) is not type(new) or old != new):
                chunks.append(_replace(path + "/" + escape(name), new))
        return b",".join(chunks)
    return None


def _replace(path: str, value: Any) -> bytes:
    """A replace operation, encoded."""
    start = _REPLACE.get(path)
    if start is None:
        start = _replace_start(path)
    return start + _encode(value) + b"}"


def _replace_start(path: str) -> bytes:
    """A replace operation's JSON up to its value."""
    start = _REPLACE.get(path)
    if start is None:
        if len(_REPLACE) >= 4096:  # Views have few paths; the cache must never grow.
            _REPLACE.clear()
        start = _REPLACE[path] = b'{"op":"replace","path":' + _encode(path) + b',"value":'
    return start


_REPLACE: dict[str, bytes] = {}  # Path -> the start of its replace operation, encoded.
