"""Quick pairing's scripts on a real Redis Cluster: each pool's keys share one slot, so enqueue, touch, claim, tell and cancel run there."""

from __future__ import annotations

from redis.asyncio.cluster import RedisCluster

from server.players.pairing_pools import LEFT, Paired, PairingStore, Waiting, entry_id, new_ticket
from server.players.pairing_rules import POOLS, pair_off
from server.store.keys import paired_key, pool_keys, pool_lock_key
from tests.cluster_helpers import key_slot

NOW = 1_900_000_000_000


def test_each_pools_keys_share_one_slot_and_pools_spread() -> None:
    """Every key of a pool hashes to one slot (its hash tag); the twelve pools do not all share one."""
    slots = set()
    for pool in POOLS:
        keys = [*pool_keys(pool.name), pool_lock_key(pool.name), paired_key(pool.name, "e" * 32)]
        assert len({key_slot(k) for k in keys}) == 1
        slots.add(key_slot(keys[0]))
    assert len(slots) > 1


async def test_a_pool_pairs_and_cancels_on_a_cluster(cluster_client: RedisCluster) -> None:
    """On a cluster: four players in two pools, one cancels; the claim takes the one
    possible pair of each pool, the paired are told (the other of a pair is being made
    until told), the lock is taken and given back."""
    store = PairingStore(cluster_client)  # type: ignore[arg-type]
    pools = [POOLS[0], POOLS[-1]]
    tickets = {pool: [new_ticket() for _ in range(3)] for pool in pools}
    for pool in pools:
        for i, ticket in enumerate(tickets[pool]):
            waiting = Waiting.of_ticket(ticket, f"P{i}", None, 1500.0 + i, NOW)
            assert await store.enqueue(pool, waiting, NOW)
        assert await store.cancel(pool, entry_id(tickets[pool][2]))
        assert await store.lock(pool) and not await store.lock(pool)
        _, entries = await store.entries(pool)
        claimed = await store.claim(pool, NOW, pair_off(NOW, entries))
        assert [(a.name, b.name) for a, b in claimed] == [("P0", "P1")]
        for a, b in claimed:
            await store.tell(pool, a.id, Paired("g1", 0, b.name, None, False))
        ids = [entry_id(t) for t in tickets[pool]]
        outcomes = await store.touch(pool, NOW, ids)
        # P1's game is still being made (it was not told yet), P2 left.
        assert isinstance(outcomes[0], Paired) and outcomes[1:] == [True, False]
        await store.unlock(pool)
        assert await store.lock(pool)
        assert await store.size(pool) == 0


async def test_an_accounts_second_wait_takes_its_first_out_on_a_cluster(
    cluster_client: RedisCluster,
) -> None:
    """On a cluster: an account waiting in one pool, then in another, has its first entry taken out of its pool and marked left (the account's key and each pool's keys in slots of their own)."""
    store = PairingStore(cluster_client)  # type: ignore[arg-type]
    first_pool, second_pool = POOLS[1], POOLS[-1]
    first, second = new_ticket(), new_ticket()
    for pool, ticket in ((first_pool, first), (second_pool, second)):
        waiting = Waiting.of_ticket(ticket, "Ana", "Ana", 1500.0, NOW)
        assert await store.enqueue(pool, waiting, NOW)
        await store.wait_as("Ana", pool, entry_id(ticket))
    assert await store.touch(first_pool, NOW, [entry_id(first)]) == [LEFT]
    assert await store.size(first_pool) == 0
    assert await store.touch(second_pool, NOW, [entry_id(second)]) == [True]
