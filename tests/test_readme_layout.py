"""The README's layout section names every module of the package, and only modules that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "schemaseek"
_FOLDER = re.compile(r"^  (\w+)/")
_ROOT_FILE = re.compile(r"^  \w+\.py")
_MODULE = re.compile(r"\b(\w+\.py)\b")


def layout_modules(readme: str) -> set[str]:
    """``folder/module.py`` (or ``module.py`` at the top) for every module the layout names."""
    section = readme.split("## Layout", 1)[1].split("```", 2)[1]
    found: set[str] = set()
    folder: str | None = None
    for line in section.splitlines():
        if line.startswith(("tests/", "bench/", "src/")):
            folder = None
            continue
        if match := _FOLDER.match(line):
            folder = match.group(1)
        elif _ROOT_FILE.match(line):
            folder = ""
        if folder is None:
            continue
        for name in _MODULE.findall(line):
            found.add(f"{folder}/{name}" if folder else name)
    return found


def package_modules() -> set[str]:
    out = set()
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        if path.name == "__init__.py" or (
            relative.parts[0] == "service" and "gen" in relative.parts
        ):
            continue
        out.add(relative.as_posix())
    return out


def test_the_layout_matches_the_tree() -> None:
    named = layout_modules((ROOT / "README.md").read_text(encoding="utf-8"))
    actual = package_modules()
    assert sorted(actual - named) == [], "modules the README's layout does not name"
    assert sorted(named - actual) == [], "modules the README's layout names that do not exist"


def test_the_parser_sees_folders_and_continuations() -> None:
    readme = (
        "## Layout\n\n```\nsrc/schemaseek/\n  a.py  b.py\n  x/   c.py (note d.py)\n"
        "                e.py\ntests/   f.py\n```\n"
    )
    assert layout_modules(readme) == {"a.py", "b.py", "x/c.py", "x/d.py", "x/e.py"}
