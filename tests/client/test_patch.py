"""The Python client's JSON Patch (client/patch.py) against RFC 6902's examples and
jsonpatch's results on the server's patches between views of real games."""

from __future__ import annotations

import ast
import copy
import random
import tomllib
from pathlib import Path

import jsonpatch
import pytest

from client.patch import PatchError, apply_patch
from events.game import VARIANTS
from server.live.view_patch import view_patch
from tests.patch_cases import RFC_CASES


@pytest.mark.parametrize(("doc", "patch", "expected"), RFC_CASES)
def test_rfc_6902_examples(doc: object, patch: list[dict[str, object]], expected: object) -> None:
    """Each of RFC 6902's examples gives its result (or fails where the RFC fails) and leaves its input as it was."""
    before = copy.deepcopy(doc)
    if expected is None:
        with pytest.raises(PatchError):
            apply_patch(doc, patch)
    else:
        assert apply_patch(doc, patch) == expected
    assert doc == before


def test_malformed_operations_fail_as_patch_errors() -> None:
    """An operation without its members, or of no known kind, is a PatchError, never a KeyError."""
    for op in ({"op": "add", "path": "/a"}, {"op": "jump", "path": "/a"}, {"path": "/a"}):
        with pytest.raises(PatchError):
            apply_patch({"a": 1}, [op])


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_agrees_with_jsonpatch_on_the_servers_patches(name: str) -> None:
    """On every event of a random two-player game, for the spectator and each seat, the server's patch turns the view before into the view after, as jsonpatch applies it."""
    variant = VARIANTS[name]
    rng = random.Random(4)
    state = variant.new_state()
    viewers: list[int | None] = [None, 0, 1]
    views = {v: variant.view(state, v) for v in viewers}
    pending = variant.create("g", 2)
    joins = ["p0", "p1"]
    patched = 0
    while pending and patched < 2000:
        for event in pending:
            variant.evolve(state, event)
            for v in viewers:
                after = variant.view(state, v)
                ops = view_patch(views[v], after)
                assert apply_patch(views[v], ops) == after == jsonpatch.apply_patch(views[v], ops)
                views[v] = after
                patched += 1
        if joins:
            pending = variant.join(state, joins.pop(0), None, rng)
        elif state.status == "live":
            legal = variant.legal_actions(state, state.seat)
            pending = variant.decide(state, state.seat, rng.choice(legal), rng)
        else:
            pending = []
    assert patched > 300


def test_no_installed_module_imports_jsonpatch() -> None:
    """Nothing in events/, server/ or client/ imports jsonpatch: it is a test extra, not a dependency of the package."""
    root = Path(__file__).resolve().parents[2]
    importers = []
    for package in ("events", "server", "client"):
        for source in (root / package).rglob("*.py"):
            for node in ast.walk(ast.parse(source.read_text(), str(source))):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                if any(n.split(".")[0] in ("jsonpatch", "jsonpointer") for n in names):
                    importers.append(str(source.relative_to(root)))
    assert importers == []
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("jsonpatch") for d in project["dependencies"])
    assert any(d.startswith("jsonpatch") for d in project["optional-dependencies"]["test"])
