"""KeywordIndex: BM25 agreement with a reference, field boosts, incremental updates, prefixes."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from schemaseek.documents import DocKind, Document
from schemaseek.errors import ConfigError
from schemaseek.signals.keyword import KeywordIndex, field_tokens
from schemaseek.text import tokenize

K1, B = 1.2, 0.75
DESCRIPTION_ONLY = {"name": 0.0, "description": 1.0, "members": 0.0, "context": 0.0}

DESCRIPTIONS = [
    "Royalty payments owed to artists for each stream",
    "Artists who publish albums and tracks",
    "Albums released by an artist with release dates",
    "Tracks on an album, with duration and genre",
    "Customer invoices with billing address and totals",
    "Invoice lines: one track purchased per line, with unit price",
    "Employees of the store and their managers",
    "Music genres such as rock, jazz and classical",
    "Playlists created by customers, holding tracks",
    "Payment transactions settled against invoices",
    "Contracts signed between labels and artists",
    "Contract terms: royalty rate, advance, territory",
    "Streams of a track by a listener on a date",
    "Listeners and their subscription plan",
    "Subscription plans with monthly price and currency",
    "Currency exchange rates by day",
    "Label companies that own artist contracts",
    "Territories where a contract applies",
    "Advance payments made to artists before royalties",
    "Royalty statements sent to artists every quarter",
    "Media types of tracks: MPEG, AAC, lossless",
    "Customer support tickets and their status",
    "Status history of support tickets",
    "Track ratings given by listeners",
    "Album artwork images and their sizes",
    "Payment methods saved by customers",
    "Refunds issued against invoice payments",
    "Tax rates by country and region",
    "Countries and regions used for tax and territory",
    "Daily stream counts aggregated per track and territory",
]
QUERIES = [
    "royalty payments to artists",
    "invoice",
    "track streams per territory",
    "contract royalty rate",
    "customer payment refunds",
    "tax rate by country",
    "subscription price currency",
    "artist album track genre rating",
]


def _doc(
    doc_id: str,
    name: str = "",
    description: str = "",
    members: tuple[str, ...] = (),
    context: str = "",
) -> Document:
    return Document(
        id=doc_id,
        kind=DocKind.SQL_TABLE,
        source="test",
        name=name,
        description=description,
        members=members,
        context=context,
    )


def _corpus() -> list[Document]:
    return [_doc(f"t{i:02d}", description=text) for i, text in enumerate(DESCRIPTIONS)]


def _reference_bm25(corpus: list[list[str]], query: list[str]) -> list[float]:
    """Okapi BM25 as Lucene/tantivy compute it (idf = ln(1 + (N - n + .5) / (n + .5)))."""
    n_docs = len(corpus)
    avgdl = sum(len(tokens) for tokens in corpus) / n_docs
    df = Counter(term for tokens in corpus for term in set(tokens))
    scores = []
    for tokens in corpus:
        tf = Counter(tokens)
        score = 0.0
        for term in dict.fromkeys(query):
            if tf[term]:
                idf = math.log(1 + (n_docs - df[term] + 0.5) / (df[term] + 0.5))
                norm = K1 * (1 - B + B * len(tokens) / avgdl)
                score += idf * (K1 + 1) * tf[term] / (tf[term] + norm)
        scores.append(score)
    return scores


def _scores(index: KeywordIndex, query: list[str]) -> dict[str, float]:
    return dict(index.search(query, 1000))


def test_bm25_matches_reference_formula_on_one_field() -> None:
    docs = _corpus()
    index = KeywordIndex(DESCRIPTION_ONLY, prefix_min_results=0)
    index.add(docs)
    corpus = [field_tokens(doc)["description"] for doc in docs]
    assert max(len(tokens) for tokens in corpus) <= 40  # tantivy's fieldnorms are exact here
    for text in QUERIES:
        query = tokenize(text)
        expected = _reference_bm25(corpus, query)
        got = _scores(index, query)
        assert set(got) == {doc.id for doc, s in zip(docs, expected, strict=True) if s > 0}
        for doc, score in zip(docs, expected, strict=True):
            if score > 0:
                assert got[doc.id] == pytest.approx(score, rel=1e-3), (text, doc.id)


def test_bm25_matches_rank_bm25_with_lucene_idf() -> None:
    """An independent implementation: rank_bm25's Okapi with its idf swapped for Lucene's."""
    docs = _corpus()
    index = KeywordIndex(DESCRIPTION_ONLY, prefix_min_results=0)
    index.add(docs)
    corpus = [field_tokens(doc)["description"] for doc in docs]
    reference = BM25Okapi(corpus, k1=K1, b=B)
    n_docs = len(corpus)
    reference.idf = {
        term: math.log(1 + (n_docs - n + 0.5) / (n + 0.5))
        for term, n in Counter(t for tokens in corpus for t in set(tokens)).items()
    }
    for text in QUERIES:
        query = list(dict.fromkeys(tokenize(text)))
        expected = reference.get_scores(query)
        got = _scores(index, query)
        for doc, score in zip(docs, expected, strict=True):
            assert got.get(doc.id, 0.0) == pytest.approx(float(score), rel=1e-3, abs=1e-6)


def test_field_weights_multiply_per_field_bm25() -> None:
    docs = [
        _doc(
            f"db.{i}",
            name=f"table{i} {DESCRIPTIONS[i].split()[0]}",
            description=DESCRIPTIONS[i],
            members=tuple(DESCRIPTIONS[(i + 1) % len(DESCRIPTIONS)].split()[:4]),
        )
        for i in range(len(DESCRIPTIONS))
    ]
    weights = {"name": 3.0, "description": 1.5, "members": 1.0, "context": 1.0}
    index = KeywordIndex(weights, prefix_min_results=0)
    index.add(docs)
    tokens = [field_tokens(doc) for doc in docs]
    for text in QUERIES:
        query = tokenize(text)
        expected = [0.0] * len(docs)
        for field, weight in weights.items():
            per_field = _reference_bm25([t[field] for t in tokens], query)
            expected = [e + weight * s for e, s in zip(expected, per_field, strict=True)]
        got = _scores(index, query)
        for doc, score in zip(docs, expected, strict=True):
            assert got.get(doc.id, 0.0) == pytest.approx(score, rel=1e-3, abs=1e-6)


def test_name_beats_description_beats_members() -> None:
    filler = [_doc(f"f{i}", name=f"filler{i}", description="unrelated words") for i in range(10)]
    docs = [
        _doc("in_name", name="invoice", description="money owed", members=("amount", "due")),
        _doc("in_desc", name="billing", description="invoice owed", members=("amount", "due")),
        _doc("in_members", name="ledger", description="money owed", members=("invoice", "due")),
        *filler,
    ]
    index = KeywordIndex()
    index.add(docs)
    assert [doc_id for doc_id, _ in index.search(tokenize("invoice"), 10)] == [
        "in_name",
        "in_desc",
        "in_members",
    ]


def test_name_field_includes_last_id_segments() -> None:
    column = _doc("sql:shop.public.orders.customer_id", name="customer_id")
    assert field_tokens(column)["name"] == ["custom", "id", "order"]
    index = KeywordIndex()
    index.add([column])
    assert [doc_id for doc_id, _ in index.search(tokenize("orders"), 5)] == [column.id]


def test_add_replace_remove() -> None:
    index = KeywordIndex(prefix_min_results=0)
    assert len(index) == 0
    assert index.search(tokenize("artist"), 10) == []
    index.add(_corpus())
    assert len(index) == len(DESCRIPTIONS)
    assert "t00" in index
    assert "nope" not in index
    assert index.search([], 10) == []
    assert index.search(tokenize("artist"), 0) == []

    index.add([_doc("t00", description="Podcast episodes and hosts")])
    assert len(index) == len(DESCRIPTIONS)
    assert "t00" not in dict(index.search(tokenize("royalty stream"), 100))
    assert [d for d, _ in index.search(tokenize("podcast"), 10)] == ["t00"]

    index.add([_doc("new", description="Podcast hosts"), _doc("new", description="Audiobooks")])
    assert [d for d, _ in index.search(tokenize("audiobooks"), 10)] == ["new"]
    assert [d for d, _ in index.search(tokenize("podcast"), 10)] == ["t00"]

    index.remove(["t00", "missing"])
    assert "t00" not in index
    assert len(index) == len(DESCRIPTIONS)
    assert index.search(tokenize("podcast"), 10) == []
    assert "podcast" not in index.expand_prefixes(["podc"])
    index.remove([doc.id for doc in _corpus()] + ["new"])
    assert len(index) == 0
    assert index.search(tokenize("royalty"), 10) == []


def test_replacing_keeps_scores_consistent_with_a_fresh_index() -> None:
    docs = _corpus()
    index = KeywordIndex(DESCRIPTION_ONLY, prefix_min_results=0)
    index.add(docs)
    index.add(docs[:5])  # replaced copies would linger in tantivy's statistics until a merge
    fresh = KeywordIndex(DESCRIPTION_ONLY, prefix_min_results=0)
    fresh.add(docs)
    for text in QUERIES:
        query = tokenize(text)
        got, expected = _scores(index, query), _scores(fresh, query)
        assert got == pytest.approx(expected, rel=1e-6)  # ties may come in another order


def test_prefix_fallback_finds_contract_docs() -> None:
    index = KeywordIndex()
    index.add(_corpus())
    hits = [doc_id for doc_id, _ in index.search(tokenize("contr"), 10)]
    assert set(hits) == {"t10", "t11", "t16", "t17"}  # "contract(s)" documents
    assert "contract" in index.expand_prefixes(["contr"])
    assert index.expand_prefixes(["co"]) == []  # too short to expand

    exact_only = KeywordIndex(prefix_min_results=0)
    exact_only.add(_corpus())
    assert exact_only.search(tokenize("contr"), 10) == []


def test_prefix_fallback_not_used_when_exact_hits_suffice() -> None:
    index = KeywordIndex(prefix_min_results=1)
    index.add(
        [
            _doc("exact", name="cont", description="x"),
            _doc("longer", name="contract", description="y"),
        ]
    )
    assert [d for d, _ in index.search(["cont"], 10)] == ["exact"]
    fallback = KeywordIndex(prefix_min_results=5)
    fallback.add([_doc("exact", name="cont"), _doc("longer", name="contract")])
    assert [d for d, _ in fallback.search(["cont"], 10)] == ["exact", "longer"]


def test_prefix_expansions_are_capped_and_shortest_first() -> None:
    index = KeywordIndex(max_prefix_expansions=3)
    index.add([_doc(f"d{i}", name="pay" + "x" * i) for i in range(1, 10)])
    assert index.expand_prefixes(["pay"]) == ["payx", "payxx", "payxxx"]


def test_invalid_field_weights() -> None:
    with pytest.raises(ConfigError):
        KeywordIndex({"title": 1.0})
    with pytest.raises(ConfigError):
        KeywordIndex({"name": -1.0})


_TEXT = st.text(max_size=60)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    docs=st.lists(st.tuples(st.text(min_size=1, max_size=20), _TEXT, _TEXT), max_size=6),
    query=_TEXT,
    raw_tokens=st.lists(st.text(max_size=10), max_size=5),
)
def test_any_text_round_trips(
    docs: list[tuple[str, str, str]], query: str, raw_tokens: list[str]
) -> None:
    index = KeywordIndex()
    index.add([_doc(i, name=n, description=d, members=(d, n)) for i, n, d in docs])
    ids = {doc_id for doc_id, _, _ in docs}
    assert len(index) == len(ids)
    for tokens in (tokenize(query), raw_tokens):
        hits = index.search(tokens, 10)
        assert {doc_id for doc_id, _ in hits} <= ids
        scores = [score for _, score in hits]
        assert all(math.isfinite(s) and s > 0 for s in scores)
        assert scores == sorted(scores, reverse=True)
    for doc_id, name in {doc_id: name for doc_id, name, _ in docs}.items():
        own = tokenize(name)
        if own:
            assert doc_id in {d for d, _ in index.search(own, 100)}
    index.remove(list(ids)[:2])
    assert len(index) == max(0, len(ids) - 2)
