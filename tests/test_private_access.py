"""Guard: no module of the package runs on another module's private state.

An attribute access ``x._name`` where ``x`` is not ``self``/``cls`` and ``_name`` is defined
(as a function, class, module global or ``self._name`` attribute) only in *other* modules of
``src/schemaseek``, and any ``from schemaseek.x import _name``, fail this test. Generated code
is left out. An exception needs a line in :data:`ALLOWED` saying why.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "schemaseek"
GENERATED = PACKAGE / "service" / "gen"

#: ``(module, attribute)`` → why the access is acceptable. Goal: empty; at most five.
ALLOWED: dict[tuple[str, str], str] = {}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _modules(root: Path) -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(root.rglob("*.py")):
        if GENERATED in path.parents:
            continue
        name = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        yield name, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _defined_names(tree: ast.Module) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    yield target.id
                elif (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id in ("self", "cls")
                ):
                    yield target.attr


@cache
def _owners(root: Path) -> dict[str, frozenset[str]]:
    owners: dict[str, set[str]] = {}
    for module, tree in _modules(root):
        for name in _defined_names(tree):
            if _private(name):
                owners.setdefault(name, set()).add(module)
    return {name: frozenset(found) for name, found in owners.items()}


def violations(root: Path = PACKAGE) -> list[str]:
    """Every cross-module private access and private import under ``root`` (a package
    directory), as ``module:line: what``."""
    found = []
    owners = _owners(root)
    for module, tree in _modules(root):
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    continue
                defined_in = owners.get(node.attr, frozenset())
                if defined_in and module not in defined_in and (module, node.attr) not in ALLOWED:
                    where = ", ".join(sorted(defined_in))
                    found.append(f"{module}:{node.lineno}: .{node.attr} (defined in {where})")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("schemaseek"):
                for alias in node.names:
                    if _private(alias.name) and (module, alias.name) not in ALLOWED:
                        found.append(f"{module}:{node.lineno}: imports {node.module}.{alias.name}")
    return found


def test_no_module_touches_another_modules_private_names() -> None:
    problems = violations()
    assert not problems, "private state used across modules:\n" + "\n".join(problems)


def test_the_exceptions_stay_few_and_current() -> None:
    assert len(ALLOWED) <= 5
    owners = _owners(PACKAGE)
    for (module, name), why in ALLOWED.items():
        assert why.strip(), f"{module} .{name} needs a reason"
        assert name in owners, f"the exception for {module} .{name} is stale"


def test_the_guard_sees_a_planted_violation(tmp_path: Path) -> None:
    """The scan is not vacuous: reading another module's private attribute, or importing
    its private name, is reported; the owner's own use and ``self._x`` are not."""
    package = tmp_path / "schemaseek"
    package.mkdir()
    (package / "owner.py").write_text(
        "class A:\n    def __init__(self):\n        self._secret = 1\n\n"
        "    def own(self, other):\n        return self._secret + other._secret\n\n"
        "def _helper():\n    return 1\n"
    )
    (package / "reader.py").write_text(
        "from schemaseek.owner import _helper\n\ndef peek(a):\n    return a._secret\n"
    )
    assert violations(package) == [
        "schemaseek.reader:1: imports schemaseek.owner._helper",
        "schemaseek.reader:4: ._secret (defined in schemaseek.owner)",
    ]
