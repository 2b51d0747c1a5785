"""A finished game's rematch, made once whoever asks for it first (RULES.md part 3,
PROTOCOL.md "Live matches"). What a rematch is made of, and why each step is safe
to repeat, is server/games/rematch_plan.py, pure; this module does the steps.

``GameService.rematch`` runs them in order: ``claim`` names the rematch (the game's
lock held), ``ensure`` makes it unless it is made, the service gives the caller's
seat its token and joins the seats that can be joined (a token is the seat tokens'
business and joining is a command: both are the service's), and ``announce`` tells
the finished game's watchers. A
process may die between any two steps: the next call of any seat's player does the
missing ones again, and each step finds what the last one wrote.
"""

from __future__ import annotations

import contextlib
import secrets

from server.common.errors import ServiceError
from server.games.projection import Game, encode_event
from server.games.rematch_plan import PlannedSeat, encode_plan, plan_seats
from server.games.repository import GameRepository, new_game_id
from server.store.event_store import VersionConflict
from server.store.keys import rematch_signal, signals_channel

__all__ = ["Rematches"]


class Rematches:
    """The rematches of finished games, over a ``GameRepository`` and its store."""

    def __init__(self, repository: GameRepository) -> None:
        self.repository = repository
        self.store = repository.store

    async def known(self, game: Game) -> bool:
        """Whether a finished game has a rematch, made maybe by another process (the
        game's lock held: the projection learns its id)."""
        if game.rematch is None and game.status == "finished":
            found = await self.store.meta_field(game.id, "rematch")
            if found is not None:
                game.rematch = found.decode()
        return game.rematch is not None

    async def claim(self, game: Game) -> list[PlannedSeat]:
        """Name the finished game's rematch unless it has one (``game.rematch``
        holds it after), the game's lock held; its seats' plan. ``conflict`` (409)
        while the game is not finished."""
        if game.status != "finished":
            raise ServiceError("conflict", "rematch.not_over", {"game": game.id})
        if not await self.known(game):
            game.rematch = await self.store.claim_rematch(game.id, new_game_id())
        return plan_seats(game.state.players)

    async def ensure(
        self, game: Game, rematch_id: str, plan: list[PlannedSeat], at_ms: int
    ) -> None:
        """Make the rematch game unless it is made: its first event, created at
        ``at_ms``, and its meta."""
        known = self.repository.cached(rematch_id)
        if known is not None and known.rematch_of == game.id:
            return
        # The same time control (RULES.md part 3), rated if the game was; a rematch
        # is never seeded.
        created = game.variant.create(
            rematch_id, len(plan), game.state.clock.control, rated=game.state.clock.rated
        )
        # The meta first: a process that loads the rematch as soon as its log exists
        # must know whose rematch it is (its seats are the finished game's players',
        # never a stranger's). A game with meta and no log is no game yet.
        await self.store.set_meta_absent(
            rematch_id,
            {
                "variant": game.variant.name,
                "players": len(plan),
                "seed": secrets.randbits(63),
                "created_at": at_ms,
                "rematch_of": game.id,
                "seats": encode_plan(plan),
            },
        )
        with contextlib.suppress(VersionConflict):  # made already
            await self.store.append(
                rematch_id,
                [encode_event(e) for e in created],
                expected_version=0,
                command_id=None,
                at_ms=at_ms,
            )

    async def answer(self, game: Game, seat: int, answer: str) -> None:
        """Write ``seat``'s answer to the finished game's rematch (``accepted`` or
        ``declined``). An answer is final: a seat that gave the other answer
        before is refused (409 ``conflict``, ``rematch.declined`` when it declined
        and now accepts, ``rematch.accepted`` the other way)."""
        kept = await self.store.answer_rematch(game.id, seat, answer)
        if kept != answer:
            raise ServiceError("conflict", f"rematch.{kept}", {"game": game.id})

    async def answers(self, game_id: str) -> dict[int, str]:
        """Each seat's answer to the game's rematch, for the seats that answered."""
        return await self.store.rematch_answers(game_id)

    async def announce(self, game_id: str, rematch_id: str) -> None:
        """Tell the finished game's watchers on every process its rematch, and that
        its answers changed (each hub reads them again). Sent on every call, since a
        process may have died before sending it: a hub tells its sockets only what
        is new to it."""
        await self.store.publish(signals_channel(game_id), rematch_signal(rematch_id))
