"""The coverage weight: the lexical lists count less when the index lacks the question's words."""

from __future__ import annotations

from schemaseek.config import SearchSettings
from schemaseek.documents import DocKind, Document
from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.index import SchemaIndex
from schemaseek.query.coverage import absent_share
from schemaseek.signals.keyword import KeywordIndex
from schemaseek.signals.name_bridge import NameVocabulary, WordVectors
from tests.signals.test_name_bridge import AxisProvider, hr_source, table

PAYROLL = Document(
    id="hr.payslip",
    kind=DocKind.SQL_TABLE,
    source="hr",
    name="payslip",
    description="one row per monthly payroll run",
    members=("amount integer — a column",),
)


def test_a_word_counts_absent_only_when_no_name_and_no_indexed_text_holds_it() -> None:
    documents = [table("employee", "salary"), table("town"), PAYROLL]
    vocabulary = NameVocabulary.build(documents, WordVectors(AxisProvider()))
    keyword = KeywordIndex()
    keyword.add(documents)
    # content words: payroll, staff, town, region ("the", "each", "of", "in" are stop words).
    # town is a name; payroll is no name but a description holds it; staff and region: absent
    assert absent_share("the payroll of staff in each town region", vocabulary, keyword) == 0.5
    assert absent_share("salary of each employee", vocabulary, keyword) == 0.0
    assert absent_share("of the in", vocabulary, keyword) == 0.0  # no content word
    # no name vocabulary (a GraphQL-only index, or the bridge off): nothing counts absent
    assert absent_share("staff region", None, keyword) == 0.0


CATALOG = [
    table("singer", "singer_id", "name", "country", "age"),
    table("stadium", "stadium_id", "name", "location", "capacity"),
    table("concert", "concert_id", "concert_name", "theme", "stadium_id"),
]


def scores(
    power: float, question: str, mode: str, provider: OnnxEmbeddingProvider
) -> dict[str, float]:
    # no reranker and no source cohesion: the hits keep their fused scores
    settings = SearchSettings(lexical_coverage_power=power, reranker="none", source_cohesion=0.0)
    index = SchemaIndex([hr_source(CATALOG)], provider=provider, settings=settings)
    index.build()
    response = index.search(question, limit=3, mode=mode)  # type: ignore[arg-type]
    return {hit.id: hit.score for hit in response.hits}


def test_hybrid_scores_lose_lexical_weight_as_the_power_rises(
    onnx_provider: OnnxEmbeddingProvider,
) -> None:
    # content words: name, capacity, every, vocalist, zorblax; the last three absent (no stop
    # word, no name, no indexed text): the keyword lists keep (1 - 0.6) ** power of their
    # weight (a hit's score is the max over its cards, so the change is monotone rather than
    # exactly proportional)
    question = "name and capacity of every vocalist zorblax"
    by_power = [scores(p, question, "hybrid", onnx_provider) for p in (0.0, 1.0, 2.0, 10.0)]
    assert all(set(found) == set(by_power[0]) for found in by_power)
    for doc_id in by_power[0]:
        ordered = [found[doc_id] for found in by_power]
        assert ordered == sorted(ordered, reverse=True), doc_id
    stadium = [found["hr.stadium"] for found in by_power]  # name and capacity: lexical
    assert stadium[0] > stadium[1] + 0.05 and stadium[1] > stadium[2] > stadium[3]


def test_covered_questions_and_keyword_mode_are_unchanged(
    onnx_provider: OnnxEmbeddingProvider,
) -> None:
    covered = "name and capacity of the stadium"
    assert scores(0.0, covered, "hybrid", onnx_provider) == scores(
        1.0, covered, "hybrid", onnx_provider
    )
    reworded = "name and capacity of every vocalist zorblax"
    assert scores(0.0, reworded, "keyword", onnx_provider) == scores(
        1.0, reworded, "keyword", onnx_provider
    )
