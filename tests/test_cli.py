"""The command line as a user runs it: a real subprocess, JSON output, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

RUN = [sys.executable, "-c", "from schemaseek.cli import main; main()"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RUN, *args], capture_output=True, text=True, timeout=300)


def test_search_json_on_the_demo() -> None:
    done = cli("search", "royalty payments for Sony", "--demo", "--json",
               "--kind", "graphql_root_field", "--limit", "3")  # fmt: skip
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["results"][0]["id"] == "Query.abacusContract"
    assert payload["mode"] == "hybrid" and payload["degraded"] is False
    assert payload["examples"]
    assert payload["results"][0]["path"]["path"] == "Query.abacusContract"
    assert {"id", "kind", "source", "score", "explanation", "related"} <= set(payload["results"][0])


def test_keyword_mode_without_glossary_shows_the_gap() -> None:
    done = cli("search", "royalty payments for Sony", "--demo", "--json", "--no-glossary",
               "--mode", "keyword", "--kind", "graphql_root_field", "--limit", "3")  # fmt: skip
    assert done.returncode == 0, done.stderr
    ids = [r["id"] for r in json.loads(done.stdout)["results"]]
    assert ids[0] != "Query.abacusContract"  # 'payments' alone leads elsewhere first


def test_index_summary_json() -> None:
    done = cli("index", "--demo", "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["documents"] > 100 and payload["degraded"] is False


def test_bad_input_gives_one_json_error_and_exit_code_2() -> None:
    done = cli("search", "x", "--demo", "--mode", "fuzzy", "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["message"].startswith("--mode must be one of")
    assert cli("no-such-command").returncode == 2
    missing = cli("search", "x", "--sdl", "/nonexistent/schema.graphql")
    assert missing.returncode == 2


def test_every_command_has_an_example_in_its_help() -> None:
    for command in ("search", "index", "demo", "eval", "mcp", "serve"):
        done = cli(command, "--help")
        assert done.returncode == 0, (command, done.stderr)
        assert "Example" in done.stdout or "example" in done.stdout, command


DUPLICATE_SOURCES = """
[[sources]]
name = "api"
type = "graphql"
sdl = "schema.graphql"

[[sources]]
name = "api"
type = "graphql"
sdl = "schema.graphql"

[service]
port = 0
"""


def test_every_command_rejects_duplicate_source_names(tmp_path: Path) -> None:
    """One loader reads schemaseek.toml for every command: each fails the same way, before
    building an index or opening a port."""
    (tmp_path / "schema.graphql").write_text("type Query { ping: String }\n", encoding="utf-8")
    config = tmp_path / "schemaseek.toml"
    config.write_text(DUPLICATE_SOURCES, encoding="utf-8")
    env = {**os.environ, "COLUMNS": "500"}
    commands = {
        "search": ["search", "ping", "--config", str(config), "--json"],
        "index": ["index", "--config", str(config), "--json"],
        "mcp": ["mcp", "--config", str(config)],
        "serve": ["serve", "--config", str(config), "--port", "0"],
        "index (./schemaseek.toml)": ["index", "--json"],
    }
    for label, args in commands.items():
        done = subprocess.run(
            [*RUN, *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2, (label, done.stdout, done.stderr)
        if "--json" in args:
            message = json.loads(done.stdout)["error"]["message"]
        else:
            message = " ".join(done.stderr.split())
        assert "duplicate source name 'api'" in message, (label, message)
        assert "schemaseek.toml" in message, (label, message)
