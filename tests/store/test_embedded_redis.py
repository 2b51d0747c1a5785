"""The embedded redis-server: start, stop, persistence, crash recovery."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import redis

from server.store.embedded_redis import EmbeddedRedis, EmbeddedRedisError, redis_executable


def _client(server: EmbeddedRedis) -> redis.Redis:
    return redis.Redis.from_url(server.url, socket_timeout=5)


def _wait_gone(pid: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} still alive")


def test_starts_in_its_data_dir_on_loopback(tmp_path: Path) -> None:
    """It starts on 127.0.0.1 with append-only files in the data dir and remembers its port."""
    with EmbeddedRedis(tmp_path) as server:
        assert server.url == f"redis://127.0.0.1:{server.port}/0"
        assert server.pid is not None and server.running
        with _client(server) as c:
            assert c.ping()
            assert c.config_get("appendonly") == {"appendonly": "yes"}
            assert c.config_get("appendfsync") == {"appendfsync": "everysec"}
            assert c.config_get("save") == {"save": ""}
            assert c.config_get("bind") == {"bind": "127.0.0.1"}
            assert Path(c.config_get("dir")["dir"]).resolve() == tmp_path.resolve()
        assert (tmp_path / "appendonly.aof").exists()
        assert (tmp_path / "redis.port").read_text().strip() == str(server.port)
        pid = server.pid
    assert not server.running
    _wait_gone(pid)


def test_data_persists_across_stop_and_start_on_the_same_port(tmp_path: Path) -> None:
    """Data written before a graceful stop is there after a restart, at the same URL."""
    with EmbeddedRedis(tmp_path) as first, _client(first) as c:
        url = first.url
        c.set("k", b"v")
        c.xadd("s", {"e": b"x"}, id="1-0")
    with EmbeddedRedis(tmp_path) as second, _client(second) as c:
        assert second.url == url
        assert c.get("k") == b"v"
        assert c.xlen("s") == 1


def test_data_survives_kill_9(tmp_path: Path) -> None:
    """Writes made >= 1 s before a SIGKILL of redis-server are recovered from the AOF."""
    server = EmbeddedRedis(tmp_path).start()
    try:
        url = server.url
        with _client(server) as c:
            for i in range(100):
                c.xadd("game:{g}:events", {"e": f"ev{i}".encode(), "t": b"0"}, id=f"{i + 1}-0")
            c.hset("game:{g}:meta", mapping={"kind": "duel"})
        time.sleep(1.5)  # appendfsync everysec
        pid = server.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while server.running and time.monotonic() < deadline:  # running reaps the child
            time.sleep(0.02)
        assert not server.running
        server.start()  # same object, same data dir
        assert server.url == url
        assert server.pid != pid
        with _client(server) as c:
            assert c.xlen("game:{g}:events") == 100
            assert c.hget("game:{g}:meta", "kind") == b"duel"
    finally:
        server.stop()


def test_a_second_server_on_the_same_dir_is_refused(tmp_path: Path) -> None:
    """Two embedded servers never share a data dir (they would both write the AOF)."""
    with EmbeddedRedis(tmp_path), pytest.raises(EmbeddedRedisError, match="in use"):
        EmbeddedRedis(tmp_path).start()


def test_remembered_port_taken_by_someone_else_gets_a_new_port(tmp_path: Path) -> None:
    """If the remembered port is busy with another program, it picks a fresh free port."""
    import socket

    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        busy = squatter.getsockname()[1]
        (tmp_path / "redis.port").write_text(f"{busy}\n")
        with EmbeddedRedis(tmp_path) as server:
            assert server.port != busy
            with _client(server) as c:
                assert c.ping()
        assert (tmp_path / "redis.port").read_text().strip() == str(server.port)


def test_failure_to_start_raises_with_the_log_tail(tmp_path: Path) -> None:
    """A redis-server that cannot start raises EmbeddedRedisError quoting its log."""
    server = EmbeddedRedis(tmp_path, extra_args=["--no-such-option", "1"])
    with pytest.raises(EmbeddedRedisError, match="no-such-option"):
        server.start()
    assert not server.running
    assert server.pid is None


def test_a_leftover_server_on_the_data_dir_is_replaced(tmp_path: Path) -> None:
    """A redis-server orphaned on our data dir is shut down and replaced on the same port."""
    with EmbeddedRedis(tmp_path) as first, _client(first) as c:
        port = first.port
        c.set("k", b"v")
    orphan = subprocess.Popen(
        [
            redis_executable(),
            *("--bind", "127.0.0.1", "--port", str(port), "--dir", str(tmp_path)),
            *("--appendonly", "yes", "--save", "", "--logfile", str(tmp_path / "orphan.log")),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(redis.ConnectionError),
                redis.Redis("127.0.0.1", port) as probe,
            ):
                if probe.ping():
                    break
            time.sleep(0.05)
        with EmbeddedRedis(tmp_path) as second, _client(second) as c:
            assert second.port == port
            assert second.pid != orphan.pid
            assert orphan.wait(10) == 0
            assert c.get("k") == b"v"
    finally:
        if orphan.poll() is None:
            orphan.kill()
        orphan.wait()
