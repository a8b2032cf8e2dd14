"""The checked-in generated code is exactly what ``make proto`` produces from the protos."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GEN = REPO / "src" / "schemaseek" / "service" / "gen"


def test_generated_code_matches_the_protos(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    protos = sorted(str(p.relative_to(REPO / "proto")) for p in (REPO / "proto").rglob("*.proto"))
    subprocess.run(
        [
            sys.executable, "-m", "grpc_tools.protoc", "-Iproto",
            f"--plugin=protoc-gen-py={bin_dir / 'protoc-gen-py'}",
            f"--plugin=protoc-gen-connectrpc={bin_dir / 'protoc-gen-connectrpc'}",
            f"--py_out={tmp_path}", f"--connectrpc_out={tmp_path}", *protos,
        ],
        check=True,
        cwd=REPO,
    )  # fmt: skip
    fresh = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.py"))
    kept = sorted(p.relative_to(GEN) for p in GEN.rglob("*.py"))
    assert fresh == kept, "generated files differ: run `make proto`"
    changed = [str(p) for p in fresh if not filecmp.cmp(tmp_path / p, GEN / p, shallow=False)]
    assert not changed, f"generated code drifted from the protos: {changed}; run `make proto`"
