"""The search page's data: deep-link parameters, signal bars, paths, selections, joins."""

from __future__ import annotations

from schemaseek.config import SearchSettings
from schemaseek.federation import Served
from schemaseek.web.views import SearchParams, search_view


def test_parameters_parse_and_link_back() -> None:
    params = SearchParams.parse(
        {
            "q": [" royalty payments "],
            "sources": ["music_api,music_db", "music_api"],
            "kinds": ["graphql_root_field", "bogus"],
            "mode": ["sideways"],
            "limit": ["500"],
        }
    )
    assert params == SearchParams(
        "royalty payments", ("music_api", "music_db"), ("graphql_root_field",), "hybrid", 50
    )
    assert params.link() == (
        "/?q=royalty+payments&sources=music_api%2Cmusic_db&kinds=graphql_root_field&limit=50"
    )
    assert SearchParams.parse({"limit": ["-3"]}).limit == 10
    assert SearchParams.parse({}) == SearchParams()


def test_a_search_shows_why_and_what_to_paste(members: list[Served]) -> None:
    settings = SearchSettings()
    view = search_view(members, settings, SearchParams("royalty payments for Sony", mode="keyword"))
    assert view.results and not view.error
    shares = [bar.share for r in view.results for bar in r.bars]
    assert max(shares) == 1.0 and min(shares) > 0
    first = view.results[0]
    assert [b.share for b in first.bars] == sorted((b.share for b in first.bars), reverse=True)
    top = next(r for r in view.results if r.hit.id == "Query.abacusContract")
    assert top.path == "Query.abacusContract" and top.required_args == ["id: ID!"]
    assert top.paste_kind == "GraphQL" and top.paste and "abacusContract(id: $id)" in top.paste
    table = next(r for r in view.results if r.hit.id == "royalty_payment")
    assert table.paste_kind == "SQL" and table.paste is not None
    assert table.paste.startswith("SELECT royalty_payment.payment_id")
    assert view.joins and all(sql.startswith("FROM ") for _path, sql in view.joins)
    assert all(path.on for path, _sql in view.joins)


def test_filters_and_an_empty_question(members: list[Served]) -> None:
    settings = SearchSettings()
    only = search_view(
        members, settings, SearchParams("royalty", sources=("music_db",), mode="keyword")
    )
    assert {r.hit.document.source for r in only.results} == {"music_db"}
    assert search_view(members, settings, SearchParams()).results == []
