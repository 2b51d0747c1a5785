"""What the app holds is declared once (server/web/state.py): no other module reads
Starlette's ``app.state``, and no web module casts what it reads. Read from the
source, as tests/server/test_layers.py reads the imports."""

from __future__ import annotations

import ast
from pathlib import Path

import httpx

from server.common.settings import Settings
from server.web.app import create_app
from server.web.state import AppParts, Running, parts, running

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "server"
STATE = SERVER / "web" / "state.py"


def _is_app(node: ast.expr) -> bool:
    """``app``, ``application`` or ``<anything>.app``: what ``.state`` is read on."""
    if isinstance(node, ast.Name):
        return node.id in ("app", "application")
    return isinstance(node, ast.Attribute) and node.attr == "app"


def _reads_state(node: ast.AST) -> bool:
    """``<app>.state``, or ``getattr(<app>, "state")``."""
    if isinstance(node, ast.Attribute):
        return node.attr == "state" and _is_app(node.value)
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and len(node.args) >= 2
        and _is_app(node.args[0])
        and isinstance(node.args[1], ast.Constant)
        and node.args[1].value == "state"
    )


def app_state_reads(path: Path) -> list[int]:
    """The lines where a file touches ``app.state``."""
    return sorted(
        node.lineno for node in ast.walk(ast.parse(path.read_text())) if _reads_state(node)
    )


def casts(path: Path) -> list[int]:
    """The lines where a file calls ``cast`` (``typing.cast`` or imported by name)."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == "cast")
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "cast")
        )
    )


def test_only_web_state_reads_app_state() -> None:
    """No module of server/ but server/web/state.py reads or writes ``app.state``: the others ask ``parts()`` or ``running()``."""
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted(SERVER.rglob("*.py"))
        if path != STATE
        for line in app_state_reads(path)
    ]
    assert found == []


def test_no_web_module_casts() -> None:
    """The web modules (handlers, sockets, the app) read what the app holds typed: no ``cast``."""
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((SERVER / "web").glob("*.py"))
        for line in casts(path)
    ]
    assert found == []


def test_the_readers_see_what_they_look_for(tmp_path: Path) -> None:
    """The checks find ``request.app.state.x``, ``app.state`` and ``getattr(app, "state")``, and a cast."""
    source = tmp_path / "m.py"
    source.write_text(
        "a = request.app.state.service\n"
        "b = app.state\n"
        "c = getattr(conn.app, 'state')\n"
        "d = typing.cast(int, a)\n"
        "state = other.state\n"
    )
    assert app_state_reads(source) == [1, 2, 3]
    assert casts(source) == [4]


async def test_the_app_holds_its_parts_and_what_its_lifespan_runs(redis_server: str) -> None:
    """An app holds its AppParts from the start and its Running while its lifespan runs; without plugins nothing runs beside the API."""
    app = create_app(Settings(redis_url=redis_server, analysis_budget=0), plugins=False)
    assert isinstance(parts(app), AppParts)
    async with app.router.lifespan_context(app):
        now = running(app)
        assert isinstance(now, Running) and now.service.hooks.scheduler is now.deadlines
        assert now.hubs is None and now.bot_runner is None and now.pairing is None
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://t"
        ) as http:
            assert (await http.get("/healthz")).status_code == 200
