"""What the ratings tests share: every key of the ratings read model and its value,
and games played far enough to count (every human seat completes two turns)."""

from __future__ import annotations

import itertools
import json
from typing import Any, Final

import httpx
import redis.asyncio as aioredis

from events.base import LEAVE_KINDS, Resign, TimeControl
from events.rated import TURNS_TO_COUNT, completed_turns, human_seats
from server.common.wire import decode_action
from server.games.service import GameService

CLOCK: Final = TimeControl(initial=300, increment=3)
TAKES: Final = ("take_three", "take_two", "take_tokens")
_moves = itertools.count()
_commands = itertools.count()


async def ratings_state(client: aioredis.Redis) -> dict[bytes, object]:
    """Every ``{ratings:*`` key and its whole value (hashes, sorted sets with scores,
    sets, lists)."""
    found: dict[bytes, object] = {}
    async for key in client.scan_iter(match=b"{ratings:*"):
        kind = await client.type(key)
        if kind == b"hash":
            found[key] = await client.hgetall(key)
        elif kind == b"zset":
            found[key] = await client.zrange(key, 0, -1, withscores=True)
        elif kind == b"set":
            found[key] = await client.smembers(key)
        else:
            found[key] = await client.lrange(key, 0, -1)
    return found


def opening_move(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A move that ends no game and needs no choice later: a take of tokens if there is
    one, else the first legal action that is not a leave (resign, abort, claim)."""
    takes = [a for a in legal if a["kind"] in TAKES]
    return takes[0] if takes else next(a for a in legal if a["kind"] not in LEAVE_KINDS)


async def play_turns(
    service: GameService,
    game_id: str,
    turns: int = TURNS_TO_COUNT,
    seats: list[int] | None = None,
) -> dict[int, int]:
    """Play opening moves, for every seat whose move it is (bots' too, as the bot
    runner would), until every one of ``seats`` (default: the human seats) has
    completed ``turns`` turns; returns each seat's completed turns."""
    variant = (await service.reader.summary(game_id))["variant"]
    while True:
        log = [logged.event for logged in await service.reader.log(game_id)]
        done = completed_turns(log)
        wanted = human_seats(log) if seats is None else seats
        if all(done.get(seat, 0) >= turns for seat in wanted):
            return done
        seat = (await service.reader.view(game_id, None))["turn"]["seat"]
        move = opening_move((await service.reader.view(game_id, seat))["legal"])
        action = decode_action(variant, json.dumps(move).encode())
        await service.submit(game_id, seat, f"open-{next(_moves)}", action)


async def play_turns_http(
    http: httpx.AsyncClient, game_id: str, tokens: list[str], turns: int = TURNS_TO_COUNT
) -> None:
    """Over HTTP, with each seat's token (seats of people only): play opening moves
    until every seat has completed ``turns`` turns (a take never gives an extra turn,
    so that is ``turns`` rounds of turns)."""
    while True:
        r = await http.get(f"/api/games/{game_id}/view")
        assert r.status_code == 200, r.text
        public = r.json()["view"]
        if public["turn"]["number"] > turns * len(tokens):  # numbered from 1
            return
        seat = public["turn"]["seat"]
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        r = await http.get(f"/api/games/{game_id}/view", headers=headers)
        move = opening_move(r.json()["view"]["legal"])
        body = {"command_id": f"open-{next(_moves)}", "action": move}
        r = await http.post(f"/api/games/{game_id}/commands", json=body, headers=headers)
        assert r.status_code == 200, r.text


async def new_game(
    service: GameService, variant: str, seats: list[str], *, rated: bool = True
) -> str:
    """A game whose seats are accounts (names) or bots (``bot:<level>``), started."""
    game_id: str = (await service.create_game(variant, len(seats), None, CLOCK, rated=rated))["id"]
    for who in seats:
        if who.startswith("bot:"):
            await service.join(game_id, who, bot=who.removeprefix("bot:"))
        else:
            await service.join(game_id, who, account=who)
    return game_id


async def act(service: GameService, game_id: str, seat: int, action: object) -> None:
    await service.submit(game_id, seat, f"c{next(_commands)}", action)


async def counted_game(service: GameService, variant: str, seats: list[str]) -> str:
    """A rated game played until every seat has completed two turns, then every seat
    but the first resigns, the last first (the first wins)."""
    game_id = await new_game(service, variant, seats)
    await play_turns(service, game_id)
    for seat in range(len(seats) - 1, 0, -1):
        await act(service, game_id, seat, Resign())
    assert (await service.reader.summary(game_id))["result"]["winners"] == [0]
    return game_id
