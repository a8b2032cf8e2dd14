"""SchemaGraph: neighbours in both directions, skipped edges, bounded undirected paths."""

from __future__ import annotations

from pathlib import Path

from schemaseek.documents import Edge, Relation
from schemaseek.graph import SchemaGraph
from schemaseek.sources.graphql import load_sdl

IDS = ["Query.artist", "Artist", "Album", "Label", "Genre", "Orphan"]
EDGES = [
    Edge("Query.artist", "Artist", Relation.RETURNS),
    Edge("Artist", "Album", Relation.HAS_FIELD, {"field": "albums"}),
    Edge("Album", "Label", Relation.HAS_FIELD, {"field": "label"}),
    Edge("Artist", "Genre", Relation.HAS_FIELD, {"field": "genre"}),
    Edge("Artist", "Artist", Relation.HAS_FIELD),  # self-loop: skipped
    Edge("Artist", "Nowhere", Relation.HAS_FIELD),  # unknown endpoint: skipped
    Edge("Album", "Label", Relation.FOREIGN_KEY, {"columns": ["label_id"]}),
    Edge("Album", "Label", Relation.FOREIGN_KEY, {"columns": ["distributor_id"]}),
]


def _graph() -> SchemaGraph:
    return SchemaGraph(IDS, EDGES)


def test_nodes_and_skipped_edges() -> None:
    graph = _graph()
    assert graph.has("Artist") and "Album" in graph and not graph.has("Nowhere")
    assert len(graph) == graph.node_count == 6
    assert graph.edge_count == 6 and graph.skipped_edges == 2
    assert graph.id_of(graph.index_of("Album")) == "Album"
    assert graph.degree("Artist") == 3 and graph.degree("Orphan") == 0


def test_neighbors_both_directions() -> None:
    graph = _graph()
    assert graph.neighbors("Artist") == [
        ("Album", "hasField", "out"),
        ("Genre", "hasField", "out"),
        ("Query.artist", "returns", "in"),
    ]
    assert graph.neighbors("Label") == [("Album", "foreignKey", "in"), ("Album", "hasField", "in")]
    assert graph.neighbors("Orphan") == []
    assert graph.neighbors("unknown") == []


def test_edges_between_keeps_parallel_edges() -> None:
    graph = _graph()
    keys = sorted(str(e.data.get("columns")) for e in graph.edges_between("Label", "Album"))
    assert keys == ["None", "['distributor_id']", "['label_id']"]
    assert graph.edges_between("Label", "Genre") == []


def test_shortest_path_ignores_direction_and_respects_limit() -> None:
    graph = _graph()
    assert graph.shortest_path("Query.artist", "Label", 3) == [
        "Query.artist", "Artist", "Album", "Label",
    ]  # fmt: skip
    assert graph.shortest_path("Label", "Genre", 3) == ["Label", "Album", "Artist", "Genre"]
    assert graph.shortest_path("Label", "Genre", 2) is None
    assert graph.shortest_path("Artist", "Artist", 0) == ["Artist"]
    assert graph.shortest_path("Artist", "Orphan", 10) is None
    assert graph.shortest_path("Artist", "unknown", 10) is None


def test_graph_from_graphql_source(tmp_path: Path) -> None:
    path = tmp_path / "s.graphql"
    path.write_text(
        "type Query { artist(id: ID!): Artist }\n"
        "type Artist { name: String albums: [Album] }\n"
        "type Album { title: String label: Label }\n"
        "type Label { name: String }\n",
        encoding="utf-8",
    )
    schema = load_sdl(path)
    graph = SchemaGraph([d.id for d in schema.documents], schema.edges)
    assert graph.skipped_edges == 0
    assert ("Artist", "returns", "out") in graph.neighbors("Query.artist")
    assert ("Query.artist", "returns", "in") in graph.neighbors("Artist")
    assert graph.shortest_path("Query.artist", "Label", 3) == [
        "Query.artist", "Artist", "Album", "Label",
    ]  # fmt: skip
