"""A model directory (``onnx_model``): what it holds, how the factory and an index use it.

The model is a tiny ONNX encoder made here (word vectors looked up per token, no layers), so
its sentence vectors can be computed in numpy and compared with the provider's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind
from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.embedding.factory import create_provider, provider_from_settings
from schemaseek.embedding.fused import FusedProvider
from schemaseek.embedding.model_dir import MANIFEST, read_model_directory
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.embedding.question_store import QuestionStore, find_token_vectors, persist_questions
from schemaseek.errors import ConfigError, EmbeddingError
from schemaseek.index import SchemaIndex
from schemaseek.query.state import Mode
from schemaseek.service.settings import load_service_config
from schemaseek.sources.graphql import load_sdl
from tests.rerankers.tiny_models import SPECIALS, WORDS, build_tokenizer

DIM = 6


def write_encoder(path: Path, seed: int) -> np.ndarray:
    """An ONNX model whose ``last_hidden_state`` is each token's row of a random table."""
    words = np.random.default_rng(seed).normal(size=(len(SPECIALS) + len(WORDS), DIM))
    table = words.astype(np.float32)
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["n", "t"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["n", "t"])
    hidden = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["n", "t", DIM])
    nodes = [helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"])]
    graph = helper.make_graph(
        nodes, "tiny_encoder", [ids, mask], [hidden], [numpy_helper.from_array(table, "table")]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return table


def model_directory(
    root: Path, *, seed: int = 0, manifest: dict[str, object] | None = None
) -> np.ndarray:
    root.mkdir(parents=True, exist_ok=True)
    table = write_encoder(root / "model.onnx", seed)
    build_tokenizer(root / "tokenizer.json")
    if manifest is not None:
        (root / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return table


def reference(root: Path, table: np.ndarray, text: str) -> np.ndarray:
    """Mean of the text's token rows (special tokens included, as the provider pools), unit."""
    ids = Tokenizer.from_file(str(root / "tokenizer.json")).encode(text).ids
    vector = table[ids].mean(axis=0)
    result: np.ndarray = vector / np.linalg.norm(vector)
    return result


def test_the_manifest_says_what_the_model_is(tmp_path: Path) -> None:
    model_directory(tmp_path, manifest={"model_id": "tiny-v1", "dimensions": DIM, "max_tokens": 8})
    found = read_model_directory(tmp_path)
    assert (found.model_id, found.dimensions, found.max_tokens) == ("tiny-v1", DIM, 8)
    assert found.model_path == tmp_path / "model.onnx"
    assert found.tokenizer_path == tmp_path / "tokenizer.json"


def test_without_a_manifest_config_json_gives_the_size_and_the_file_names_the_model(
    tmp_path: Path,
) -> None:
    first, second = tmp_path / "a" / "tiny", tmp_path / "b" / "tiny"
    for seed, root in enumerate((first, second)):
        model_directory(root, seed=seed)
        (root / "config.json").write_text(json.dumps({"hidden_size": DIM}), encoding="utf-8")
    one, two = read_model_directory(first), read_model_directory(second)
    assert one.dimensions == two.dimensions == DIM
    assert one.model_id.startswith("onnx:tiny:") and two.model_id.startswith("onnx:tiny:")
    assert one.model_id != two.model_id  # same folder name, other weights: other vectors
    assert read_model_directory(first).model_id == one.model_id


@pytest.mark.parametrize(
    ("remove", "manifest", "message"),
    [
        ("model.onnx", {"dimensions": DIM}, "has no model.onnx"),
        ("tokenizer.json", {"dimensions": DIM}, "has no tokenizer.json"),
        ("", {}, "does not say how long its vectors are"),
        ("", {"dimensions": "768"}, "does not say how long its vectors are"),
        ("", {"dimensions": DIM, "max_tokens": 1}, "max_tokens"),
    ],
)
def test_a_directory_that_cannot_be_used_is_refused_clearly(
    tmp_path: Path, remove: str, manifest: dict[str, object], message: str
) -> None:
    model_directory(tmp_path, manifest=manifest)
    if remove:
        (tmp_path / remove).unlink()
    with pytest.raises(ConfigError, match=message):
        read_model_directory(tmp_path)
    with pytest.raises(ConfigError, match="is not a directory"):
        read_model_directory(tmp_path / "missing")


def test_a_broken_manifest_is_refused(tmp_path: Path) -> None:
    model_directory(tmp_path)
    (tmp_path / MANIFEST).write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot read"):
        read_model_directory(tmp_path)
    (tmp_path / MANIFEST).write_text("[768]", encoding="utf-8")
    with pytest.raises(ConfigError, match="JSON object"):
        read_model_directory(tmp_path)


def test_the_setting_gives_a_provider_whose_vectors_are_the_models(tmp_path: Path) -> None:
    table = model_directory(tmp_path, manifest={"model_id": "tiny-v1", "dimensions": DIM})
    settings = SearchSettings(onnx_model=str(tmp_path), onnx_model_share=1.0, device="cpu")
    provider = provider_from_settings(settings)
    assert isinstance(provider, OnnxEmbeddingProvider)
    assert (provider.model_id, provider.dimensions, provider.loaded) == ("tiny-v1", DIM, False)
    texts = ["royalty payments for the artist", "weather station rain"]
    vectors = provider.embed(texts)
    assert vectors.shape == (2, DIM)
    for text, vector in zip(texts, vectors, strict=True):
        np.testing.assert_allclose(vector, reference(tmp_path, table, text), atol=1e-5)
    np.testing.assert_allclose(provider.embed_query(texts[0]), vectors[0], atol=1e-6)


def test_by_default_the_directory_model_is_fused_with_the_packaged_one(tmp_path: Path) -> None:
    table = model_directory(tmp_path, manifest={"model_id": "tiny-v1", "dimensions": DIM})
    provider = provider_from_settings(SearchSettings(onnx_model=str(tmp_path)))
    assert isinstance(provider, FusedProvider)
    assert provider.share == SearchSettings().onnx_model_share == 0.7
    assert provider.model_id == "fused:all-MiniLM-L6-v2-int8-onnx+tiny-v1@0.7"
    assert provider.dimensions == 384 + DIM
    assert find_token_vectors(provider) is provider  # the reranker reads its token vectors
    texts = ["royalty payments for the artist", "weather station rain", "customer orders"]
    fused = provider.embed(texts)
    packaged = OnnxEmbeddingProvider().embed(texts)
    np.testing.assert_allclose(np.linalg.norm(fused, axis=1), 1.0, atol=1e-5)
    for i in range(len(texts)):
        for j in range(len(texts)):
            tiny = reference(tmp_path, table, texts[i]) @ reference(tmp_path, table, texts[j])
            mixed = 0.3 * float(packaged[i] @ packaged[j]) + 0.7 * float(tiny)
            assert float(fused[i] @ fused[j]) == pytest.approx(mixed, abs=1e-5)
    np.testing.assert_allclose(provider.embed_query(texts[1]), fused[1], atol=1e-5)


def test_fused_token_vectors_are_the_packaged_models_else_the_directory_models(
    tmp_path: Path,
) -> None:
    model_directory(tmp_path, manifest={"model_id": "tiny-v1", "dimensions": DIM})
    fused = provider_from_settings(SearchSettings(onnx_model=str(tmp_path)))
    assert isinstance(fused, FusedProvider)
    text = "royalty payments for the artist"
    packaged = OnnxEmbeddingProvider().token_vectors([text])[0]
    np.testing.assert_allclose(fused.token_vectors([text])[0], packaged, atol=1e-6)
    fused.embed_query(text)  # the question's own token vectors, kept by the packaged model
    np.testing.assert_allclose(fused.token_vectors([text], query=True)[0], packaged, atol=1e-6)

    directory = fused.provider
    assert isinstance(directory, OnnxEmbeddingProvider)
    no_tokens = FusedProvider(VectorsOnly(), directory, 0.5)
    rows = no_tokens.token_vectors([text])[0]
    assert rows.shape[1] == DIM
    np.testing.assert_allclose(rows, directory.token_vectors([text])[0], atol=1e-6)
    with pytest.raises(EmbeddingError, match="neither fused model"):
        FusedProvider(VectorsOnly(), VectorsOnly(), 0.5).token_vectors([text])


def test_a_question_store_keys_fused_token_vectors_by_the_model_that_made_them(
    tmp_path: Path,
) -> None:
    model_directory(tmp_path / "model", manifest={"model_id": "tiny-v1", "dimensions": DIM})
    fused = provider_from_settings(SearchSettings(onnx_model=str(tmp_path / "model")))
    assert isinstance(fused, FusedProvider)
    assert fused.token_model_id == OnnxEmbeddingProvider().model_id
    text = "royalty payments for the artist"
    # token vectors of another model, stored under the fused id by an earlier version
    old = QuestionStore(tmp_path / "questions", fused.model_id)
    old.put("query-tokens", text, np.zeros((3, DIM), dtype=np.float16))
    old.close()
    wrapped = persist_questions(fused, tmp_path / "questions")
    tokens = find_token_vectors(wrapped)
    assert tokens is not None
    rows = tokens.token_vectors([text], query=True)[0]
    assert rows.shape[1] == 384 and np.abs(rows).sum() > 0


class VectorsOnly:
    """A provider with sentence vectors and no token vectors (a remote model, say)."""

    model_id = "vectors-only"
    dimensions = 2

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        return np.tile(np.array([1.0, 0.0], dtype=np.float32), (len(texts), 1))

    def embed_query(self, text: str) -> Vectors:
        return np.array([1.0, 0.0], dtype=np.float32)


def test_a_share_needs_a_directory_and_lies_in_zero_to_one(tmp_path: Path) -> None:
    model_directory(tmp_path, manifest={"dimensions": DIM})
    with pytest.raises(ConfigError, match="needs model_dir"):
        create_provider("onnx", model_share=0.5)
    with pytest.raises(ConfigError, match="must be in"):
        create_provider("onnx", model_dir=str(tmp_path), model_share=1.5)
    with pytest.raises(ConfigError, match="between 0 and 1"):
        FusedProvider(OnnxEmbeddingProvider(), OnnxEmbeddingProvider(), 1.0)
    with pytest.raises(ValueError, match="onnx_model_share"):
        SearchSettings(onnx_model_share=0)


def test_the_option_belongs_to_the_local_backend_and_must_agree_on_size(tmp_path: Path) -> None:
    model_directory(tmp_path, manifest={"dimensions": DIM})
    with pytest.raises(ConfigError, match=r"invalid options.*'openai'.*model_dir"):
        create_provider("openai", model_dir=str(tmp_path))
    with pytest.raises(ConfigError, match=f"gives {DIM}"):
        create_provider("onnx", model_dir=str(tmp_path), dimensions=384)
    with pytest.raises(ConfigError, match="is not a directory"):
        provider_from_settings(SearchSettings(onnx_model=str(tmp_path / "nowhere")))


def test_an_index_searches_with_the_directory_model(tmp_path: Path) -> None:
    model_directory(tmp_path / "model", manifest={"model_id": "tiny-v1", "dimensions": DIM})
    sdl = tmp_path / "music.graphql"
    sdl.write_text(
        '"""A royalty payment to an artist"""\ntype Payment { id: ID! amount: Float }\n'
        '"""A weather station"""\ntype Station { id: ID! rain: Float }\n'
        "type Query { payments: [Payment!]! stations: [Station!]! }\n",
        encoding="utf-8",
    )
    settings = SearchSettings(
        onnx_model=str(tmp_path / "model"), onnx_model_share=1.0, reranker="none"
    )
    index = SchemaIndex([load_sdl(sdl, "music")], settings=settings)
    index.build()
    assert index.provider is not None and index.provider.model_id == "tiny-v1"
    modes: tuple[Mode, ...] = ("vector", "hybrid")
    for mode in modes:
        found = index.search(
            "royalty payment artist", limit=3, mode=mode, kinds=[DocKind.GRAPHQL_TYPE]
        )
        assert found.ids()[0] == "Payment", mode


def test_the_services_model_variable_takes_a_model_directory(tmp_path: Path) -> None:
    model_directory(tmp_path, manifest={"dimensions": DIM})
    config = load_service_config(env={"SEARCH_EMBEDDING_MODEL": str(tmp_path)})
    assert config.search.onnx_model == str(tmp_path)
    with pytest.raises(ConfigError, match=r"name a directory holding model\.onnx"):
        load_service_config(env={"SEARCH_EMBEDDING_MODEL": str(tmp_path / "elsewhere")})
