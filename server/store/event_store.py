"""The event store: one Redis stream per game, appended atomically by a Lua script.

Keys of one game share a hash tag, so they live in one cluster slot (their names:
server/store/keys.py):

- ``game:{<id>}:events``   the stream; entry id ``<version>-0``, fields ``e`` (event
  bytes, opaque here) and ``t`` (timestamp, integer ms since the epoch);
- ``game:{<id>}:commands`` hash: command id -> ``b"<version>:<reply>"``, the version
  the command ended at and the reply stored with it (for idempotent retries);
- ``game:{<id>}:meta``     hash of free-form metadata;
- ``game:{<id>}:seats``    hash: seat number -> SHA-256 of its token (written by the
  service; an append acting for a seat checks it);
- ``game:{<id>}:archive``  a finished game's whole log once archived (``archive``,
  server/store/archive_format.py): the stream and the commands hash are then gone, and every read
  here reads the archive instead, so an archived game reads as its stream did.

Version ``n`` is the 1-based position of an event in its game's log, so the version
of a game is the id of its last entry, and "after version n" starts at ``(n+1)-0``.
A stream is never trimmed nor has an entry deleted (the log is the truth, for ever),
so its length is its version too: the append checks the version with ``XLEN`` (O(1),
a fifth less of Redis's time per append than reading the last entry's id).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from typing import Any, Final

from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError
from redis.typing import EncodableT, FieldT, KeyT, StreamIdT

from server.store import archive_format as archives
from server.store.availability import StoreUnavailable, translated
from server.store.clients import RedisClient, is_cluster
from server.store.durability import LANES, PROBE_LUA, Durability, good_replicas
from server.store.event_scripts import (
    APPEND_LUA,
    ARCHIVE_LUA,
    CLAIM_REMATCH_LUA,
    LOAD_LUA,
    READ_LUA,
    RESTORE_LUA,
    SET_ABSENT_LUA,
    VERSION_LUA,
)
from server.store.fast_paths import command_lanes, command_path
from server.store.keys import (
    BOT_GAMES_KEY,
    MOST_SEATS,
    archive_key,
    commands_key,
    events_key,
    game_of,
    meta_key,
    probe_key,
    rematch_answer_field,
    seats_key,
)
from server.store.public_path import WaitingPath, WaitingReplies, within
from server.store.stored_events import (
    AppendResult,
    LoadedGame,
    SeatRevoked,
    StoredEvent,
    VersionConflict,
    archived_events,
    as_bytes,
    as_meta,
    as_text,
    flatten_entries,
    hash_pairs,
    to_event,
    unpack_log,
    version_of,
)

__all__ = [
    "AppendResult",
    "EventStore",
    "LoadedGame",
    "PendingAppend",
    "SeatRevoked",
    "StoredEvent",
    "VersionConflict",
    "archived_events",
]

READ_PAGE: Final = 1000
CLUSTER_POLL_S: Final = 0.05  # a cluster's blocking tail: how often it reads again
ASK_REPLICAS_S: Final = 2.0  # the least time a primary is given to say its replicas


class PendingAppend:
    """An append written to Redis (or to be written when the connection is up)."""

    __slots__ = (
        "_args",
        "_direct",
        "_expected",
        "_keys",
        "_lane",
        "_node",
        "_present",
        "_sent",
        "_store",
        "_waiting",
    )

    def __init__(
        self,
        store: EventStore,
        keys: tuple[bytes, ...],
        args: tuple[bytes, ...],
        expected_version: int,
    ) -> None:
        self._store = store
        self._direct = store._direct
        self._keys = keys
        self._args = args
        self._expected = expected_version
        durability = store.durability
        if durability is None:
            self._sent: asyncio.Future[Any] | None = self._direct.run_now(APPEND_LUA, keys, args)
            return
        self._sent = None
        self._waiting: WaitingReplies | None = None
        self._lane: WaitingPath | None = None  # the connection that waits for a replica
        # The replicas the game's primary has: known now (sent now, with a WAIT if
        # there are some), or None (asked first, sent when awaited).
        self._node = store._node_of(keys[0])
        self._present = present = durability.seen.known(self._node)
        if present is None or (present < durability.replicas and durability.strict):
            return  # asked, or refused, when awaited
        if present == 0:
            self._sent = self._direct.run_now(APPEND_LUA, keys, args)
        else:
            self._lane = store._lane()
            self._waiting = self._lane.run_now_waiting(
                APPEND_LUA, keys, args, durability.wait_for(present)
            )

    async def result(self) -> AppendResult:
        """The append's outcome (see ``EventStore.append``)."""
        durability = self._store.durability
        if durability is not None:
            answer = await self._durable(durability)
        elif self._sent is not None:  # inline: the usual path, without a coroutine more
            try:
                answer = await self._direct.reply(self._sent)
            except NoScriptError:  # Redis lost its scripts: sent whole
                answer = await self._direct.run(APPEND_LUA, self._keys, self._args)
        else:
            answer = await self._direct.run(APPEND_LUA, self._keys, self._args)
        status, version, *recorded = answer
        if status == 0:
            return AppendResult(version=version, duplicate=False, reply=self._args[3])
        if status == 1:
            return AppendResult(version=version, duplicate=True, reply=as_bytes(recorded[0]))
        if status == 3:
            raise SeatRevoked()
        raise VersionConflict(self._expected, version)

    async def _unwaited(self) -> Any:
        """The append's reply from the primary alone."""
        if self._sent is not None:
            try:
                return await self._direct.reply(self._sent)
            except NoScriptError:  # Redis lost its scripts: sent whole below
                self._sent = None
        return await self._direct.run(APPEND_LUA, self._keys, self._args)

    async def _durable(self, durability: Durability) -> Any:
        """The append's reply once as many replicas as ``durability`` asks have it, or
        ``NotDurable``/``NoReplica`` (server/store/durability.py)."""
        store, node = self._store, self._node
        present = self._present
        if present is None:
            present = await store._replicas(node)
        if present < durability.replicas and durability.strict:
            raise durability.no_replica(node)
        if present == 0:
            answer = await self._unwaited()
            if answer[0] < 2:
                durability.seen.written_without(node)
            return answer
        lane = self._lane or store._lane()
        answer, acknowledged = await lane.run_waiting(
            APPEND_LUA, self._keys, self._args, durability.wait_for(present), self._waiting
        )
        # Written, or written before: answered once enough replicas have it.
        needed = durability.needed(present)
        short = isinstance(acknowledged, Exception) or int(acknowledged) < needed
        if answer[0] < 2 and short:
            await store._confirm(node, durability, acknowledged, present)
        return answer


