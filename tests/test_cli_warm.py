"""Persistent by default: the second run of a command on an unchanged source starts warm.

Each test runs the real command in a subprocess with a data directory and a vector cache of
its own (both empty), so "embedded" counts what the model really did.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import TextContent

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO.parent / "shared" / "datasets"
QUESTION = "royalty payments for Sony"
# reports onnxruntime's presence when the process ends: keyword mode must never load it
PROBE = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write("
    "'onnxruntime loaded: %s\\n' % ('onnxruntime' in sys.modules)))\n"
    "from schemaseek.cli import main\n"
    "main()\n"
)


def fresh_env(root: Path) -> dict[str, str]:
    return {
        **os.environ,
        "SCHEMASEEK_DATA_DIR": str(root / "data"),
        "SCHEMASEEK_CACHE_DIR": str(root / "cache"),
    }


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def search_json(env: dict[str, str], *args: str) -> dict[str, Any]:
    done = cli(env, "search", QUESTION, "--demo", "--json", *args)
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_second_demo_search_embeds_nothing(tmp_path: Path) -> None:
    env = fresh_env(tmp_path)
    first = search_json(env)
    second = search_json(env)
    assert first["index"]["embedded_documents"] > 100 and first["index"]["warm"] == []
    assert second["index"]["embedded_documents"] == 0
    # the question's vector and the reranked candidates' token vectors come from the store
    assert first["index"]["question_model_calls"] > 0
    assert second["index"]["question_model_calls"] == 0
    assert sorted(second["index"]["warm"]) == ["music_api", "music_db"]
    ranked = [(h["id"], h["score"]) for h in first["results"]]
    assert [(h["id"], h["score"]) for h in second["results"]] == ranked
    assert not second["degraded"]


def test_keyword_mode_loads_no_model_and_embeds_nothing(tmp_path: Path) -> None:
    env = fresh_env(tmp_path)
    done = cli(env, "search", QUESTION, "--demo", "--json", "--mode", "keyword")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["results"] and answer["index"]["embedded_documents"] == 0
    assert "onnxruntime loaded: False" in done.stderr


def test_no_cache_keeps_nothing(tmp_path: Path) -> None:
    env = fresh_env(tmp_path)
    first = search_json(env, "--no-cache")
    assert first["index"]["embedded_documents"] > 100
    # no snapshot, no document vector kept (the model's optimised graph may be)
    assert not (tmp_path / "data").exists() and not (tmp_path / "cache" / "embeddings").exists()


def test_index_then_search_reuses_the_generation(tmp_path: Path) -> None:
    env = fresh_env(tmp_path)
    done = cli(env, "index", "--demo", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["embedded"] > 100 and len(report["sources"]) == 2
    assert search_json(env)["index"]["embedded_documents"] == 0


def mcp_params(env: dict[str, str], sdl: Path) -> StdioServerParameters:
    code = "from schemaseek.cli import main; main()"
    args = ["-c", code, "mcp", "--sdl", str(sdl)]
    return StdioServerParameters(command=sys.executable, args=args, cwd=REPO, env=env)


async def first_answer(params: StdioServerParameters, errlog: Path) -> dict[str, Any]:
    """initialize, then the first search_schema: its answer and the seconds it took."""
    with errlog.open("w") as log:
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            started = time.monotonic()
            result = await session.call_tool(
                "search_schema", {"question": "articles a writer published last week"}
            )
            took = time.monotonic() - started
            assert not result.is_error, result.content
            block = result.content[0]
            assert isinstance(block, TextContent)
            answer: dict[str, Any] = json.loads(block.text)
            return answer | {"took_s": took}


def wait_for(path: Path, text: str, timeout: float) -> None:
    end = time.monotonic() + timeout
    while text not in path.read_text():
        assert time.monotonic() < end, path.read_text()
        time.sleep(0.5)


def test_mcp_answers_while_building_and_a_second_server_starts_warm(tmp_path: Path) -> None:
    sdl = DATASETS / "graphql" / "hashnode.graphql"
    env = fresh_env(tmp_path)
    log = tmp_path / "first.log"
    first = anyio.run(first_answer, mcp_params(env, sdl), log)
    # answered from keyword + glossary while the vectors were embedding, and said so
    assert "still being built" in first.get("degraded", ""), first
    assert first["results"], first
    # the session ended mid-build: the server cancelled its build and exited cleanly
    assert "Traceback" not in log.read_text()

    done = cli(env, "index", "--sdl", str(sdl), "--json")  # finish the vectors
    assert done.returncode == 0, done.stderr
    second = anyio.run(first_answer, mcp_params(env, sdl), tmp_path / "second.log")
    assert "degraded" not in second, second
    wait_for(tmp_path / "second.log", "0 embedded", timeout=60)
