"""Live GraphQL introspection against a real server (ariadne + uvicorn) on a local port."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from graphql import parse, print_ast

from schemaseek.embedding.counting import CountingProvider
from schemaseek.errors import ConfigError, SourceError
from schemaseek.index import SchemaIndex
from schemaseek.sources.diff import diff_sources
from schemaseek.sources.graphql import load_sdl
from schemaseek.sources.introspect import load_url, parse_header, resolve_headers
from tests.sources.datasets import datasets_dir
from tests.sources.live_graphql import LiveGraphQL

TOKEN = "tok-Zq81-live-graphql-secret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def swapi_sdl() -> str:
    return (datasets_dir() / "graphql" / "swapi.graphql").read_text(encoding="utf-8")


@pytest.fixture()
def server(swapi_sdl: str) -> Iterator[LiveGraphQL]:
    with LiveGraphQL(swapi_sdl, token=TOKEN) as live:
        yield live


def reordered(sdl: str) -> str:
    """The same schema with every definition, field, value and argument list reversed."""

    def flip(node: Any) -> Any:
        changes = {}
        for attr in ("fields", "values", "types", "interfaces", "arguments"):
            items = getattr(node, attr, None)
            if items:
                changes[attr] = tuple(flip(i) for i in reversed(items))
        return dataclasses.replace(node, **changes) if changes else node

    document = parse(sdl)
    definitions = tuple(flip(d) for d in reversed(document.definitions))
    return print_ast(dataclasses.replace(document, definitions=definitions))


def test_fetch_builds_the_same_documents_as_the_sdl_file(server: LiveGraphQL) -> None:
    live = load_url(server.url(), "swapi", headers=AUTH)
    local = load_sdl(datasets_dir() / "graphql" / "swapi.graphql", "swapi")
    assert live.kind == "graphql" and live.name == "swapi"
    assert {d.id for d in live.documents} == {d.id for d in local.documents}
    assert live.schema_hash == local.schema_hash
    assert {(e.source, e.target, e.relation) for e in live.edges} == {
        (e.source, e.target, e.relation) for e in local.edges
    }
    docs = {d.id: d for d in live.documents}
    assert docs["Root.allFilms"].data["operation"] == "query"
    assert docs["Film"].description and "Film.title" in docs
    assert live.raw["url"] == server.url() and "type Film" in live.raw["sdl"]
    assert server.requests[-1][1]["authorization"] == f"Bearer {TOKEN}"
    assert load_url(server.url(), headers=AUTH).name == "127.0.0.1"  # default: the host


def test_reordered_schema_gives_the_same_hash_and_no_diff(
    server: LiveGraphQL, swapi_sdl: str
) -> None:
    before = load_url(server.url(), "swapi", headers=AUTH)
    server.sdl = reordered(swapi_sdl)
    after = load_url(server.url(), "swapi", headers=AUTH)
    film_before = next(d for d in before.documents if d.id == "Film").members
    film_after = next(d for d in after.documents if d.id == "Film").members
    assert film_after != film_before and sorted(film_after) == sorted(film_before)
    assert after.schema_hash == before.schema_hash
    diff = diff_sources(before, after)
    assert diff.empty and not diff.hash_changed, diff.to_dict()


def test_added_and_removed_field_give_exactly_that_diff(
    server: LiveGraphQL, swapi_sdl: str, counting_provider: CountingProvider
) -> None:
    before = load_url(server.url(), "swapi", headers=AUTH)
    index = SchemaIndex([before], provider=counting_provider)
    assert index.build().embedded == len(before.documents)

    marker = "type Planet implements Node {"
    assert marker in swapi_sdl
    server.sdl = swapi_sdl.replace(marker, marker + '\n  "Number of moons."\n  moonCount: Int')
    added = load_url(server.url(), "swapi", headers=AUTH)
    diff = diff_sources(before, added)
    assert diff.added == ("Planet.moonCount",) and diff.removed == ()
    assert diff.changed == ("Planet",)  # its member list grew
    assert diff.changed_types == ("Planet",) and diff.added_types == ()
    assert diff.added_root_fields == diff.changed_root_fields == diff.removed_root_fields == ()
    assert diff.edges_changed and diff.hash_changed and diff.embed_count == 2
    counting_provider.reset()
    report = index.refresh(added)
    assert report.embedded == 2 == counting_provider.embedded_texts
    assert (report.added, report.changed, report.removed) == (1, 1, 0)

    server.sdl = swapi_sdl
    removed = load_url(server.url(), "swapi", headers=AUTH)
    back = diff_sources(added, removed)
    assert back.removed == ("Planet.moonCount",) and back.added == ()
    assert back.changed == ("Planet",) and back.changed_types == ("Planet",)
    counting_provider.reset()
    assert index.refresh(removed).embedded == 1 == counting_provider.embedded_texts
    assert "Planet.moonCount" not in index.documents


def test_added_root_field_is_named_as_such(server: LiveGraphQL, swapi_sdl: str) -> None:
    before = load_url(server.url(), "swapi", headers=AUTH)
    marker = "type Root {"
    server.sdl = swapi_sdl.replace(marker, marker + "\n  moon(id: ID!): Planet")
    diff = diff_sources(before, load_url(server.url(), "swapi", headers=AUTH))
    assert diff.added == ("Root.moon",) and diff.added_root_fields == ("Root.moon",)
    # Planet's document names the fields it is reached from: Root.moon is one more
    assert diff.changed_types == ("Planet", "Root") and diff.changed_root_fields == ()


def test_server_down_is_a_clear_error_after_retries(server: LiveGraphQL) -> None:
    url = server.url()
    server.__exit__()
    with pytest.raises(SourceError, match=r"failed after 3 attempts: ConnectError") as caught:
        load_url(url, retries=2, backoff=0.001)
    assert url in str(caught.value)


def test_garbage_answers_are_clear_errors(server: LiveGraphQL) -> None:
    cases = {
        "/garbage": r"did not answer JSON \(it starts '<html><body>Bad gateway",
        "/errors": r"answered HTTP 200 with errors: introspection is disabled",
        "/noschema": r"without data.__schema \(is introspection disabled",
        "/nothing": r"answered HTTP 404",
    }
    for path, message in cases.items():
        with pytest.raises(SourceError, match=message):
            load_url(server.url(path), retries=0)
    with pytest.raises(SourceError, match=r"HTTP 401 with errors"):
        load_url(server.url(), retries=0)  # no token


def test_oversize_answers_are_abandoned(server: LiveGraphQL) -> None:
    with pytest.raises(SourceError, match=r"larger than max_bytes=10000 \(\d+ bytes announced"):
        load_url(server.url(), headers=AUTH, max_bytes=10_000)
    with pytest.raises(SourceError, match=r"larger than max_bytes=10000 \(more was sent\)"):
        load_url(server.url("/chunked"), max_bytes=10_000)
    assert len(load_url(server.url("/chunked")).documents) > 100


def test_5xx_is_retried_with_backoff_then_succeeds(server: LiveGraphQL) -> None:
    server.flaky_failures = 2
    start = len(server.requests)
    schema = load_url(server.url("/flaky"), headers=AUTH, backoff=0.001)
    assert len(schema.documents) > 100
    assert len(server.requests) - start == 3 and server.flaky_failures == 0
    server.flaky_failures = 5
    with pytest.raises(SourceError, match=r"failed after 2 attempts: HTTP 503"):
        load_url(server.url("/flaky"), headers=AUTH, retries=1, backoff=0.001)


def test_timeout_is_retried_then_reported(server: LiveGraphQL) -> None:
    server.slow_s = 1.0
    with pytest.raises(SourceError, match=r"failed after 2 attempts: timed out"):
        load_url(server.url("/slow"), timeout=0.2, retries=1, backoff=0.001)


def test_auth_header_from_env_is_sent_and_never_logged(
    server: LiveGraphQL, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("SWAPI_TOKEN", f"Bearer {TOKEN}")
    schema = load_url(
        server.url() + f"?access_token={TOKEN}", headers=["Authorization: env:SWAPI_TOKEN"]
    )
    assert server.requests[-1][1]["authorization"] == f"Bearer {TOKEN}"
    assert "access_token=***" in schema.raw["url"]
    assert caplog.records and TOKEN not in caplog.text
    assert all(TOKEN not in str(v) for v in schema.raw.values())
    with pytest.raises(SourceError) as caught:
        load_url(server.url("/errors") + f"?token={TOKEN}", headers=AUTH, retries=0)
    assert TOKEN not in str(caught.value) and TOKEN not in caplog.text


def test_header_parsing() -> None:
    assert parse_header("X-Api-Key:abc") == ("X-Api-Key", "abc")
    assert parse_header("Authorization: Bearer a:b") == ("Authorization", "Bearer a:b")
    for bad in ("no colon", ": value", "Bad Name: v"):
        with pytest.raises(ConfigError, match="Name: value"):
            parse_header(bad)
    assert resolve_headers({"A": "env:X"}, {"X": "1"}) == {"A": "1"}
    with pytest.raises(ConfigError, match="environment variable MISSING_VAR is not set"):
        resolve_headers(["A: env:MISSING_VAR"], {})
    with pytest.raises(ConfigError, match="http"):
        load_url("ftp://example.com/graphql")
