"""Durability through a failover: ``SPLENDOR_DURABILITY=replica``.

Redis replicates asynchronously: a primary answers a write before any replica has
it, and a primary that dies then takes the write with it when its replica is
promoted. With the setting on, a write that matters waits for a replica:

- **an append** (a move, a join, a game created, a clock's expiry) is followed, on
  the same connection, by ``WAIT <replicas> <timeout>``: the command is answered and
  the move shown only once a replica has it. ``WAIT`` counts the replicas that have
  everything the connection wrote, and since the replication stream is one ordered
  log per primary, everything written before it by anyone too. The append script
  rewrites a command id's record when it meets a duplicate, so that a retried
  command's ``WAIT`` covers the first attempt's write, whoever made it;
- **what is shown** (the events the tailer reads, a game a new socket loads) is
  confirmed the same way after it is read: a script that writes nothing lasting (a
  probe key set and deleted, in the game's slot so that it goes to the node that
  holds the game) and ``WAIT``. Read before the probe, it is on a replica once the
  ``WAIT`` counts one.

A ``WAIT`` that counts fewer replicas than asked within the timeout raises
``NotDurable``, a ``StoreUnavailable`` (server/store/availability.py) and a redis
``TimeoutError``: the edges answer it as they answer a lost connection
(``unavailable``, the client sends the command again with its ``command_id``, which
the store applies once), and the tailer holds the events back and reads them again
later. A move is never lost by a failover once answered, and
never shown before it would survive one.

``WAIT`` blocks its connection: the appends that wait go over a few connections of
their own (``LANES``), so that a replica's slowness holds one command, not every
command of the process behind it; on one of them, the appends written in the same
turn of the event loop share one ``WAIT`` (``server.store.direct_path``: a group commit).

**A shard with no replica.** Whether the primary holding a game has a replica is
asked of that primary (``INFO replication``: the replicas that are online and have
acknowledged within ``REPLICA_LAG_S``) the first time an append or a read goes
there, and remembered (``Replicas``): while ``WAIT`` counts a replica nothing is
asked again, so the usual append costs a dictionary look-up more; a ``WAIT`` that
counts too few asks again at once (a replica gone, or only slow?), and a primary
known to have none is asked again every ``RECHECK_S``. With none:

- ``SPLENDOR_DURABILITY=replica`` (``strict``) refuses the appends without
  writing them (``NoReplica``: ``unavailable``, reason ``store.no_replica``);
- ``SPLENDOR_DURABILITY=replica-if-any`` writes them as without durability, counts
  them (``Replicas.unreplicated``, the metric ``splendor_unreplicated_writes_total``)
  and says so in the log, at most once a minute a primary;
- in both, what is read there is shown without a ``WAIT``: no failover can take it
  back (there is no replica to promote), and everything on the primary was on it
  before its last replica went, so confirmed, but for the appends made in the
  moment it went (answered ``unavailable`` in strict mode, and applied once when
  sent again).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from redis.exceptions import RedisError

from server.common.settings import Settings
from server.store.availability import StoreTimedOut, StoreUnavailable, translated
from server.store.public_path import Script

__all__ = [
    "LANES",
    "PROBE_LUA",
    "REPLICA_LAG_S",
    "Durability",
    "NoReplica",
    "NotDurable",
    "Replicas",
    "good_replicas",
]

log = logging.getLogger(__name__)

LANES: Final = 4
"""Connections the waiting appends of one process share (see the module's doc)."""

REPLICA_LAG_S: Final = 10
"""A replica counts while it acknowledged the replication stream this many seconds ago
or less: Redis's own measure of a good replica (``min-replicas-max-lag``'s default).
One whose machine died unseen stops counting after it, not at its TCP timeout."""

RECHECK_S: Final = 1.0
"""How long a primary known to have no replica is believed before it is asked again."""

WARN_EVERY_S: Final = 60.0
"""The least time between two warnings of appends written without a replica, a primary."""

# Writes (so that the connection's replication offset is the primary's now) and
# leaves nothing: a WAIT after it covers whatever was read before it.
PROBE_LUA: Final = Script("""
redis.call('SET', KEYS[1], '1')
redis.call('DEL', KEYS[1])
return 1
""")


class NotDurable(StoreTimedOut):
    """No replica acknowledged a write in time: the store is unavailable for it, as
    with a lost connection."""


class NoReplica(StoreUnavailable):
    """Strict durability, and the primary holding the game has no replica: its appends
    are refused (as unavailable, with a reason of their own) until one is back."""

    reason: ClassVar[str] = "store.no_replica"


def good_replicas(info: Mapping[str, Any] | bytes | str) -> int:
    """The replicas counted in ``INFO replication`` (its text, or redis-py's dict of
    it): those online that acknowledged within ``REPLICA_LAG_S``."""
    if isinstance(info, bytes | str):
        text = info.decode() if isinstance(info, bytes) else info
        entries: dict[str, Any] = {}
        for line in text.splitlines():
            name, _, value = line.partition(":")
            if name.startswith("slave") and name[5:].isdigit():
                entries[name] = dict(part.partition("=")[::2] for part in value.split(","))
        info = entries
    count = 0
    for name, value in info.items():
        if not (str(name).startswith("slave") and str(name)[5:].isdigit()):
            continue
        if not isinstance(value, Mapping) or str(value.get("state")) != "online":
            continue
        try:
            lag = int(value.get("lag", 0))
        except (TypeError, ValueError):
            continue
        if lag <= REPLICA_LAG_S:
            count += 1
    return count


@dataclass
class _Primary:
    """What is known of one primary's replicas."""

    replicas: int
    seen_at: float  # the clock's time when asked
    unreplicated: int = 0  # appends written there without a replica
    unwarned: int = 0  # of which since the last warning
    warned_at: float = -math.inf


class Replicas:
    """What this process knows of each primary's replicas (by node name, "" for one
    Redis), the questions it asks shared by the callers at once, and the appends
    written without a replica (``replica-if-any``)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock  # seconds, for the recheck and the warnings' spacing
        self._primaries: dict[str, _Primary] = {}
        self._asking: dict[str, asyncio.Future[int]] = {}

    def known(self, node: str) -> int | None:
        """The replicas ``node`` has, if known well enough not to ask: a count above
        0 until a ``WAIT`` counts too few, 0 for ``RECHECK_S``."""
        primary = self._primaries.get(node)
        if primary is None:
            return None
        if primary.replicas == 0 and self._clock() - primary.seen_at > RECHECK_S:
            return None
        return primary.replicas

    async def ask(self, node: str, asking: Callable[[], Awaitable[int]]) -> int:
        """The replicas ``node`` has now, by ``asking()`` it (one question at a time
        a node, whose answer every caller meanwhile gets)."""
        pending = self._asking.get(node)
        if pending is None:
            pending = asyncio.ensure_future(asking())
            self._asking[node] = pending
            pending.add_done_callback(lambda done: self._answered(node, done))
        return await asyncio.shield(pending)

    def _answered(self, node: str, done: asyncio.Future[int]) -> None:
        if self._asking.get(node) is done:
            del self._asking[node]
        if done.cancelled() or done.exception() is not None:
            return
        count = done.result()
        primary = self._primaries.get(node)
        before = None if primary is None else primary.replicas
        if primary is None:
            primary = self._primaries[node] = _Primary(count, self._clock())
        primary.replicas, primary.seen_at = count, self._clock()
        if count == 0 and before != 0:
            log.warning("durability: %s has no replica", node or "Redis")
        elif count > 0 and before == 0:
            log.warning("durability: %s has a replica again", node or "Redis")

    def written_without(self, node: str) -> None:
        """Count an append written on ``node`` with no replica to wait for, and warn
        (once every ``WARN_EVERY_S`` a node)."""
        primary = self._primaries.setdefault(node, _Primary(0, self._clock()))
        primary.unreplicated += 1
        primary.unwarned += 1
        now = self._clock()
        if now - primary.warned_at >= WARN_EVERY_S:
            log.warning(
                "durability: %s has no replica: %d append(s) written without one since the"
                " last warning (SPLENDOR_DURABILITY=replica-if-any; lost if it dies before"
                " a replica has copied them)",
                node or "Redis",
                primary.unwarned,
            )
            primary.warned_at, primary.unwarned = now, 0

    @property
    def unreplicated(self) -> dict[str, int]:
        """Appends written without a replica since the start, by node."""
        return {n: p.unreplicated for n, p in self._primaries.items() if p.unreplicated}


@dataclass(frozen=True)
class Durability:
    """How many replicas must have a write, how long to wait for them, and what to do
    on a primary that has none: refuse (``strict``) or write without waiting."""

    replicas: int = 1
    timeout_ms: int = 1000
    strict: bool = True
    seen: Replicas = field(default_factory=Replicas, compare=False, repr=False)
    _waits: dict[int, tuple[bytes, ...]] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.replicas < 1:
            raise ValueError("replicas must be 1 or more")
        if self.timeout_ms < 1:
            raise ValueError("timeout_ms must be 1 or more (0 would wait for ever)")
        waits = {
            n: (b"WAIT", b"%d" % n, b"%d" % self.timeout_ms) for n in range(1, self.replicas + 1)
        }
        object.__setattr__(self, "_waits", waits)  # frozen: set once, here

    @classmethod
    def of(cls, settings: Settings, cluster: bool = False) -> Durability | None:
        """The settings' durability, None when off. Unset, it is ``replica-if-any`` on
        a Redis Cluster (``cluster``) and off on one Redis."""
        mode = settings.durability
        if mode is None:
            mode = "replica-if-any" if cluster else "off"
            where = "a Redis Cluster" if cluster else "one Redis"
            log.info("durability: %s (SPLENDOR_DURABILITY unset, on %s)", mode, where)
        if mode == "off":
            return None
        return cls(replicas=1, timeout_ms=settings.durability_timeout_ms, strict=mode == "replica")

    @property
    def mode(self) -> str:
        """The setting's name for it."""
        return "replica" if self.strict else "replica-if-any"

    @property
    def wait(self) -> Sequence[bytes]:
        """The ``WAIT`` command's arguments."""
        return self.wait_for(self.replicas)

    def wait_for(self, present: int) -> Sequence[bytes]:
        """``WAIT``'s arguments on a primary with ``present`` replicas (at least 1):
        for ``replicas`` of them, or all it has when ``replicas-if-any`` and fewer."""
        return self._waits[min(max(present, 1), self.replicas)]

    def needed(self, present: int) -> int:
        """The replicas a write must reach on a primary with ``present`` of them."""
        return self.replicas if self.strict else min(present, self.replicas)

    def check(self, acknowledged: Any, needed: int | None = None) -> None:
        """Raise ``NotDurable`` unless ``WAIT``'s answer counts enough replicas."""
        if isinstance(acknowledged, RedisError):
            raise translated(acknowledged)  # WAIT's own error reply
        if isinstance(acknowledged, Exception):
            raise acknowledged
        needed = self.replicas if needed is None else needed
        if int(acknowledged) < needed:
            raise NotDurable(
                f"{int(acknowledged)} of {needed} replica(s) acknowledged the write"
                f" within {self.timeout_ms} ms"
            )

    def no_replica(self, node: str) -> NoReplica:
        """The refusal of an append on ``node`` (strict, too few replicas there)."""
        return NoReplica(f"no replica for this game's shard ({node or 'Redis'})")
