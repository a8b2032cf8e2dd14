"""The MCP tools as plain Python on the demo: acceptance, budgets, confidence, coverage, usage."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphql import build_schema, parse, validate

from schemaseek.embedding.onnx import OnnxEmbeddingProvider
from schemaseek.feedback import FeedbackStore
from schemaseek.index import SchemaIndex
from schemaseek.mcp.budget import TokenCounter, allocate, linear_shares
from schemaseek.mcp.coverage import coverage_search
from schemaseek.mcp.tools import SchemaTools, ToolInputError, entry_order
from schemaseek.sources.demo import demo_glossary, demo_questions, demo_sources
from tests.helpers.recording import RecordingProvider


@pytest.fixture(scope="module")
def tools(demo_index: SchemaIndex) -> SchemaTools:
    return SchemaTools(demo_index)


def demo_sdl(index: SchemaIndex) -> str:
    sdl: str = next(s for s in index.sources if s.kind == "graphql").raw["sdl"]
    return sdl


def test_royalty_question_puts_abacus_contract_first_with_the_curated_example(
    tools: SchemaTools, demo_index: SchemaIndex
) -> None:
    answer = tools.search_schema("royalty payments for Sony")
    assert answer["match"] == "strong"
    assert answer["results"][0]["id"] == "Query.abacusContract"
    assert answer["results"][0]["signature"] == "abacusContract(id: ID!): AbacusContract"
    assert any(e["question"] == "royalty payments for Sony" for e in answer["examples"])
    engine = demo_index.search("royalty payments for Sony", limit=10)
    assert {r["id"] for r in answer["results"]} == set(engine.ids())
    payment = next(r for r in answer["results"] if r["id"] == "AbacusRoyaltyPayment")
    assert payment["path"] == (
        "Query.abacusContract(id: ID!) → AbacusContract.royaltyPayments → AbacusRoyaltyPayment"
    )
    assert {"tables": ["royalty_payment", "abacus_contract"]}.items() <= answer["join_paths"][
        0
    ].items()


def test_entry_order_lifts_root_fields_to_what_they_reach(demo_index: SchemaIndex) -> None:
    tools = SchemaTools(demo_index)
    response = demo_index.search("royalty payments for Sony")
    ordered = entry_order(response.hits, tools.root_paths(response.hits))
    assert ordered[0].id == "Query.abacusContract"
    rest = [h.id for h in response.hits if h.id != "Query.abacusContract"]
    assert [h.id for h in ordered[1:3]] == rest[:2]
    assert sorted(h.id for h in ordered) == sorted(response.ids())


@pytest.mark.parametrize("budget", [300, 500, 800, 1200, 2000, 4000])
def test_answers_fit_the_budget_whole_items_only(tools: SchemaTools, budget: int) -> None:
    for question in demo_questions():
        answer = tools.search_schema(question, token_budget=budget)
        assert tools.counter.count_json(answer) <= budget, question
        if answer["match"] == "none":
            continue
        assert answer["results"], question
        assert all({"id", "kind", "source", "why"} <= r.keys() for r in answer["results"])
        assert len(answer["results"]) <= 10


def test_a_long_question_still_fits_the_smallest_budget(tools: SchemaTools) -> None:
    question = "royalty payments for Sony " + "and their contracts " * 90
    answer = tools.search_schema(question, token_budget=300)
    assert tools.counter.count_json(answer) <= 300
    assert answer["match"] == "strong" and answer["query_id"]


def test_top_results_get_more_detail_than_lower_ones(tools: SchemaTools) -> None:
    answer = tools.search_schema("how are releases distributed?", token_budget=1200)
    results = answer["results"]
    assert answer["truncated"] > 0
    assert len(str(results[0])) > len(str(results[-1]))
    rich = tools.search_schema("how are releases distributed?", token_budget=20_000)
    assert rich["truncated"] == 0 and rich["omitted"] == 0
    product = next(r for r in rich["results"] if r["id"] == "Product")
    assert product["fields_total"] == len(product["fields"]) == 14


def test_budget_is_used_not_wasted(tools: SchemaTools) -> None:
    answer = tools.search_schema("royalty payments for Sony", token_budget=1000)
    used = tools.counter.count_json(answer)
    assert 900 <= used <= 1000


def test_nonsense_is_not_presented_as_an_answer(tools: SchemaTools) -> None:
    answer = tools.search_schema("purple elephant tax on moonlight")
    assert answer["match"] == "none"
    assert "results" not in answer and "No schema item matches" in answer["message"]
    assert len(answer["closest_not_answers"]) == 3


def test_too_small_a_budget_or_bad_input_is_rejected(tools: SchemaTools) -> None:
    with pytest.raises(ToolInputError):
        tools.search_schema("royalties", token_budget=100)
    with pytest.raises(ToolInputError):
        tools.search_schema("   ")
    with pytest.raises(ToolInputError, match="music_api"):
        tools.search_schema("royalties", sources=["warehouse"])
    with pytest.raises(ToolInputError):
        tools.search_schema("royalties", kinds=["sql_view"])


def test_describe_renders_sdl_signatures_and_ddl(tools: SchemaTools) -> None:
    out = tools.describe(
        ["AbacusContract", "AbacusContract.royaltyPayments", "royalty_payment", "x"]
    )
    texts = {item["id"]: item["text"] for item in out["items"]}
    assert "type AbacusContract {" in texts["AbacusContract"]
    assert "  royaltyPayments(since: Date): [AbacusRoyaltyPayment!]!" in texts["AbacusContract"]
    assert texts["AbacusContract.royaltyPayments"].splitlines()[1] == (
        "AbacusContract.royaltyPayments(since: Date): [AbacusRoyaltyPayment!]!"
    )
    ddl = texts["royalty_payment"]
    assert "CREATE TABLE royalty_payment (" in ddl and "PRIMARY KEY (payment_id)" in ddl
    assert "FOREIGN KEY (contract_id) REFERENCES abacus_contract (contract_id)" in ddl
    assert "-- Contract that generated the payment." in ddl
    assert out["unknown"] == ["x"]
    deep = tools.describe(["AbacusContract"], depth=2)["items"][0]["text"]
    assert "type AbacusRoyaltyPayment {" in deep


def test_join_path_and_no_path(tools: SchemaTools) -> None:
    out = tools.join_path(["royalty_payment", "abacus_contract"])
    assert out["paths"][0]["on"] == ["royalty_payment.contract_id = abacus_contract.contract_id"]
    assert "no_path" not in out
    apart = tools.join_path(["royalty_payment", "musical_work"])
    assert apart["paths"] == [] and apart["no_path"] == ["royalty_payment ↔ musical_work"]
    with pytest.raises(ToolInputError):
        tools.join_path(["royalty_payment", "AbacusContract"])
    with pytest.raises(ToolInputError):
        tools.join_path(["royalty_payment"])


def test_graphql_selection_validates_and_follows_the_search(
    tools: SchemaTools, demo_index: SchemaIndex
) -> None:
    plain = tools.graphql_selection("AbacusRoyaltyPayment")
    assert (
        plain["valid"] and validate(build_schema(demo_sdl(demo_index)), parse(plain["query"])) == []
    )
    query_id = tools.search_schema("royalty payments for Sony")["query_id"]
    followed = tools.graphql_selection("AbacusRoyaltyPayment", query_id)
    assert followed["path"].startswith("Query.abacusContract →")
    assert validate(build_schema(demo_sdl(demo_index)), parse(followed["query"])) == []
    assert tools.graphql_selection("royalty_payment")["valid"] is False


def test_report_usage_stores_the_question_and_teaches_the_ranking(
    onnx_provider: OnnxEmbeddingProvider, tmp_path: Path
) -> None:
    index = SchemaIndex(demo_sources(), glossary=demo_glossary(), provider=onnx_provider)
    index.build()  # a private index: what it learns must not reach the shared one
    store = FeedbackStore(tmp_path / "usage.jsonl")
    tools = SchemaTools(index, store)
    question = "which payouts went to the label"
    before = index.search(question, limit=20).ids()
    query_id = tools.search_schema(question, limit=20)["query_id"]
    out = tools.report_usage(query_id, ["record_label", "nope"])
    assert out == {
        "recorded": 1,
        "query_id": query_id,
        "query_known": True,
        "learned": True,
        "unknown": ["nope"],
    }
    again = index.search(question, limit=20)
    assert again.ids().index("record_label") < before.index("record_label")
    assert "feedback" in again.hits[again.ids().index("record_label")].explanation.signals
    (event,) = FeedbackStore(tmp_path / "usage.jsonl").events()
    assert event.query == question
    assert event.selected_ids == ("record_label",)
    with pytest.raises(ToolInputError):
        tools.report_usage(query_id, ["nope"])


def test_coverage_search_embeds_uncached_phrases_in_one_batch(
    onnx_provider: OnnxEmbeddingProvider,
) -> None:
    counting = RecordingProvider(onnx_provider)
    index = SchemaIndex(demo_sources(), glossary=demo_glossary(), provider=counting)
    index.build()
    tools = SchemaTools(index)
    index.search("artist payouts")  # now cached: left out of the batch
    counting.reset()
    out = coverage_search(tools, ["artist payouts", "streaming partners", "release catalog"])
    # the two new phrases in one batch, no question embedded again (the only queries are the
    # name bridge's words of phrases the SQL names lack)
    assert counting.batches == [["streaming partners", "release catalog"]]
    assert counting.question_queries() == []
    assert out["embedding"] == {"batched": 2, "cached": 1, "vectors": True}
    anchors = [p["anchor"]["id"] for p in out["phrases"]]
    assert len(set(anchors)) == 3
    assert [p["phrase"] for p in out["phrases"]] == [
        "artist payouts",
        "streaming partners",
        "release catalog",
    ]
    assert 1 <= len(out["endpoints"]) <= 4
    assert all(p["on"] for p in out["join_paths"])
    assert set(out["endpoints"]) <= set(out["next_ids"])
    counting.reset()
    coverage_search(tools, ["artist payouts", "streaming partners"])
    assert counting.total_calls == 0


@pytest.mark.parametrize(
    "phrases",
    [["one"], ["a", "b", "c", "d"], ["same", "Same"], ["ok", ""], ["ok", "x" * 513]],
)
def test_coverage_search_rejects_bad_phrases(tools: SchemaTools, phrases: list[str]) -> None:
    with pytest.raises(ToolInputError):
        coverage_search(tools, phrases)


def test_linear_allocation() -> None:
    assert linear_shares(4, 100) == [40, 30, 20, 10]
    assert linear_shares(0, 100) == []
    costs = [[100, 40, 10], [100, 40, 10], [100, 40, 10], [100, 40, 10]]
    tight = allocate(costs, 45)
    assert tight.chosen == (2, 2, 2, 2)
    roomy = allocate(costs, 300)
    assert roomy.chosen == (0, 0, 1, 1) and roomy.used == 280
    leftover = allocate(costs, 230)  # shares a lower item leaves flow up to the top one
    assert leftover.chosen == (0, 1, 1, 1) and leftover.used == 220
    starved = allocate(costs, 25)
    assert starved.chosen == (2, 2, None, None) and starved.omitted == 2


def test_token_counter_is_conservative_on_json() -> None:
    counter = TokenCounter()
    text = '{"id":"AbacusRoyaltyPayment","kind":"graphql_type"}'
    assert counter.count(text) >= len(text) / 4
    assert TokenCounter(use_tokenizer=False).count(text) == -(-len(text) // 4)
    assert counter.name.startswith("max(")


def test_without_vectors_words_in_common_are_weak_not_none(demo_index: SchemaIndex) -> None:
    # keyword + glossary only (vectors unavailable or still being built): no cosine to judge
    # by, so a question sharing a word with a hit is a weak match, not "nothing here"
    keyword_only = SchemaIndex(demo_index.sources, glossary=demo_index.glossary, provider=None)
    keyword_only.build()
    tools = SchemaTools(keyword_only)
    answer = tools.search_schema("money owed to the drummer")
    assert answer["degraded"] and answer["evidence"]["cosine"] is None
    assert 0 < answer["evidence"]["word_coverage"] < 0.5
    assert answer["match"] == "weak" and answer["results"]
    assert tools.search_schema("how tall is mount everest")["match"] == "none"
