"""The Redis Cluster the cluster tests share (tests/cluster_helpers.py): what it is,
and its failover helpers."""

from __future__ import annotations

from tests.cluster_helpers import LocalCluster, ids_on_every_primary, key_slot


def test_cluster_has_three_primaries_each_with_a_replica(redis_cluster: LocalCluster) -> None:
    """The fixture's cluster is ok with three primaries serving every slot, one replica each."""
    ranges = redis_cluster.slot_ranges()
    assert sum(last - first + 1 for first, last, _, _ in ranges) == 16384
    assert len(redis_cluster.primaries()) == 3
    assert all(len(replicas) == 1 for _, _, _, replicas in ranges)
    assert redis_cluster.nodes[0].info()["cluster_state"] == "ok"


def test_ids_on_every_primary_span_the_three_primaries(redis_cluster: LocalCluster) -> None:
    """ids_on_every_primary picks game ids whose keys land on each primary in turn."""
    ids = ids_on_every_primary(redis_cluster, "span", per_primary=2)
    ports = [redis_cluster.primary_of(f"game:{{{g}}}:events").port for g in ids]
    assert len(set(ports)) == 3
    assert key_slot(f"game:{{{ids[0]}}}:meta") == key_slot(f"game:{{{ids[0]}}}:events")
