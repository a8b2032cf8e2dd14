"""Interfaces are leaves: the library never imports the CLI or the network service.

* nothing outside ``schemaseek/cli/`` imports ``schemaseek.cli``, except
  ``schemaseek/__main__.py`` (``python -m schemaseek``, the command line's second door);
* nothing outside ``schemaseek/service/`` imports ``schemaseek.service``, except the client
  (``schemaseek/client/``), which talks to the service over the wire and may import the
  generated protobuf code under ``schemaseek.service.gen`` only, and the CLI's ``serve``
  command, which starts the service.

Every import counts, including those under ``if TYPE_CHECKING:`` and inside functions.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: Modules outside service/ allowed to import the service, and what they may import of it.
SERVICE_IMPORTERS = {
    "schemaseek.cli.serve_command": ("schemaseek.service",),
}
CLIENT_MAY_IMPORT = ("schemaseek.service.gen",)
#: Modules outside cli/ allowed to import the command line.
CLI_IMPORTERS = ("schemaseek.__main__",)


def _module_name(src: Path, path: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(src: Path, path: Path) -> Iterator[tuple[int, str]]:
    """``(line, name)`` of everything ``path`` imports: ``from a import b`` yields ``a.b``
    (``b`` may be a submodule); relative imports are resolved."""
    module = _module_name(src, path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _violations(src: Path = SRC) -> list[str]:
    found = []
    for path in sorted((src / "schemaseek").rglob("*.py")):
        module = _module_name(src, path)
        for line, imported in _imports(src, path):
            where = f"{path.relative_to(src).as_posix()}:{line} imports {imported}"
            outside_cli = not _within(module, "schemaseek.cli") and module not in CLI_IMPORTERS
            if _within(imported, "schemaseek.cli") and outside_cli:
                found.append(where)
            if not _within(imported, "schemaseek.service") or _within(module, "schemaseek.service"):
                continue
            if _within(module, "schemaseek.client"):
                allowed: tuple[str, ...] = CLIENT_MAY_IMPORT
            else:
                allowed = SERVICE_IMPORTERS.get(module, ())
            if not any(_within(imported, a) for a in allowed):
                found.append(where)
    return found


def test_interfaces_are_leaves() -> None:
    assert _violations() == []


def test_the_guard_sees_every_form_of_import(tmp_path: Path) -> None:
    package = tmp_path / "schemaseek"
    for folder in ("cli", "service", "client", "engine"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "engine" / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from schemaseek.cli.options import ResolvedSources\n"
        "def f():\n    from .. import service\n"
    )
    (package / "engine" / "b.py").write_text("import schemaseek.service.units\n")
    (package / "client" / "c.py").write_text(
        "from schemaseek.service.gen.v1 import search_pb\nfrom schemaseek.service import convert\n"
    )
    (package / "cli" / "d.py").write_text("from schemaseek.service.server import serve\n")
    (package / "service" / "e.py").write_text(
        "from schemaseek.cli.options import ResolvedSources\n"
    )
    (package / "__main__.py").write_text("from schemaseek.cli import main\n")
    (package / "f.py").write_text("from schemaseek.cli import main\n")
    assert _violations(tmp_path) == [
        "schemaseek/cli/d.py:1 imports schemaseek.service.server.serve",
        "schemaseek/client/c.py:2 imports schemaseek.service.convert",
        "schemaseek/engine/a.py:3 imports schemaseek.cli.options.ResolvedSources",
        "schemaseek/engine/a.py:5 imports schemaseek.service",
        "schemaseek/engine/b.py:1 imports schemaseek.service.units",
        "schemaseek/f.py:1 imports schemaseek.cli.main",
        "schemaseek/service/e.py:1 imports schemaseek.cli.options.ResolvedSources",
    ]
