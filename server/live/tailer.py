"""The tailer: one per server process, it reads the new events of every game the
process watches (through ``EventStore.tail``) and hands them to the hubs.

It waits for news in one of two ways, chosen when it starts:

- **notified** (when Redis allows it, the default): it subscribes to the keyspace
  notifications of the watched games' streams (``notify-keyspace-events`` with ``K``
  and ``t``; the tailer adds them when missing). A notification marks its game; the
  marked games' new events are then read in one ``XREAD``. The cost of an event is
  that of the games that have news, whatever the number watched.
- **polling** (when Redis refuses ``CONFIG``, or ``SPLENDOR_TAIL=poll``): one
  ``XREAD BLOCK`` over every watched stream, interrupted by ``CLIENT UNBLOCK`` when a
  game is added. Simplest, but every wake costs the whole list of watched games in
  Redis and here: milliseconds per wake with hundreds of games.

The events this process appends itself reach its hubs without the tailer, so their
notifications are counted off instead of read: the tailer asks its ``notices`` (the
live pipeline, ``server.live.pipeline``, which says why counting is safe) whether to
read a game for each notification, and tells it whenever a game's channel is
subscribed to again, when the notifications counted may be lost.

The notifications come on one connection of ``wake_client``'s pool, taken for good
and read by a protocol of ours (``server.store.direct_path.Subscriber``): each
notification is handled as it is parsed, without a task or a timeout per message
(or, on the public path, by a redis-py ``PubSub``: ``server.store.fast_paths``).

With ``SPLENDOR_DURABILITY=replica`` the events read are handed on only once a
replica has them (``EventStore.durable``, server/store/durability.py): otherwise they are
held back, and read again, until one has.

On a Redis Cluster, notifications are per node: the tailer keeps one subscribed
connection (a *feed*) on each primary that holds a watched game's slot, places each
game on its primary's feed, and follows the slots when they move (a failover
promotes a replica: the lost feed's games are read again and subscribed to on their
new primary, which gets ``notify-keyspace-events`` set when its feed connects). The
reads of many games go in one pipeline, sent node by node (``EventStore.tail``).

Notified, it also reads every watched game every ``SWEEP_S`` seconds, so a
notification lost while its connection was being re-established costs a delay, never
a missing event. Either way the reads start from each hub's own version, so nothing
is read twice or skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, Protocol

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError

from server.common.settings import TailMode
from server.store.clients import RedisClient, node_client, subscriber_client
from server.store.durability import Durability, NotDurable
from server.store.event_store import EventStore, StoredEvent
from server.store.fast_paths import subscription_path
from server.store.keys import events_key, game_of, keyspace_channel
from server.store.public_path import CLOSE_TIMEOUT_S, Subscription, SubscriptionPath, within

__all__ = ["SWEEP_S", "TAIL_BLOCK_MS", "TAIL_COUNT", "Notices", "TailMode", "Tailer"]

log = logging.getLogger(__name__)

Deliver = Callable[[str, list[StoredEvent]], None]

TAIL_BLOCK_MS: Final = 5_000  # Polling, a read waits this long; a new game wakes it.
TAIL_COUNT: Final = 500  # The events read per game in one read.
NOTIFY_WAIT_S: Final = 1.0  # Notified, the loop looks at its clock at least this often.
FOLLOW_SLOTS_S: Final = 1.0  # On a cluster, moved slots are looked for at most this often.
SWEEP_S: Final = 10.0  # Notified, every watched game is read this often anyway.
READ_CHUNK: Final = 200  # The games read by one XREAD.
FEW_GAMES: Final = 3  # Up to this many games with news are read one by one, not by XREAD.
CLUSTER_POLL_BLOCK_MS: Final = 250  # Polling a cluster, a new game is read within this.
_RETRY_S: Final = (0.05, 0.2, 1.0, 2.0)
NOT_DURABLE_PAUSE_S: Final = 0.05  # The pause after events held back for want of a replica.
_SINGLE: Final = ""  # The name of the one feed on a single Redis.


class Notices(Protocol):
    """What the tailer asks about notifications (``server.live.pipeline.LivePipeline``)."""

    def notified(self, game_id: str) -> bool:
        """A notification came on the game's channel: whether to read the game."""

    def channel_reset(self, game_id: str) -> None:
        """The game's channel is subscribed to again, or no longer: the
        notifications that were to come on the old subscription may never come."""


