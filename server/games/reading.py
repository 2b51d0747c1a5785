"""Reading games: views, logs, events, summaries and records, each from the game's
projection in the repository, caught up with what any process appended first.

What is read of a game is shown only once it would survive a failover
(``EventStore.durable``): with durability on, a reply waits for a replica to hold
what was read. Nothing here writes, except what the projection learns on the way (its
rematch's id, made maybe by another process).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from events.base import ClaimAbandon
from events.clock import clock_view
from events.game import Variant
from events.leaving import Facts, leave_actions
from events.views import reveal_reserves
from server.common.errors import ServiceError, bad_request, not_found
from server.common.wire import event_to_wire
from server.games.projection import Game, LoggedEvent
from server.games.public_records import record_of, summary_of
from server.games.rematches import Rematches
from server.games.repository import GameRepository

__all__ = ["FactsOf", "GameReader", "with_facts"]

FactsOf = Callable[[Game, int], Awaitable[Facts]]
"""``facts_of(game, now_ms)``: the facts of ``now_ms`` for the rules, who is away
included (``ServiceHooks.facts``)."""


class GameReader:
    """The reading side of the games: views, logs, events, summaries and records."""

    def __init__(
        self,
        repository: GameRepository,
        rematches: Rematches,
        *,
        clock_ms: Callable[[], int],
        facts_of: FactsOf,
    ) -> None:
        self.repository = repository
        self.store = repository.store
        self.rematches = rematches
        self._clock_ms = clock_ms
        self._facts_of = facts_of

    async def finished_game(self, game_id: str) -> tuple[Game, dict[str, Any]] | None:
        """A finished game's projection and summary (``splendor ratings rebuild``), not
        kept in the cache unless it was there; None for a game not finished. Raises
        ``not_found``."""
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock, keep_over=False)
            return (game, summary_of(game)) if game.status == "finished" else None

    async def variant_of(self, game_id: str) -> Variant:
        """The rules a game is played with."""
        lock = self.repository.lock(game_id)
        async with lock:
            return (await self.repository.get(game_id, lock, fresh=False)).variant

    async def rated(self, game_id: str) -> bool:
        """Whether a game is rated (``not_found`` for no game)."""
        lock = self.repository.lock(game_id)
        async with lock:
            return bool((await self.repository.get(game_id, lock, fresh=False)).state.clock.rated)

    async def view(
        self, game_id: str, viewer: int | None, version: int | None = None
    ) -> dict[str, Any]:
        """``viewer``'s view (a seat, or None for a spectator) now or at ``version``.

        Once the game is finished it is public (PROTOCOL.md): its past views show
        every reserved card to everyone, as its events do.
        Raises ``bad_request`` for a version below 1 and ``not_found`` past the end.
        """
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            if version is None or version == game.version:
                view = game.variant.view(game.state, viewer)
                if await self.rematches.known(game):
                    view["rematch"] = game.rematch
                facts = await self._facts_of(game, self._clock_ms())
                view = with_facts(game, view, viewer, facts)
                state = None
            else:
                _check_version(version, game.version)
                state = game.state_at(version)
                finished = game.status == "finished"
        await self.store.durable((game_id,))
        if state is None:
            return view
        view = game.variant.view(state, viewer)
        if finished:
            reveal_reserves(game.variant, state, view)
        return view

    async def log(self, game_id: str, after: int = 0) -> list[LoggedEvent]:
        """The decoded events after version ``after``, unredacted: for server code only."""
        if after < 0:
            raise bad_request("request.after")
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            logged = game.log[after:]
        await self.store.durable((game_id,))
        return logged

    async def events(
        self, game_id: str, viewer: int | None, after: int = 0
    ) -> list[dict[str, Any]]:
        """The events after ``after`` in PROTOCOL.md's wire shape, as ``viewer`` may
        see them (``Variant.redact``: all of them once the game is finished)."""
        if after < 0:
            raise bad_request("request.after")
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            finished = game.status == "finished"
            redact = game.variant.redact
            events = [
                event_to_wire(
                    redact(e.event, viewer, finished), e.version, e.at_ms, game.variant.name
                )
                for e in game.log[after:]
            ]
        await self.store.durable((game_id,))
        return events

    async def summary(self, game_id: str) -> dict[str, Any]:
        """``GET /api/games/{id}``: id, variant, players, status, seats, version, result."""
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            await self.rematches.known(game)
            return summary_of(game)

    async def record(self, game_id: str) -> dict[str, Any]:
        """The public record of a finished game (``server.games.public_records``,
        docs/export.md).

        Raises ``not_found``, and ``conflict`` (409) for a game not finished: an
        aborted game has no result and is never exported."""
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock)
            if game.status != "finished":
                raise ServiceError(
                    "conflict", "export.not_finished", {"game": game_id, "status": game.status}
                )
            await self.rematches.known(game)
            return record_of(game, summary_of(game))


def with_facts(
    game: Game, view: dict[str, Any], viewer: int | None, facts: Facts
) -> dict[str, Any]:
    """``view`` (the game's now) as of ``facts``: its clock read at ``facts.now_ms``
    rather than at the turn's start, and ``claim_abandon`` in ``legal`` when the facts
    allow it (kept views, built from the events alone, never list it)."""
    state = game.state
    if state.clock.control is not None:
        view["clock"] = clock_view(state.clock, facts.now_ms)
    if viewer is not None and any(
        type(a) is ClaimAbandon for a in leave_actions(state, viewer, facts)
    ):
        view["legal"] = [*view["legal"], {"kind": "claim_abandon"}]
    return view


def _check_version(version: int, current: int) -> None:
    if version < 1:
        raise bad_request("request.version")
    if version > current:
        raise not_found("game.version_ahead", version=version, current=current)
