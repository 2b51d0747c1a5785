"""The refusal keys: every one documented (docs/reasons.md is made from the
registries), in the server catalog, and raised only as defined."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from catalogs.tool import message_keys
from catalogs.translations import read_catalog, template_path
from events.errors import IllegalAction
from events.reasons import REASONS, Reason
from server.common.errors import ServiceError
from server.common.reasons import ALL_REASONS, SERVER_REASONS
from server.tools.reasons_doc import DOC, document

ROOT = Path(__file__).resolve().parents[2]

# The calls that take a reason's key first, and its arguments as keywords.
RAISERS = frozenset(
    {
        "IllegalAction",
        "NotYourTurn",
        "GameOver",
        "TimeIsUp",
        "RuleViolation",
        "bad_request",
        "not_found",
        "missing_token",
        "forbidden",
    }
)


def test_docs_list_every_key_with_its_arguments_and_sentence() -> None:
    """docs/reasons.md is what ``python -m server.tools.reasons_doc --write`` makes now:
    exactly the keys of events/reasons.py and server/common/reasons.py, each with its
    arguments and English sentence."""
    assert DOC.read_text() == document()
    listed = {line.split("`")[1] for line in DOC.read_text().splitlines() if line.startswith("| `")}
    assert listed == set(REASONS) | set(SERVER_REASONS)


def test_the_rules_and_the_server_never_share_a_key() -> None:
    """A key means one thing: the server's keys are not the rules' keys."""
    assert not set(REASONS) & set(SERVER_REASONS)


def test_every_template_is_in_the_server_catalog() -> None:
    """Each template (both forms of a plural) was extracted into catalogs/server.pot,
    so each language can translate it; a plural's count argument is in its sentence."""
    extracted = message_keys(read_catalog(template_path("server")))
    for key, template in ALL_REASONS.items():
        msgid = (
            template.singular if template.plural is None else (template.singular, template.plural)
        )
        assert (msgid, None) in extracted, key
        if template.count is not None:
            assert template.count in template.names, key


def raised_reasons(path: Path) -> list[tuple[int, str, set[str] | None]]:
    """(line, key, keyword names or None when some come from **) of every call of
    ``RAISERS`` with a literal key in a source file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        first = node.args[0]
        if name in RAISERS and isinstance(first, ast.Constant) and isinstance(first.value, str):
            names = {k.arg for k in node.keywords if k.arg is not None}
            spread = any(k.arg is None for k in node.keywords)
            found.append((node.lineno, first.value, None if spread else names))
        elif name == "ServiceError" and len(node.args) >= 2:
            key = node.args[1]
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                given = node.args[2] if len(node.args) > 2 else None
                names = set() if given is None else _dict_keys(given)
                found.append((node.lineno, key.value, names))
    return found


def _dict_keys(node: ast.expr) -> set[str] | None:
    """The keys of a dict literal of string keys, None for anything else."""
    if not isinstance(node, ast.Dict):
        return None
    keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
    return set(keys) if len(keys) == len(node.keys) else None


def test_every_key_raised_is_defined_with_its_arguments() -> None:
    """Every refusal in events/ and server/ written with a literal key names a defined
    key and gives exactly the arguments its sentence takes (read from the source, so
    a refusal no test reaches is checked too)."""
    checked = 0
    for package in ("events", "server"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, key, names in raised_reasons(path):
                where = f"{path.relative_to(ROOT)}:{line}"
                assert key in ALL_REASONS, f"{where}: unknown key {key}"
                if names is not None:
                    assert names == ALL_REASONS[key].names, where
                checked += 1
    assert checked > 100


def test_a_reason_is_checked_where_it_is_raised() -> None:
    """An unknown key, or arguments other than its sentence's, fail at once."""
    with pytest.raises(KeyError):
        IllegalAction("no.such_key")
    with pytest.raises(ValueError):
        IllegalAction("turn.not_yours")  # its sentence names {player}
    with pytest.raises(KeyError):
        ServiceError("bad_request", "no.such_key")
    with pytest.raises(ValueError):
        ServiceError("bad_request", "request.limit", {"most": 200})
    assert IllegalAction("turn.not_yours", player="Ana").reason == Reason(
        "turn.not_yours", {"player": "Ana"}
    )
