"""server/'s packages are layers: each imports only the packages below it, and no module
imports itself back through others. Read from the source, as tests/bots/test_pure.py
does: imports inside functions, under ``TYPE_CHECKING`` and through
``importlib.import_module("server...")`` count as much as those at the top."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "server"

# Lowest first: a module may import a module of its own package or of a package before
# its own, never one after it (CONTRIBUTING.md, "Where code goes").
LAYERS = (
    "common",
    "store",
    "games",
    "live",
    "players",
    "mail",
    "tournaments",
    "workers",
    "tools",
    "web",
)
TOP = "server.cli"  # the entry point, above every layer: it may import them all


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _absolute(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The module a ``from ... import`` names, its dots resolved against ``importer``."""
    if node.level == 0:
        return node.module or ""
    package = importer.split(".") if is_package else importer.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _imported_by_name(node: ast.Call) -> str | None:
    """The module ``importlib.import_module("server...")`` names, if that is the call."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name != "import_module" or not node.args:
        return None
    first = node.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def server_imports(source: str, importer: str, is_package: bool = False) -> set[str]:
    """The server modules the source of ``importer`` imports, anywhere in it
    (``from server.x import y`` counts as ``server.x.y`` when that is a module, else as
    ``server.x``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(importer, is_package, node)
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                names.append(sub if _is_module(sub) else module)
        elif isinstance(node, ast.Call):
            named = _imported_by_name(node)
            names = [named] if named else []
        found.update(n for n in names if n.split(".")[0] == "server")
    return found


def layer_of(module: str) -> int:
    parts = module.split(".")
    if module == TOP:
        return len(LAYERS)
    assert len(parts) >= 2 and parts[1] in LAYERS, f"{module} is in no layer"
    return LAYERS.index(parts[1])


def graph() -> dict[str, set[str]]:
    """Each server module and the server modules it imports (``server`` itself, the
    empty package, left out)."""
    return {
        module_name(p): server_imports(p.read_text(), module_name(p), p.name == "__init__.py")
        - {"server"}
        for p in sorted(SERVER.rglob("*.py"))
        if module_name(p) != "server"
    }


def test_every_module_is_in_a_layer_with_a_docstring() -> None:
    """server/ holds only cli.py and the layers' packages, and each layer says what it holds."""
    assert sorted(p.name for p in SERVER.glob("*.py")) == ["__init__.py", "cli.py"]
    packages = {p.parent.name for p in SERVER.glob("*/__init__.py")}
    assert packages == set(LAYERS)
    for package in LAYERS:
        init = SERVER / package / "__init__.py"
        assert ast.get_docstring(ast.parse(init.read_text())), f"{init} says nothing"
    for module in graph():
        layer_of(module)


def test_the_reader_sees_every_kind_of_import() -> None:
    """Imports at the top, inside functions, under TYPE_CHECKING, relative ones and
    importlib's all reach the graph, so that no import hides from the tests below."""
    source = (
        "import importlib\n"
        "from typing import TYPE_CHECKING\n"
        "import server.common.errors\n"
        "from server.store import clients\n"
        "from . import drain\n"
        "from .app import create_app\n"
        "if TYPE_CHECKING:\n"
        "    from server.games.service import GameService\n"
        "def f() -> None:\n"
        "    from server.live.hubs import Hubs\n"
        "    importlib.import_module('server.workers.bot_runner')\n"
    )
    assert server_imports(source, "server.web.probe") == {
        "server.common.errors",
        "server.store.clients",
        "server.web.drain",
        "server.web.app",
        "server.games.service",
        "server.live.hubs",
        "server.workers.bot_runner",
    }


def test_imports_go_down_the_layers() -> None:
    """No module imports a package above its own."""
    upward = sorted(
        f"{m} -> {i}"
        for m, imports in graph().items()
        for i in imports
        if layer_of(i) > layer_of(m)
    )
    assert upward == []


def test_no_import_cycle() -> None:
    """No module imports itself back through others, function-local imports included."""
    edges = graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path being walked, 2: every path from it walked
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for other in sorted(edges.get(module, ())):
            if state.get(other) == 1:
                cycles.append([*path[path.index(other) :], other])
            elif other not in state:
                visit(other)
        path.pop()
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module)
    assert cycles == []
