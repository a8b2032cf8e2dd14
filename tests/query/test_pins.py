"""Exact identifiers stay pinned through every stage: the rerank and join stages of one index,
the merge of a federated search, and its cursor pages; each pin is listed once and no index
embeds the question."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from schemaseek.federation import Page, federated_search, serving
from schemaseek.index import SchemaIndex
from schemaseek.sources.demo import demo_glossary, demo_graphql, demo_sql
from schemaseek.sources.sql import load_sql
from tests.engine.fakes import HashProvider

CHINOOK = """
create table artists (ArtistId integer primary key, Name text);
create table albums (AlbumId integer primary key, Title text,
                     ArtistId integer references artists(ArtistId));
create table tracks (TrackId integer primary key, Name text,
                     AlbumId integer references albums(AlbumId), Composer text);
create table playlist_track (PlaylistId integer, TrackId integer references tracks(TrackId));
create table invoice_items (InvoiceLineId integer primary key,
                            TrackId integer references tracks(TrackId), UnitPrice real);
"""


@pytest.fixture(scope="module")
def chinook(tmp_path_factory: pytest.TempPathFactory) -> SchemaIndex:
    path = tmp_path_factory.mktemp("chinook") / "chinook.db"
    with sqlite3.connect(path) as connection:
        connection.executescript(CHINOOK)
    index = SchemaIndex([load_sql(f"sqlite:///{path}", "chinook")], provider=HashProvider())
    index.build()
    return index


@pytest.fixture(scope="module")
def demo_pair() -> tuple[list[SchemaIndex], HashProvider]:
    """The demo as two indexes sharing one embedding model (one fingerprint)."""
    provider = HashProvider()
    indexes = [
        SchemaIndex([s], glossary=demo_glossary().narrowed_to(s), provider=provider)
        for s in (demo_graphql(), demo_sql())
    ]
    for index in indexes:
        index.build()
    return indexes, provider


@pytest.mark.parametrize("question", ["tracks", "artists", "albums", "invoice_items"])
def test_a_pinned_table_is_first_and_listed_once(chinook: SchemaIndex, question: str) -> None:
    """The join stage used to bring the pinned table back (``tracks, albums, artists,
    tracks``); the reranker runs on the rest and never moves the pin."""
    hits = chinook.search(question, limit=6).hits
    ids = [h.id for h in hits]
    assert ids[0] == question and hits[0].explanation.pinned
    assert ids.count(question) == 1
    assert all(h.score < hits[0].score for h in hits[1:])
    assert chinook.reranker is not None and any(h.explanation.reranked for h in hits[1:])


def test_a_pin_of_one_index_leads_the_federated_page(
    demo_pair: tuple[list[SchemaIndex], HashProvider],
) -> None:
    """``AbacusAdvance`` is an exact id of the API only: it leads the merged page (it was
    second, under a database table) and the database does not embed the question."""
    indexes, provider = demo_pair
    provider.reset()
    answer = federated_search(serving(indexes), "AbacusAdvance", limit=8, page=Page(max_depth=200))
    assert answer.ids()[0] == "AbacusAdvance" and answer.hits[0].hit.explanation.pinned
    assert answer.ids().count("AbacusAdvance") == 1
    assert provider.query_calls == 0


def test_pins_of_two_indexes_come_first_closest_spelling_first(
    demo_pair: tuple[list[SchemaIndex], HashProvider],
) -> None:
    indexes, provider = demo_pair
    provider.reset()
    answer = federated_search(
        serving(indexes), "AbacusContractParty", limit=6, page=Page(max_depth=200)
    )
    assert answer.ids()[:2] == ["AbacusContractParty", "abacus_contract_party"]
    assert [h.hit.explanation.pinned for h in answer.hits[:3]] == [True, True, False]
    assert answer.hits[1].hit.score > answer.hits[2].hit.score
    assert provider.query_calls == 0


def test_pins_stay_first_across_cursor_pages(
    demo_pair: tuple[list[SchemaIndex], HashProvider],
) -> None:
    indexes, _ = demo_pair
    members = serving(indexes)
    whole = federated_search(members, "abacusContract", limit=9, page=Page(max_depth=200))
    pinned = [h.hit.id for h in whole.hits if h.hit.explanation.pinned]
    assert pinned == whole.ids()[: len(pinned)] and len(pinned) == 3
    seen: list[str] = []
    after = None
    for served in range(0, 9, 2):
        page = federated_search(members, "abacusContract", limit=2, page=Page(200, served, after))
        seen += page.ids()
        last = page.hits[-1]
        after = (last.hit.score, last.key)
    assert seen[:9] == whole.ids() and len(set(seen)) == len(seen)


def test_the_pipeline_skips_the_vector_signal_when_another_index_pins(
    demo_pair: tuple[list[SchemaIndex], HashProvider], tmp_path: Path
) -> None:
    indexes, provider = demo_pair
    provider.reset()
    assert indexes[1].pinned("AbacusAdvance") == []
    assert indexes[0].pinned("AbacusAdvance") == ["AbacusAdvance"]
    federated_search(serving(indexes), "AbacusAdvance", limit=3)
    assert provider.query_calls == 0
