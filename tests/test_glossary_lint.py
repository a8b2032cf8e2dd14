"""``schemaseek glossary lint`` and its checks; the service warns only about real typos."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from schemaseek.cli.app import app
from schemaseek.config import SearchSettings
from schemaseek.engine import SourceEngine
from schemaseek.engine.units import EngineUnit
from schemaseek.feedback import FeedbackStore
from schemaseek.glossary import Glossary, parse_glossary
from schemaseek.glossary_lint import lint_glossary, unresolved_references
from schemaseek.service.backend import Backend
from schemaseek.sources.base import SourceSchema
from schemaseek.sources.demo import demo_glossary, demo_sources
from schemaseek.sources.graphql import load_sdl

runner = CliRunner()
DEMO = json.loads(demo_glossary().model_dump_json())

SDL = """
type Query { contract(id: ID!): Contract  contracts(status: String): [Contract!]! }
type Contract { id: ID! title: String payments: [Payment!]! }
type Payment { id: ID! amount: Float }
"""


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> list[SourceSchema]:
    path = tmp_path_factory.mktemp("lint") / "contracts.graphql"
    path.write_text(SDL, encoding="utf-8")
    return [load_sdl(path, "api")]


def entry(**fields: Any) -> dict[str, Any]:
    return {"terms": ["x"], "targets": ["Contract"]} | fields


def codes(glossary: list[dict[str, Any]], schemas: list[SourceSchema], **kw: Any) -> list[str]:
    report = lint_glossary(parse_glossary(glossary), schemas, **kw)
    return [f.code for f in report.findings]


def planted(tmp_path: Path) -> Path:
    data = json.loads(json.dumps(DEMO))
    data["entries"][0]["targets"][0] = "Query.abacusContrakt"
    path = tmp_path / "glossary.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_planted_unknown_target_exits_1_and_suggests_the_right_id(tmp_path: Path) -> None:
    args = ["glossary", "lint", "--demo", "--glossary", str(planted(tmp_path)), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    payload = json.loads(result.stdout)
    errors = [f for f in payload["findings"] if f["level"] == "error"]
    assert [(f["code"], f["ref"]) for f in errors] == [
        ("unknown_reference", "Query.abacusContrakt")
    ]
    assert errors[0]["suggestions"][0] == "Query.abacusContract"
    human = runner.invoke(app, args[:-1])
    assert human.exit_code == 1 and "did you mean" in human.stdout


def test_the_demo_glossary_passes_with_only_true_findings() -> None:
    result = runner.invoke(app, ["glossary", "lint", "--demo", "--json"])
    assert result.exit_code == 0, result.output
    findings = json.loads(result.stdout)["findings"]
    assert not [f for f in findings if f["level"] == "error"]
    # one true warning: 'ISRC' is one edit from 'ISWC', so a question about an ISRC also
    # fires the songwriter entry (the matcher allows one edit in four-letter words)
    assert [(f["code"], f["term"]) for f in findings if f["level"] == "warning"] == [
        ("duplicate_term", "ISRC")
    ]
    assert {f["code"] for f in findings if f["level"] == "info"} == {"overlapping_terms"}


def test_references_in_another_source_are_fine_and_typos_are_not(
    shop: list[SourceSchema],
) -> None:
    assert codes([entry(targets=["Query.contract", "payment"])], shop) == []
    found = codes([entry(targets=["Contrakt"], related=["Nope"])], shop)
    assert found == ["entry_unreachable", "unknown_reference", "unknown_reference"]
    assert unresolved_references(parse_glossary([entry(prefer="Pament")]), shop) == ["Pament"]


def test_duplicate_overlapping_and_silent_terms(shop: list[SourceSchema]) -> None:
    glossary = [
        entry(terms=["contract payments"]),
        entry(terms=["payments"], targets=["Payment"]),
        entry(terms=["Contract Payment"]),  # the same words, stemmed
        entry(terms=["the of"]),  # stop words only
    ]
    found = codes(glossary, shop)
    assert found.count("duplicate_term") == 1
    assert found.count("overlapping_terms") == 2  # "payments" inside entries 0 and 2
    assert found.count("term_never_fires") == 1
    quiet = codes(glossary[:2], shop, questions=["which contract payments are late"])
    assert "term_never_fires" not in quiet
    never = lint_glossary(parse_glossary(glossary[:2]), shop, ["list every contract"])
    assert [(f.code, f.term) for f in never.findings if f.code == "term_never_fires"] == [
        ("term_never_fires", "contract payments"),
        ("term_never_fires", "payments"),
    ]


def test_prefer_chains_and_cycles(shop: list[SourceSchema]) -> None:
    chain = [
        entry(terms=["alpha"], targets=["Query.contract"], prefer="Query.contracts"),
        entry(terms=["beta"], targets=["Query.contracts"], prefer="Contract"),
    ]
    assert codes(chain, shop) == ["prefer_chain"]
    cycle = [*chain, entry(terms=["gamma"], targets=["Contract"], prefer="Query.contract")]
    found = lint_glossary(parse_glossary(cycle), shop).findings
    assert [f.code for f in found] == ["prefer_cycle"]
    assert found[0].level == "error" and "→" in found[0].message


def test_examples_validate_against_the_graphql_schema(shop: list[SourceSchema]) -> None:
    good = {"question": "q", "query": "query ($id: ID!) { contract(id: $id) { title } }"}
    assert codes([entry(examples=[good | {"variables": {"id": "1"}}])], shop) == []
    assert codes([entry(examples=[good])], shop) == ["example_variables"]
    bad = {"question": "q", "query": "{ contract(id: 1) { price } }"}
    report = lint_glossary(parse_glossary([entry(examples=[bad])]), shop)
    assert [f.code for f in report.findings] == ["example_invalid"] and report.failed
    assert "price" in report.findings[0].message
    broken = {"question": "q", "query": "SELECT * FROM contract"}
    assert codes([entry(examples=[broken])], shop) == ["example_invalid"]


def _constant(schema: SourceSchema) -> Callable[[], SourceSchema]:
    return lambda: schema


def _keyword_engine(name: str, fetch: Callable[[], SourceSchema]) -> SourceEngine:
    return SourceEngine(name, fetch, provider=None, settings=SearchSettings())


@pytest.mark.parametrize("plant", [False, True])
def test_the_service_warns_only_about_references_in_no_source(
    plant: bool, caplog: pytest.LogCaptureFixture
) -> None:
    data = json.loads(json.dumps(DEMO))
    if plant:
        data["entries"][0]["related"].append("royalty_paymnt")
    glossary: Glossary = parse_glossary(data)
    units = [EngineUnit(s.name, _constant(s), _keyword_engine, glossary) for s in demo_sources()]
    backend = Backend(
        units, settings=SearchSettings(), glossary=glossary, feedback=FeedbackStore(None)
    )
    with caplog.at_level(logging.WARNING):
        backend.start()
        assert backend.started.wait(60)
    try:
        warned = [r.getMessage() for r in caplog.records if "glossary" in r.getMessage()]
        assert warned == (
            [
                "glossary references found in no source and ignored: royalty_paymnt "
                "(run 'schemaseek glossary lint' for suggestions)"
            ]
            if plant
            else []
        )
    finally:
        assert backend.close(timeout=10.0)
