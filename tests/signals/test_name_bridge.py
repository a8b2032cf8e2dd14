"""The name bridge: vocabulary, word vectors, files, and the signal in a real SQL index."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from schemaseek.arrays import FileFormatError
from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document
from schemaseek.embedding.base import ProgressCallback, Vectors
from schemaseek.embedding.counting import CountingProvider
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.index import SchemaIndex
from schemaseek.signals.name_bridge import (
    NAME_VECTORS,
    NAME_VOCABULARY,
    NameVocabulary,
    WordVectors,
    name_words,
)
from schemaseek.sources.base import SourceSchema, stable_hash

AXES = ("salary", "employee", "town", "city", "invoice", "vendor", "earnings", "staff")


class AxisProvider:
    """One axis per known word (``earnings`` sits near ``salary``, ``staff`` near ``employee``);
    counts the words it embeds."""

    model_id = "axes"
    dimensions = len(AXES) + 1

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> Vectors:
        self.embedded.extend(texts)
        rows = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        near = {"earnings": "salary", "staff": "employee"}
        for row, text in zip(rows, texts, strict=True):
            if text in AXES:
                row[AXES.index(text)] = 1.0
                if text in near:
                    row[AXES.index(near[text])] = 1.0
            else:
                row[-1] = 1.0
        return rows

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed([text])[0]
        return vector


def table(name: str, *columns: str, source: str = "hr") -> Document:
    return Document(
        id=f"{source}.{name}",
        kind=DocKind.SQL_TABLE,
        source=source,
        name=name,
        members=tuple(f"{c} integer — a column" for c in columns),
    )


def test_name_words_come_from_sql_names_and_column_names_only() -> None:
    doc = table("EmployeeRecords", "monthly_salary", "TownID", "id")
    assert name_words(doc) == {"employee", "records", "monthly", "salary", "town"}
    graphql = Document(id="Query.staff", kind=DocKind.GRAPHQL_ROOT_FIELD, source="x", name="staff")
    assert name_words(graphql) == set()


def test_unknown_words_are_led_to_their_nearest_name_words() -> None:
    words = WordVectors(AxisProvider())
    vocabulary = NameVocabulary.build([table("employee", "salary"), table("town")], words)
    assert vocabulary is not None
    assert vocabulary.words == ("employee", "salary", "town")
    # "employees" shares the stem of a name word; "the" is a stop word; "2024" not a word
    unknown = vocabulary.unknown("the earnings of employees in 2024 by staff and region")
    assert unknown == ["earnings", "staff", "region"]
    led = vocabulary.nearest(words.cached(unknown), neighbours=1, threshold=0.5)
    assert led == [(0, "salary"), (1, "employee")]  # "region" is near nothing
    assert vocabulary.nearest(words.cached(unknown), neighbours=1, threshold=0.8) == []


def test_query_words_are_cached_and_a_vocabulary_is_not() -> None:
    provider = AxisProvider()
    words = WordVectors(provider, maxsize=8)  # AxisProvider.embed_query goes through embed
    words.embed_all(["salary", "town"])
    first = words.cached(["earnings", "staff"])
    again = words.cached(["staff", "earnings", "staff"])
    assert provider.embedded == ["salary", "town", "earnings", "staff"]
    assert np.array_equal(again[1], first[0]) and np.array_equal(again[0], again[2])
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0)


def test_an_update_embeds_only_new_words_and_drops_words_no_document_holds() -> None:
    provider = AxisProvider()
    words = WordVectors(provider)
    employee, invoice = table("employee", "salary", "town"), table("invoice", "vendor", "town")
    vocabulary = NameVocabulary.build([employee, invoice], words)
    assert vocabulary is not None and vocabulary.counts["town"] == 2
    provider.embedded.clear()
    moved = table("employee", "salary", "city")  # the same table, a column renamed
    after = vocabulary.updated([employee], [moved], words)
    assert after is not None
    assert provider.embedded == ["city"]
    assert after.words == ("city", "employee", "invoice", "salary", "town", "vendor")
    assert after.counts["town"] == 1
    gone = after.updated([moved, invoice], [], words)
    assert gone is None  # no SQL name word left


def test_files_round_trip_and_malformed_files_are_refused() -> None:
    vocabulary = NameVocabulary.build([table("employee", "salary")], WordVectors(AxisProvider()))
    assert vocabulary is not None
    files = {name: memoryview(data) for name, data in vocabulary.to_files().items()}
    back = NameVocabulary.from_files(files, AxisProvider.dimensions)
    assert back is not None
    assert back.words == vocabulary.words and dict(back.counts) == dict(vocabulary.counts)
    assert np.array_equal(back.vectors, vocabulary.vectors) and back.stems == vocabulary.stems
    assert NameVocabulary.from_files({}, AxisProvider.dimensions) is None
    with pytest.raises(FileFormatError, match="expected width 3"):
        NameVocabulary.from_files(files, 3)
    broken = dict(files, **{NAME_VOCABULARY: memoryview(b'{"words": ["a"]}')})
    with pytest.raises(FileFormatError, match="malformed"):
        NameVocabulary.from_files(broken, AxisProvider.dimensions)
    assert NAME_VECTORS in files


# -- in a real index, with the real model --------------------------------------------------

CATALOG = [
    table("personnel", "person_id", "surname", "wage", "hired_on"),
    table("branch", "branch_id", "municipality", "manager_id"),
    table("purchase", "purchase_id", "supplier", "amount"),
    table("bonus", "bonus_id", "person_id", "grant_date"),
]


def hr_source(documents: Sequence[Document] = CATALOG) -> SourceSchema:
    return SourceSchema(
        name="hr",
        kind="sql",
        documents=list(documents),
        edges=[],
        schema_hash=stable_hash([d.id + repr(d.members) for d in documents]),
    )


@pytest.fixture()
def hr_index(counting_provider: CountingProvider) -> SchemaIndex:
    index = SchemaIndex([hr_source()], provider=counting_provider)
    index.build()
    return index


def test_the_bridge_lists_tables_by_the_name_words_the_question_lacks(
    hr_index: SchemaIndex,
) -> None:
    response = hr_index.search("salaries of the staff in each city")
    bridged = [h for h in response.hits if h.explanation and "bridge" in h.explanation.signals]
    assert bridged, "no hit was listed by the bridge"
    first = bridged[0]
    assert first.explanation is not None
    note = next(n for n in first.explanation.notes if n.startswith("question words"))
    assert "salaries → wage" in note
    # only hybrid searches bridge; keyword mode runs no model at all
    keyword = hr_index.search("salaries of the staff in each city", mode="keyword")
    assert all(h.explanation and "bridge" not in h.explanation.signals for h in keyword.hits)


def test_weight_zero_turns_the_bridge_off_and_builds_no_vocabulary(
    counting_provider: CountingProvider,
) -> None:
    settings = SearchSettings(weights={"bridge": 0.0})
    index = SchemaIndex([hr_source()], provider=counting_provider, settings=settings)
    index.build()
    assert index.stored_vocabulary() is None
    counting_provider.reset()
    response = index.search("salaries of the staff in each city")
    assert all(h.explanation and "bridge" not in h.explanation.signals for h in response.hits)
    assert (counting_provider.embed_calls, counting_provider.query_calls) == (0, 1)


def test_a_warm_start_serves_the_saved_vocabulary_without_embedding_it(
    hr_index: SchemaIndex, onnx_provider: OnnxEmbeddingProvider
) -> None:
    files = {n: memoryview(d) for n, d in hr_index.export_files().items()}
    assert NAME_VOCABULARY in files
    counting = CountingProvider(onnx_provider)
    warm = SchemaIndex(provider=counting)
    warm.restore_files(files)
    assert counting.total_calls == 0
    saved, served = hr_index.stored_vocabulary(), warm.stored_vocabulary()
    assert saved is not None and served is not None and served.words == saved.words
    question = "salaries of the staff in each city"
    assert warm.search(question).ids() == hr_index.search(question).ids()


def test_a_refresh_keeps_the_vocabulary_in_step_with_the_documents(
    hr_index: SchemaIndex, counting_provider: CountingProvider
) -> None:
    changed = [*CATALOG[:3], table("reward", "reward_id", "person_id", "payout")]
    counting_provider.reset()
    hr_index.refresh(hr_source(changed))
    vocabulary = hr_index.stored_vocabulary()
    assert vocabulary is not None
    assert {"reward", "payout"} <= set(vocabulary.words)
    assert not {"bonus", "grant"} & set(vocabulary.words)
    # the new table's document and its two new words: nothing else was embedded
    assert counting_provider.embedded_texts == 1 + 2


def test_a_rebuild_reuses_the_word_vectors(
    hr_index: SchemaIndex, counting_provider: CountingProvider
) -> None:
    counting_provider.reset()
    hr_index.build()
    assert counting_provider.embedded_texts == 0
    assert hr_index.stored_vocabulary() is not None
