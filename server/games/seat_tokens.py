"""Seat tokens that can be replaced: the seats an account holds, a seat's token given
anew, and every token of an account's seats revoked when its sessions end
(docs/accounts.md, "Seats of an account").

- **A seat's token** is kept as its SHA-256 in the game's seats hash
  (``game:{<id>}:seats``, seat number -> digest). Replacing it is one script in the
  game's slot (``SeatTokens.replace``): only while the hash is there (an archived
  game's seats are final) and only for a seat that has a token; the game's hubs on
  every process are told (the signal ``k<seat>``, server/live/game_signals.py) so that sockets
  opened with the old token are closed. The command path checks the digest in its
  append script, so no command of a replaced token is appended, whichever process
  it reaches (server/store/event_store.py).
- **The seats of an account** are a hash, ``{accounts}:<id>:seats``: game id -> seat
  number (an account takes one seat of a game), in the accounts' hash tag like its
  other keys. A seat is listed when an account takes it (with a session, through
  quick pairing, or as the rematch of such a seat) and unlisted when its game is
  archived (every game over is, ``SPLENDOR_ARCHIVE_AFTER`` after its end): the list
  holds the account's open, live and recently ended games.
- **Revoking** (``revoke_account``: "log out everywhere", an account deleted) gives
  every listed seat a digest nobody holds a token of. It runs after the sessions
  end, and reads the list again after its writes until nothing new is listed;
  whoever lists a seat does it before checking the authority it acted on (the
  session still live, the finished game's token still its seat's), and withdraws
  the token it wrote if that check fails. So a seat taken or given anew while the
  account logs out everywhere is either revoked here or withdrawn by its taker.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Final, cast

from server.games.projection import token_digest
from server.store.clients import RedisClient
from server.store.keys import account_seats_key, seat_signal, seats_key, signals_channel

__all__ = ["SeatTokens", "new_token", "revoked_digest"]

REVOKE_PASSES: Final = 8
"""Reads of an account's seats by one revocation at most: each reads again what was
listed during the last one's writes (a seat taken meanwhile), which a live account
does rarely; a bound so that a client listing seats without end can't hold it."""

# KEYS[1] a game's seats hash. ARGV: seat, new digest, the digest it replaces ('': any),
# the game's signals channel, the message. Returns 1 when the digest is replaced (and
# published), 0 when the seat has another digest than ARGV[3], and -1 when the seat has
# no token (no such seat, or the game's seats are gone, archived or never there).
_REPLACE_LUA: Final = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then return -1 end
if ARGV[3] ~= '' and held ~= ARGV[3] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
"""


def new_token() -> tuple[str, str]:
    """A new seat token and its digest."""
    token = secrets.token_urlsafe(32)
    return token, token_digest(token)


def revoked_digest() -> str:
    """A digest no token is known of: what a revoked seat keeps (the same shape as a
    token's, so a seat with it counts as taken wherever that matters)."""
    return secrets.token_hex(32)


class SeatTokens:
    """The seats of accounts and the replacing of seat tokens, over one Redis client."""

    def __init__(self, client: RedisClient) -> None:
        self._r = client
        self._replace = client.register_script(_REPLACE_LUA)

    async def replace(self, game_id: str, seat: int, digest: str, only: str | None = None) -> int:
        """Give ``seat`` of ``game_id`` the token of ``digest`` (if its digest is
        ``only``, when given): 1 done, 0 another digest is there, -1 no token to
        replace (see ``_REPLACE_LUA``)."""
        keys = [seats_key(game_id)]
        args: list[int | str | bytes] = [
            seat,
            digest,
            only or "",
            signals_channel(game_id),
            seat_signal(seat),
        ]
        return int(await self._replace(keys=keys, args=args))

    async def withdraw(self, game_id: str, seat: int, digest: str) -> None:
        """Revoke the token of ``digest`` if it is still ``seat``'s (a token written
        on an authority that ended meanwhile)."""
        await self.replace(game_id, seat, revoked_digest(), only=digest)

    async def record(self, username: str, game_id: str, seat: int) -> None:
        """List ``seat`` of ``game_id`` as the account's."""
        await self._r.hset(account_seats_key(username), game_id, seat)

    async def listed_seat(self, username: str, game_id: str) -> int | None:
        """The account's listed seat of ``game_id``, if it has one."""
        raw = await self._r.hget(account_seats_key(username), game_id)
        return None if raw is None else int(raw)

    async def forget(self, usernames: Iterable[str], game_id: str) -> None:
        """Unlist ``game_id`` from these accounts' seats (its seats are final)."""
        for username in usernames:
            await self._r.hdel(account_seats_key(username), game_id)

    async def revoke_account(self, username: str) -> int:
        """Revoke the token of every seat the account holds (after its sessions
        ended): how many were revoked.

        Pass after pass, each reading the list again: a seat with no token yet (a
        rematch's, listed just before its token is written) is tried once more in the
        next pass, after this pass revoked the finished game's token it comes from;
        whoever wrote it then either wrote before that (and is revoked here) or finds
        its authority gone and withdraws it (``Seats.rematch_seat``)."""
        key = account_seats_key(username)
        # Per seat: -1 revoked, else how many passes found it without a token.
        tries: dict[tuple[str, int], int] = {}
        revoked = 0
        for _ in range(REVOKE_PASSES):
            listed = cast(dict[bytes, bytes], await self._r.hgetall(key))
            todo = [(g.decode(), int(s)) for g, s in listed.items()]
            todo = [entry for entry in todo if tries.get(entry, 0) in (0, 1)]
            if not todo:
                break
            for entry in todo:  # One by one, since the games are spread over slots.
                replaced = await self.replace(*entry, revoked_digest())
                revoked += max(0, replaced)
                tries[entry] = tries.get(entry, 0) + 1 if replaced < 0 else -1
        return revoked