@dataclass
class _Feed:
    """One subscribed connection for notifications: the single Redis's, or one
    primary's on a cluster (``client``: a plain client on that node, ours to close)."""

    path: SubscriptionPath
    client: aioredis.Redis | None = None
    subscriber: Subscription | None = None
    subscribed: set[str] = field(default_factory=set)

    @property
    def up(self) -> bool:
        return self.subscriber is not None and self.subscriber.lost is None

    async def aclose(self) -> None:
        # Bounded (server.store.public_path.within): closing what a dead node held can wait
        # for ever in redis-py (a disconnect awaits a transport that never closes).
        with contextlib.suppress(RedisError, OSError):
            await within(self.path.aclose(), CLOSE_TIMEOUT_S, "close a subscription")
        if self.client is not None:
            with contextlib.suppress(RedisError, OSError):
                await within(self.client.aclose(), CLOSE_TIMEOUT_S, "close a node's client")


class Tailer:
    """Reads the new events of the watched games; ``deliver(game_id, events)`` gets
    them (the hubs then call ``advance`` with their new version). Every notification
    is read unless ``notices`` says otherwise.

    ``tail_client`` must be a single-connection client of its own (``XREAD BLOCK``
    holds its connection); ``wake_client`` is any other client (its pool lends the
    notifications' connection for good, or sends ``CLIENT UNBLOCK``). On a cluster
    both are cluster clients (``tail_client`` one of its own, nothing blocks there);
    the feeds are plain clients on the primaries ``wake_client`` knows.
    """

    def __init__(
        self,
        tail_client: RedisClient,
        wake_client: RedisClient,
        deliver: Deliver,
        *,
        block_ms: int = TAIL_BLOCK_MS,
        count: int = TAIL_COUNT,
        mode: TailMode = "auto",
        durability: Durability | None = None,
        notices: Notices | None = None,
    ) -> None:
        self._tail_client = tail_client
        self._store = EventStore(tail_client, durability, lanes=1)
        self._wake_client = wake_client
        self._deliver = deliver
        self._notices = notices
        self._block_ms = block_ms
        self._count = count
        self.mode: TailMode = mode  # "auto" is settled when the tailer first runs.
        self._positions: dict[str, int] = {}
        self._task: asyncio.Task[None] | None = None
        # What the notified loop uses. ``_news`` is set for a game marked, a game to
        # subscribe or unsubscribe, and the tick.
        self._news = asyncio.Event()
        self._ticking: asyncio.TimerHandle | None = None
        self._to_subscribe: set[str] = set()
        self._to_unsubscribe: set[str] = set()
        self._marked: set[str] = set()
        self._feeds: dict[str, _Feed] = {}  # By node name, "" on a single Redis.
        self._placed: dict[str, str] = {}  # Game -> the feed it is subscribed on.
        self._slots_followed = -FOLLOW_SLOTS_S  # When moved slots were last looked for.
        # What the polling loop uses. ``_generation`` is bumped when a game is added,
        # and ``_reading`` is the generation of the read in flight.
        self._generation = 0
        self._reading: int | None = None
        self._client_id: int | None = None
        self._waking: asyncio.Task[None] | None = None
        self._alone: set[asyncio.Task[None]] = set()  # The reads of read_alone in flight.
        self.reads = 0
        self.empty_reads = 0
        self.held_back = 0  # The reads in a row whose events no replica had yet.
        # Why Redis can't be read now (None while it can), and who is told when it
        # first fails (the hubs close their sockets: server/store/availability.py).
        self.down: RedisError | OSError | None = None
        self.on_down: Callable[[RedisError | OSError], None] | None = None

    # ------------------------------------------------------------------ games

    def watch(self, game_id: str, version: int) -> None:
        """Read ``game_id``'s events after ``version`` from now on."""
        self._positions[game_id] = version
        self._generation += 1
        self._to_subscribe.add(game_id)
        self._to_unsubscribe.discard(game_id)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        elif self.mode == "notify":
            self._news.set()
        elif (
            self.mode == "poll"
            and self._reading is not None
            and (self._waking is None or self._waking.done())
        ):
            self._waking = asyncio.get_running_loop().create_task(self._wake())

    def unwatch(self, game_id: str) -> None:
        self._positions.pop(game_id, None)
        self._to_subscribe.discard(game_id)
        self._to_unsubscribe.add(game_id)
        self._news.set()
        self._marked.discard(game_id)
        self._channel_reset(game_id)

    def _channel_reset(self, game_id: str) -> None:
        if self._notices is not None:
            self._notices.channel_reset(game_id)

    def mark(self, game_id: str) -> None:
        """Read ``game_id`` soon, whatever the notifications say."""
        if game_id not in self._positions:
            return
        self._marked.add(game_id)
        self._news.set()

    def advance(self, game_id: str, version: int) -> None:
        if game_id in self._positions:
            self._positions[game_id] = version

    def position(self, game_id: str) -> int | None:
        """The version after which ``game_id`` is read (None: it is not watched)."""
        return self._positions.get(game_id)

    def read_alone(self, game_id: str) -> None:
        """Read ``game_id`` soon with ``EventStore.read``, on its own: the game was
        archived (server/store/archive_format.py), and what a hub had not read yet is in its
        archive, which XREAD (several games at once, and polling) does not see."""
        if game_id not in self._positions:
            return
        task = asyncio.get_running_loop().create_task(self._read_alone(game_id))
        self._alone.add(task)
        task.add_done_callback(self._alone.discard)

    async def _read_alone(self, game_id: str) -> None:
        after = self._positions.get(game_id)
        if after is None:
            return
        try:
            events = await self._store.read(game_id, after)
        except (RedisError, OSError) as e:
            log.warning("reading archived game %s failed (%r)", game_id, e)
            return
        self.reads += 1
        await self._hand_on({game_id: events} if events else {})

    async def close(self) -> None:
        log.info("tailer (%s): %d reads, %d found nothing", self.mode, self.reads, self.empty_reads)
        for task in (self._waking, self._task, *self._alone):
            if task is not None and not task.done():
                task.cancel()
                # Not awaited beyond a bound: its feeds' closing is bounded, but a
                # stopping server must stop whatever a dead Redis node does.
                await asyncio.wait([task], timeout=3 * CLOSE_TIMEOUT_S)
                if task.done() and not task.cancelled():
                    task.exception()  # Retrieved, since what it failed with was logged.
        client = self._tail_client
        closing = (
            client.aclose()
            if isinstance(client, RedisCluster)
            else client.aclose(close_connection_pool=True)
        )
        with contextlib.suppress(RedisError, OSError):
            await within(closing, CLOSE_TIMEOUT_S, "close the tailer's client")

    # ------------------------------------------------------------------ running

    async def _run(self) -> None:
        if self.mode != "poll":
            self.mode = "notify" if await self._notifications_on() else "poll"
            log.info("tailing game streams: %s", self.mode)
        if self.mode == "notify":
            await self._run_notified()
        else:
            await self._run_polling()

    async def _notifications_on(self) -> bool:
        """Make sure Redis publishes stream keyspace events; False if it cannot."""
        try:
            await self._turn_notifications_on()
            return True
        except (ResponseError, RedisError, OSError) as e:
            log.warning("keyspace notifications unavailable (%r): polling all streams", e)
            return False

    async def _turn_notifications_on(self) -> None:
        if not isinstance(self._wake_client, RedisCluster):
            await _notify_streams(self._wake_client)
            return
        # The other nodes get it when their feed connects.
        for node in self._wake_client.get_primaries():
            client = node_client(self._wake_client, node)
            try:
                await _notify_streams(client)
            finally:
                await client.aclose()

    def _read_failed(self, e: RedisError | OSError, failures: int) -> float:
        delay = _RETRY_S[min(failures, len(_RETRY_S) - 1)]
        if self.down is None:
            self.down = e
            if self.on_down is not None:
                self.on_down(e)
        log.warning("tailing %d games failed (%r); again in %.2f s", len(self._positions), e, delay)
        return delay

    # ------------------------------------------------------------------ notified

    def _channel(self, game_id: str) -> bytes:
        db = 0
        if not isinstance(self._wake_client, RedisCluster):
            db = self._wake_client.connection_pool.connection_kwargs.get("db", 0)
        return keyspace_channel(db, game_id).encode()

    def _node_of(self, game_id: str) -> str:
        """The name of the feed a game's notifications come on: its primary's."""
        cluster = self._wake_client
        if not isinstance(cluster, RedisCluster):
            return _SINGLE
        node = cluster.get_node_from_key(events_key(game_id))
        return "" if node is None else str(node.name)

    def _feed(self, name: str) -> _Feed:
        feed = self._feeds.get(name)
        if feed is not None:
            return feed
        cluster = self._wake_client
        if not isinstance(cluster, RedisCluster):
            feed = _Feed(subscription_path(cluster, self._notified))
        else:
            node = cluster.get_node(node_name=name)
            if node is None:
                raise RedisConnectionError(f"tailer: no node {name} in the cluster's map")
            client = subscriber_client(cluster, node)
            feed = _Feed(subscription_path(client, self._notified), client)
        self._feeds[name] = feed
        return feed

    async def _connect(self, name: str, feed: _Feed, failures: int) -> None:
        """(Re)connect a feed: its games are subscribed to again and read."""
        if feed.client is not None:
            # A primary may be new (a promoted replica): CONFIG SET is per node.
            await _notify_streams(feed.client)
        elif failures:
            # A Redis started afresh has them off, since CONFIG SET is not kept: they
            # are turned on again, or this connection would wait in vain.
            await self._turn_notifications_on()
        feed.subscriber = await feed.path.connected()
        games = {g for g, placed in self._placed.items() if placed == name} | feed.subscribed
        feed.subscribed = set()
        for game_id in games:
            self._placed.pop(game_id, None)
            self._channel_reset(game_id)
        self._to_subscribe |= games & self._positions.keys()

    def _follow_slots(self, force: bool) -> None:
        """Games whose slot has moved to another primary are subscribed to there.
        Looking costs a slot lookup per watched game, so it is done at most every
        ``FOLLOW_SLOTS_S`` (done each turn, every notification would cost one lookup
        per watched game), and at once after a failure, when the slots were read
        again."""
        if not isinstance(self._wake_client, RedisCluster):
            return
        now = asyncio.get_running_loop().time()
        if not force and now - self._slots_followed < FOLLOW_SLOTS_S:
            return
        self._slots_followed = now
        for game_id, name in list(self._placed.items()):
            if self._node_of(game_id) != name:
                self._unplace(game_id)
                if game_id in self._positions:
                    self._to_subscribe.add(game_id)

    def _unplace(self, game_id: str) -> None:
        name = self._placed.pop(game_id, None)
        feed = None if name is None else self._feeds.get(name)
        if feed is None:
            return
        feed.subscribed.discard(game_id)
        self._channel_reset(game_id)
        if feed.up and feed.subscriber is not None:
            feed.subscriber.unsubscribe([self._channel(game_id)])

    async def _drop_idle_feeds(self) -> None:
        for name, feed in list(self._feeds.items()):
            if name != _SINGLE and not feed.subscribed and name not in self._placed.values():
                del self._feeds[name]
                await feed.aclose()

    async def _refresh_slots(self) -> None:
        """After a failure on a cluster: ask it again which primary holds which slot."""
        if isinstance(self._wake_client, RedisCluster):
            with contextlib.suppress(RedisError, OSError):
                await self._wake_client.nodes_manager.initialize()

    async def _run_notified(self) -> None:
        """Turn after turn, in this order: apply the subscription changes, mark the
        games due for a sweep, read the marked games or wait for news, and check
        the feeds. A failure drops the broken feeds and marks every game, since
        notifications may have been lost, and the next turn starts them again."""
        loop = asyncio.get_running_loop()
        failures = 0
        swept = loop.time()
        self._ticking = loop.call_later(NOTIFY_WAIT_S, self._tick)
        self._to_subscribe |= set(self._positions)
        try:
            while self._positions:
                try:
                    await self._apply_subscription_changes(failures)
                    swept = self._mark_sweep_due(loop, swept)
                    await self._read_or_wait()
                    self._raise_if_a_feed_was_lost()
                    failures, self.down = 0, None
                except (RedisError, OSError) as e:
                    await self._recover(e, failures)
                    failures += 1
        finally:
            await self._close_feeds()

    async def _apply_subscription_changes(self, failures: int) -> None:
        """Follow the slots that moved, unsubscribe the games no longer watched,
        close the feeds nothing is placed on, connect the feeds that are down and
        subscribe the new games. ``failures`` is the number of failed turns in a
        row, which tells ``_connect`` that Redis may have started afresh."""
        self._follow_slots(force=failures > 0)
        # The pending sets are small and the watched games many: each is walked
        # over the pending set (a set & a dict's keys would copy the keys).
        gone = {g for g in self._to_unsubscribe if g in self._placed}
        self._to_unsubscribe.clear()
        for game_id in gone:
            self._unplace(game_id)
        await self._drop_idle_feeds()  # A dead primary's feed goes once its games moved.
        for name, feed in list(self._feeds.items()):
            if not feed.up:
                await self._connect(name, feed, failures)
        new = {g for g in self._to_subscribe if g in self._positions and g not in self._placed}
        self._to_subscribe.clear()
        await self._subscribe(new)

    def _mark_sweep_due(self, loop: asyncio.AbstractEventLoop, swept: float) -> float:
        """Mark every watched game once ``SWEEP_S`` has passed since ``swept``, the
        last sweep's time, and return the time of the last sweep."""
        if loop.time() - swept >= SWEEP_S:
            swept = loop.time()
            self._marked |= self._positions.keys()
        return swept

    async def _read_or_wait(self) -> None:
        """Read the marked games, or else wait for news (a notification, a game to
        subscribe or unsubscribe, or the tick). The wait is skipped while
        subscription changes are pending, so that the next turn makes them."""
        if self._marked:
            await self._read_marked()
        elif not (self._to_subscribe or self._to_unsubscribe):
            self._news.clear()
            await self._news.wait()

    def _raise_if_a_feed_was_lost(self) -> None:
        """Raise why a feed's connection was lost, so that the turn counts as failed
        and ``_recover`` runs."""
        for feed in self._feeds.values():
            if feed.subscriber is not None and feed.subscriber.lost is not None:
                raise feed.subscriber.lost

    async def _recover(self, error: RedisError | OSError, failures: int) -> None:
        """After a failed turn: drop the lost feeds (all of them on a single Redis,
        where one connection carries everything), mark every game to be read,
        since notifications may have been lost, have the games that were never
        placed subscribed again, then back off and refresh a cluster's slots."""
        for feed in self._feeds.values():
            if feed.subscriber is not None and feed.subscriber.lost is not None:
                feed.subscriber = None  # The next turn connects it again.
        if not isinstance(self._wake_client, RedisCluster):
            # One connection carries everything, so whatever failed, it starts afresh.
            for feed in self._feeds.values():
                if feed.subscriber is not None:
                    feed.subscriber.fail(RedisConnectionError(f"tailer: {error!r}"))
                feed.subscriber = None
        self._marked |= self._positions.keys()
        # The games whose subscription failed before they were placed on a feed.
        self._to_subscribe |= self._positions.keys() - self._placed.keys()
        await asyncio.sleep(self._read_failed(error, failures))
        await self._refresh_slots()

    async def _close_feeds(self) -> None:
        """When the loop ends: stop the tick and close every feed."""
        if self._ticking is not None:
            self._ticking.cancel()
            self._ticking = None
        feeds, self._feeds = list(self._feeds.values()), {}
        self._placed.clear()
        for feed in feeds:
            await feed.aclose()

    async def _subscribe(self, games: set[str]) -> None:
        """Subscribe to new games, each on its primary's feed (read once confirmed)."""
        by_feed: dict[str, list[str]] = {}
        for game_id in games:
            by_feed.setdefault(self._node_of(game_id), []).append(game_id)
        for name, ids in by_feed.items():
            feed = self._feed(name)
            if not feed.up:
                await self._connect(name, feed, 0)
            assert feed.subscriber is not None
            # Placed first, so that a failure below has them subscribed to again with
            # the feed.
            for game_id in ids:
                self._placed[game_id] = name
            await feed.subscriber.subscribe([self._channel(g) for g in ids])
            feed.subscribed.update(ids)
            # Marked, since events may have been appended between a hub's load and its
            # subscription.
            self._marked.update(ids)

    def _tick(self) -> None:
        # Every NOTIFY_WAIT_S the loop looks at the sweep's clock and at the connection.
        self._news.set()
        self._ticking = asyncio.get_running_loop().call_later(NOTIFY_WAIT_S, self._tick)

    def _notified(self, channel: bytes, message: bytes) -> None:
        """A notification came: mark its game, unless one of our own appends sent it."""
        game_id = game_of(channel.decode())
        if game_id not in self._positions:
            return
        notices = self._notices
        if notices is None or notices.notified(game_id):
            self._marked.add(game_id)
            self._news.set()

    async def _read_marked(self) -> None:
        games = [g for g in self._marked if g in self._positions]
        self._marked.clear()
        if len(games) <= FEW_GAMES:
            # An XRANGE each, since a blocking read costs more to set up and to wait
            # out when it finds nothing.
            found: dict[str, list[StoredEvent]] = {}
            for game_id in games:
                after = self._positions.get(game_id)
                if after is None:
                    continue
                events = await self._store.read(game_id, after)
                self.reads += 1
                if not events:
                    self.empty_reads += 1
                else:
                    found[game_id] = events
            await self._hand_on(found)
            return
        for start in range(0, len(games), READ_CHUNK):
            chunk = games[start : start + READ_CHUNK]
            positions = {g: self._positions[g] for g in chunk if g in self._positions}
            if not positions:
                continue
            batch = await self._store.tail(positions, 1, self._count)
            self.reads += 1
            self.empty_reads += not batch
            for game_id, events in batch.items():
                if len(events) >= self._count:
                    self._marked.add(game_id)  # More may follow these: read it again.
            await self._hand_on(batch)

    async def _hand_on(self, batch: dict[str, list[StoredEvent]]) -> None:
        """Deliver what was read, once durable (with durability on): held back and
        marked to be read again when no replica has it yet."""
        if not batch:
            return
        if self._store.durability is not None:
            try:
                await self._store.durable(list(batch))
            except NotDurable as e:
                if not self.held_back:
                    log.warning("tailer: events held back until a replica has them (%s)", e)
                self.held_back += 1
                if self.mode == "notify":
                    self._marked.update(batch)
                await asyncio.sleep(NOT_DURABLE_PAUSE_S)
                return
            if self.held_back:
                log.warning(
                    "tailer: a replica has the events again (%d reads held back)", self.held_back
                )
                self.held_back = 0
        for game_id, events in batch.items():
            if game_id in self._positions:
                self._deliver(game_id, events)

    # ------------------------------------------------------------------ polling

    async def _run_polling(self) -> None:
        failures = 0
        while self._positions:
            failures = await self._poll_once(failures)

    async def _poll_once(self, failures: int) -> int:
        """One blocking read of every watched stream, and the hand-on of what it
        found. ``failures`` is the number of failed reads in a row, which sets the
        back-off; the number after this read is returned."""
        try:
            block_ms = self._block_ms
            if isinstance(self._tail_client, RedisCluster):
                # A cluster has no blocking read to wake, so a short one is made.
                block_ms = min(block_ms, CLUSTER_POLL_BLOCK_MS)
            elif self._client_id is None:
                self._client_id = int(await self._tail_client.client_id())
            self._reading = self._generation
            try:
                batch = await self._store.tail(dict(self._positions), block_ms, self._count)
            finally:
                self._reading = None
            failures, self.down = 0, None
        except (RedisError, OSError) as e:
            self._client_id = None  # A new connection has a new id.
            await asyncio.sleep(self._read_failed(e, failures))
            return failures + 1
        self.reads += 1
        try:
            await self._hand_on(batch)
        except (RedisError, OSError) as e:
            # The durability probe failed: the next read starts from the same positions.
            await asyncio.sleep(self._read_failed(e, failures))
            return failures + 1
        return failures

    async def _wake(self) -> None:
        # CLIENT UNBLOCK answers 0 when the read has not reached Redis yet: it is tried
        # again a few times, then the read's own timeout ends it.
        for attempt in range(50):
            reading = self._reading
            if reading is None or reading >= self._generation or self._client_id is None:
                return
            try:
                if await self._wake_client.client_unblock(self._client_id):
                    return
            except (RedisError, OSError):
                return
            await asyncio.sleep(0.001 * (1 + attempt // 10))


async def _notify_streams(client: aioredis.Redis) -> None:
    """Have one Redis publish keyspace notifications of streams (K and t)."""
    config = await client.config_get("notify-keyspace-events")
    raw = next(iter(config.values()), b"")
    flags = raw.decode() if isinstance(raw, bytes) else str(raw)
    streams = "t" in flags or "A" in flags
    if "K" in flags and streams:
        return
    wanted = flags + ("" if "K" in flags else "K") + ("" if streams else "t")
    await client.config_set("notify-keyspace-events", wanted)
