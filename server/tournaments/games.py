"""A tournament's games: each pair's game made as an ordinary rated game between the
two accounts, once whichever processes try (its id is derived from the pairing,
``record.game_id_of``, so a second creation finds the first's game), and what a
game over gives the tournament.

A game aborted before it was played (its first turn's window let pass, or aborted by
a seat in its first turn) is a forfeit: a loss for the seat that let it lapse or
aborted (the ``seat`` of ``GameAborted``), a win for the other, and the one who
lapsed is paused, as one who is not there (they come back by joining again). An
abort that names no seat (an open game expired: its seats were never both taken,
which only a failure of every process for 30 minutes causes) is a shared victory.
"""

from __future__ import annotations

from typing import NamedTuple

from events.base import GameAborted
from server.common.errors import ServiceError
from server.games.service import GameService
from server.tournaments.record import GameEntry, TournamentRecord

__all__ = ["GameOutcome", "TournamentGames"]


class GameOutcome(NamedTuple):
    """A tournament game over: its winner (None: shared) and who forfeited it, if anyone."""

    winner: str | None
    forfeited_by: str | None = None


class TournamentGames:
    """Tournament games through the game service."""

    def __init__(self, games: GameService) -> None:
        self.games = games

    async def ensure(self, record: TournamentRecord, entry: GameEntry) -> None:
        """The entry's game exists, its first seat ``first``'s, its second ``second``'s."""
        t = record.tournament
        await self.games.create_game(t.variant, 2, None, t.clock, True, game_id=entry.game_id)
        await self.games.seat_accounts(entry.game_id, [entry.first, entry.second])

    async def outcome(self, entry: GameEntry) -> GameOutcome | None:
        """What the entry's game gave, or None while it is not over (or not made yet)."""
        repository = self.games.repository
        lock = repository.lock(entry.game_id)
        try:
            async with lock:
                game = await repository.get(entry.game_id, lock)
        except ServiceError:
            return None
        names = {p.seat: p.account or p.name for p in game.state.players}
        by_seat = {0: entry.first, 1: entry.second}

        def name_of(seat: int) -> str:
            account = names.get(seat, "")
            for name in (entry.first, entry.second):
                if name.lower() == account.lower():
                    return name
            return by_seat[seat]

        if game.status == "finished":
            result = game.state.result
            winners = list(result.winners) if result is not None else []
            return GameOutcome(name_of(winners[0]) if len(winners) == 1 else None)
        if game.status == "aborted":
            last = game.log[-1].event
            seat = last.seat if isinstance(last, GameAborted) else None
            if seat is None or seat not in by_seat:
                return GameOutcome(None)
            return GameOutcome(name_of(1 - seat), forfeited_by=name_of(seat))
        return None
