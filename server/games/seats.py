"""Who acts for each seat of a game: the token a request or a socket comes with, read
against the seats' token digests (never the tokens), the seat an account holds, and a
seat's token given anew (server/games/seat_tokens.py keeps the accounts' seats and
replaces digests in Redis).

A token replaced on one process must be refused on every other, so a token is read
against Redis, not the cached digests, unless the caller's write checks it again (a
command's append script does, ``EventStore.send_append``'s ``acting``).
"""

from __future__ import annotations

import hmac
from typing import Final

from server.common.errors import ServiceError, forbidden
from server.games.projection import Game, token_digest
from server.games.rematch_plan import PlannedSeat, new_seat, rematch_token
from server.games.repository import GameRepository
from server.games.seat_tokens import SeatTokens, new_token, revoked_digest

__all__ = ["REVOKED", "Seats"]

REVOKED: Final = "token.revoked"
"""The reason of a seat token that no longer acts for its seat (docs/reasons.md)."""
"""Why a replaced token is refused (403 ``unauthorized``)."""


class Seats:
    """The seats of the games of a ``GameRepository``, and their tokens."""

    def __init__(self, repository: GameRepository, seat_tokens: SeatTokens) -> None:
        self.repository = repository
        self.tokens = seat_tokens

    async def seat_for_token(
        self, game_id: str, token: str | None, *, verify: bool = True
    ) -> int | None:
        """The seat a token acts for; None without a token (a spectator).

        The seats are read from Redis (a token may have been replaced on another
        process since they were cached), unless ``verify`` is False: then a token the
        cache knows is trusted, for a caller whose write checks it again (a command).

        Raises ``not_found`` for an unknown game and ``unauthorized`` (403) for a token
        that is no seat's of this game.
        """
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock, fresh=False)
            if token is None:
                return None
            seat = await self.seat_locked(game, token, verify)
        if seat is None:
            raise forbidden()
        return seat

    async def seat_locked(self, game: Game, token: str, verify: bool = True) -> int | None:
        """The seat ``token`` acts for in ``game`` (its lock held), or None."""
        seat = None if verify and not game.archived else game.seat_of(token)
        if seat is None:
            # Replaced, or another server process seated this player: read the seats.
            await self.repository.seats(game)
            seat = game.seat_of(token)
        return seat

    async def holds_locked(self, game: Game, seat: int, digest: str) -> bool:
        """Whether ``digest`` is the seat's token's, as Redis has it (the lock held)."""
        await self.repository.seats(game)
        held = game.seat_digests.get(seat)
        return held is not None and hmac.compare_digest(held, digest)

    async def rematch_seat(
        self, game_id: str, seat: int, token: str, rematch_id: str, plan: list[PlannedSeat]
    ) -> tuple[int, str]:
        """The seat of the rematch ``rematch_id`` planned for ``seat`` of the finished
        game, and its token, derived from ``token`` (that seat's): its digest is written
        for the seat. Refused (403) if the finished game's token is revoked meanwhile."""
        new_token = rematch_token(token, rematch_id)
        digest = token_digest(new_token)
        seat_there = new_seat(seat, len(plan))
        account = plan[seat_there].account
        # Listed, written, then the finished game's token checked again: a token
        # revoked meanwhile (server/games/seat_tokens.py) either sees this seat
        # listed and revokes it too, or is seen here, and its rematch seat is withdrawn.
        if account is not None:
            await self.tokens.record(account, rematch_id, seat_there)
        store = self.repository.store
        # Written only where the seat has no token yet: once given, the seat's token
        # is changed by its own ways alone (a new link, "log out everywhere"), never
        # put back by whoever still holds the finished game's token.
        await store.set_seat_absent(rematch_id, seat_there, digest)
        there = await store.seat(rematch_id, seat_there)
        if there is not None and not hmac.compare_digest(there, digest):
            raise forbidden(REVOKED)
        held = await store.seat(game_id, seat)
        if held is not None and not hmac.compare_digest(held, token_digest(token)):
            await self.tokens.withdraw(rematch_id, seat_there, digest)
            raise forbidden(REVOKED)
        return seat_there, new_token

    async def account_seat(self, game_id: str, username: str) -> int | None:
        """The seat the account holds in a game: taken (its ``PlayerJoined``), or
        called in a rematch and not yet taken (listed, server/games/seat_tokens.py);
        None if it holds none. Raises ``not_found``.

        A seat taken whose token was never written (the join's process died, or Redis
        failed, between its append and the token) is given a revoked one here, so that
        the token the session asks for next can replace it: else the account would be
        locked out of its own seat for good."""
        lock = self.repository.lock(game_id)
        async with lock:
            game = await self.repository.get(game_id, lock, fresh=False)
            for player in game.state.players:
                if player.account and player.account.lower() == username.lower():
                    seat = int(player.seat)
                    if not game.archived:
                        await self.repository.store.set_seat_absent(game_id, seat, revoked_digest())
                    return seat
        return await self.tokens.listed_seat(username, game_id)

    async def issue_token(self, game_id: str, seat: int, replacing: str | None = None) -> str:
        """A new token for a seat of a game (which has one): the seat's token from now
        on, the one it replaces refused. ``replacing``: only if the seat's token is
        still the one of that digest (else 403). ``conflict`` (409) for a game whose
        seats are final (archived) or a seat without a token."""
        token, digest = new_token()
        replaced = await self.tokens.replace(game_id, seat, digest, replacing)
        if replaced == 0:
            raise forbidden(REVOKED)
        if replaced < 0:
            raise ServiceError("conflict", "seat.not_replaceable", {"seat": seat, "game": game_id})
        game = self.repository.cached(game_id)
        if game is not None and not game.archived:
            game.seat_digests[seat] = digest
        return token
