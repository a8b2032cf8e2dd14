"""No secret leaks: a secret is planted in every configurable place (a user and password in
the embedding URL, the API key, a GraphQL auth header, a database password, the bearer tokens,
the cursor secret), the service runs every RPC family and its failure paths, and everything it
wrote (log, snapshot manifests and files, usage and glossary files) and answered is searched
for each secret."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import sqlalchemy

from tests.helpers.services import postgres_database, postgres_url  # noqa: F401 (fixtures)
from tests.service.fuzzing import frame
from tests.service.harness import ADMIN, SEARCH, ServerProcess

SECRETS = {
    "url_password": "urlpass-0f3c9a",
    "api_key": "sk-apikey-77d2be",
    "header": "gqlheader-5a1e44",
    "db_password": "dbpass-c41d0e",
    "admin_token": "admintoken-9b8e21",
    "search_token": "searchtoken-3d7f60",
    "cursor_secret": "cursorsecret-2f6a11bb",
}
DIMENSIONS = 16


class _Embeddings(BaseHTTPRequestHandler):
    """An OpenAI-compatible ``/v1/embeddings`` endpoint (and a broken GraphQL endpoint) that
    remembers the credentials it was sent."""

    seen: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
        _Embeddings.seen.append(self.headers.get("authorization", ""))
        if not self.path.endswith("/embeddings"):
            self._reply(500, {"error": "no GraphQL here"})
            return
        if any("fail now" in text for text in body["input"]):
            self._reply(500, {"error": "upstream trouble"})
            return
        data = []
        for i, text in enumerate(body["input"]):
            digest = hashlib.sha256(text.encode()).digest()
            vector = [b / 255.0 + 0.01 for b in digest[:DIMENSIONS]]
            data.append({"index": i, "embedding": vector})
        self._reply(200, {"data": data})

    def _reply(self, status: int, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture()
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _database(url: str) -> str:
    engine = sqlalchemy.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "CREATE TABLE royalty_payment (id integer PRIMARY KEY, amount numeric, paid_on date)"
        )
        conn.exec_driver_sql("CREATE TABLE artist (id integer PRIMARY KEY, name text)")
    engine.dispose()
    parsed = sqlalchemy.make_url(url).set(password=SECRETS["db_password"])
    return parsed.render_as_string(hide_password=False)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _config(root: Path, database_url: str, endpoint: str) -> Path:
    path = root / "schemaseek.toml"
    path.write_text(
        f"""
[[sources]]
name = "warehouse"
type = "sql"
url = "{database_url}"

[[sources]]
name = "api"
type = "graphql"
url = "http://{endpoint}/graphql?token=querytoken"
headers = {{Authorization = "Bearer {SECRETS["header"]}"}}
""",
        encoding="utf-8",
    )
    return path


def _events(server: ServerProcess, token: str) -> list[dict[str, Any]]:
    headers = {"content-type": "application/connect+json", "authorization": f"Bearer {token}",
               "connect-timeout-ms": "1500"}  # fmt: skip
    reply = server.http.post(
        ADMIN + "StreamEvents", content=frame(b'{"replay": true}'), headers=headers
    )
    out, data = [], reply.content
    while len(data) >= 5:
        size = int.from_bytes(data[1:5], "big")
        out.append(json.loads(data[5 : 5 + size]))
        data = data[5 + size :]
    return out


def test_no_secret_surfaces_anywhere(
    tmp_path: Path,
    postgres_database: str,  # noqa: F811
    endpoint: str,
) -> None:
    admin, search = SECRETS["admin_token"], SECRETS["search_token"]
    env = {
        "SCHEMASEEK_EMBEDDING_PROVIDER": "openai",
        "SCHEMASEEK_EMBEDDING_MODEL": "fake-embedder",
        "SCHEMASEEK_EMBEDDING_DIMENSIONS": str(DIMENSIONS),
        "SCHEMASEEK_EMBEDDING_BASE_URL": f"http://svc:{SECRETS['url_password']}@{endpoint}/v1",
        "OPENAI_API_KEY": SECRETS["api_key"],
        "SCHEMASEEK_CURSOR_SECRET": SECRETS["cursor_secret"],
        "SCHEMASEEK_TOKENS": f"ops:admin:{_sha(admin)},app:search:{_sha(search)}",
        "SCHEMASEEK_SNAPSHOT_DIR": str(tmp_path / "snaps"),
        "SCHEMASEEK_LOG_LEVEL": "debug",
        "SCHEMASEEK_POLL": "false",
    }
    config = _config(tmp_path, _database(postgres_database), endpoint)
    server = ServerProcess(tmp_path / "data", env=env, args=("--config", str(config)))
    answers: list[str] = []

    def call(path: str, body: dict[str, Any], token: str = admin) -> dict[str, Any]:
        reply = server.rpc(path, body, token)
        answers.append(f"{reply.status_code} {dict(reply.headers)} {reply.text}")
        parsed: dict[str, Any] = reply.json()
        return parsed

    try:
        server.wait_status("degraded", timeout=180)  # the GraphQL source cannot be read
        server.wait_engine("warehouse", "ready")  # and the warehouse's vectors are built
        first = call(SEARCH + "Search", {"query": "royalty payments", "limit": 1}, search)
        assert first["results"][0]["id"].endswith("royalty_payment")
        call(SEARCH + "Search", {"query": "royalty payments", "limit": 1,
                                 "cursor": first["nextCursor"]}, search)  # fmt: skip
        call(SEARCH + "Search", {"query": "fail now please"}, search)  # a failing embedding
        call(SEARCH + "GetSchema", {"source": "warehouse"}, search)
        call(SEARCH + "Search", {"query": "x"}, "wrong-token")
        for method in ("GetConfig", "GetEngines", "ListSnapshots", "GetGlossary", "GetGraph"):
            call(ADMIN + method, {})
        call(ADMIN + "RefreshEngine", {"source": "warehouse"})
        call(ADMIN + "RefreshEngine", {"source": "api"})
        call(ADMIN + "TraceQuery", {"search": {"query": "artist names"}})
        answers.append(json.dumps(_events(server, admin)))
        answers += [server.http.get(p).text for p in ("/metrics", "/health/ready")]
        config_values = call(ADMIN + "GetConfig", {})["values"]
        assert config_values["search.embedding_base_url"].startswith("http://svc:***@")
        assert config_values["cursor_secret"] == "***"
    finally:
        server.stop()
    # the credentials still reach the embedding endpoint (basic auth, then the API key)
    basic = "Basic " + base64.b64encode(f"svc:{SECRETS['url_password']}".encode()).decode()
    assert basic in _Embeddings.seen or f"Bearer {SECRETS['api_key']}" in _Embeddings.seen
    written = [server.log()] + [
        path.read_bytes().decode("utf-8", "replace")
        for root in (tmp_path / "data", tmp_path / "snaps")
        for path in root.rglob("*")
        if path.is_file()
    ]
    assert list((tmp_path / "snaps").rglob("manifest.json")), "no generation was written"
    everything = "\n".join(written + answers)
    leaked = [name for name, secret in SECRETS.items() if secret in everything]
    assert leaked == [], leaked
    assert "querytoken" not in everything
