"""MCP for agents: schema search, details, join paths and GraphQL selections over one index.

``build_server(index)`` returns the MCP server (official ``mcp`` SDK); ``http_app(index)`` an
ASGI app for streamable HTTP at ``/mcp``; :class:`SchemaTools` the same tools as plain Python.
The SDK is imported only when the server is built, so ``SchemaTools`` works without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schemaseek.mcp.tools import SchemaTools, ToolInputError

if TYPE_CHECKING:
    from schemaseek.mcp.server import build_server, http_app, run_stdio

__all__ = ["SchemaTools", "ToolInputError", "build_server", "http_app", "run_stdio"]


def __getattr__(name: str) -> Any:
    if name in ("build_server", "http_app", "run_stdio"):
        from schemaseek.mcp import server

        return getattr(server, name)
    raise AttributeError(f"module 'schemaseek.mcp' has no attribute {name!r}")
