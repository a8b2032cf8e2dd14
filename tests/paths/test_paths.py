"""Join paths over real foreign keys, GraphQL root paths and validated selection skeletons."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from graphql import build_schema, parse, validate

from schemaseek.documents import Edge, Relation
from schemaseek.graph import SchemaGraph
from schemaseek.index import SchemaIndex
from schemaseek.paths.graphql import root_path, selection_skeleton
from schemaseek.paths.joins import join_paths, relationships
from schemaseek.sources.demo import demo_sources
from schemaseek.sources.graphql import from_schema


@pytest.fixture(scope="module")
def demo() -> SchemaIndex:
    index = SchemaIndex(demo_sources(), provider=None)
    index.build()
    return index


def fk(source: str, target: str, cols: list[str], refs: list[str], inferred: bool = False) -> Edge:
    data = {"columns": cols, "ref_columns": refs, "inferred": inferred, "name": None}
    return Edge(source, target, Relation.FOREIGN_KEY, data)


# -- join paths ------------------------------------------------------------------------------


def test_demo_join_path_has_the_real_on_clause(demo: SchemaIndex) -> None:
    paths = join_paths(demo.graph, ["royalty_payment", "abacus_contract"])
    assert [p.tables for p in paths] == [("royalty_payment", "abacus_contract")]
    assert paths[0].on == ("royalty_payment.contract_id = abacus_contract.contract_id",)
    assert not paths[0].inferred
    assert paths[0].sql() == (
        "FROM royalty_payment JOIN abacus_contract "
        "ON royalty_payment.contract_id = abacus_contract.contract_id"
    )


def test_reverse_traversal_keeps_the_key_direction(demo: SchemaIndex) -> None:
    (path,) = join_paths(demo.graph, ["abacus_contract", "royalty_payment"])
    assert path.tables == ("abacus_contract", "royalty_payment")
    assert path.on == ("royalty_payment.contract_id = abacus_contract.contract_id",)


def test_composite_keys_are_joined_with_and() -> None:
    edges = [fk("line", "head", ["order_id", "tenant"], ["id", "tenant_id"])]
    (path,) = join_paths(edges, ["line", "head"])
    assert path.on == ("line.order_id = head.id AND line.tenant = head.tenant_id",)


def test_two_keys_between_a_pair_are_two_options_at_most_two() -> None:
    edges = [
        fk("fx_rate", "currency", ["quote"], ["code"]),
        fk("fx_rate", "currency", ["base"], ["code"]),
        fk("fx_rate", "currency", ["settle"], ["code"]),
    ]
    paths = join_paths(edges, ["fx_rate", "currency"])
    assert [p.on for p in paths] == [
        ("fx_rate.base = currency.code",),
        ("fx_rate.quote = currency.code",),
    ]


def test_only_shortest_paths_of_at_most_three_edges() -> None:
    chain = [fk(f"t{i}", f"t{i + 1}", ["k"], ["id"]) for i in range(4)]
    assert len(join_paths(chain, ["t0", "t3"])) == 1
    assert join_paths(chain, ["t0", "t4"]) == []
    assert len(join_paths(chain, ["t0", "t4"], max_edges=4)[0].edges) == 4
    shortcut = [*chain, fk("t0", "t2", ["k2"], ["id"])]
    (path,) = join_paths(shortcut, ["t0", "t3"])
    assert path.tables == ("t0", "t2", "t3")


def test_endpoints_are_capped_at_four_and_pairs_follow_the_given_order() -> None:
    star = [fk(f"leaf{i}", "hub", ["hub_id"], ["id"]) for i in range(5)]
    paths = join_paths(star, ["leaf0", "leaf1", "leaf2", "leaf3", "leaf4"])
    pairs = [(p.tables[0], p.tables[-1]) for p in paths]
    assert pairs == [(f"leaf{a}", f"leaf{b}") for a in range(4) for b in range(a + 1, 4)]


def test_no_edge_no_path_and_only_foreign_keys_count() -> None:
    edges = [Edge("a", "b", Relation.RETURNS), Edge("a", "b", Relation.HAS_FIELD, {"field": "x"})]
    assert join_paths(edges, ["a", "b"]) == []
    assert join_paths([], ["a", "b"]) == []


def test_inferred_edges_are_flagged() -> None:
    (path,) = join_paths(
        [fk("orders", "customer", ["customer_id"], ["id"], True)], ["orders", "customer"]
    )
    assert path.inferred and path.to_dict()["inferred"] is True


def test_result_does_not_depend_on_edge_order(demo: SchemaIndex) -> None:
    edges = [e for e in demo.graph.digraph.edges() if e.relation == Relation.FOREIGN_KEY]
    tables = ["royalty_payment", "dsp_partner", "prd_master", "abacus_contract"]
    expected = [p.to_dict() for p in join_paths(edges, tables)]
    for seed in range(3):
        shuffled = list(edges)
        random.Random(seed).shuffle(shuffled)
        assert [p.to_dict() for p in join_paths(shuffled, tables)] == expected
    graph = SchemaGraph(demo.documents, edges)
    assert [p.to_dict() for p in join_paths(graph, tables)] == expected


def test_relationships_list_both_directions(demo: SchemaIndex) -> None:
    rels = {r.tables[1]: r.on[0] for r in relationships(demo.graph, "royalty_payment")}
    assert rels["abacus_contract"] == "royalty_payment.contract_id = abacus_contract.contract_id"
    assert rels["rs_statement"] == "rs_statement.payment_id = royalty_payment.payment_id"


# -- root paths ------------------------------------------------------------------------------


def test_root_path_prefers_ranked_root_fields(demo: SchemaIndex) -> None:
    preferred = root_path(demo, "AbacusRoyaltyPayment", prefer=["Query.abacusContract"])
    assert preferred is not None
    assert preferred.text() == (
        "Query.abacusContract → AbacusContract.royaltyPayments → AbacusRoyaltyPayment"
    )
    assert preferred.steps[0].args == (("id", "ID!"),)
    assert preferred.to_dict()["required_args"] == {"Query.abacusContract": ["id: ID!"]}
    default = root_path(demo, "AbacusRoyaltyPayment")
    assert default is not None and len(default.steps) == 2
    assert default == root_path(demo, "AbacusRoyaltyPayment")  # deterministic
    assert default.steps[0].args == ()  # without preference: fewer required arguments win


def test_root_path_to_fields_roots_and_the_unreachable(demo: SchemaIndex) -> None:
    field = root_path(demo, "Territory.code")
    assert field is not None and field.text() == "Query.territories → Territory.code"
    root = root_path(demo, "Query.abacusContract")
    assert root is not None and root.text() == "Query.abacusContract"
    assert root_path(demo, "Mutation.retryDistributionDelivery") is not None
    for unreachable in ("AbacusContractFilter", "royalty_payment", "Query", "NoSuchType"):
        assert root_path(demo, unreachable) is None


def test_root_path_on_a_bare_graph(demo: SchemaIndex) -> None:
    graphql = next(s for s in demo.sources if s.kind == "graphql")
    graph = SchemaGraph([d.id for d in graphql.documents], graphql.edges)
    path = root_path(graph, "AbacusRoyaltyPayment", prefer=["Query.abacusContract"])
    assert path is not None and path.steps[0].field == "Query.abacusContract"
    assert path.steps[0].args == ()  # no documents: arguments unknown
    with_docs = root_path(
        SchemaGraph([d.id for d in graphql.documents], graphql.edges),
        "AbacusRoyaltyPayment",
        documents={d.id: d for d in graphql.documents},
        prefer=["Query.abacusContract"],
    )
    assert with_docs is not None and with_docs.steps[0].args == (("id", "ID!"),)


# -- selection skeletons ---------------------------------------------------------------------


def test_selection_for_abacus_royalty_payment_validates(demo: SchemaIndex) -> None:
    selection = selection_skeleton(demo, "AbacusRoyaltyPayment", prefer=["Query.abacusContract"])
    assert selection.query is not None, selection.errors
    assert selection.query.startswith(
        "query ($id: ID!) { abacusContract(id: $id) { royaltyPayments {"
    )
    assert "__typename" in selection.query and selection.variables == {"id": "ID!"}
    sdl = next(s for s in demo.sources if s.kind == "graphql").raw["sdl"]
    assert validate(build_schema(sdl), parse(selection.query)) == []


def test_selection_of_a_scalar_field_and_a_mutation(demo: SchemaIndex) -> None:
    scalar = selection_skeleton(demo, "Territory.code")
    assert scalar.query == "query { territories { code } }"
    mutation = selection_skeleton(demo, "Mutation.retryDistributionDelivery")
    assert mutation.query is not None and mutation.query.startswith("mutation ($id: ID!)")


def test_variable_clashes_get_suffixes() -> None:
    schema = build_schema(
        "type Query { org(login: String!): Org }\n"
        "type Org { member(login: String!): User }\n"
        "type User { id: ID! name: String }"
    )
    index = SchemaIndex([from_schema(schema, "api")], provider=None)
    index.build()
    selection = selection_skeleton(index, "User")
    assert selection.variables == {"login": "String!", "login2": "String!"}
    assert selection.query == (
        "query ($login: String!, $login2: String!) "
        "{ org(login: $login) { member(login: $login2) { __typename id name } } }"
    )


def test_selection_returns_errors_instead_of_an_invalid_query() -> None:
    schema = build_schema(
        "type Query { org: Org }\ntype Org { id: ID! repo: Repo }\ntype Repo { id: ID! }"
    )
    source = from_schema(schema, "api")
    stale = build_schema("type Query { org: Org }\ntype Org { id: ID! }")
    source = replace(source, raw={"sdl": "type Query { org: Org }\ntype Org { id: ID! }"})
    assert stale.get_type("Repo") is None
    index = SchemaIndex([source], provider=None)
    index.build()
    selection = selection_skeleton(index, "Repo")
    assert selection.query is None and selection.errors
    assert "repo" in selection.errors[0]
    assert selection.to_dict()["valid"] is False
    missing = selection_skeleton(index, "nothing")
    assert missing.query is None and "not a GraphQL type or field" in missing.errors[0]
