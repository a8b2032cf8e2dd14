"""The server driven by the MCP SDK's own client over stdio and streamable HTTP.

stdio spawns ``schemaseek mcp --demo`` (the real command, real model, own index); HTTP serves
:func:`schemaseek.mcp.server.http_app` with uvicorn on a free loopback port. Answers are checked
against the engine's Python API and :class:`SchemaTools` in this process.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn
from graphql import build_schema, parse, validate
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from schemaseek.cli.engines import open_engines
from schemaseek.cli.options import SourceOptions
from schemaseek.feedback import FeedbackStore
from schemaseek.index import SchemaIndex
from schemaseek.mcp.coverage import coverage_search
from schemaseek.mcp.served import ServedIndexes
from schemaseek.mcp.server import build_server, http_app
from schemaseek.mcp.tools import SchemaTools

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]

TOOLS = {
    "search_schema",
    "describe",
    "join_path",
    "graphql_selection",
    "coverage_search",
    "report_usage",
}
AGENT_QUESTIONS = [
    "royalty payments for Sony",
    "how are releases distributed?",
    "how many streams did Spotify report last month?",
    "show the earnings statement for Ines Vale for Q4 2023",
    "list the imprints under Harbor Line Records",
]


def payload(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    block = result.content[0]
    assert isinstance(block, TextContent)
    data: dict[str, Any] = json.loads(block.text)
    assert result.structured_content == data
    return data


def stdio_params(*args: str) -> StdioServerParameters:
    """``schemaseek mcp ARGS`` with this session's environment (its data directory: the SDK
    would otherwise pass a minimal one)."""
    code = "from schemaseek.cli import main; main()"
    return StdioServerParameters(
        command=sys.executable, args=["-c", code, "mcp", *args], cwd=REPO, env=dict(os.environ)
    )


def index_demo() -> None:
    """Embed the demo into the data directory first, so that the server answers hybrid from
    its first call (answering while vectors build is tests/test_cli_warm.py's subject)."""
    code = "from schemaseek.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "index", "--demo"], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


async def check_every_tool(
    session: ClientSession, index: SchemaIndex, local: SchemaTools | None = None
) -> str:
    """List tools, call each, compare with the Python API (``local``: the server's tools in
    this process, when they do not answer from ``index`` alone); returns the search's
    query_id."""
    local = local or SchemaTools(index)
    listed = (await session.list_tools()).tools
    assert {t.name for t in listed} == TOOLS
    for tool in listed:
        assert tool.description and len(tool.description) > 80
        assert tool.input_schema["type"] == "object" and tool.input_schema["properties"]

    question = "royalty payments for Sony"
    args = {"question": question, "token_budget": 8000}
    answer = payload(await session.call_tool("search_schema", args))
    assert answer["results"][0]["id"] == "Query.abacusContract"
    expected = local.search_schema(question, token_budget=8000)["results"]
    assert {r["id"] for r in answer["results"]} == {r["id"] for r in expected}
    assert any(e["question"] == question for e in answer["examples"])

    ids = ["AbacusContract", "AbacusContract.royaltyPayments", "royalty_payment"]
    described = payload(await session.call_tool("describe", {"ids": ids}))
    assert described == local.describe(ids)

    tables = ["royalty_payment", "abacus_contract"]
    joined = payload(await session.call_tool("join_path", {"tables": tables}))
    assert joined == local.join_path(tables)
    assert joined["paths"][0]["on"] == ["royalty_payment.contract_id = abacus_contract.contract_id"]

    args = {"id": "AbacusRoyaltyPayment", "query_id": answer["query_id"]}
    selection = payload(await session.call_tool("graphql_selection", args))
    sdl = next(s for s in index.sources if s.kind == "graphql").raw["sdl"]
    assert selection["valid"] and validate(build_schema(sdl), parse(selection["query"])) == []
    assert selection["path"].startswith("Query.abacusContract")

    phrases = ["artist payouts", "streaming partners"]
    covered = payload(await session.call_tool("coverage_search", {"phrases": phrases}))
    expected = coverage_search(local, phrases)
    assert covered["endpoints"] == expected["endpoints"]
    assert [p["anchor"] for p in covered["phrases"]] == [p["anchor"] for p in expected["phrases"]]

    args = {"query_id": answer["query_id"], "ids": ["Query.abacusContract"]}
    usage = payload(await session.call_tool("report_usage", args))
    assert usage["recorded"] == 1 and usage["query_known"]

    refused = await session.call_tool("join_path", {"tables": ["royalty_payment"]})
    assert refused.is_error
    refused = await session.call_tool("coverage_search", {"phrases": ["same", "same"]})
    assert refused.is_error and "distinct" in str(refused.content[0])
    return str(answer["query_id"])


def test_stdio_serves_every_tool(demo_index: SchemaIndex, tmp_path: Path) -> None:
    usage_file = tmp_path / "usage.jsonl"
    errlog_path = tmp_path / "stderr.txt"

    index_demo()
    # the command serves each source from its own engine (as the service does): its ranking
    # is that of the same engines in this process
    engines = open_engines(SourceOptions(demo=True), None)
    engines.start(wait_for_vectors=True)
    local = SchemaTools(ServedIndexes(engines.indexes))

    async def run() -> str:
        params = stdio_params("--demo", "--feedback", str(usage_file))
        with errlog_path.open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await check_every_tool(session, demo_index, local)

    try:
        query_id = anyio.run(run)
    finally:
        engines.close()
    (event,) = FeedbackStore(usage_file).events()
    assert event.query_id == query_id and event.query == "royalty payments for Sony"
    # logs go to stderr: stdout carries the protocol only
    assert "documents from demo ready" in errlog_path.read_text()


def test_scripted_agent_session_needs_fewer_than_five_calls(demo_index: SchemaIndex) -> None:
    sdl = next(s for s in demo_index.sources if s.kind == "graphql").raw["sdl"]
    schema = build_schema(sdl)

    async def session_for(session: ClientSession, question: str) -> int:
        calls = 1
        args = {"question": question, "token_budget": 1500}
        seed = payload(await session.call_tool("search_schema", args))
        assert seed["match"] != "none", question
        graphql = [r["id"] for r in seed["results"] if r["source"] == "music_api"]
        calls += 1
        ids = list(dict.fromkeys([graphql[0], *(r["id"] for r in seed["results"][:3])]))
        described = payload(await session.call_tool("describe", {"ids": ids}))
        assert [i["id"] for i in described["items"]] == ids
        calls += 1
        args = {"id": graphql[0], "query_id": seed["query_id"]}
        selection = payload(await session.call_tool("graphql_selection", args))
        assert selection["valid"], selection
        assert validate(schema, parse(selection["query"])) == []
        return calls

    index_demo()

    async def run() -> list[int]:
        async with (
            stdio_client(stdio_params("--demo")) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return [await session_for(session, q) for q in AGENT_QUESTIONS]

    assert all(calls < 5 for calls in anyio.run(run))


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Run ``app`` with uvicorn on a free loopback port; yields the MCP URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert server.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(20)
        sock.close()


def test_streamable_http_serves_every_tool(demo_index: SchemaIndex) -> None:
    server = build_server(demo_index)

    async def run(url: str) -> str:
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await check_every_tool(session, demo_index)

    with serving(http_app(server)) as url:
        assert len(anyio.run(run, url)) == 32
