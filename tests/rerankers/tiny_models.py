"""A tiny, deterministic cross-encoder made in the test: a WordLevel ``tokenizer.json`` and an
ONNX graph (embed → masked mean → linear), with a numpy re-implementation to compare with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

WORDS = tuple(
    [
        "royalty",
        "payment",
        "payments",
        "artist",
        "artists",
        "label",
        "contract",
        "album",
        "track",
        "weather",
        "rain",
        "station",
        "how",
        "much",
        "did",
        "we",
        "pay",
        "the",
        "to",
        "for",
        "of",
        "in",
        "a",
        "which",
        "table",
        "field",
        "fields",
        "query",
        "type",
        "amount",
        "customer",
        "orders",
        "order",
        "id",
        "date",
        "country",
        "sales",
        "revenue",
        "stream",
        "streams",
        "report",
        "month",
    ]
)
SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]")
DIM = 8


def build_tokenizer(path: Path) -> Path:
    """A lower-casing WordLevel tokenizer with BERT-style pair template; saved at ``path``."""
    vocab = {token: i for i, token in enumerate((*SPECIALS, *WORDS))}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tokenizer.save(str(path))
    return path


@dataclass(frozen=True)
class TinyCrossEncoder:
    """The weights of the made model, and its numpy reference."""

    words: np.ndarray  # (vocab, DIM)
    types: np.ndarray  # (2, DIM)
    head: np.ndarray  # (DIM, outputs)
    use_types: bool
    output: str  # "n", "n1" or "n2"

    def reference(
        self, tokenizer_path: Path, query: str, texts: list[str], max_length: int
    ) -> np.ndarray:
        """Scores computed pair by pair in numpy, no padding (the last logit column)."""
        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        tokenizer.enable_truncation(max_length=max_length)
        scores = []
        for text in texts:
            encoding = tokenizer.encode(query, text)
            vectors = self.words[encoding.ids]
            if self.use_types:
                vectors = vectors + self.types[encoding.type_ids]
            logits = vectors.mean(axis=0) @ self.head
            scores.append(logits[-1])
        return np.asarray(scores, dtype=np.float32)


def build_model(
    path: Path, *, use_types: bool = True, output: str = "n1", seed: int = 0
) -> TinyCrossEncoder:
    """Write the ONNX model to ``path``; ``output`` picks the logits' shape: (n,), (n,1), (n,2)."""
    rng = np.random.default_rng(seed)
    vocab = len(SPECIALS) + len(WORDS)
    columns = 2 if output == "n2" else 1
    weights = TinyCrossEncoder(
        words=rng.normal(size=(vocab, DIM)).astype(np.float32),
        types=rng.normal(size=(2, DIM)).astype(np.float32),
        head=rng.normal(size=(DIM, columns)).astype(np.float32),
        use_types=use_types,
        output=output,
    )
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["n", "t"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["n", "t"])
    inputs = [ids, mask]
    shapes: dict[str, list[str | int | None]] = {"n": ["n"], "n1": ["n", 1], "n2": ["n", 2]}
    shape = shapes[output]
    logits = helper.make_tensor_value_info("logits", TensorProto.FLOAT, shape)
    init = [
        numpy_helper.from_array(weights.words, "words"),
        numpy_helper.from_array(weights.head, "head"),
        numpy_helper.from_array(np.asarray([1], dtype=np.int64), "axis1"),
        numpy_helper.from_array(np.asarray([2], dtype=np.int64), "axis2"),
        numpy_helper.from_array(np.asarray(1e-9, dtype=np.float32), "eps"),
    ]
    nodes = [helper.make_node("Gather", ["words", "input_ids"], ["embedded"])]
    summed = "embedded"
    if use_types:
        inputs.append(
            helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["n", "t"])
        )
        init.append(numpy_helper.from_array(weights.types, "types"))
        nodes += [
            helper.make_node("Gather", ["types", "token_type_ids"], ["typed"]),
            helper.make_node("Add", ["embedded", "typed"], ["summed"]),
        ]
        summed = "summed"
    nodes += [
        helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["maskf", "axis2"], ["mask3"]),
        helper.make_node("Mul", [summed, "mask3"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "axis1"], ["total"], keepdims=0),
        helper.make_node("ReduceSum", ["mask3", "axis1"], ["count"], keepdims=0),
        helper.make_node("Max", ["count", "eps"], ["safe"]),
        helper.make_node("Div", ["total", "safe"], ["pooled"]),
    ]
    if output == "n":
        nodes += [
            helper.make_node("MatMul", ["pooled", "head"], ["projected"]),
            helper.make_node("Squeeze", ["projected", "axis1"], ["logits"]),
        ]
    else:
        nodes.append(helper.make_node("MatMul", ["pooled", "head"], ["logits"]))
    graph = helper.make_graph(nodes, "tiny_cross_encoder", inputs, [logits], init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return weights
