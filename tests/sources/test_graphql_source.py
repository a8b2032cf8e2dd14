"""GraphQL source: documents, ids, kinds, edges, hash, introspection round trip, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from graphql import build_schema, introspection_from_schema
from hypothesis import given, settings
from hypothesis import strategies as st

from schemaseek.documents import DocKind, Document
from schemaseek.errors import SourceError
from schemaseek.sources.base import SourceSchema
from schemaseek.sources.graphql import MAX_MEMBERS, from_schema, load_introspection, load_sdl

DATASETS = Path("/work/shared/datasets/graphql")

SDL = '''
schema { query: QueryRoot mutation: MutationRoot }

"""Anything with a global id."""
interface Node { id: ID! }

"""A performing music artist."""
type Artist implements Node {
  id: ID!
  "Stage name."
  name: String!
  albums(first: Int = 10, after: String): [Album!]!
  genre: Genre
  legacyCode: String @deprecated(reason: "use id")
  born: Date
  mentor: Artist
}

type Album implements Node {
  id: ID!
  title: String!
  artist: Artist!
  mainArtist: Artist
}

"""Musical style."""
enum Genre { ROCK JAZZ POP }

union SearchResult = Artist | Album

scalar Date

input AlbumInput { title: String! artistId: ID! }

type QueryRoot {
  "Look up one artist."
  artist(id: ID!): Artist
  search(term: String!, limit: Int = 20): [SearchResult!]!
  oldArtists: [Artist] @deprecated(reason: "use search")
}

type MutationRoot { createAlbum(input: AlbumInput!): Album }
'''

REORDERED = '''
type MutationRoot { createAlbum(input: AlbumInput!): Album }
type QueryRoot {
  oldArtists: [Artist] @deprecated(reason: "use search")
  search(limit: Int = 20, term: String!): [SearchResult!]!
  "Look up one artist."
  artist(id: ID!): Artist
}
input AlbumInput { artistId: ID! title: String! }
scalar Date
union SearchResult = Album | Artist
"""Musical style."""
enum Genre { POP JAZZ ROCK }
type Album implements Node { mainArtist: Artist artist: Artist! title: String! id: ID! }
"""A performing music artist."""
type Artist implements Node {
  mentor: Artist
  born: Date
  legacyCode: String @deprecated(reason: "use id")
  genre: Genre
  albums(after: String, first: Int = 10): [Album!]!
  "Stage name."
  name: String!
  id: ID!
}
"""Anything with a global id."""
interface Node { id: ID! }
schema { mutation: MutationRoot query: QueryRoot }
'''


def _write(tmp_path: Path, text: str, name: str = "schema.graphql") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _docs(schema: SourceSchema) -> dict[str, Document]:
    return {d.id: d for d in schema.documents}


def _edges(schema: SourceSchema) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.relation) for e in schema.edges}


@pytest.fixture()
def small(tmp_path: Path) -> SourceSchema:
    return load_sdl(_write(tmp_path, SDL), "music_api")


def test_ids_and_kinds(small: SourceSchema) -> None:
    docs = _docs(small)
    assert small.name == "music_api" and small.kind == "graphql"
    assert all(d.source == "music_api" for d in small.documents)
    roots = {i for i, d in docs.items() if d.kind is DocKind.GRAPHQL_ROOT_FIELD}
    assert roots == {
        "QueryRoot.artist",
        "QueryRoot.search",
        "QueryRoot.oldArtists",
        "MutationRoot.createAlbum",
    }
    types = {i for i, d in docs.items() if d.kind is DocKind.GRAPHQL_TYPE}
    assert types == {
        "Node", "Artist", "Album", "Genre", "SearchResult", "Date", "AlbumInput",
        "QueryRoot", "MutationRoot",
    }  # fmt: skip
    fields = {i for i, d in docs.items() if d.kind is DocKind.GRAPHQL_FIELD}
    assert {"Artist.name", "Album.title", "Node.id", "AlbumInput.artistId"} <= fields
    assert not any(i.startswith(("QueryRoot.", "MutationRoot.")) for i in fields)
    assert "String" not in docs and not any(i.startswith("__") for i in docs)
    assert len(docs) == len(small.documents)
    assert docs["QueryRoot"].data["root_operation"] == "query"


def test_root_field_document(small: SourceSchema) -> None:
    doc = _docs(small)["QueryRoot.artist"]
    assert doc.name == "artist"
    assert doc.description == "Look up one artist."
    # a root field's own text: return type and arguments, not the returned type's fields
    assert doc.members == ("Artist", "id: ID!")
    assert doc.data["return_type"] == "Artist"
    assert doc.data["parent"] == "QueryRoot" and doc.data["operation"] == "query"
    assert doc.data["args"][0]["required"] is True
    search = _docs(small)["QueryRoot.search"]
    assert search.data["args"][1] == {
        "name": "limit", "type": "Int", "required": False, "default": "20", "description": "",
    }  # fmt: skip
    assert search.members[0] == "[SearchResult!]!"
    old = _docs(small)["QueryRoot.oldArtists"]
    assert old.description == "Deprecated: use search"
    assert old.data["deprecated"] is True
    assert _docs(small)["MutationRoot.createAlbum"].data["operation"] == "mutation"


def test_type_and_field_documents(small: SourceSchema) -> None:
    docs = _docs(small)
    artist = docs["Artist"]
    assert artist.description == "A performing music artist."
    assert artist.members[:3] == ("id", "name", "albums")
    assert artist.data["type_kind"] == "object" and artist.data["interfaces"] == ["Node"]
    assert docs["Genre"].members == ("ROCK", "JAZZ", "POP")
    assert docs["SearchResult"].members == ("Artist", "Album")
    assert docs["Date"].data["type_kind"] == "scalar"
    assert docs["AlbumInput"].members == ("title", "artistId")
    albums = docs["Artist.albums"]
    assert albums.name == "albums" and albums.members == (
        "[Album!]!",
        "first: Int",
        "after: String",
    )
    assert albums.data["parent"] == "Artist" and albums.data["named_type"] == "Album"
    legacy = docs["Artist.legacyCode"]
    assert legacy.description == "Deprecated: use id" and legacy.data["deprecated"] is True
    assert docs["Artist.name"].description == "Stage name."
    assert docs["AlbumInput.title"].data["input"] is True


def test_edges(small: SourceSchema) -> None:
    edges = _edges(small)
    assert ("QueryRoot.artist", "Artist", "returns") in edges
    assert ("QueryRoot.search", "SearchResult", "returns") in edges
    assert ("Artist", "Genre", "hasField") in edges
    assert ("Artist", "Date", "hasField") in edges
    assert ("Artist", "Artist.name", "member") in edges
    assert ("Artist.genre", "Genre", "returns") in edges
    assert ("Artist.mentor", "Artist", "returns") in edges
    assert ("Artist", "Node", "implements") in edges
    assert ("SearchResult", "Album", "unionMember") in edges
    assert ("AlbumInput", "AlbumInput.title", "member") in edges
    assert ("QueryRoot", "QueryRoot.artist", "member") not in edges  # root types are no hubs
    assert ("QueryRoot.artist", "Artist", "returns") in edges
    assert not any(s == t for s, t, _ in edges), "no self-loops (Artist.mentor: Artist)"
    assert len(edges) == len(small.edges), "no duplicate edges"
    ids = {d.id for d in small.documents}
    assert all(e.source in ids and e.target in ids for e in small.edges)
    to_artist = [e for e in small.edges if e.source == "Album" and e.target == "Artist"]
    assert len(to_artist) == 1
    assert to_artist[0].data == {"field": "artist", "fields": ["artist", "mainArtist"]}


def test_raw_sdl_and_bounded_members(small: SourceSchema, tmp_path: Path) -> None:
    assert "type Artist implements Node" in small.raw["sdl"]
    args = ", ".join(f"x{i}: Int" for i in range(100))
    wide = f"type Query {{ wide({args}): Wide }}\ntype Wide {{\n"
    wide += "\n".join(f"  f{i}(a{i}: Int): String" for i in range(100)) + "\n}\n"
    docs = _docs(load_sdl(_write(tmp_path, wide, "wide.graphql")))
    assert len(docs["Wide"].members) == MAX_MEMBERS
    assert docs["Wide"].data["member_count"] == 100
    assert len(docs["Query.wide"].members) == MAX_MEMBERS


def test_hash_ignores_order_but_not_content(tmp_path: Path) -> None:
    base = load_sdl(_write(tmp_path, SDL, "a.graphql")).schema_hash
    assert load_sdl(_write(tmp_path, REORDERED, "b.graphql")).schema_hash == base
    added = SDL.replace("  title: String!\n", "  title: String!\n  year: Int\n", 1)
    assert load_sdl(_write(tmp_path, added, "c.graphql")).schema_hash != base
    retyped = SDL.replace("born: Date", "born: String")
    assert load_sdl(_write(tmp_path, retyped, "d.graphql")).schema_hash != base
    new_arg = SDL.replace("artist(id: ID!)", "artist(id: ID!, strict: Boolean)")
    assert load_sdl(_write(tmp_path, new_arg, "e.graphql")).schema_hash != base


BLOCKS = [block.strip() for block in SDL.split("\n\n") if block.strip()]


@settings(max_examples=25, deadline=None)
@given(st.permutations(BLOCKS))
def test_hash_and_ids_survive_any_definition_order(blocks: list[str]) -> None:
    expected = from_schema(build_schema(SDL))
    shuffled = from_schema(build_schema("\n\n".join(blocks)))
    assert shuffled.schema_hash == expected.schema_hash
    assert shuffled.documents == expected.documents
    assert _edges(shuffled) == _edges(expected)


@pytest.mark.parametrize("wrapped", [True, False])
def test_introspection_round_trip(small: SourceSchema, tmp_path: Path, wrapped: bool) -> None:
    result = dict(introspection_from_schema(build_schema(SDL)))
    payload = {"data": result} if wrapped else result
    path = tmp_path / "introspection.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    loaded = load_introspection(path, "music_api")
    assert loaded.documents == small.documents
    assert [d.data for d in loaded.documents] == [d.data for d in small.documents]
    assert _edges(loaded) == _edges(small)
    assert loaded.schema_hash == small.schema_hash


def test_invalid_sdl_names_file_and_position(tmp_path: Path) -> None:
    path = _write(tmp_path, "type Query {\n  a: String\n  b: \n}\n", "broken.graphql")
    with pytest.raises(SourceError, match=r"broken\.graphql.*line 4, column 1"):
        load_sdl(path)
    path = _write(tmp_path, "type Query {\n  a: Missing\n}\n", "unknown.graphql")
    with pytest.raises(SourceError, match=r"unknown\.graphql.*line 2.*Unknown type 'Missing'"):
        load_sdl(path)
    with pytest.raises(SourceError, match=r"nope\.graphql.*not found"):
        load_sdl(tmp_path / "nope.graphql")


def test_invalid_introspection(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"data": {"__schema": ', encoding="utf-8")
    with pytest.raises(SourceError, match=r"bad\.json: invalid JSON at line 1"):
        load_introspection(bad)
    other = tmp_path / "other.json"
    other.write_text('{"data": {"users": []}}', encoding="utf-8")
    with pytest.raises(SourceError, match="not an introspection result"):
        load_introspection(other)
    broken = tmp_path / "broken.json"
    broken.write_text('{"__schema": {"types": [{"name": "X"}]}}', encoding="utf-8")
    with pytest.raises(SourceError, match=r"broken\.json: invalid introspection"):
        load_introspection(broken)


def test_from_schema_default_source() -> None:
    schema = from_schema(build_schema("type Query { hello: String }"))
    assert schema.name == "graphql"
    assert [d.id for d in schema.documents] == ["Query", "Query.hello"]


def test_swapi() -> None:
    swapi = load_sdl(DATASETS / "swapi.graphql", "swapi")
    docs = _docs(swapi)
    kinds = [d.kind for d in swapi.documents]
    assert kinds.count(DocKind.GRAPHQL_ROOT_FIELD) == 13  # root type is called "Root"
    assert kinds.count(DocKind.GRAPHQL_TYPE) == 58 - 5  # minus the built-in scalars
    assert kinds.count(DocKind.GRAPHQL_FIELD) == 243 - 13
    assert docs["Root.allFilms"].data["return_type"] == "FilmsConnection"
    assert docs["Root.person"].members[:3] == ("Person", "id: ID", "personID: ID")
    assert docs["Film"].data["interfaces"] == ["Node"]
    edges = _edges(swapi)
    assert ("Root.allFilms", "FilmsConnection", "returns") in edges
    assert ("Film", "Node", "implements") in edges
    assert ("Film", "Film.title", "member") in edges
    assert ("Film", "FilmCharactersConnection", "hasField") in edges
    assert ("Film.characterConnection", "FilmCharactersConnection", "returns") in edges


def test_github_counts() -> None:
    github = load_sdl(DATASETS / "github.graphql", "github")
    kinds = [d.kind for d in github.documents]
    assert kinds.count(DocKind.GRAPHQL_TYPE) == 1628 - 5
    assert kinds.count(DocKind.GRAPHQL_ROOT_FIELD) == 31 + 247
    assert kinds.count(DocKind.GRAPHQL_FIELD) == 7648 - 31 - 247
    assert all(len(d.members) <= MAX_MEMBERS for d in github.documents)
