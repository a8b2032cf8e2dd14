"""Admin RPCs do real work: glossary updates, traces, config, snapshots, events, refresh;
usage reports survive a restart."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx

from tests.service.conftest import warm_copy
from tests.service.harness import ADMIN, ADMIN_TOKEN, SEARCH, SEARCH_TOKEN, TOKENS, ServerProcess

NEW_TERM = "zebra ledger"


def _server(warm: Path, root: Path) -> ServerProcess:
    return ServerProcess(
        root / "data",
        env={
            "SCHEMASEEK_SNAPSHOT_DIR": str(warm_copy(warm, root / "snaps")),
            "SCHEMASEEK_TOKENS": TOKENS,
        },
    )


def _ok(reply: httpx.Response) -> dict[str, Any]:
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    return body


def test_glossary_update_rollback_trace_config_and_events(
    warm_snapshots: Path, tmp_path: Path
) -> None:
    server = _server(warm_snapshots, tmp_path)
    events: list[dict[str, Any]] = []

    def listen() -> None:
        headers = {
            "content-type": "application/connect+json",
            "authorization": f"Bearer {ADMIN_TOKEN}",
        }
        body = json.dumps({"replay": True}).encode()
        frame = b"\x00" + len(body).to_bytes(4, "big") + body
        with (
            httpx.Client(base_url=server.url, timeout=60) as client,
            client.stream("POST", ADMIN + "StreamEvents", content=frame, headers=headers) as r,
        ):
            buffer = b""
            for chunk in r.iter_bytes():
                buffer += chunk
                while len(buffer) >= 5 and len(buffer) >= 5 + int.from_bytes(buffer[1:5], "big"):
                    size = int.from_bytes(buffer[1:5], "big")
                    flags, payload, buffer = buffer[0], buffer[5 : 5 + size], buffer[5 + size :]
                    if flags & 2:
                        return
                    events.append(json.loads(payload))

    try:
        server.wait_status("ready")
        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        before = _ok(server.rpc(SEARCH + "Search", {"query": NEW_TERM, "explain": True}))
        assert before["results"][0]["id"] != "rs_statement"

        glossary = json.loads(_ok(server.rpc(ADMIN + "GetGlossary", {}))["glossaryJson"])
        glossary["entries"].append(
            {"terms": [NEW_TERM], "targets": ["rs_statement"], "context": "Zebra ledgers."}
        )
        bad = server.rpc(ADMIN + "UpdateGlossary", {"glossaryJson": '{"entries": [{}]}'})
        assert bad.status_code == 400 and bad.json()["code"] == "invalid_argument"
        update = _ok(server.rpc(ADMIN + "UpdateGlossary", {"glossaryJson": json.dumps(glossary)}))
        assert update["applied"] and update["entries"] == len(glossary["entries"])
        after = _ok(server.rpc(SEARCH + "Search", {"query": NEW_TERM, "explain": True}))
        top = after["results"][0]
        assert top["id"] == "rs_statement" and NEW_TERM in top["explanation"]["glossaryTerms"]
        persisted = json.loads((tmp_path / "data" / "glossary.json").read_text())
        assert persisted["entries"][-1]["terms"] == [NEW_TERM]

        # (not "royalty payments": an exact name of a field, which pins it, so no engine embeds)
        question = {"search": {"query": "royalty payments for Sony"}}
        trace = _ok(server.rpc(ADMIN + "TraceQuery", question))
        names = {s["name"] for s in trace["spans"]}
        assert {"pipeline", "keyword.search", "embed_query", "vector.search", "paths"} <= names
        assert trace["response"]["results"] and trace["totalMs"] > 0

        config = _ok(server.rpc(ADMIN + "GetConfig", {}))
        assert config["values"]["cursor_secret"] == "***"
        assert "***" in config["values"]["tokens"] and "cursor_secret" in config["redacted"]
        assert "tests-cursor-secret" not in json.dumps(config)

        snaps = _ok(server.rpc(ADMIN + "ListSnapshots", {"source": "music_db"}))["snapshots"]
        assert len(snaps) >= 2 and snaps[0]["serving"]
        old = snaps[-1]["generation"]
        rolled = _ok(
            server.rpc(ADMIN + "RollbackSnapshot", {"source": "music_db", "generation": old})
        )
        assert rolled["rolledBackFrom"] == old and rolled["generation"] not in (old, "")
        engines = _ok(server.rpc(ADMIN + "GetEngines", {}))["engines"]
        serving = {e["source"]: e.get("generation") for e in engines}
        assert serving["music_db"] == rolled["generation"]
        refreshed = _ok(server.rpc(ADMIN + "RefreshEngine", {"source": "music_api"}))
        assert refreshed["reports"][0]["source"] == "music_api"
        graph = _ok(server.rpc(ADMIN + "GetGraph", {"source": "music_db", "maxNodes": 50}))
        assert len(graph["nodes"]) == 50 and graph["truncated"]
    finally:
        server.stop()
    types = {e.get("type") for e in events}
    assert {"glossary_updated", "refresh_finished", "snapshot_rolled_back"} <= types, types


def test_usage_reports_survive_a_restart(warm_snapshots: Path, tmp_path: Path) -> None:
    server = _server(warm_snapshots, tmp_path)
    try:
        server.wait_status("ready")
        answer = _ok(server.rpc(SEARCH + "Search", {"query": "royalty payments"}, SEARCH_TOKEN))
        report = _ok(
            server.rpc(
                SEARCH + "ReportUsage",
                {"queryId": answer["queryId"], "selectedIds": ["royalty_payment", "nope"]},
                SEARCH_TOKEN,
            )
        )
        assert report["recorded"] and report["unknownIds"] == ["nope"] and report["learned"]
    finally:
        server.stop()
    lines = (tmp_path / "data" / "usage.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["selected_ids"] == ["royalty_payment"]
    again = ServerProcess(
        tmp_path / "data",
        env={"SCHEMASEEK_SNAPSHOT_DIR": str(tmp_path / "snaps"), "SCHEMASEEK_TOKENS": TOKENS},
    )
    try:
        again.wait_status("ready")
        engines = _ok(again.rpc(ADMIN + "GetEngines", {}))
        assert int(engines["feedbackEvents"]) == 1
    finally:
        again.stop()
