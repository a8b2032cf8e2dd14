"""The question adapter: stored and read back, chosen by the setting for the index's model, and
applied by the search to the question's vector only."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from schemaseek.config import SearchSettings
from schemaseek.embedding.onnx import DEFAULT_MODEL_ID, OnnxEmbeddingProvider
from schemaseek.embedding.query_adapter import (
    QueryAdapter,
    adapter_for,
    load_adapter,
    save_adapter,
)
from schemaseek.errors import ConfigError
from schemaseek.index import SchemaIndex
from schemaseek.query.state import IndexParts
from schemaseek.sources.graphql import load_sdl
from schemaseek.sources.sql import load_sql

SDL = """
type Query {
  "Invoices sent to customers, newest first."
  invoices(first: Int): [Invoice!]!
  "Shipments on their way to a warehouse."
  shipments: [Shipment!]!
  "Employees and their salaries."
  employees: [Employee!]!
}
type Invoice { id: ID! total: Float! }
type Shipment { id: ID! carrier: String! }
type Employee { id: ID! salary: Float! }
"""


def test_saved_adapter_reads_back_and_maps_to_unit_length(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    matrix = (np.eye(8) + 0.2 * rng.standard_normal((8, 8))).astype(np.float32)
    save_adapter(QueryAdapter("model-x", matrix, "somewhere [dev]"), tmp_path / "a.npz")
    loaded = load_adapter(tmp_path / "a.npz")
    assert (loaded.model_id, loaded.trained_on) == ("model-x", "somewhere [dev]")
    np.testing.assert_allclose(loaded.matrix, matrix, atol=2e-3)  # stored as float16
    question = rng.standard_normal(8).astype(np.float32)
    question /= np.linalg.norm(question)
    expected = question @ matrix
    mapped = loaded.apply(question)
    assert mapped.dtype == np.float32
    assert float(np.linalg.norm(mapped)) == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_allclose(mapped, expected / np.linalg.norm(expected), atol=2e-3)


def test_setting_picks_the_adapter_for_the_index_model(tmp_path: Path) -> None:
    packaged = adapter_for("auto", DEFAULT_MODEL_ID, 384)
    assert packaged is not None and packaged.matrix.shape == (384, 384)
    assert adapter_for("auto", "some-other-model", 384) is None  # fitted for MiniLM only
    assert adapter_for("none", DEFAULT_MODEL_ID, 384) is None
    save_adapter(QueryAdapter("mpnet", np.eye(768, dtype=np.float32)), tmp_path / "m.npz")
    with pytest.raises(ConfigError, match=r"fitted for 'mpnet'.*embeds with 'all-MiniLM"):
        adapter_for(str(tmp_path / "m.npz"), DEFAULT_MODEL_ID, 384)
    (tmp_path / "bad.npz").write_bytes(b"not a numpy file")
    with pytest.raises(ConfigError, match="cannot read the query adapter"):
        adapter_for(str(tmp_path / "bad.npz"), DEFAULT_MODEL_ID, 384)


def test_packaged_adapter_was_fitted_on_dev_halves_only() -> None:
    """The gate's held-out halves, Unraid and the reserved schemas stay out of its fit."""
    packaged = adapter_for("auto", DEFAULT_MODEL_ID, 384)
    assert packaged is not None
    schemas, _, rest = packaged.trained_on.partition(" [")
    assert rest.startswith("dev]")
    named = set(schemas.split(","))
    assert named and not named & {"github", "shopify_admin", "unraid"}
    assert np.abs(packaged.matrix - np.eye(384)).max() > 0.01  # fitted, not the identity


def _index(tmp_path: Path, provider: OnnxEmbeddingProvider) -> SchemaIndex:
    (tmp_path / "shop.graphql").write_text(SDL, encoding="utf-8")
    index = SchemaIndex([load_sdl(tmp_path / "shop.graphql", "shop")], provider=provider)
    index.build()
    return index


def _vector_top(index: SchemaIndex, question: str, adapter: str) -> str:
    def swap(parts: IndexParts) -> IndexParts:
        settings = parts.settings.model_copy(update={"query_adapter": adapter})
        return dataclasses.replace(parts, settings=settings)

    return index.search(question, limit=3, mode="vector", instrument=swap).ids()[0]


def test_search_maps_the_question_vector(tmp_path: Path) -> None:
    provider = OnnxEmbeddingProvider()
    index = _index(tmp_path, provider)
    question = "unpaid bills of our customers"
    plain = _vector_top(index, question, "none")
    assert plain in ("Query.invoices", "Invoice")
    # an adapter that sends every question to the employees field's document
    target = provider.embed([index.documents["Query.employees"].embedding_text()])[0]
    asked = provider.embed_query(question)
    matrix = np.outer(asked, target).astype(np.float32)  # asked @ matrix = target
    save_adapter(QueryAdapter(provider.model_id, matrix), tmp_path / "to-employees.npz")
    assert _vector_top(index, question, str(tmp_path / "to-employees.npz")) == "Query.employees"
    assert SearchSettings().query_adapter == "auto"  # the packaged one, by default


def test_a_misfitted_adapter_fails_the_search_instead_of_degrading(tmp_path: Path) -> None:
    index = _index(tmp_path, OnnxEmbeddingProvider())
    save_adapter(QueryAdapter("other-model", np.eye(384, dtype=np.float32)), tmp_path / "o.npz")
    with pytest.raises(ConfigError, match="other-model"):
        _vector_top(index, "unpaid bills", str(tmp_path / "o.npz"))


def test_sql_documents_keep_the_question_own_vector(tmp_path: Path) -> None:
    """The packaged adapter was fitted on GraphQL: in an index holding both languages the
    GraphQL documents are ranked by the mapped vector and the tables by the question's own."""
    db = tmp_path / "hr.db"
    with sqlite3.connect(db) as connection:
        connection.executescript(
            "CREATE TABLE payroll (id INTEGER PRIMARY KEY, salary REAL, paid_on TEXT);"
            "CREATE TABLE offices (id INTEGER PRIMARY KEY, city TEXT);"
            "CREATE TABLE invoices_sent (id INTEGER PRIMARY KEY, total REAL);"
        )
    (tmp_path / "shop.graphql").write_text(SDL, encoding="utf-8")
    provider = OnnxEmbeddingProvider()
    sources = [load_sdl(tmp_path / "shop.graphql", "shop"), load_sql(f"sqlite:///{db}", "hr")]
    index = SchemaIndex(sources, provider=provider)
    index.build()
    question = "unpaid bills of our customers"
    target = provider.embed([index.documents["Query.employees"].embedding_text()])[0]
    matrix = np.outer(provider.embed_query(question), target).astype(np.float32)
    save_adapter(QueryAdapter(provider.model_id, matrix), tmp_path / "to-employees.npz")

    def ranked(adapter: str) -> list[str]:
        def swap(parts: IndexParts) -> IndexParts:
            settings = parts.settings.model_copy(update={"query_adapter": adapter})
            return dataclasses.replace(parts, settings=settings)

        return index.search(question, limit=20, mode="vector", instrument=swap).ids()

    plain, mapped = ranked("none"), ranked(str(tmp_path / "to-employees.npz"))

    def sql(ids: list[str]) -> list[str]:
        return [d for d in ids if index.documents[d].kind.value.startswith("sql")]

    assert sql(plain) and sql(plain) == sql(mapped)
    graphql = [d for d in mapped if d not in sql(mapped)]
    assert graphql[0] == "Query.employees" != next(d for d in plain if d not in sql(plain))
