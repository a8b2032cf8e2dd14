"""The command line as a user runs it: a real subprocess, JSON output, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

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
    assert "Query.abacusContract" not in ids


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
