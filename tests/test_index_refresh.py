"""Incremental refresh: only changed documents are embedded; a failing refresh changes nothing."""

from __future__ import annotations

import pytest
from graphql import build_schema

from schemaseek.embedding.counting import CountingProvider
from schemaseek.errors import EmbeddingError
from schemaseek.index import SchemaIndex
from schemaseek.sources.graphql import from_schema
from tests.conftest import FlakyProvider

SDL = """
type Query {
  "Look up an artist by id."
  artist(id: ID!): Artist
  "Releases in the catalogue."
  releases: [Release!]!
}
"A performer signed to a label."
type Artist { id: ID! name: String! releases: [Release!]! }
"An album or single."
type Release { id: ID! title: String! artist: Artist! }
"""


def source(sdl: str):  # type: ignore[no-untyped-def]
    return from_schema(build_schema(sdl), "api")


def test_second_build_reuses_every_vector(counting_provider: CountingProvider) -> None:
    index = SchemaIndex([source(SDL)], provider=counting_provider)
    first = index.build()
    assert first.embedded == first.documents > 0
    counting_provider.reset()
    again = index.build()
    assert again.embedded == 0 and counting_provider.embedded_texts == 0


def test_refresh_embeds_only_what_changed(counting_provider: CountingProvider) -> None:
    index = SchemaIndex([source(SDL)], provider=counting_provider)
    index.build()
    before = set(index.documents)
    counting_provider.reset()
    changed_sdl = SDL.replace("title: String!", "title: String!\n  upc: String") + (
        '"A record company."\ntype Label { id: ID! name: String! }\n'
    )
    report = index.refresh(source(changed_sdl))
    after = set(index.documents)
    assert after - before == {"Release.upc", "Label", "Label.id", "Label.name"}
    # Release itself changed (one more member); the four new documents were added
    assert report.added == 4 and report.changed == 1 and report.removed == 0
    assert report.embedded == 5 == counting_provider.embedded_texts
    # the new type is served by both signals at once (it ranks below the root fields: no root
    # field reaches it, so an agent could not query it)
    label = next(h for h in index.search("record company").hits if h.id == "Label")
    assert label.explanation is not None
    assert label.explanation.signals["vector"].rank == 1
    assert label.explanation.signals["keyword"].rank == 1

    counting_provider.reset()
    report = index.refresh(source(SDL))
    assert report.removed == 4 and report.changed == 1 and report.embedded == 1
    assert "Label" not in index.documents


def test_failing_refresh_leaves_the_index_untouched(flaky_provider: FlakyProvider) -> None:
    index = SchemaIndex([source(SDL)], provider=flaky_provider)
    index.build()
    ids = set(index.documents)
    flaky_provider.fail_embed = True
    with pytest.raises(EmbeddingError, match="unchanged"):
        index.refresh(source(SDL + '"New."\ntype Label { id: ID! }\n'))
    assert set(index.documents) == ids
    assert not index.search("performer").degraded
