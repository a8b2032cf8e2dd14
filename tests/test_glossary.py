"""Glossary: file format errors, fuzzy and word-bounded matching, weights, prefer, examples."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from schemaseek.errors import GlossaryError
from schemaseek.glossary import Glossary, load_glossary, parse_glossary
from schemaseek.signals.glossary import GlossaryMatcher

IDS = ["Query.abacusContract", "AbacusPaymentTerm", "Query.contractById", "Artist", "Query.art"]
NAMES = {
    "Query.abacusContract": "abacusContract",
    "AbacusPaymentTerm": "AbacusPaymentTerm",
    "Query.contractById": "contractById",
    "Artist": "Artist",
    "Query.art": "art",
}


def matcher(entries: list[dict[str, object]]) -> GlossaryMatcher:
    return GlossaryMatcher(parse_glossary({"entries": entries}), IDS, NAMES)


def test_missing_file_is_empty_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        glossary = load_glossary(tmp_path / "nope.json")
    assert len(glossary) == 0
    assert len([r for r in caplog.records if "not found" in r.getMessage()]) == 1


def test_malformed_files_name_the_problem(tmp_path: Path) -> None:
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json")
    with pytest.raises(GlossaryError, match=r"bad\.json.*not JSON"):
        load_glossary(bad_json)
    no_terms = tmp_path / "no_terms.json"
    no_terms.write_text(json.dumps({"entries": [{"targets": ["x"]}]}))
    with pytest.raises(GlossaryError, match=r"entries\.0\.terms"):
        load_glossary(no_terms)
    bad_priority = tmp_path / "prio.json"
    bad_priority.write_text(json.dumps({"entries": [{"terms": ["a"], "priority": -1}]}))
    with pytest.raises(GlossaryError, match="priority"):
        load_glossary(bad_priority)


def test_named_priorities_from_the_first_generation_format() -> None:
    g = parse_glossary({"entries": [{"terms": ["x"], "priority": "primary"}]})
    assert g.entries[0].priority == pytest.approx(1.1)


def test_targets_resolve_by_id_or_name_and_missing_are_reported() -> None:
    m = matcher([{"terms": ["royalties"], "targets": ["abacusContract", "NoSuchThing"]}])
    assert m.missing == ["NoSuchThing"]
    assert m.rank(m.match("royalties")) == [("Query.abacusContract", 1.0)]


def test_target_weight_related_weight_and_priority() -> None:
    m = matcher(
        [
            {
                "terms": ["royalty payments"],
                "targets": ["Query.abacusContract"],
                "related": ["AbacusPaymentTerm"],
                "priority": 2,
            }
        ]
    )
    assert dict(m.rank(m.match("show royalty payments for Sony"))) == {
        "Query.abacusContract": 2.0,
        "AbacusPaymentTerm": 1.0,
    }


def test_priority_zero_gives_no_boost_but_still_matches() -> None:
    m = matcher([{"terms": ["royalties"], "targets": ["Query.abacusContract"], "priority": 0}])
    matches = m.match("royalties")
    assert matches and m.rank(matches) == []


def test_word_boundaries_short_tokens_and_fuzzy_limits() -> None:
    m = matcher(
        [
            {"terms": ["art"], "targets": ["Query.art"]},
            {"terms": ["royalties"], "targets": ["Query.abacusContract"]},
            {"terms": ["rate"], "targets": ["AbacusPaymentTerm"]},
        ]
    )
    # "art" does not fire inside "artist" (word boundary), nor fuzzily ("cart" is one edit
    # away but short tokens get no fuzzy matching)
    assert m.match("artist royalties")[0].term == "royalties"
    assert [x.term for x in m.match("cart")] == []
    assert [x.term for x in m.match("arts")] == ["art"]  # same stem is not fuzzy
    # fuzzy: two typos in a long word still match, flagged as fuzzy
    fuzzy = m.match("roylaties")
    assert [x.term for x in fuzzy] == ["royalties"] and fuzzy[0].fuzzy
    # one edit allowed for a four-letter word, but "date" vs "rate" is a real different word
    # within one edit: the limit is per length, so this documents the boundary honestly
    assert [x.term for x in m.match("rates")] == ["rate"]
    assert m.match("ratification") == []


def test_multi_word_terms_need_consecutive_words() -> None:
    m = matcher([{"terms": ["payment terms"], "targets": ["AbacusPaymentTerm"]}])
    assert m.match("what are the payment terms") != []
    assert m.match("terms of the payment") == []


def test_prefer_redirects_boost_and_annotates_the_deprecated_target() -> None:
    m = matcher(
        [
            {
                "terms": ["contract by id"],
                "targets": ["Query.contractById"],
                "prefer": "Query.abacusContract",
            }
        ]
    )
    matches = m.match("contract by id")
    assert m.rank(matches) == [("Query.abacusContract", 1.0)]
    assert m.prefer_for("Query.contractById", matches) == "Query.abacusContract"
    assert m.prefer_for("Query.abacusContract", matches) is None


def test_examples_and_expansion_tokens_and_context() -> None:
    m = matcher(
        [
            {
                "terms": ["royalties"],
                "targets": ["Query.abacusContract"],
                "related": ["AbacusPaymentTerm"],
                "context": "Royalty contracts.",
                "examples": [{"question": "q", "query": "{ abacusContract(id: 1) { id } }"}],
            }
        ]
    )
    matches = m.match("royalties")
    assert str(m.examples(matches)[0]["query"]).startswith("{ abacusContract")
    assert {"abacus", "contract", "payment", "term"} <= set(m.expansion_tokens(matches))
    assert m.contexts() == {
        "Query.abacusContract": ["Royalty contracts."],
        "AbacusPaymentTerm": ["Royalty contracts."],
    }


def test_empty_glossary_matches_nothing() -> None:
    m = GlossaryMatcher(Glossary(), IDS, NAMES)
    assert m.match("royalties") == []


def test_narrowed_to_keeps_one_sources_references() -> None:
    from schemaseek.sources.demo import demo_glossary, demo_graphql, demo_sql

    glossary, api, db = demo_glossary(), demo_graphql(), demo_sql()
    narrowed = glossary.narrowed_to(api)
    ids = {d.id for d in api.documents} | {d.name.lower() for d in api.documents}
    assert narrowed.entries and len(narrowed) <= len(glossary)
    for entry in narrowed.entries:
        assert entry.targets or entry.related
        assert all(r in ids or r.lower() in ids for r in (*entry.targets, *entry.related))
        assert entry.prefer is None or entry.prefer in ids or entry.prefer.lower() in ids
    tables = {r for e in glossary.narrowed_to(db).entries for r in (*e.targets, *e.related)}
    assert tables and tables <= {d.id for d in db.documents} | {d.name for d in db.documents}
    assert Glossary().narrowed_to(api) == Glossary()


def test_env_placeholders_resolve_per_environment(caplog: pytest.LogCaptureFixture) -> None:
    glossary = parse_glossary(
        {
            "entries": [
                {
                    "terms": ["artists"],
                    "targets": ["FACTS.{{env}}.DIM_ARTIST"],
                    "related": ["FACTS.{{ env }}.FACT_STREAM"],
                    "context": "Artists of {{env}}.",
                    "examples": [
                        {"question": "artists?", "query": "SELECT * FROM FACTS.{{env}}.DIM_ARTIST"}
                    ],
                }
            ]
        }
    )
    prod = glossary.resolved({"env": "PROD"}).entries[0]
    assert prod.targets == ("FACTS.PROD.DIM_ARTIST",)
    assert prod.related == ("FACTS.PROD.FACT_STREAM",)
    assert prod.context == "Artists of PROD."
    assert prod.examples[0].query == "SELECT * FROM FACTS.PROD.DIM_ARTIST"
    assert glossary.resolved({"env": "DEV"}).entries[0].targets == ("FACTS.DEV.DIM_ARTIST",)
    with caplog.at_level("WARNING"):
        unresolved = glossary.resolved({})
    assert unresolved.entries[0].targets == ("FACTS.{{env}}.DIM_ARTIST",)
    assert "{{env}}" in caplog.text
