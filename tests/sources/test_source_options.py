"""Source options on the command line and in schemaseek.toml; the service-fixture policy."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from schemaseek.cli.options import SourceOptions, resolve
from schemaseek.errors import ConfigError
from schemaseek.project import load_project
from tests.helpers import services


def test_source_flags_are_checked() -> None:
    with pytest.raises(ConfigError, match="--header applies to --graphql-url only"):
        resolve(SourceOptions(database_url="sqlite://", headers=("A: b",)))
    with pytest.raises(ConfigError, match="--allow and --block apply to --database-url"):
        resolve(SourceOptions(graphql_url="http://x/graphql", block=("x",)))
    with pytest.raises(ConfigError, match="--database-url and --graphql-url"):
        resolve(SourceOptions(database_url="sqlite://", graphql_url="http://x/graphql"))


def test_database_url_with_allow_and_block(tmp_path: Path) -> None:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE orders (id INTEGER); CREATE TABLE order_archive (id INTEGER);"
            "CREATE TABLE customer (id INTEGER); CREATE TABLE temp_x (id INTEGER);"
        )
    conn.close()
    options = SourceOptions(
        database_url=f"sqlite:///{path}", allow=("order", "cust"), block=("re:archive",)
    )
    (source,) = resolve(options).sources
    assert {t["id"] for t in source.raw["tables"]} == {"orders", "customer"}


def test_project_sources_gain_url_headers_allow_block(tmp_path: Path) -> None:
    config = tmp_path / "schemaseek.toml"
    config.write_text(
        '[[sources]]\nname = "api"\ntype = "graphql"\nurl = "https://api.example.com/graphql"\n'
        'headers = {Authorization = "env:TOKEN", "X-Team" = "search"}\n'
        '[[sources]]\nname = "wh"\ntype = "sql"\nurl = "sqlite://"\n'
        'allow = ["sales."]\nblock = ["re:_bak$"]\n',
        encoding="utf-8",
    )
    api, wh = load_project(config).sources
    assert api.url == "https://api.example.com/graphql"
    assert api.headers == {"Authorization": "env:TOKEN", "X-Team": "search"}
    assert wh.allow == ("sales.",) and wh.block == ("re:_bak$",)
    config.write_text(
        '[[sources]]\nname = "api"\ntype = "graphql"\nurl = "https://x"\nsdl = "a.graphql"\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match="exactly one of sdl, introspection, url"):
        load_project(config)


def test_missing_services_skip_or_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(services.REQUIRE, raising=False)
    with pytest.raises(pytest.skip.Exception, match="not here"):
        services.unavailable("not here")
    monkeypatch.setenv(services.REQUIRE, "1")
    with pytest.raises(pytest.fail.Exception, match="SCHEMASEEK_REQUIRE_SERVICES=1"):
        services.unavailable("not here")


def _write_project(tmp_path: Path, names: tuple[str, ...], extra: str = "") -> Path:
    (tmp_path / "schema.graphql").write_text("type Query { ping: String }\n", encoding="utf-8")
    blocks = "".join(
        f'[[sources]]\nname = "{name}"\ntype = "graphql"\nsdl = "schema.graphql"\n'
        for name in names
    )
    config = tmp_path / "schemaseek.toml"
    config.write_text(blocks + extra, encoding="utf-8")
    return config


def test_duplicate_source_names_are_rejected_by_every_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from schemaseek.service.sources import plan_sources

    config = _write_project(tmp_path, ("api", "wh", "api"))
    expected = rf"config file {re.escape(str(config))}: duplicate source name 'api'"
    with pytest.raises(ConfigError, match=expected):
        load_project(config)
    with pytest.raises(ConfigError, match=expected):
        resolve(SourceOptions(config=config))
    with pytest.raises(ConfigError, match=expected):
        plan_sources(config=config)
    monkeypatch.chdir(tmp_path)  # ./schemaseek.toml, found without --config
    with pytest.raises(ConfigError, match="duplicate source name 'api'"):
        resolve(SourceOptions())
    with pytest.raises(ConfigError, match="duplicate source name 'api'"):
        plan_sources()
    _write_project(tmp_path, ("a", "b", "a", "b"))
    with pytest.raises(ConfigError, match="duplicate source names 'a', 'b'"):
        load_project(config)


def test_commands_and_service_read_one_file_alike(tmp_path: Path) -> None:
    """The same schemaseek.toml (with [search] and [service]) serves search and serve."""
    from schemaseek.service.sources import plan_sources

    config = _write_project(
        tmp_path, ("api", "billing"), "[search]\nrrf_k = 30\n[service]\nport = 9000\n"
    )
    project = load_project(config)
    assert project.service == {"port": 9000} and project.search == {"rrf_k": 30}
    selection = resolve(SourceOptions(config=config))
    assert [s.name for s in selection.sources] == ["api", "billing"]
    assert selection.settings.rrf_k == 30
    plan = plan_sources(config=config)
    assert [s.name for s in plan.sources] == ["api", "billing"]
    assert (plan.search_table, plan.service_table) == ({"rrf_k": 30}, {"port": 9000})
    fetched = [s.fetch() for s in plan.sources]
    assert [d.id for d in fetched[0].documents] == [d.id for d in selection.sources[0].documents]
    bad = tmp_path / "bad.toml"
    sources = '[[sources]]\nname = "api"\ntype = "graphql"\nsdl = "schema.graphql"\n'
    bad.write_text('service = "not a table"\n' + sources, encoding="utf-8")
    for reader in (load_project, lambda p: plan_sources(config=p)):
        with pytest.raises(ConfigError, match=r"config file .*bad\.toml: service: .*dictionary"):
            reader(bad)
