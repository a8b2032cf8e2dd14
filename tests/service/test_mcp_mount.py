"""``/mcp`` on the service: the MCP tools over streamable HTTP (single-source services)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

from tests.service.harness import ServerProcess


def test_mcp_is_served_at_slash_mcp(tmp_path: Path) -> None:
    sdl = resources.files("schemaseek.demo").joinpath("schema.graphql").read_text()
    (tmp_path / "schema.graphql").write_text(sdl)
    config = tmp_path / "schemaseek.toml"
    config.write_text('[[sources]]\nname = "api"\ntype = "graphql"\nsdl = "schema.graphql"\n')
    server = ServerProcess(tmp_path / "data", args=("--config", str(config)))

    async def ask(url: str) -> dict[str, object]:
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = {t.name for t in (await session.list_tools()).tools}
            assert {"search_schema", "describe", "report_usage"} <= tools
            result = await session.call_tool("search_schema", {"question": "royalty payments"})
            content = result.content[0]
            assert isinstance(content, TextContent)
            answer: dict[str, object] = json.loads(content.text)
            return answer

    try:
        server.wait_status("ready", timeout=180)
        answer = anyio.run(ask, f"{server.url}/mcp")
    finally:
        server.stop()
    assert answer["results"]
