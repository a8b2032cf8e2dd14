"""No secret leaves a source: a database password and a GraphQL auth header, configured on the
command line and in schemaseek.toml, never appear in logs (DEBUG), output, --json or errors."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy

from schemaseek.cli.app import main
from tests.sources.datasets import datasets_dir
from tests.sources.live_graphql import LiveGraphQL

pytestmark = pytest.mark.services

PASSWORD = "Pw-7f3c1b9e-secret"
TOKEN = "ghp_Z9x8c7v6b5n4m3-token"


@pytest.fixture()
def graphql_server() -> Iterator[LiveGraphQL]:
    sdl = (datasets_dir() / "graphql" / "swapi.graphql").read_text(encoding="utf-8")
    with LiveGraphQL(sdl, token=TOKEN) as live:
        yield live


@pytest.fixture()
def secret_url(postgres_database: str) -> str:
    engine = sqlalchemy.create_engine(postgres_database)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "CREATE TABLE orders (order_id integer primary key, customer_name text, "
            "total numeric(10, 2)); COMMENT ON TABLE orders IS 'Customer orders.'"
        )
    engine.dispose()
    url = sqlalchemy.make_url(postgres_database).set(password=PASSWORD)  # trust auth ignores it
    return url.render_as_string(hide_password=False)


#: what the commands wrote on stderr (progress lines, errors): checked for secrets too
STDERR: list[str] = []


def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    """Run the command line; returns stdout (one JSON object with --json)."""
    monkeypatch.setattr(sys, "argv", ["schemaseek", *args])
    try:
        main()
    except SystemExit as exc:
        assert exc.code in (0, 2, None)
    captured = capsys.readouterr()
    STDERR.append(captured.err)
    return captured.out


def test_secrets_never_leak(
    secret_url: str,
    graphql_server: LiveGraphQL,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    STDERR.clear()
    monkeypatch.setenv("SS_GRAPHQL_TOKEN", f"Bearer {TOKEN}")
    monkeypatch.chdir(tmp_path)
    header = "Authorization: env:SS_GRAPHQL_TOKEN"
    outputs = []

    text = cli(capsys, monkeypatch, "index", "--database-url", secret_url, "--json")
    assert json.loads(text)["documents"] >= 3
    outputs.append(text)
    text = cli(capsys, monkeypatch, "search", "customer orders", "--database-url", secret_url,
               "--allow", "public.", "--json")  # fmt: skip
    assert json.loads(text)["results"][0]["id"] == "public.orders"
    outputs.append(text)
    text = cli(capsys, monkeypatch, "search", "films", "--graphql-url", graphql_server.url(),
               "--header", header, "--json")  # fmt: skip
    assert json.loads(text)["results"]
    assert graphql_server.requests[-1][1]["authorization"] == f"Bearer {TOKEN}"
    outputs.append(text)

    config = tmp_path / "schemaseek.toml"
    config.write_text(
        f'[[sources]]\nname = "db"\ntype = "sql"\nurl = "{secret_url}"\nblock = ["re:^x"]\n'
        f'[[sources]]\nname = "api"\ntype = "graphql"\nurl = "{graphql_server.url()}"\n'
        'headers = {Authorization = "env:SS_GRAPHQL_TOKEN"}\n',
        encoding="utf-8",
    )
    text = cli(capsys, monkeypatch, "index", "--json")  # ./schemaseek.toml
    assert json.loads(text)["sources"] == ["db", "api"]
    outputs.append(text)
    text = cli(capsys, monkeypatch, "search", "planet", "--json")
    outputs.append(text)

    # failures: unreachable database, rejected token, endpoint down
    down = sqlalchemy.make_url(secret_url).set(port=1).render_as_string(hide_password=False)
    text = cli(capsys, monkeypatch, "index", "--database-url", down, "--json")
    assert json.loads(text)["error"]["type"] == "SourceError" and ":***@" in text
    outputs.append(text)
    monkeypatch.setenv("SS_GRAPHQL_TOKEN", f"Bearer {TOKEN}-wrong")
    text = cli(capsys, monkeypatch, "index", "--graphql-url", graphql_server.url(),
               "--header", header, "--json")  # fmt: skip
    assert "HTTP 401" in json.loads(text)["error"]["message"]
    outputs.append(text)
    text = cli(capsys, monkeypatch, "index", "--graphql-url",
               f"http://u:{PASSWORD}@127.0.0.1:1/graphql?token={TOKEN}", "--json")  # fmt: skip
    assert "failed after" in json.loads(text)["error"]["message"]
    outputs.append(text)

    everything = "\n".join(outputs + STDERR) + caplog.text
    assert any(r.name.startswith(("httpx", "httpcore")) for r in caplog.records)
    for secret in (PASSWORD, TOKEN):
        assert secret not in everything
        assert secret not in "\n".join(str(r.args) for r in caplog.records)
