"""``/mcp`` on the service: the MCP tools over streamable HTTP, over every engine it serves,
behind the same bearer tokens as the RPCs."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

from tests.service.harness import SEARCH_TOKEN, ServerProcess


async def _session_calls(url: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    headers = {"Authorization": f"Bearer {SEARCH_TOKEN}"}
    answers: list[Any] = []
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        answers.append(sorted(t.name for t in (await session.list_tools()).tools))
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            content = result.content[0]
            assert isinstance(content, TextContent)
            answers.append(json.loads(content.text) if not result.is_error else content.text)
    return answers


def test_mcp_serves_every_source_of_the_demo(demo_server: ServerProcess) -> None:
    """The demo service runs two engines (GraphQL API + SQL database); /mcp answers over both."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search_schema", {"question": "royalty payments for Sony"}),
        ("join_path", {"tables": ["royalty_payment", "abacus_contract"]}),
        ("graphql_selection", {"id": "AbacusRoyaltyPayment"}),
        ("describe", {"ids": ["royalty_payment", "AbacusRoyaltyPayment"]}),
    ]
    names, search, join, selection, described = anyio.run(
        _session_calls, f"{demo_server.url}/mcp", calls
    )
    assert names == sorted(
        [
            "coverage_search",
            "describe",
            "graphql_selection",
            "join_path",
            "report_usage",
            "search_schema",
        ]
    )
    assert search["results"][0]["id"] == "Query.abacusContract"
    assert {r["source"] for r in search["results"]} == {"music_api", "music_db"}
    assert any(e["question"] == "royalty payments for Sony" for e in search["examples"])
    assert join["paths"] and " ON " in join["paths"][0]["sql"]
    assert selection["valid"] is True
    assert [i["source"] for i in described["items"]] == ["music_db", "music_api"]


def test_mcp_needs_a_bearer_token_when_tokens_are_configured(demo_server: ServerProcess) -> None:
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    }
    headers = {"accept": "application/json, text/event-stream"}
    missing = httpx.post(f"{demo_server.url}/mcp", json=hello, headers=headers, timeout=10)
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    assert missing.json()["code"] == "unauthenticated"
    wrong = httpx.post(
        f"{demo_server.url}/mcp",
        json=hello,
        headers=headers | {"authorization": "Bearer not-a-token"},
        timeout=10,
    )
    assert wrong.status_code == 401
    right = httpx.post(
        f"{demo_server.url}/mcp",
        json=hello,
        headers=headers | {"authorization": f"Bearer {SEARCH_TOKEN}"},
        timeout=10,
    )
    assert right.status_code == 200
