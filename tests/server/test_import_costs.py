"""What a server process loads at start: the libraries only some processes need are
imported when first used, so that every other process is spared their memory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Imported on first use only: networkx by a Swiss round's pairing (events/tournament/
# swiss.py, about 20 MiB), aiosmtplib by a server that sends e-mail (server/mail/smtp.py,
# about 12 MiB).
ON_FIRST_USE = ("networkx", "aiosmtplib")


def test_the_app_starts_without_the_libraries_only_some_processes_use() -> None:
    """Importing the app and the command line loads neither networkx nor aiosmtplib."""
    probe = (
        "import json, sys; import server.web.app, server.cli; "
        f"print(json.dumps([m for m in {list(ON_FIRST_USE)!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == []
