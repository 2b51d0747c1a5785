"""HAProxy and nginx run with the configurations of docs/deploy/, their addresses
replaced by the test's, in front of ``splendor serve`` processes."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

from tests.multiprocess.servers import answering, free_port, stop

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy"
# The example addresses in docs/deploy/: the front's port, and the processes'.
FRONT = {"haproxy": "bind :80", "nginx": "listen 80;"}
BACKENDS = ("10.0.0.11:8000", "10.0.0.12:8000")


def binary(kind: str) -> str | None:
    """``kind``'s program: on the PATH, or in /usr/sbin where Debian puts it (a user's
    PATH often lacks the sbin folders)."""
    return shutil.which(kind) or shutil.which(kind, path="/usr/local/sbin:/usr/sbin:/sbin")


def missing(kind: str) -> str | None:
    """Why ``kind`` can't run here (its binary is missing), or None."""
    return None if binary(kind) else f"{kind} is not installed (apt-get install {kind})"


def render(kind: str, port: int, backends: list[str]) -> str:
    """docs/deploy's configuration of ``kind`` with the test's addresses."""
    name = "haproxy.cfg" if kind == "haproxy" else "nginx.conf"
    text = (DEPLOY / name).read_text()
    front = FRONT[kind]
    assert front in text, f"docs/deploy/{name} no longer has {front!r}"
    text = text.replace(
        front, f"bind 127.0.0.1:{port}" if kind == "haproxy" else f"listen 127.0.0.1:{port};"
    )
    for example, backend in zip(BACKENDS, backends, strict=True):
        assert example in text, f"docs/deploy/{name} no longer has {example!r}"
        text = text.replace(example, backend.removeprefix("http://"))
    return text


@contextlib.asynccontextmanager
async def balancer(kind: str, folder: Path, backends: list[str]) -> AsyncIterator[str]:
    """``kind`` (haproxy or nginx) in front of ``backends`` (base URLs); yields its base
    URL once it passes a request through."""
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    config = render(kind, port, backends)
    if kind == "haproxy":
        path = folder / "haproxy.cfg"
        path.write_text(config)
        command = [binary(kind) or kind, "-db", "-f", str(path)]
    else:
        # Its files in the test's folder (the documented file is for a root install).
        local = (
            f"access_log off; client_body_temp_path {folder}/body; "
            f"proxy_temp_path {folder}/proxy; fastcgi_temp_path {folder}/fastcgi; "
            f"uwsgi_temp_path {folder}/uwsgi; scgi_temp_path {folder}/scgi;"
        )
        config = config.replace("http {", "http {\n    " + local, 1)
        path = folder / "nginx.conf"
        path.write_text(config)
        command = [
            binary(kind) or kind,
            "-p",
            str(folder),
            "-e",
            str(folder / "error.log"),
            "-c",
            str(path),
        ]
        command += ["-g", f"daemon off; pid {folder}/nginx.pid;"]
    with (folder / f"{kind}.log").open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        await answering(base, process, f"{kind} (see {folder})")
        yield base
    finally:
        stop(process)
