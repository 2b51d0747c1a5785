"""Seat tokens on a real Redis Cluster (server/games/seat_tokens.py): an account's list of
seats shares the accounts' slot, each game's seats hash its game's; joining lists the
seat, a command acting for a seat checks its token in the append script (the game's
slot), a token is replaced there, and an account's revocation reaches games of other
slots."""

from __future__ import annotations

import pytest
from redis.asyncio.cluster import RedisCluster

from events.base import Resign
from server.common.errors import ServiceError
from server.games.lobby import Lobby
from server.games.projection import token_digest
from server.games.service import GameService
from server.store.event_store import EventStore
from server.store.keys import account_key, account_seats_key, events_key, seats_key, sessions_key
from tests.cluster_helpers import key_slot


def test_an_accounts_seats_share_its_slot_and_a_games_seats_its_games() -> None:
    """The account's list of seats hashes to the {accounts} slot with its other keys; a game's seats hash to its events' slot."""
    assert key_slot(account_seats_key("Ana")) == key_slot(account_key("ana"))
    assert key_slot(account_seats_key("Ana")) == key_slot(sessions_key("ANA"))
    assert key_slot(seats_key("g1")) == key_slot(events_key("g1"))


async def test_revoking_an_accounts_seats_on_a_cluster(cluster_client: RedisCluster) -> None:
    """On a cluster: an account seated in games of several slots; a command with its token is appended, one of its seats gets a new token (the old one refused by the append), and the account's revocation refuses every token it held."""
    service = GameService(EventStore(cluster_client), Lobby(cluster_client))
    games, tokens = [], []
    for _ in range(6):
        game_id = (await service.create_game("duel"))["id"]
        joined = await service.join(game_id, "Ana_C", account="Ana_C")
        await service.join(game_id, "Guest")
        assert joined.token is not None
        games.append(game_id)
        tokens.append(joined.token)
    assert len({key_slot(seats_key(g)) for g in games}) > 1
    listed = await cluster_client.hgetall(account_seats_key("ana_c"))
    assert listed == {g.encode(): b"0" for g in games}
    renewed = await service.seats.issue_token(games[0], 0, replacing=token_digest(tokens[0]))
    with pytest.raises(ServiceError) as refused:
        await service.submit(games[0], 0, "c0", Resign(), digest=token_digest(tokens[0]))
    assert refused.value.code == "unauthorized" and refused.value.status == 403
    applied = await service.submit(games[1], 0, "c1", Resign(), digest=token_digest(tokens[1]))
    assert applied.version > 0
    assert await service.seat_tokens.revoke_account("Ana_C") == len(games)
    for game_id, token in [(games[0], renewed), *zip(games[1:], tokens[1:], strict=True)]:
        with pytest.raises(ServiceError) as refused:
            await service.seats.seat_for_token(game_id, token)
        assert refused.value.status == 403