class EventStore:
    """Append-only game logs on Redis streams, with optimistic concurrency.

    The client must be a ``redis.asyncio.Redis`` or a cluster client
    (``server.store.clients``) built with ``decode_responses=False``. ``tail`` blocks a
    connection for up to ``block_ms`` on one Redis: give tailers their own client (or
    pool) and no ``socket_timeout`` shorter than the block time.
    """

    def __init__(
        self, client: RedisClient, durability: Durability | None = None, lanes: int = LANES
    ) -> None:
        self._r = client
        # Appends are the command path: they go through a dedicated connection
        # (server/store/direct_path.py), everything else through the client.
        self._direct = command_path(client)
        # With durability, appends wait for a replica on connections of their own
        # (server/store/durability.py).
        self.durability = durability
        self._lanes = command_lanes(client, lanes) if durability is not None else []
        self._load_script = client.register_script(LOAD_LUA)

    @property
    def client(self) -> RedisClient:
        """The Redis client this store uses."""
        return self._r

    async def append(
        self,
        game_id: str,
        events: Sequence[bytes],
        *,
        expected_version: int,
        command_id: str | None,
        at_ms: int,
        reply: bytes = b"",
        acting: tuple[int, str] | None = None,
    ) -> AppendResult:
        """Append ``events`` atomically if the log is at ``expected_version``.

        If ``command_id`` was already applied to this game, nothing is written and the
        recorded result comes back with ``duplicate=True`` (checked before the version).
        Raises ``VersionConflict`` if the log moved on, ``ValueError`` for no events.
        ``acting``: the seat and the digest of the token the command was sent with,
        appended only while that is still the seat's token (else ``SeatRevoked``,
        checked after the version).
        """
        pending = self.send_append(
            game_id,
            events,
            expected_version=expected_version,
            command_id=command_id,
            at_ms=at_ms,
            reply=reply,
            acting=acting,
        )
        return await pending.result()

    def send_append(
        self,
        game_id: str,
        events: Sequence[bytes],
        *,
        expected_version: int,
        command_id: str | None,
        at_ms: int,
        reply: bytes = b"",
        acting: tuple[int, str] | None = None,
    ) -> PendingAppend:
        """``append``, its command written to Redis now (when the connection is up),
        so that the caller can work during the round trip; ``result()`` waits for the
        outcome and must be awaited."""
        if not events:
            raise ValueError("append needs at least one event")
        if expected_version < 0:
            raise ValueError("expected_version must be >= 0")
        if command_id == "":
            raise ValueError("command_id must be None or non-empty")
        keys: tuple[bytes, ...] = (
            events_key(game_id).encode(),
            commands_key(game_id).encode(),
            archive_key(game_id).encode(),
        )
        head: tuple[bytes, ...] = (
            b"%d" % expected_version,
            b"" if command_id is None else command_id.encode(),
            b"%d" % at_ms,
            reply,
        )
        if acting is not None:
            keys += (seats_key(game_id).encode(),)
            head += (b"%d" % acting[0], acting[1].encode())
        return PendingAppend(self, keys, (*head, *events), expected_version)

    def _lane(self) -> WaitingPath:
        """The least busy of the connections that wait for replicas."""
        lanes = self._lanes
        best = lanes[0]
        if best.waiting() and len(lanes) > 1:
            best = min(lanes, key=lambda lane: lane.waiting())
        return best

    def _node_of(self, key: bytes) -> str:
        """The name of the primary that holds ``key`` ("" on one Redis)."""
        if isinstance(self._r, RedisCluster):
            node = self._r.nodes_manager.get_node_from_slot(self._r.keyslot(key))
            return "" if node is None else str(node.name)
        return ""

    async def _replicas(self, node: str) -> int:
        """The replicas the primary ``node`` has (``Durability.seen``: known, or asked)."""
        assert self.durability is not None
        known = self.durability.seen.known(node)
        if known is not None:
            return known
        return await self._ask(node)

    async def _ask(self, node: str) -> int:
        """The replicas the primary ``node`` has now, asked (one question at a time)."""
        assert self.durability is not None
        return await self.durability.seen.ask(node, lambda: self._ask_replicas(node))

    async def _ask_replicas(self, node: str) -> int:
        """``INFO replication`` of the primary ``node``: the replicas it counts."""
        assert self.durability is not None
        seconds = max(self.durability.timeout_ms / 1000, ASK_REPLICAS_S)
        try:
            if isinstance(self._r, RedisCluster):
                target = self._r.get_node(node_name=node)
                if target is None:
                    raise RedisConnectionError(f"no node {node} in the cluster's map")
                asking = target.execute_command("INFO", "replication")
            else:
                asking = self._direct.execute(b"INFO", b"replication")
            info = await within(asking, seconds, "say its replicas")
        except (RedisError, OSError) as e:
            if isinstance(self._r, RedisCluster):
                # The node may be gone (a failover): the map is read again for the retry.
                with contextlib.suppress(RedisError, OSError):
                    await self._r.nodes_manager.initialize()
            if isinstance(e, RedisError):
                raise translated(e) from e
            raise StoreUnavailable(e) from e
        return good_replicas(info)

    async def _confirm(
        self, node: str, durability: Durability, acknowledged: Any, present: int
    ) -> None:
        """Return if ``WAIT`` on ``node`` counted as many replicas as ``durability``
        needs there. Else the node is asked again: with too few left, a strict
        durability refuses (``NoReplica``) and the other counts the write as made
        without one; with enough, ``NotDurable`` (slow, not gone)."""
        if not isinstance(acknowledged, Exception):
            if int(acknowledged) >= durability.needed(present):
                return
            present = await self._ask(node)
            if durability.strict and present < durability.replicas:
                raise durability.no_replica(node)
            if present == 0:
                durability.seen.written_without(node)
                return
        durability.check(acknowledged, durability.needed(present))

    async def durable(self, game_ids: Sequence[str]) -> None:
        """Return once a replica has everything the Redis holding these games had
        written when called (so what was read of them before), or raise
        ``server.store.durability.NotDurable``; at once when durability is off. A
        primary with no replica is not waited for: what it holds is all there is
        (server/store/durability.py)."""
        durability = self.durability
        if durability is None or not game_ids:
            return
        # One node holds every game here: a probe in any game's slot covers them all.
        # On a cluster, one probe on each primary holding some of them.
        by_node: dict[str, str] = {"": game_ids[0]}
        if isinstance(self._r, RedisCluster):
            by_node = {}
            for game_id in game_ids:
                by_node.setdefault(self._node_of(events_key(game_id).encode()), game_id)
        await asyncio.gather(*(self._probe(node, g, durability) for node, g in by_node.items()))

    async def _probe(self, node: str, game_id: str, durability: Durability) -> None:
        """``durable`` on one primary, ``node``, through the probe key of ``game_id``."""
        present = await self._replicas(node)
        if present == 0:
            return
        _, acknowledged = await self._lane().run_waiting(
            PROBE_LUA, (probe_key(game_id).encode(),), (), durability.wait_for(present)
        )
        needed = min(present, durability.replicas)
        if (
            isinstance(acknowledged, Exception)
            or int(acknowledged) >= needed
            or await self._ask(node) > 0
        ):
            durability.check(acknowledged, needed)

    async def read(
        self, game_id: str, after: int = 0, until: int | None = None
    ) -> list[StoredEvent]:
        """The events with ``after < version <= until`` (to the end if ``until`` is None),
        from the stream or, once the game is archived, from its archive."""
        if after < 0:
            raise ValueError("after must be >= 0")
        keys = (events_key(game_id).encode(), archive_key(game_id).encode())
        end = b"+" if until is None else b"%d-0" % until
        if until is not None and until <= after:
            return []
        out: list[StoredEvent] = []
        start = after + 1
        while True:
            # On the command path's connection: a refused command reads what it missed.
            page, *archived = await self._direct.run(
                READ_LUA,
                keys,
                (b"%d-0" % start, end, b"%d" % READ_PAGE, b"%d" % (start - 1)),
            )
            if archived:  # versions 1..n: the list's index is the version - 1
                return out + archived_events(as_bytes(archived[0]))[start - 1 : until]
            if not page:
                break
            out.extend(to_event(entry) for entry in page)
            if len(page) < READ_PAGE:
                break
            start = out[-1].version + 1
        return out

    async def load(self, game_id: str) -> LoadedGame:
        """A game's whole log with its meta and seats, in one round trip: from its
        stream, or from its archive once it is archived (whose seats are final)."""
        keys = [events_key(game_id), meta_key(game_id), seats_key(game_id), archive_key(game_id)]
        packed, flat_meta, flat_seats, *archived = await self._load_script(keys=keys)
        meta = hash_pairs(flat_meta)
        if archived:
            unpacked = archives.decode(as_bytes(archived[0]))
            stored = [StoredEvent(v, at, e) for v, (at, e) in enumerate(unpacked.events, 1)]
            return LoadedGame(stored, meta, unpacked.digests, archived=True)
        digests = {int(k): v.decode() for k, v in hash_pairs(flat_seats).items()}
        return LoadedGame(unpack_log(as_bytes(packed)), meta, digests, archived=False)

    async def restore(
        self, game_id: str, events: Sequence[StoredEvent], meta: Mapping[str, bytes | str | int]
    ) -> bool:
        """Write a whole game at once, its events with their own times and versions
        (``1..n``, checked) and its meta hash, unless a game with this id exists:
        True if written, False if it was there (nothing written). One script, so a
        game is either all there or not at all (an import cut short leaves no half)."""
        if not events:
            raise ValueError("restore needs at least one event")
        for expected, event in enumerate(events, start=1):
            if event.version != expected:
                raise ValueError(f"event versions must be 1..n: {event.version} at {expected}")
        args: list[bytes] = [b"%d" % len(events)]
        for event in events:
            args += [b"%d" % event.at_ms, event.data]
        for field, value in meta.items():
            args += [field.encode(), value if isinstance(value, bytes) else str(value).encode()]
        keys = (
            events_key(game_id).encode(),
            meta_key(game_id).encode(),
            archive_key(game_id).encode(),
        )
        written = await self._direct.run(RESTORE_LUA, keys, args)
        return bool(written)

    async def archive(
        self,
        game_id: str,
        version: int,
        value: bytes,
        also_drop: Sequence[str] = (),
        publish: tuple[str, bytes] | None = None,
    ) -> int:
        """Swap a game's stream for its archive ``value`` (server/store/archive_format.py) of its
        ``version`` events, in one script: the stream, the commands hash and the keys
        ``also_drop`` (of this game: the same hash tag) are deleted, the meta hash
        loses ``seed`` and ``seats``, and ``publish`` (channel, message) is published.
        Returns 1 when done, 0 if the game was archived already, -1 if its stream is
        not at ``version`` (nothing written)."""
        keys = [events_key(game_id), commands_key(game_id), meta_key(game_id)]
        keys += [archive_key(game_id), *also_drop]
        tag = "{" + game_id + "}"
        if any(tag not in key for key in also_drop):
            raise ValueError("archive drops only keys of the game's own hash tag")
        args = [b"%d" % version, value]
        if publish is not None:
            args += [publish[0].encode(), publish[1]]
        done = await self._direct.run(ARCHIVE_LUA, [k.encode() for k in keys], args)
        return int(done)

    async def archived(self, game_id: str) -> bytes | None:
        """A game's archive, None while it is not archived."""
        value = await self._r.get(archive_key(game_id))
        return None if value is None else as_bytes(value)

    async def recorded(self, game_id: str, command_id: str) -> bytes | None:
        """What ``append`` recorded for a command id (``b"<version>:<reply>"``), if any."""
        seen = await self._direct.execute(
            b"HGET", commands_key(game_id).encode(), command_id.encode()
        )
        return None if seen is None else as_bytes(seen)

    async def version(self, game_id: str) -> int:
        """The version of a game's log: its number of events, 0 for an unknown game."""
        keys = (events_key(game_id).encode(), archive_key(game_id).encode())
        last = await self._direct.run(VERSION_LUA, keys, ())
        if last is None:
            return 0
        if b"\n" in as_bytes(last):  # an archive's head
            return archives.archived_version(as_bytes(last))
        return version_of(last)

    async def tail(
        self, positions: Mapping[str, int], block_ms: int, count: int = 500
    ) -> dict[str, list[StoredEvent]]:
        """Wait up to ``block_ms`` for events after the given versions of several games.

        One XREAD BLOCK over all the streams; returns only games with new events (at
        most ``count`` each), or ``{}`` on timeout. With no positions it just sleeps.
        On a cluster, where one XREAD can't span slots, the streams are read in one
        pipeline (sent node by node) every ``CLUSTER_POLL_S`` until news or timeout.
        """
        if block_ms < 1:
            raise ValueError("block_ms must be >= 1 (0 would block forever in Redis)")
        if count < 1:
            raise ValueError("count must be >= 1")
        if not positions:
            await asyncio.sleep(block_ms / 1000)
            return {}
        if is_cluster(self._r):
            return await self._tail_cluster(positions, block_ms, count)
        by_key: dict[bytes, str] = {}
        streams: dict[KeyT, StreamIdT] = {}
        for game_id, after in positions.items():
            key = events_key(game_id)
            by_key[key.encode()] = game_id
            streams[key] = f"{max(after, 0)}-0"
        reply = await self._r.xread(streams, count=count, block=block_ms)
        if not reply:
            return {}
        pairs: list[tuple[Any, Any]]
        if isinstance(reply, dict):  # RESP3 client
            pairs = list(reply.items())
        else:
            pairs = [(item[0], item[1]) for item in reply]
        out: dict[str, list[StoredEvent]] = {}
        for key, entries in pairs:
            events = [to_event(entry) for entry in flatten_entries(entries)]
            if events:
                out[by_key[as_bytes(key)]] = events
        return out

    async def _tail_cluster(
        self, positions: Mapping[str, int], block_ms: int, count: int
    ) -> dict[str, list[StoredEvent]]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + block_ms / 1000
        games = list(positions)
        while True:
            pipe = self._r.pipeline(transaction=False)
            for game_id in games:
                start = f"{max(positions[game_id], 0) + 1}-0"
                pipe.xrange(events_key(game_id), min=start, max="+", count=count)
            pages = await pipe.execute()
            out = {
                game_id: [to_event(entry) for entry in page]
                for game_id, page in zip(games, pages, strict=True)
                if page
            }
            left = deadline - loop.time()
            if out or left <= 0:
                return out
            await asyncio.sleep(min(CLUSTER_POLL_S, left))

    async def set_meta(self, game_id: str, mapping: Mapping[str, bytes | str | int]) -> None:
        """Set fields of a game's metadata hash (others are kept)."""
        if not mapping:
            return
        fields: dict[FieldT, EncodableT] = {k: v for k, v in mapping.items()}
        await self._r.hset(meta_key(game_id), mapping=fields)

    async def get_meta(self, game_id: str) -> dict[str, bytes]:
        """A game's metadata hash, ``{}`` if it has none."""
        raw = await self._r.hgetall(meta_key(game_id))
        return {as_bytes(k).decode(): as_bytes(v) for k, v in raw.items()}

    async def meta_field(self, game_id: str, name: str) -> bytes | None:
        """One field of a game's metadata hash, None if it has none."""
        value = await self._r.hget(meta_key(game_id), name)
        return None if value is None else as_bytes(value)

    async def set_meta_absent(self, game_id: str, mapping: Mapping[str, bytes | str | int]) -> None:
        """Set the fields of a game's metadata hash it does not have yet, at once."""
        args = [as_meta(x) for pair in mapping.items() for x in pair]
        await self._direct.run(SET_ABSENT_LUA, (meta_key(game_id).encode(),), args)

    async def claim_rematch(self, game_id: str, rematch_id: str) -> str:
        """The id of a game's rematch: ``rematch_id`` if this call names it first,
        else the one named before (by any process)."""
        claimed = await self._direct.run(
            CLAIM_REMATCH_LUA, (meta_key(game_id).encode(),), (rematch_id.encode(),)
        )
        return as_text(claimed[0])

    async def answer_rematch(self, game_id: str, seat: int, answer: str) -> str:
        """Write ``seat``'s answer to the game's rematch unless it has one; the seat's
        answer after (an answer is final: the first written stays)."""
        field = rematch_answer_field(seat)
        await self._r.hsetnx(meta_key(game_id), field, answer)
        return as_text(await self._r.hget(meta_key(game_id), field) or answer)

    async def rematch_answers(self, game_id: str) -> dict[int, str]:
        """Each seat's answer to the game's rematch, for the seats that answered."""
        fields = [rematch_answer_field(seat) for seat in range(MOST_SEATS)]
        values = await self._r.hmget(meta_key(game_id), fields)
        return {seat: as_text(v) for seat, v in enumerate(values) if v is not None}

    async def publish(self, channel: str, message: bytes) -> None:
        """Publish ``message`` on ``channel`` (a game's signals)."""
        await self._r.publish(channel, message)

    async def ensure_seed(self, game_id: str, seed: int) -> int:
        """The seed in a game's meta, ``seed`` written there first unless it holds one:
        every process then draws from the same seed, whoever wrote it."""
        await self._r.hsetnx(meta_key(game_id), "seed", seed)
        return int(await self._r.hget(meta_key(game_id), "seed") or 0)

    async def seats(self, game_id: str) -> dict[int, str]:
        """A game's seats: seat number -> its token's digest (``{}`` once archived)."""
        raw = await self._r.hgetall(seats_key(game_id))
        return {int(k): as_text(v) for k, v in raw.items()}

    async def seat(self, game_id: str, seat: int) -> str | None:
        """The digest of a seat's token, None if the seat has none (or the game's seats
        are gone: archived)."""
        digest = await self._r.hget(seats_key(game_id), str(seat))
        return None if digest is None else as_text(digest)

    async def set_seat(self, game_id: str, seat: int, digest: str) -> None:
        """Give a seat the token of ``digest``."""
        await self._r.hset(seats_key(game_id), str(seat), digest)

    async def set_seat_absent(self, game_id: str, seat: int, digest: str) -> None:
        """Give a seat the token of ``digest`` unless it has one (never replaces a
        token a player holds)."""
        await self._r.hsetnx(seats_key(game_id), str(seat), digest)

    async def note_bot_game(self, game_id: str) -> None:
        """List a game with a bot seat for the bot runners (``BOT_GAMES_KEY``)."""
        await self._r.sadd(BOT_GAMES_KEY, game_id)

    async def exists(self, game_id: str) -> bool:
        """Whether a game has any events, metadata or archive."""
        n = await self._r.exists(events_key(game_id), meta_key(game_id), archive_key(game_id))
        return int(n) > 0

    async def game_ids(self) -> list[str]:
        """The ids of all games with a stream or an archive, sorted (SCAN, so cheap on
        the server)."""
        found: set[str] = set()
        for key_of, kind in ((events_key, "stream"), (archive_key, "string")):
            # SCAN's pattern is the game's key with a glob in place of its id.
            async for key in self._r.scan_iter(match=key_of("*"), count=1000, _type=kind):
                name = as_bytes(key).decode()
                game_id = game_of(name)
                if (
                    game_id
                    and "{" not in game_id
                    and "}" not in game_id
                    and key_of(game_id) == name
                ):
                    found.add(game_id)
        return sorted(found)
