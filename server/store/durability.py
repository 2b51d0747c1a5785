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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from redis.exceptions import RedisError

from server.common.settings import Settings
from server.store.availability import StoreTimedOut, translated
from server.store.public_path import Script

__all__ = ["LANES", "PROBE_LUA", "Durability", "NotDurable"]

LANES: Final = 4
"""Connections the waiting appends of one process share (see the module's doc)."""

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


@dataclass(frozen=True)
class Durability:
    """How many replicas must have a write, and how long to wait for them."""

    replicas: int = 1
    timeout_ms: int = 1000

    def __post_init__(self) -> None:
        if self.replicas < 1:
            raise ValueError("replicas must be 1 or more")
        if self.timeout_ms < 1:
            raise ValueError("timeout_ms must be 1 or more (0 would wait for ever)")

    @classmethod
    def of(cls, settings: Settings) -> Durability | None:
        """The settings' durability, None when off."""
        if settings.durability == "off":
            return None
        return cls(replicas=1, timeout_ms=settings.durability_timeout_ms)

    @property
    def wait(self) -> Sequence[bytes]:
        """The ``WAIT`` command's arguments."""
        return (b"WAIT", b"%d" % self.replicas, b"%d" % self.timeout_ms)

    def check(self, acknowledged: Any) -> None:
        """Raise ``NotDurable`` unless ``WAIT``'s answer counts enough replicas."""
        if isinstance(acknowledged, RedisError):
            raise translated(acknowledged)  # WAIT's own error reply
        if isinstance(acknowledged, Exception):
            raise acknowledged
        if int(acknowledged) < self.replicas:
            raise NotDurable(
                f"{int(acknowledged)} of {self.replicas} replica(s) acknowledged the write"
                f" within {self.timeout_ms} ms"
            )
